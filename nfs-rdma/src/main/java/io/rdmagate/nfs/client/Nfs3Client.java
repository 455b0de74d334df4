package io.rdmagate.nfs.client;

import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.rdmagate.nfs.mount.Mount;
import io.rdmagate.nfs.v3.Nfs3;
import io.rdmagate.nfs.v3.Nfs3Status;
import io.rdmagate.oncrpc.client.RpcClient;
import io.rdmagate.oncrpc.client.RpcReplyMessage;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A small NFSv3 client over one TCP connection, for tests and benchmarks: typed calls for the
 * common procedures (each throws {@link NfsStatusException} on a status other than NFS3_OK) and
 * {@link #call} for anything else. Calls may be issued from many threads at once; they are
 * pipelined on the connection.
 */
public final class Nfs3Client implements AutoCloseable {
    public static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final RpcClient rpc;

    /** A reply: its nfsstat3 and a decoder over what follows it. */
    public record Result(int status, XdrDecoder body) {
    }

    /** §2.5 fattr3, the fields tests and benchmarks look at. */
    public record Attr(int type, int mode, int nlink, int uid, int gid, long size, long fileId, long mtimeNanos,
            long ctimeNanos) {
    }

    public record ReadResult(byte[] data, boolean eof) {
    }

    public record WriteReply(int count, int committed, long verifier) {
    }

    public record Entry(String name, long fileId, long cookie, byte[] handle) {
    }

    public static final class NfsStatusException extends IOException {
        private static final long serialVersionUID = 1L;
        private final int status;

        public NfsStatusException(String what, int status) {
            super(what + " failed with status " + status);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    private Nfs3Client(RpcClient rpc) {
        this.rpc = rpc;
    }

    public static Nfs3Client connect(InetSocketAddress nfs, Credentials credentials) throws IOException {
        return new Nfs3Client(RpcClient.connect(nfs, TIMEOUT).credentials(credentials));
    }

    public RpcClient rpc() {
        return rpc;
    }

    /** MOUNTPROC3_MNT: the root handle of {@code path}. */
    public static byte[] mount(InetSocketAddress mount, String path, Credentials credentials) throws IOException {
        try (RpcClient c = RpcClient.connect(mount, TIMEOUT).credentials(credentials)) {
            RpcReplyMessage r = c.call(Mount.PROGRAM, Mount.VERSION, Mount.MNT, encode(e -> e.writeString(path)),
                    TIMEOUT);
            if (!r.header().isSuccess()) {
                throw new IOException("MNT: " + r.header());
            }
            XdrDecoder d = r.results();
            int status = d.readInt();
            if (status != 0) {
                throw new NfsStatusException("MNT " + path, status);
            }
            return d.readOpaque(Nfs3.FHSIZE);
        } catch (XdrException e) {
            throw new IOException(e);
        }
    }

    public static byte[] encode(Consumer<XdrEncoder> args) {
        XdrEncoder e = new XdrEncoder(UnpooledByteBufAllocator.DEFAULT, Unpooled.buffer(128));
        args.accept(e);
        XdrMessage m = e.finish();
        try {
            return m.toBytes();
        } finally {
            m.release();
        }
    }

    /** Calls an NFSv3 procedure; an RPC-level failure (GARBAGE_ARGS...) is an IOException. */
    public Result call(int procedure, byte[] args) throws IOException {
        RpcReplyMessage r = rpc.call(Nfs3.PROGRAM, Nfs3.VERSION, procedure, args, TIMEOUT);
        return result(procedure, r);
    }

    public Result call(int procedure, Consumer<XdrEncoder> args) throws IOException {
        return call(procedure, encode(args));
    }

    public CompletableFuture<RpcReplyMessage> callAsync(int procedure, byte[] args) throws IOException {
        return rpc.callAsync(rpc.nextXid(), Nfs3.PROGRAM, Nfs3.VERSION, procedure, args);
    }

    public static Result result(int procedure, RpcReplyMessage r) throws IOException {
        if (!r.header().isSuccess()) {
            throw new IOException("procedure " + procedure + ": " + r.header());
        }
        XdrDecoder d = r.results();
        try {
            return new Result(procedure == Nfs3.NULL ? 0 : d.readInt(), d);
        } catch (XdrException e) {
            throw new IOException(e);
        }
    }

    private Result ok(String what, int procedure, Consumer<XdrEncoder> args) throws IOException {
        Result r = call(procedure, args);
        if (r.status() != Nfs3Status.NFS3_OK) {
            throw new NfsStatusException(what, r.status());
        }
        return r;
    }

    // ---- decoding helpers

    public static Attr fattr(XdrDecoder d) throws XdrException {
        int type = d.readInt();
        int mode = d.readInt();
        int nlink = d.readInt();
        int uid = d.readInt();
        int gid = d.readInt();
        long size = d.readHyper();
        d.readHyper(); // used
        d.skip(8); // rdev
        d.readHyper(); // fsid
        long fileId = d.readHyper();
        d.skip(8); // atime
        long mtime = time(d);
        long ctime = time(d);
        return new Attr(type, mode, nlink, uid, gid, size, fileId, mtime, ctime);
    }

    private static long time(XdrDecoder d) throws XdrException {
        return d.readUnsignedInt() * 1_000_000_000L + d.readUnsignedInt();
    }

    public static Attr postOpAttr(XdrDecoder d) throws XdrException {
        return d.readBool() ? fattr(d) : null;
    }

    /** §2.5 pre_op_attr: {size, mtime, ctime} or null. */
    public static long[] preOpAttr(XdrDecoder d) throws XdrException {
        return d.readBool() ? new long[] {d.readHyper(), time(d), time(d)} : null;
    }

    public static byte[] postOpFh(XdrDecoder d) throws XdrException {
        return d.readBool() ? d.readOpaque(Nfs3.FHSIZE) : null;
    }

    private static IOException io(XdrException e) {
        return new IOException("malformed reply: " + e.getMessage(), e);
    }

    // ---- typed procedures

    public void ping() throws IOException {
        call(Nfs3.NULL, new byte[0]);
    }

    public Attr getattr(byte[] fh) throws IOException {
        Result r = ok("GETATTR", Nfs3.GETATTR, e -> e.writeOpaque(fh));
        try {
            return fattr(r.body());
        } catch (XdrException e) {
            throw io(e);
        }
    }

    public byte[] lookup(byte[] dir, String name) throws IOException {
        Result r = ok("LOOKUP " + name, Nfs3.LOOKUP, e -> e.writeOpaque(dir).writeString(name));
        try {
            return r.body().readOpaque(Nfs3.FHSIZE);
        } catch (XdrException e) {
            throw io(e);
        }
    }

    /** CREATE UNCHECKED with a mode. */
    public byte[] create(byte[] dir, String name, int mode) throws IOException {
        Result r = ok("CREATE " + name, Nfs3.CREATE, e -> {
            e.writeOpaque(dir).writeString(name).writeInt(Nfs3.UNCHECKED);
            sattrMode(e, mode);
        });
        try {
            return postOpFh(r.body());
        } catch (XdrException e) {
            throw io(e);
        }
    }

    public byte[] mkdir(byte[] dir, String name, int mode) throws IOException {
        Result r = ok("MKDIR " + name, Nfs3.MKDIR, e -> {
            e.writeOpaque(dir).writeString(name);
            sattrMode(e, mode);
        });
        try {
            return postOpFh(r.body());
        } catch (XdrException e) {
            throw io(e);
        }
    }

    /** sattr3 that sets only the mode. */
    public static void sattrMode(XdrEncoder e, int mode) {
        e.writeBool(true).writeInt(mode).writeBool(false).writeBool(false).writeBool(false).writeInt(0).writeInt(0);
    }

    /** sattr3 that sets nothing. */
    public static void sattrNone(XdrEncoder e) {
        e.writeBool(false).writeBool(false).writeBool(false).writeBool(false).writeInt(0).writeInt(0);
    }

    public static byte[] writeArgs(byte[] fh, long offset, byte[] data, int off, int len, int stable) {
        return encode(e -> {
            e.writeOpaque(fh).writeHyper(offset).writeInt(len).writeInt(stable);
            e.writeInt(len);
            e.writeFixedOpaque(java.util.Arrays.copyOfRange(data, off, off + len));
        });
    }

    public WriteReply write(byte[] fh, long offset, byte[] data, int stable) throws IOException {
        Result r = call(Nfs3.WRITE, writeArgs(fh, offset, data, 0, data.length, stable));
        if (r.status() != Nfs3Status.NFS3_OK) {
            throw new NfsStatusException("WRITE", r.status());
        }
        try {
            preOpAttr(r.body());
            postOpAttr(r.body());
            return new WriteReply(r.body().readInt(), r.body().readInt(), r.body().readHyper());
        } catch (XdrException e) {
            throw io(e);
        }
    }

    public static byte[] readArgs(byte[] fh, long offset, int count) {
        return encode(e -> e.writeOpaque(fh).writeHyper(offset).writeInt(count));
    }

    public ReadResult read(byte[] fh, long offset, int count) throws IOException {
        Result r = call(Nfs3.READ, readArgs(fh, offset, count));
        if (r.status() != Nfs3Status.NFS3_OK) {
            throw new NfsStatusException("READ", r.status());
        }
        return readResult(r.body());
    }

    public static ReadResult readResult(XdrDecoder d) throws IOException {
        try {
            postOpAttr(d);
            d.readInt();
            boolean eof = d.readBool();
            return new ReadResult(d.readOpaque(Integer.MAX_VALUE - 8), eof);
        } catch (XdrException e) {
            throw io(e);
        }
    }

    public long commit(byte[] fh) throws IOException {
        Result r = ok("COMMIT", Nfs3.COMMIT, e -> e.writeOpaque(fh).writeHyper(0).writeInt(0));
        try {
            preOpAttr(r.body());
            postOpAttr(r.body());
            return r.body().readHyper();
        } catch (XdrException e) {
            throw io(e);
        }
    }

    public void remove(byte[] dir, String name) throws IOException {
        ok("REMOVE " + name, Nfs3.REMOVE, e -> e.writeOpaque(dir).writeString(name));
    }

    public void rmdir(byte[] dir, String name) throws IOException {
        ok("RMDIR " + name, Nfs3.RMDIR, e -> e.writeOpaque(dir).writeString(name));
    }

    public void rename(byte[] fromDir, String from, byte[] toDir, String to) throws IOException {
        ok("RENAME", Nfs3.RENAME, e -> e.writeOpaque(fromDir).writeString(from).writeOpaque(toDir).writeString(to));
    }

    /** The whole directory through READDIRPLUS pages of at most {@code maxcount} bytes. */
    public List<Entry> readdirplus(byte[] dir, int maxcount) throws IOException {
        List<Entry> out = new ArrayList<>();
        long cookie = 0;
        long verifier = 0;
        while (true) {
            long c = cookie;
            long v = verifier;
            Result r = ok("READDIRPLUS", Nfs3.READDIRPLUS,
                    e -> e.writeOpaque(dir).writeHyper(c).writeHyper(v).writeInt(maxcount).writeInt(maxcount));
            try {
                XdrDecoder d = r.body();
                postOpAttr(d);
                verifier = d.readHyper();
                while (d.readBool()) {
                    long id = d.readHyper();
                    String name = d.readString(1024);
                    cookie = d.readHyper();
                    postOpAttr(d);
                    out.add(new Entry(name, id, cookie, postOpFh(d)));
                }
                if (d.readBool()) {
                    return out;
                }
            } catch (XdrException e) {
                throw io(e);
            }
        }
    }

    /** The whole directory through READDIR pages of at most {@code count} bytes. */
    public List<Entry> readdir(byte[] dir, int count) throws IOException {
        List<Entry> out = new ArrayList<>();
        long cookie = 0;
        long verifier = 0;
        while (true) {
            long c = cookie;
            long v = verifier;
            Result r = ok("READDIR", Nfs3.READDIR, e -> e.writeOpaque(dir).writeHyper(c).writeHyper(v).writeInt(count));
            try {
                XdrDecoder d = r.body();
                postOpAttr(d);
                verifier = d.readHyper();
                while (d.readBool()) {
                    long id = d.readHyper();
                    String name = d.readString(1024);
                    cookie = d.readHyper();
                    out.add(new Entry(name, id, cookie, null));
                }
                if (d.readBool()) {
                    return out;
                }
            } catch (XdrException e) {
                throw io(e);
            }
        }
    }

    @Override
    public void close() throws IOException {
        rpc.close();
    }
}
