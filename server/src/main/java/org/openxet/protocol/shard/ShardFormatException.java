package org.openxet.protocol.shard;

import org.openxet.protocol.FormatException;

/** A shard body that breaks a rule of §4 (structure, counts, footer) or §6.1 (upload validation). */
public final class ShardFormatException extends FormatException {
    public ShardFormatException(String message) {
        super(message);
    }
}
