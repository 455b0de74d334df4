package io.rdmagate.bench.nfs;

import io.rdmagate.nfs.v3.Nfs3;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The NFSv3 calls of the load generator, encoded into a reusable buffer (big-endian, XDR): the
 * RPC call header (RFC 5531 §9) with AUTH_SYS as root (Appendix A) and an AUTH_NONE verifier,
 * then the procedure's arguments (RFC 1813 §3.3). A WRITE's data is not copied here: the
 * transport sends it from where it lies, after {@link #write}. And the one check made of every
 * reply: an accepted call whose nfsstat3 is NFS3_OK.
 */
final class NfsCalls {
    private static final byte[] MACHINE = "bench".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** Bytes of the call header: xid .. verifier. */
    static final int HEADER = 24 + 8 + 4 + 4 + pad(MACHINE.length) + 4 + 4 + 4 + 8;

    private NfsCalls() {
    }

    static int pad(int n) {
        return (n + 3) & ~3;
    }

    private static void header(ByteBuffer b, int xid, int procedure) {
        header(b, xid, Nfs3.PROGRAM, Nfs3.VERSION, procedure);
    }

    /** The call header of any program and version, AUTH_SYS as root. */
    static void header(ByteBuffer b, int xid, int program, int version, int procedure) {
        b.putInt(xid).putInt(0).putInt(2).putInt(program).putInt(version).putInt(procedure);
        b.putInt(1).putInt(4 + 4 + pad(MACHINE.length) + 12); // AUTH_SYS
        b.putInt(0).putInt(MACHINE.length).put(MACHINE).put(new byte[pad(MACHINE.length) - MACHINE.length]);
        b.putInt(0).putInt(0).putInt(0); // uid, gid, no supplementary gids
        b.putInt(0).putInt(0); // verifier AUTH_NONE
    }

    static void handle(ByteBuffer b, byte[] fh) {
        b.putInt(fh.length).put(fh).put(new byte[pad(fh.length) - fh.length]);
    }

    static void getattr(ByteBuffer b, int xid, byte[] fh) {
        header(b, xid, Nfs3.GETATTR);
        handle(b, fh);
    }

    static void read(ByteBuffer b, int xid, byte[] fh, long offset, int count) {
        header(b, xid, Nfs3.READ);
        handle(b, fh);
        b.putLong(offset).putInt(count);
    }

    /** WRITE3args up to and including the data's length word; {@code count} bytes of data follow. */
    static void write(ByteBuffer b, int xid, byte[] fh, long offset, int count, int stable) {
        header(b, xid, Nfs3.WRITE);
        handle(b, fh);
        b.putLong(offset).putInt(count).putInt(stable).putInt(count);
    }

    static void commit(ByteBuffer b, int xid, byte[] fh) {
        header(b, xid, Nfs3.COMMIT);
        handle(b, fh);
        b.putLong(0).putInt(0);
    }

    /** CREATE3args (RFC 1813 §3.3.8): diropargs3, then UNCHECKED with mode 0644 and nothing else set. */
    static void create(ByteBuffer b, int xid, byte[] dir, String name) {
        header(b, xid, Nfs3.CREATE);
        dirop(b, dir, name);
        b.putInt(0); // createmode3 UNCHECKED
        b.putInt(1).putInt(0644); // sattr3: set_mode
        b.putInt(0).putInt(0).putInt(0); // uid, gid, size: not set
        b.putInt(0).putInt(0); // atime, mtime: DONT_CHANGE
    }

    /** REMOVE3args (RFC 1813 §3.3.12): diropargs3. */
    static void remove(ByteBuffer b, int xid, byte[] dir, String name) {
        header(b, xid, Nfs3.REMOVE);
        dirop(b, dir, name);
    }

    private static void dirop(ByteBuffer b, byte[] dir, String name) {
        handle(b, dir);
        byte[] n = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        b.putInt(n.length).put(n).put(new byte[pad(n.length) - n.length]);
    }

    /** Where the results of an accepted reply start (after its verifier), its accept_stat checked. */
    static int results(ByteBuffer r, int length) throws IOException {
        int xid = r.getInt(0);
        if (length < 24 || r.getInt(4) != 1 || r.getInt(8) != 0) {
            throw new IOException("xid " + xid + ": not an accepted reply");
        }
        int at = 20 + pad(r.getInt(16));
        if (at + 4 > length || r.getInt(at) != 0) {
            throw new IOException("xid " + xid + ": accept_stat " + (at + 4 <= length ? r.getInt(at) : -1));
        }
        return at + 4;
    }

    /** Checks an RPC reply (its first {@code length} bytes in {@code r}); returns its xid. */
    static int check(ByteBuffer r, int length) throws IOException {
        int xid = r.getInt(0);
        if (length < 24 || r.getInt(4) != 1 || r.getInt(8) != 0) {
            throw new IOException("xid " + xid + ": not an accepted reply");
        }
        int at = 20 + pad(r.getInt(16));
        if (at + 8 > length || r.getInt(at) != 0) {
            throw new IOException("xid " + xid + ": accept_stat " + (at + 4 <= length ? r.getInt(at) : -1));
        }
        int status = r.getInt(at + 4);
        if (status != 0) {
            throw new IOException("xid " + xid + ": nfsstat3 " + status);
        }
        return xid;
    }
}
