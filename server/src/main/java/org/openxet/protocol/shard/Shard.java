package org.openxet.protocol.shard;

import java.util.List;
import java.util.Objects;

/**
 * A parsed shard (§4): header, files, xorb blocks and the footer, {@code null} when the header announces none (an
 * hf_xet upload, §4.6). Lookup tables are not kept: they are a pure function of the sections (§4.4), rebuilt by
 * {@link ShardWriter} and checked by {@link ShardParser}.
 */
public record Shard(ShardHeader header, List<FileEntry> files, List<XorbBlock> xorbs, ShardFooter footer) {
    public Shard {
        Objects.requireNonNull(header, "header");
        files = List.copyOf(files);
        xorbs = List.copyOf(xorbs);
        if (header.hasFooter() != (footer != null)) {
            throw new IllegalArgumentException("footer must be present exactly when header.footerSize is not 0");
        }
    }

    /** Byte offset of the xorb section: header, every file record, the file bookend (§4.2, §4.3). */
    public long xorbInfoOffset() {
        long records = 1;
        for (FileEntry f : files) {
            records += f.recordCount();
        }
        return ShardHeader.SIZE + records * ShardParser.RECORD;
    }

    /** Byte offset just past the xorb bookend: where lookup tables or the footer start (§4.5 file_lookup_offset). */
    public long xorbSectionEnd() {
        long records = 1;
        for (XorbBlock x : xorbs) {
            records += x.recordCount();
        }
        return xorbInfoOffset() + records * ShardParser.RECORD;
    }

    public long totalChunks() {
        long n = 0;
        for (XorbBlock x : xorbs) {
            n += x.chunks().size();
        }
        return n;
    }
}
