package org.openxet.protocol.shard;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** The shard parser takes untrusted bodies: a ShardFormatException (a 400) or a shard, never another exception. */
class ShardParserFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void shards(byte[] body) {
        try {
            ShardParser.parse(body);
        } catch (ShardFormatException refused) {
            // a 400 with a JSON body
        }
    }
}
