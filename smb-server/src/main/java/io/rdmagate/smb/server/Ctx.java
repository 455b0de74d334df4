package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.FileId;
import java.nio.ByteBuffer;

/** What a command handler gets: the request message, its connection, session and tree, and the reply. */
public final class Ctx {
    public final SmbConnection conn;
    public final SmbServer server;
    public final ByteBuffer msg;
    public final Reply reply = new Reply();
    public SmbSession session;
    public TreeConnect tree;
    /** The FileId of the previous CREATE in a related compound (MS-SMB2 3.3.5.2.7.2). */
    FileId compoundFileId;
    /** The error of a failed CREATE (or SESSION_SETUP, TREE_CONNECT) earlier in a related compound, else 0. */
    int chainError;
    final boolean encrypted;
    long sessionIdUsed;
    int treeIdUsed;
    boolean requestSigned;
    final boolean lastInCompound;
    /** When the request was taken ({@link System#nanoTime()}), for the latency histogram. */
    final long start = System.nanoTime();

    /** The message's place in its connection's arrival order ({@link ArrivalOrder}). */
    long ticket;

    Ctx(SmbConnection conn, ByteBuffer msg, boolean encrypted, boolean lastInCompound) {
        this.conn = conn;
        this.server = conn.server;
        this.msg = msg;
        this.encrypted = encrypted;
        this.lastInCompound = lastInCompound;
    }

    /** The open a request names; all ones means the compound's last CREATE. */
    public Open open(FileId id) throws SmbException {
        FileId f = id.isCompound() && compoundFileId != null ? compoundFileId : id;
        Open o = server.opens().get(f);
        if (o == null || o.session != session || (tree != null && o.tree() != tree)) {
            throw new SmbException(NtStatus.FILE_CLOSED, "no open " + f);
        }
        return o;
    }

    public void setCompoundFileId(FileId id) {
        compoundFileId = id;
    }

    public boolean requestSigned() {
        return requestSigned;
    }

    public boolean encrypted() {
        return encrypted;
    }

    public boolean lastInCompound() {
        return lastInCompound;
    }
}
