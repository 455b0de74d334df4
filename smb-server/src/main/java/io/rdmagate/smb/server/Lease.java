package io.rdmagate.smb.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One lease (MS-SMB2 3.3.1.4): the caching state a client's lease key holds on one file, shared by
 * every open made with that key. Guarded by the {@link OpenTable}'s monitor.
 */
final class Lease {
    /** Client GUID and lease key, the lease table's key. */
    final String id;
    final byte[] key;
    final FileState file;
    final int version;
    byte[] parentKey;
    int state;
    int epoch;
    boolean breaking;
    int breakTo;
    CompletableFuture<Void> breakDone;
    long breakDeadline;
    final List<Open> opens = new ArrayList<>(1);

    Lease(String id, byte[] key, FileState file, int version, byte[] parentKey, int epoch) {
        this.id = id;
        this.key = key;
        this.file = file;
        this.version = version;
        this.parentKey = parentKey;
        this.epoch = epoch;
    }

}
