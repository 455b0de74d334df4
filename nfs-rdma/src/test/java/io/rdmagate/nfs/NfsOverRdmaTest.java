package io.rdmagate.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.v3.Nfs3;
import io.rdmagate.nfs.v3.Nfs3Status;
import io.rdmagate.oncrpc.rpc.CallHeaders;
import io.rdmagate.oncrpc.rpc.ReplyHeader;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.rdma.loopback.LoopbackDevice;
import io.rdmagate.rdma.loopback.LoopbackFabric;
import io.rdmagate.rpcrdma.client.RpcRdmaClient;
import io.rdmagate.rpcrdma.client.RpcRdmaClient.Call;
import io.rdmagate.rpcrdma.client.RpcRdmaClient.Reply;
import io.rdmagate.rpcrdma.header.RpcRdma;
import io.rdmagate.rpcrdma.server.RpcRdmaOptions;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.local.LocalFileSystem;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PayloadCopies;
import io.rdmagate.vfs.memory.PoolLimits;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** NFSv3 over RPC-over-RDMA on the loopback provider against the local (pread/pwrite) backend. */
class NfsOverRdmaTest {
    @TempDir
    Path dir;
    final LoopbackFabric fabric = new LoopbackFabric();
    LoopbackDevice serverDevice;
    LoopbackDevice clientDevice;
    final IoMemoryPool tcpPool = new IoMemoryPool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
    final PayloadCopies copies = new PayloadCopies();
    final io.micrometer.core.instrument.simple.SimpleMeterRegistry metrics =
            new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    NfsExports exports;
    NfsServer server;
    RpcRdmaClient rdma;
    byte[] root;

    @BeforeEach
    void start() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        Path secure = Files.createDirectories(dir.resolve("secure"));
        exports = new NfsExports(List.of(NfsFixture.export(0, "data",
                LocalFileSystem.open(data, dir.resolve("state"), ExportOptions.DEFAULT),
                NfsFixture.rule("*", Access.RW, false, false)),
                NfsFixture.export(1, "secure",
                        LocalFileSystem.open(secure, dir.resolve("secure-state"), ExportOptions.DEFAULT),
                        NfsFixture.secureRule("*"))));
        serverDevice = fabric.device("server");
        clientDevice = fabric.device("client");
        server = NfsServer.builder().exports(exports).pool(tcpPool).payloadCopies(copies).maxIoSize(1 << 20)
                .metrics(metrics).address(NfsFixture.LOOPBACK).ports(0, 0, -1, -1)
                .rdma(serverDevice, 0, RpcRdmaOptions.DEFAULT, PoolLimits.DEFAULT).start();
        root = Nfs3Client.mount(new InetSocketAddress(NfsFixture.LOOPBACK, server.port("mount")), "/data",
                NfsFixture.ROOT);
        rdma = RpcRdmaClient.connect(clientDevice, new InetSocketAddress(NfsFixture.LOOPBACK, server.port("nfs-rdma")));
    }

    @AfterEach
    void stop() throws Exception {
        rdma.close();
        var s = server.rdmaServer();
        long end = System.nanoTime() + 10_000_000_000L;
        while ((s.connectionCount() > 0 || s.pool().leasedBytes() > 0) && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(0, s.pool().leasedBytes(), "the RDMA pool is back to idle");
        server.close();
        exports.all().forEach(e -> e.fs().close());
        tcpPool.close();
    }

    private byte[] call(int proc, byte[] args) {
        ByteBuf b = Unpooled.buffer();
        CallHeaders.write(b, rdma.nextXid(), Nfs3.PROGRAM, Nfs3.VERSION, proc, NfsFixture.ROOT);
        b.writeBytes(args);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    private static XdrDecoder ok(Reply r) throws Exception {
        assertEquals(RpcRdma.RDMA_MSG == r.proc() || RpcRdma.RDMA_NOMSG == r.proc(), true, "proc " + r.proc());
        XdrDecoder d = new XdrDecoder(Unpooled.wrappedBuffer(r.message()));
        assertTrue(ReplyHeader.decode(d).isSuccess());
        assertEquals(0, d.readInt(), "NFS3_OK");
        return d;
    }

    private static long crc(byte[] b) {
        CRC32 c = new CRC32();
        c.update(b);
        return c.getValue();
    }

    /**
     * A secure rule (exports(5) secure) counts RPC-over-RDMA calls as secure, as svcrdma does:
     * the Linux client's RDMA connections come from ephemeral ports. The same call over TCP from
     * an unreserved port is NFS3ERR_PERM, and MOUNT refuses it.
     */
    @Test
    void aSecureRuleLetsRdmaCallsInAndRefusesTcpCallsFromUnreservedPorts() throws Exception {
        NfsExport export = exports.all().get(1);
        byte[] fh = NfsExports.wire(export, export.fs().root());
        byte[] getattr = Nfs3Client.encode(e -> e.writeOpaque(fh));
        XdrDecoder g = ok(rdma.call(Call.of(call(Nfs3.GETATTR, getattr))));
        assertEquals(Nfs3.NF3DIR, Nfs3Client.fattr(g).type());

        InetSocketAddress tcp = new InetSocketAddress(NfsFixture.LOOPBACK, server.port("nfs"));
        try (Nfs3Client c = Nfs3Client.connect(tcp, NfsFixture.ROOT)) {
            assertTrue(c.rpc().localAddress().getPort() >= 1024, "the test's client calls from an unreserved port");
            assertEquals(Nfs3Status.NFS3ERR_PERM, c.call(Nfs3.GETATTR, getattr).status());
        }
        Nfs3Client.NfsStatusException refused = assertThrows(Nfs3Client.NfsStatusException.class, () -> Nfs3Client
                .mount(new InetSocketAddress(NfsFixture.LOOPBACK, server.port("mount")), "/secure", NfsFixture.ROOT));
        assertEquals(io.rdmagate.nfs.mount.Mount.MNT3ERR_ACCES, refused.status());
    }

    @Test
    void writeByReadChunkAndReadByWriteChunkOfOneMebibyte() throws Exception {
        byte[] fh;
        try (Nfs3Client tcp = Nfs3Client.connect(new InetSocketAddress(NfsFixture.LOOPBACK, server.port("nfs")),
                NfsFixture.ROOT)) {
            fh = tcp.create(root, "big", 0644);
        }
        byte[] data = new byte[1 << 20];
        new Random(8267).nextBytes(data);
        long copiesBefore = copies.total();

        // WRITE: WRITE data is DDP-eligible (RFC 8267 §2): a read chunk at its XDR position
        byte[] m = call(Nfs3.WRITE, Nfs3Client.writeArgs(fh, 0, data, 0, data.length, Nfs3.FILE_SYNC));
        XdrDecoder w = ok(rdma.call(Call.of(m).withReadChunk(m.length - data.length, data.length)));
        Nfs3Client.preOpAttr(w);
        Nfs3Client.postOpAttr(w);
        assertEquals(data.length, w.readInt());
        assertEquals(Nfs3.FILE_SYNC, w.readInt());

        // GETATTR and LOOKUP inline
        XdrDecoder g = ok(rdma.call(Call.of(call(Nfs3.GETATTR, Nfs3Client.encode(e -> e.writeOpaque(fh))))));
        assertEquals(data.length, Nfs3Client.fattr(g).size());
        XdrDecoder l = ok(rdma.call(Call.of(call(Nfs3.LOOKUP,
                Nfs3Client.encode(e -> e.writeOpaque(root).writeString("big"))))));
        assertArrayEquals(fh, l.readOpaque(64));

        // READ: the data comes back by RDMA Write into the write chunk
        Reply r = rdma.call(Call.of(call(Nfs3.READ, Nfs3Client.readArgs(fh, 0, data.length)))
                .withWriteChunk(data.length, 256 << 10));
        XdrDecoder d = ok(r);
        Nfs3Client.postOpAttr(d);
        assertEquals(data.length, d.readInt());
        assertTrue(d.readBool(), "eof");
        assertEquals(data.length, d.readInt(), "the opaque length stays inline");
        assertEquals(0, d.remaining(), "the data is not inline");
        assertEquals(crc(data), crc(r.writeChunkData()));
        assertArrayEquals(data, r.writeChunkData());

        // zero copies in the gateway: RDMA Read placed WRITE data in registered memory that pwrite
        // took as it lay; READ data was pread into registered memory and RDMA-Written from there
        assertEquals(copiesBefore, copies.total(), copies.snapshot().toString());

        // the one dispatch path counts RDMA calls as it counts TCP ones
        assertEquals(1.0, metrics.get("rdmagate.nfs.requests").tags("program", "nfs", "procedure", "READ", "status",
                "NFS3_OK").counter().count());
        assertEquals(1.0, metrics.get("rdmagate.nfs.requests").tags("program", "nfs", "procedure", "WRITE", "status",
                "NFS3_OK").counter().count());
        assertTrue(metrics.get("rdmagate.nfs.bytes.sent").tags("transport", "rdma").counter().count() >= data.length);
        assertTrue(metrics.get("rdmagate.nfs.bytes.received").tags("transport", "rdma").counter().count()
                >= data.length, "the read chunk is part of the call");
        assertEquals(1.0, metrics.get("rdmagate.nfs.connections").tags("listener", "nfs", "transport", "rdma").gauge()
                .value());
        assertEquals(1.0, metrics.get("rdmagate.nfs.connections.accepted").tags("listener", "nfs", "transport", "rdma")
                .counter().count());
    }

    @Test
    void twoHundredFiftySixMebibytesMoveWithNoCopyInTheGateway() throws Exception {
        byte[] fh;
        try (Nfs3Client tcp = Nfs3Client.connect(new InetSocketAddress(NfsFixture.LOOPBACK, server.port("nfs")),
                NfsFixture.ROOT)) {
            fh = tcp.create(root, "quarter-gib", 0644);
        }
        int io = 1 << 20;
        int count = 256;
        byte[] data = new byte[io];
        Random random = new Random(8166);
        CRC32 written = new CRC32();
        long copiesBefore = copies.total();
        for (int i = 0; i < count; i++) {
            random.nextBytes(data);
            written.update(data);
            byte[] m = call(Nfs3.WRITE, Nfs3Client.writeArgs(fh, (long) i * io, data, 0, io, Nfs3.UNSTABLE));
            XdrDecoder w = ok(rdma.call(Call.of(m).withReadChunk(m.length - io, io)));
            Nfs3Client.preOpAttr(w);
            Nfs3Client.postOpAttr(w);
            assertEquals(io, w.readInt());
        }
        ok(rdma.call(Call.of(call(Nfs3.COMMIT, Nfs3Client.encode(e -> e.writeOpaque(fh).writeHyper(0).writeInt(0))))));
        CRC32 read = new CRC32();
        for (int i = 0; i < count; i++) {
            Reply r = rdma.call(Call.of(call(Nfs3.READ, Nfs3Client.readArgs(fh, (long) i * io, io)))
                    .withWriteChunk(io, 256 << 10));
            XdrDecoder d = ok(r);
            Nfs3Client.postOpAttr(d);
            assertEquals(io, d.readInt());
            read.update(r.writeChunkData());
        }
        assertEquals(written.getValue(), read.getValue(), "256 MiB read back as written");
        // RDMA Read into registered memory -> pwrite; pread into registered memory -> RDMA Write:
        // the kernel's copy is the only one; gateway_payload_copy_bytes_total does not move
        assertEquals(copiesBefore, copies.total(), copies.snapshot().toString());
    }
}
