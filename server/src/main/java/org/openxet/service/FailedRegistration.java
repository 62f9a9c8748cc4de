package org.openxet.service;

import org.openxet.storage.Bucket;
import org.openxet.storage.IndexException;

import java.io.IOException;

/**
 * After an index registration failed, removes the object stored for it: unregistered, it would stay until the next
 * unclean-stop recovery, and registrations fail precisely when the disk is full. Unless the index holds it after all
 * (a commit can land and still report an error, an fsync failing after it was written); when even that cannot be
 * read, the object stays: an orphan costs disk, a registered entry without its object is lost data. In a
 * {@linkplain Bucket#shared() shared} bucket the object always stays: keys are content addressed, so another node
 * may have stored the same object and be about to register it, which this node's locks cannot see.
 */
final class FailedRegistration {
    private FailedRegistration() {
    }

    /** Whether the index holds the entry. */
    interface Registered {
        boolean check() throws IndexException;
    }

    /** Deletes {@code key} unless {@code registered} says otherwise; every secondary failure is added to {@code failure}. */
    static void removeObject(Bucket bucket, String key, Registered registered, Throwable failure) {
        if (bucket.shared()) {
            return;
        }
        boolean keep;
        try {
            keep = registered.check();
        } catch (IndexException | RuntimeException e) {
            failure.addSuppressed(e);
            keep = true;
        }
        if (!keep) {
            try {
                bucket.delete(key);
            } catch (IOException e) {
                failure.addSuppressed(e);
            }
        }
    }
}
