package io.rdmagate.vfs.lock;

import java.util.Arrays;

/**
 * Who holds a lock. Two owners are the same when their keys are equal; the other fields describe
 * the owner to a protocol that reports a conflicting holder (NLM4 TEST returns caller name, svid
 * and owner handle).
 *
 * @param key     identity, unique across protocols (e.g. "nlm:host:svid:oh" or "smb:open:key")
 * @param client  the client the owner belongs to (NLM caller name, SMB session/client guid)
 * @param pid     process id on the client (NLM svid), 0 if none
 * @param opaque  the protocol's own owner bytes (NLM oh), may be empty
 */
public record LockOwner(String key, String client, int pid, byte[] opaque) {

    public LockOwner {
        opaque = opaque.clone();
    }

    @Override
    public byte[] opaque() {
        return opaque.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockOwner l && l.key.equals(key);
    }

    @Override
    public int hashCode() {
        return key.hashCode();
    }

    @Override
    public String toString() {
        return "LockOwner[" + key + " client=" + client + " pid=" + pid + " opaque=" + Arrays.toString(opaque) + "]";
    }
}
