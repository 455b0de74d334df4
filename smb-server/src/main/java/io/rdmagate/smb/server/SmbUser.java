package io.rdmagate.smb.server;

import io.rdmagate.vfs.Caller;

/** An account sessions authenticate as: its name, POSIX identity and NT hash (MS-NLMP 3.3.1). */
public record SmbUser(String name, int uid, int gid, byte[] ntHash) {
    public SmbUser {
        ntHash = ntHash.clone();
    }

    @Override
    public byte[] ntHash() {
        return ntHash.clone();
    }

    public Caller caller() {
        return new Caller(uid, gid, new int[0]);
    }
}
