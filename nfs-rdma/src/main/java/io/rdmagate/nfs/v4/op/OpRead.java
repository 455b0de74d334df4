package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Delegations;
import io.rdmagate.nfs.v4.state.OpenState;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 8881 §18.22 READ: args stateid, offset, count; resok eof, data.
 *
 * <p>Where the bytes travel: as NFSv3 READ, the vfs maps the region or {@code pread}s it into memory
 * of the connection's pool account, and that memory is the reply's DDP-eligible payload (RFC 8267
 * §2; over RDMA it goes by RDMA Write into the client's write chunk), not copied. A second READ in
 * one COMPOUND is copied inline (a message carries one payload). The count is capped at the largest
 * READ and at what the session's reply size holds. The stateid is an open of this file that allows
 * reading, or one of the special stateids (§8.2.3); as knfsd, the owner of a file may read it
 * whatever its mode bits say.
 */
public final class OpRead extends Nfs4Op {
    public OpRead() {
        super(OP_READ, "READ");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        Stateid stateid = c.resolveStateid(Stateid.read(in));
        long offset = in.readHyper();
        long asked = Integer.toUnsignedLong(in.readInt());
        Target t = c.currentFile(NFS4ERR_ISDIR);
        Caller caller = c.reader(t);
        FileAttributes before = t.fs().getattr(t.handle());
        if (before.type() == FileType.DIRECTORY) {
            throw new Nfs4Exception(NFS4ERR_ISDIR, "READ of a directory");
        }
        if (before.type() == FileType.SYMLINK) {
            throw new Nfs4Exception(NFS4ERR_SYMLINK, "READ of a symlink");
        }
        if (before.type() != FileType.REGULAR) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "READ of a " + before.type());
        }
        checkStateid(c, stateid, t);
        if (offset < 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "offset beyond 2^63-1");
        }
        int count = (int) Math.min(asked, Math.min(c.server().maxIoSize(), c.maxResponse() - 1024L));
        IoMemory data = null;
        if (count > 0) {
            t.end(t.begin(Conflict.READ, c.breaker())); // an SMB client's write caching of the file flushes first
            try {
                data = read(c, t, caller, offset, count);
            } catch (VfsException e) {
                if (e.error() != VfsError.ACCESS || before.uid() != caller.uid()) {
                    throw e;
                }
                data = read(c, t, Caller.ROOT, offset, count);
            }
        }
        try {
            int n = data == null ? 0 : (int) data.length();
            boolean eof = offset + n >= t.fs().getattr(t.handle()).size();
            XdrEncoder out = c.out();
            out.writeBool(eof);
            if (data == null) {
                out.writeInt(0);
            } else if (writeData(out, data)) {
                data = null; // the reply owns it now
            }
        } finally {
            if (data != null) {
                data.release();
            }
        }
    }

    /**
     * Writes {@code data} as an opaque: the message's DDP-eligible payload when it has none yet (the
     * reply then owns the memory: returns true), else copied inline (a message carries one payload).
     */
    static boolean writeData(XdrEncoder out, IoMemory data) {
        if (!out.hasPayload()) {
            out.writePayload(data);
            return true;
        }
        int n = (int) data.length();
        byte[] copy = new byte[n];
        java.lang.foreign.MemorySegment.ofArray(copy).copyFrom(data.segment().asSlice(0, n));
        out.writeOpaque(copy);
        return false;
    }

    static IoMemory read(Compound c, Target t, Caller caller, long offset, int count) throws VfsException {
        IoMemory mapped = t.fs().map(caller, t.handle(), offset, count);
        return mapped != null ? mapped : t.fs().read(caller, t.handle(), offset, count, c.memory());
    }

    /**
     * A special stateid reads without an open; a delegation stateid reads the file the client holds
     * the delegation of; any other must be an open of this file with read access.
     */
    static OpenState checkStateid(Compound c, Stateid s, Target t) throws Nfs4Exception {
        if (s.isSpecial()) {
            c.server().state().notInGrace(c.server().now()); // no open to protect it from a reclaimed deny
            return null;
        }
        if (Delegations.isDelegation(s)) {
            c.server().state().delegations().find(s, c.client(), t);
            return null;
        }
        OpenState o = checkOwner(c, s, t);
        if ((o.access() & OPEN4_SHARE_ACCESS_READ) == 0) {
            throw new Nfs4Exception(NFS4ERR_OPENMODE, "open " + s + " does not allow reading");
        }
        return o;
    }

    /**
     * Writing (WRITE, SETATTR of the size) with a delegation stateid: the session's client's write
     * delegation of file {@code t}; a read delegation is NFS4ERR_OPENMODE.
     */
    static void checkWriteDelegation(Compound c, Stateid s, Target t) throws Nfs4Exception {
        if (!c.server().state().delegations().find(s, c.client(), t).writes()) {
            throw new Nfs4Exception(NFS4ERR_OPENMODE, "delegation " + s + " is for reading");
        }
    }

    /**
     * The open {@code s} names (an open stateid, or a lock stateid derived from it), which must be of
     * file {@code t} and of the session's client; in NFSv4.0, confirmed, and its client is then the one acting.
     */
    static OpenState checkOwner(Compound c, Stateid s, Target t) throws Nfs4Exception {
        OpenState o = c.server().state().openFor(s);
        sameFile(s, o, t);
        if (c.minor() == MINOR_VERSION_0) {
            // NFSv4.0: the stateid names the client, whose lease it renews (RFC 7530 §9.5)
            if (o.owner40() != null && !o.owner40().confirmed()) {
                throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "open " + s + " is not confirmed yet");
            }
            c.named(o.client());
        } else if (o.client() != c.client()) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "stateid " + s + " is of another client");
        }
        return o;
    }

    /** NFS4ERR_BAD_STATEID unless open {@code o}, which {@code s} names, is of file {@code t}. */
    static void sameFile(Stateid s, OpenState o, Target t) throws Nfs4Exception {
        if (o.file().export().id() != t.export().id() || o.file().handle().fileId() != t.handle().fileId()) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "stateid " + s + " is of another file");
        }
    }
}
