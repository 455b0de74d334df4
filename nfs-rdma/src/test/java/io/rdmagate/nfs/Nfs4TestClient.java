package io.rdmagate.nfs;

import static io.rdmagate.nfs.v4.Nfs4.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.v4.Fattr4;
import io.rdmagate.oncrpc.client.RpcClient;
import io.rdmagate.oncrpc.client.RpcReplyMessage;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * An NFSv4.1 client for the tests: COMPOUNDs built operation by operation, a session on slot 0, and
 * replies read operation by operation (each checked to be the operation expected).
 */
final class Nfs4TestClient implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    final RpcClient rpc;
    long clientId;
    byte[] sessionId;
    /** The minor version of this client's COMPOUNDs. */
    int minor = 1;
    int slotSeq;

    private Nfs4TestClient(RpcClient rpc) {
        this.rpc = rpc;
    }

    static Nfs4TestClient connect(InetSocketAddress nfs, Credentials credentials) throws IOException {
        return new Nfs4TestClient(RpcClient.connect(nfs, TIMEOUT).credentials(credentials));
    }

    /** EXCHANGE_ID, CREATE_SESSION and RECLAIM_COMPLETE, as a client's mount starts. */
    Nfs4TestClient establish(String owner) throws IOException {
        return establish(owner, true);
    }

    /** EXCHANGE_ID and CREATE_SESSION, then RECLAIM_COMPLETE unless the client has state to reclaim first. */
    Nfs4TestClient establish(String owner, boolean reclaimComplete) throws IOException {
        Reply x = compoundWithoutSession().op(OP_EXCHANGE_ID, e -> exchangeIdArgs(e, owner, 1)).send();
        XdrDecoder d = x.next(OP_EXCHANGE_ID, NFS4_OK);
        clientId = read(d::readHyper);
        int seq = read(d::readInt);
        Reply s = compoundWithoutSession().op(OP_CREATE_SESSION, e -> createSessionArgs(e, clientId, seq, 16)).send();
        XdrDecoder cs = s.next(OP_CREATE_SESSION, NFS4_OK);
        sessionId = read(() -> cs.readFixedOpaque(NFS4_SESSIONID_SIZE));
        slotSeq = 0;
        if (reclaimComplete) {
            Reply r = compound().op(OP_RECLAIM_COMPLETE, e -> e.writeBool(false)).send();
            assertEquals(NFS4_OK, r.status);
        }
        return this;
    }

    static void exchangeIdArgs(XdrEncoder e, String owner, long verifier) {
        e.writeHyper(verifier);
        e.writeOpaque(owner.getBytes(StandardCharsets.UTF_8));
        e.writeInt(0); // flags
        e.writeInt(SP4_NONE);
        e.writeInt(0); // no impl id
    }

    static void createSessionArgs(XdrEncoder e, long clientId, int seq, int slots) {
        e.writeHyper(clientId);
        e.writeInt(seq);
        e.writeInt(0);
        channel(e, slots); // fore
        channel(e, 1); // back
        e.writeInt(0x40000000); // callback program
        e.writeInt(1);
        e.writeInt(AUTH_NONE);
    }

    /** channel_attrs4 with {@code slots} slots and 1 MiB requests and replies. */
    static void channel(XdrEncoder e, int slots) {
        e.writeInt(0);
        e.writeInt(1 << 20);
        e.writeInt(1 << 20);
        e.writeInt(4096);
        e.writeInt(16);
        e.writeInt(slots);
        e.writeInt(0);
    }

    /** A COMPOUND that opens with SEQUENCE on slot 0 with the slot's next sequence id. */
    Compound compound() {
        int seq = ++slotSeq;
        return compoundWithoutSession().op(OP_SEQUENCE, e -> sequenceArgs(e, sessionId, seq, 0));
    }

    /** As {@link #compound()}, of minor version 2 (NFSv4.2). */
    Compound compound42() {
        int seq = ++slotSeq;
        return new Compound(2).op(OP_SEQUENCE, e -> sequenceArgs(e, sessionId, seq, 0));
    }

    static void sequenceArgs(XdrEncoder e, byte[] session, int seq, int slot) {
        e.writeFixedOpaque(session);
        e.writeInt(seq);
        e.writeInt(slot);
        e.writeInt(0);
        e.writeBool(false);
    }

    Compound compoundWithoutSession() {
        return new Compound(minor);
    }

    Compound compound(int minorVersion) {
        return new Compound(minorVersion);
    }

    final class Compound {
        private final int minor;
        private final List<Consumer<XdrEncoder>> ops = new ArrayList<>();
        private Integer countOverride;

        Compound(int minor) {
            this.minor = minor;
        }

        Compound op(int number, Consumer<XdrEncoder> args) {
            ops.add(e -> {
                e.writeInt(number);
                args.accept(e);
            });
            return this;
        }

        Compound op(int number) {
            return op(number, e -> {
            });
        }

        /** Claims {@code n} operations whatever follows. */
        Compound count(int n) {
            countOverride = n;
            return this;
        }

        byte[] bytes() {
            return Nfs3Client.encode(e -> {
                e.writeOpaque("test".getBytes(StandardCharsets.UTF_8));
                e.writeInt(minor);
                e.writeInt(countOverride != null ? countOverride : ops.size());
                ops.forEach(o -> o.accept(e));
            });
        }

        Reply send() throws IOException {
            return Nfs4TestClient.this.send(bytes());
        }
    }

    Reply send(byte[] compound) throws IOException {
        RpcReplyMessage m = rpc.call(PROGRAM, VERSION, PROC_COMPOUND, compound, TIMEOUT);
        if (m.header().acceptStat() != Rpc.SUCCESS) {
            throw new IOException("accept_stat " + m.header().acceptStat());
        }
        return new Reply(m.body());
    }

    /** A COMPOUND4res read operation by operation. */
    static final class Reply {
        final byte[] raw;
        final XdrDecoder d;
        final int status;
        final int count;

        Reply(byte[] raw) throws IOException {
            this.raw = raw;
            this.d = new XdrDecoder(io.netty.buffer.Unpooled.wrappedBuffer(raw));
            this.status = read(d::readInt);
            read(() -> d.readOpaque(NFS4_OPAQUE_LIMIT));
            this.count = read(d::readInt);
        }

        /** The next result, which must be operation {@code op} with {@code status}; its resok follows. */
        XdrDecoder next(int op, int status) throws IOException {
            assertEquals(op, (int) read(d::readInt), "operation");
            assertEquals(status, (int) read(d::readInt), "status of operation " + op);
            return d;
        }
    }

    interface XdrRead<T> {
        T get() throws XdrException;
    }

    static <T> T read(XdrRead<T> r) throws IOException {
        try {
            return r.get();
        } catch (XdrException e) {
            throw new IOException(e);
        }
    }

    /** Reads a fattr4 and returns its attribute values' decoder, after checking the bitmap is {@code expected}. */
    static XdrDecoder fattr(XdrDecoder d, int... expected) throws IOException {
        int n = read(d::readInt);
        int[] bitmap = new int[n];
        for (int i = 0; i < n; i++) {
            bitmap[i] = read(d::readInt);
        }
        assertEquals(java.util.Arrays.toString(Fattr4.bitmap(expected)), java.util.Arrays.toString(bitmap), "attributes returned");
        byte[] values = read(() -> d.readOpaque(1 << 20));
        return new XdrDecoder(io.netty.buffer.Unpooled.wrappedBuffer(values));
    }

    static void bitmap(XdrEncoder e, int... attrs) {
        int[] b = Fattr4.bitmap(attrs);
        e.writeInt(b.length);
        for (int w : b) {
            e.writeInt(w);
        }
    }

    static void name(XdrEncoder e, String n) {
        e.writeOpaque(n.getBytes(StandardCharsets.UTF_8));
    }

    /** Skips {@code n} bytes of a result. */
    static void skip(XdrDecoder d, int n) throws IOException {
        try {
            d.skip(n);
        } catch (XdrException e) {
            throw new IOException(e);
        }
    }

    @Override
    public void close() {
        try {
            rpc.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
