package io.rdmagate.smb.server;

import io.rdmagate.vfs.FileHandle;

/** One tree connect (MS-SMB2 3.3.1.9): a disk share with its root handle, or IPC$. */
public final class TreeConnect {
    final int id;
    final SmbShare share;
    final FileHandle root;
    final boolean ipc;
    final int maximalAccess;

    TreeConnect(int id, SmbShare share, FileHandle root, boolean ipc, int maximalAccess) {
        this.id = id;
        this.share = share;
        this.root = root;
        this.ipc = ipc;
        this.maximalAccess = maximalAccess;
    }

    public int id() {
        return id;
    }

    public SmbShare share() {
        return share;
    }

    public FileHandle root() {
        return root;
    }

    public int maximalAccess() {
        return maximalAccess;
    }

    public boolean ipc() {
        return ipc;
    }

    public boolean encrypt() {
        return share != null && share.encrypt();
    }
}
