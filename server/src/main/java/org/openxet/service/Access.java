package org.openxet.service;

/** What a token allows (§8): write implies read. */
public enum Access {
    READ, WRITE;

    public boolean allows(Access needed) {
        return this == WRITE || needed == READ;
    }

    public String claim() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
