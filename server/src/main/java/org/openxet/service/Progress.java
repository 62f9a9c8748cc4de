package org.openxet.service;

/**
 * What a long maintenance job (fsck, repair, index rebuild) is doing, for a progress display: a stage and how many
 * items it has (-1: not known before), then one call per item (and its bytes, when read).
 */
public interface Progress {
    void stage(String name, long items);

    void item(long bytesRead);

    Progress NONE = new Progress() {
        @Override
        public void stage(String name, long items) {
        }

        @Override
        public void item(long bytesRead) {
        }
    };
}
