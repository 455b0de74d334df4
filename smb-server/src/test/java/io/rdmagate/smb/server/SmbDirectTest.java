package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.RdmaResources;
import io.rdmagate.rdma.loopback.LoopbackFabric;
import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.Smb2Read;
import io.rdmagate.smbdirect.SmbDirectOptions;
import io.rdmagate.smbdirect.SmbDirectServer;
import io.rdmagate.smbdirect.client.SmbDirectClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SMB2 over SMB Direct, in memory: the loopback RDMA provider carries MS-SMBD between
 * {@link SmbDirectClient} and the server's SMB Direct listener, and {@link RawSmbClient} speaks
 * SMB 3.0.2 over it. READ and WRITE with the RDMA channel move file data between the client's
 * registered buffers and the file with no payload copy in the gateway.
 */
class SmbDirectTest {
    @TempDir
    Path dir;
    @TempDir
    Path state;

    private final LoopbackFabric fabric = new LoopbackFabric();
    private final RdmaDevice clientDevice = fabric.device("client");
    private RdmaResources rdma;
    private TestServer server;
    private SmbDirectServer direct;

    @BeforeEach
    void start() throws Exception {
        rdma = RdmaResources.open(fabric.device("server"));
        server = TestServer.registered(dir, state, rdma);
        direct = server.server.listenSmbDirect(rdma, SmbDirectOptions.defaults(), new InetSocketAddress("127.0.0.1", 0));
    }

    @AfterEach
    void stop() {
        server.close();
        rdma.close();
        clientDevice.close();
    }

    /** SMB2 messages as SMB Direct messages. */
    private static final class DirectFrames implements RawSmbClient.Frames {
        private final SmbDirectClient c;

        DirectFrames(SmbDirectClient c) {
            this.c = c;
        }

        @Override
        public void write(byte[] message, int length) throws IOException {
            try {
                c.send(java.util.Arrays.copyOf(message, length));
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        }

        @Override
        public byte[] read() throws IOException, InterruptedException {
            while (true) {
                ByteBuffer m = c.receive(200);
                if (m != null) {
                    byte[] b = new byte[m.remaining()];
                    m.get(b);
                    return b;
                }
                try {
                    if (c.endsWithin(0)) {
                        throw new IOException("SMB Direct connection ended");
                    }
                } catch (IOException | InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IOException(e);
                }
            }
        }

        @Override
        public void close() {
            c.close();
        }
    }

    private SmbDirectClient directClient;

    private RawSmbClient logonDirect() throws Exception {
        directClient = SmbDirectClient.connect(clientDevice, direct.localAddress());
        RawSmbClient c = new RawSmbClient(new DirectFrames(directClient));
        c.dialect = Smb2Dialect.SMB_3_0_2;
        return c.logon();
    }

    /** WRITE (MS-SMB2 2.2.21) of {@code length} bytes through the RDMA channel from {@code mr}. */
    private static ByteBuffer rdmaWrite(FileId f, long offset, int length, int channel, MemoryRegion mr, int descriptorBytes) {
        ByteBuffer m = RawSmbClient.msg(48 + descriptorBytes);
        m.putShort(64, (short) 49).putShort(66, (short) 0).putInt(68, 0).putLong(72, offset);
        f.write(m, 80);
        m.putInt(96, channel).putInt(100, length).putShort(104, (short) 112).putShort(106, (short) descriptorBytes)
                .putInt(108, 0);
        if (descriptorBytes >= 16) {
            m.putLong(112, mr.address()).putInt(120, mr.rkey()).putInt(124, (int) mr.length());
        }
        return m;
    }

    /** READ (MS-SMB2 2.2.19) of {@code length} bytes through the RDMA channel into {@code mr}. */
    private static ByteBuffer rdmaRead(FileId f, long offset, int length, int channel, MemoryRegion mr, int descriptorLength) {
        ByteBuffer m = RawSmbClient.msg(48 + 16);
        m.putShort(64, (short) 49).put(66, (byte) 0).put(67, (byte) 0).putInt(68, length).putLong(72, offset);
        f.write(m, 80);
        m.putInt(96, 0).putInt(100, channel).putInt(104, 0).putShort(108, (short) 112).putShort(110, (short) 16);
        m.putLong(112, mr.address()).putInt(120, mr.rkey()).putInt(124, descriptorLength);
        return m;
    }

    @Test
    void readAndWriteOfTheRdmaChannelMoveAFileWithoutCopyingItsBytes() throws Exception {
        try (RawSmbClient c = logonDirect()) {
            int n = 1 << 20;
            byte[] data = new byte[n];
            new Random(7).nextBytes(data);
            MemoryRegion src = directClient.register(n);
            MemoryRegion dst = directClient.register(n);
            src.segment().asByteBuffer().put(data);
            FileId f = c.create("direct.bin", 0, RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, 5).fileId();
            long copied = server.copies.total();

            ByteBuffer w = c.send(Smb2Command.WRITE,
                    rdmaWrite(f, 0, n, Smb2Read.CHANNEL_RDMA_V1_INVALIDATE, src, 16), 16).get(20, java.util.concurrent.TimeUnit.SECONDS);
            RawSmbClient.check(w, NtStatus.SUCCESS);
            assertEquals(n, w.getInt(64 + 4), "Count");
            ByteBuffer r = c.send(Smb2Command.READ,
                    rdmaRead(f, 0, n, Smb2Read.CHANNEL_RDMA_V1_INVALIDATE, dst, n), 16).get(20, java.util.concurrent.TimeUnit.SECONDS);
            RawSmbClient.check(r, NtStatus.SUCCESS);
            assertEquals(0, r.getInt(64 + 4), "DataLength: nothing inline");
            assertEquals(n, r.getInt(64 + 8), "DataRemaining: the bytes RDMA-Written");

            byte[] back = new byte[n];
            dst.segment().asByteBuffer().get(back);
            assertArrayEquals(data, back, "the READ placed the file's bytes in the client's buffer");
            assertArrayEquals(data, Files.readAllBytes(dir.resolve("direct.bin")), "the WRITE reached the file");
            assertEquals(copied, server.copies.total(), "no payload byte copied in the gateway");
            assertEquals(java.util.List.of(src.rkey(), dst.rkey()), directClient.invalidated(),
                    "each response invalidated the buffer it used");
            assertEquals(n, direct.rdmaReadBytes().sum());
            assertEquals(n, direct.rdmaWriteBytes().sum());
            assertNull(directClient.violation());
        }
    }

    @Test
    void inlineReadAndWriteTravelAsFragmentedMessages() throws Exception {
        try (RawSmbClient c = logonDirect()) {
            byte[] data = new byte[100_000];
            new Random(3).nextBytes(data);
            FileId f = c.create("inline.bin", 0, RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, 5).fileId();
            assertEquals(NtStatus.SUCCESS, c.write(f, 0, data));
            ByteBuffer r = c.sendRead(f, 0, data.length).get(20, java.util.concurrent.TimeUnit.SECONDS);
            RawSmbClient.check(r, NtStatus.SUCCESS);
            byte[] back = new byte[r.getInt(64 + 4)];
            r.get(r.get(64 + 2) & 0xff, back);
            assertArrayEquals(data, back);
            assertNull(directClient.violation());
        }
    }

    @Test
    void badChannelRequestsAreInvalidParameterAndStillInvalidateTheBuffer() throws Exception {
        try (RawSmbClient c = logonDirect(); RawSmbClient tcp = new RawSmbClient(server.port())) {
            MemoryRegion mr = directClient.register(4096);
            FileId f = c.create("bad.bin", 0, RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, 5).fileId();
            // descriptors that hold less than the READ asks for
            ByteBuffer r = c.send(Smb2Command.READ, rdmaRead(f, 0, 8192, Smb2Read.CHANNEL_RDMA_V1_INVALIDATE, mr, 4096))
                    .get(20, java.util.concurrent.TimeUnit.SECONDS);
            RawSmbClient.check(r, NtStatus.INVALID_PARAMETER);
            assertEquals(java.util.List.of(mr.rkey()), directClient.invalidated(), "invalidated though refused");
            // channel info of 8 bytes: no whole descriptor
            RawSmbClient.check(c.send(Smb2Command.WRITE, rdmaWrite(f, 0, 100, Smb2Read.CHANNEL_RDMA_V1, mr, 8))
                    .get(20, java.util.concurrent.TimeUnit.SECONDS), NtStatus.INVALID_PARAMETER);
            // an RDMA channel on a TCP connection
            tcp.dialect = Smb2Dialect.SMB_3_0_2;
            tcp.logon();
            FileId t = tcp.create("bad.bin", 0, RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, 1).fileId();
            RawSmbClient.check(tcp.call(Smb2Command.READ, rdmaRead(t, 0, 100, Smb2Read.CHANNEL_RDMA_V1, mr, 4096)),
                    NtStatus.INVALID_PARAMETER);
            // the SMB Direct connection is still in service
            assertEquals(NtStatus.SUCCESS, c.write(f, 0, new byte[] {1, 2, 3, 4, 5}));
        }
    }

    /** FSCTL_QUERY_NETWORK_INTERFACE_INFO (MS-SMB2 2.2.31): the response's first NETWORK_INTERFACE_INFO. */
    private static ByteBuffer firstInterface(RawSmbClient c) throws Exception {
        ByteBuffer m = RawSmbClient.msg(56);
        m.putShort(64, (short) 57).putInt(68, 0x001401FC);
        for (int i = 0; i < 16; i++) {
            m.put(72 + i, (byte) 0xFF);
        }
        m.putInt(88, 120).putInt(96, 0).putInt(100, 120).putInt(108, 64 * 1024).putInt(112, 1);
        ByteBuffer r = c.call(Smb2Command.IOCTL, m);
        RawSmbClient.check(r, NtStatus.SUCCESS);
        int at = r.getInt(64 + 32);
        return r.slice(at, r.getInt(64 + 36)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void aTcpSessionBindsAnSmbDirectChannelMovesDataByRdmaAndOutlivesItsTcpConnection() throws Exception {
        RawSmbClient tcp = new RawSmbClient(server.port());
        tcp.dialect = Smb2Dialect.SMB_3_0_2;
        tcp.logon();
        tcp.signer = RawSmbClient.signer30(tcp.sessionKey);
        ByteBuffer iface = firstInterface(tcp);
        assertEquals(0x1 | 0x2, iface.getInt(8), "RSS- and RDMA-capable: SMB Direct listens on the address");
        FileId f = tcp.create("mc.bin", 0, RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, 5).fileId();

        directClient = SmbDirectClient.connect(clientDevice, direct.localAddress());
        try (RawSmbClient rdma = new RawSmbClient(new DirectFrames(directClient))) {
            ByteBuffer bound = rdma.bindTo(tcp);
            RawSmbClient.check(bound, NtStatus.SUCCESS);
            assertTrue(rdma.signer.verify(bound), "the binding's final response is signed with the new channel's key");
            assertTrue(rdma.signer != tcp.signer);

            int n = 256 << 10;
            byte[] data = new byte[n];
            new Random(11).nextBytes(data);
            MemoryRegion src = directClient.register(n);
            MemoryRegion dst = directClient.register(n);
            src.segment().asByteBuffer().put(data);
            // the open made on the TCP channel, used on the SMB Direct one: the session's, not a connection's
            RawSmbClient.check(rdma.send(Smb2Command.WRITE, rdmaWrite(f, 0, n, Smb2Read.CHANNEL_RDMA_V1_INVALIDATE, src, 16), 4)
                    .get(20, java.util.concurrent.TimeUnit.SECONDS), NtStatus.SUCCESS);

            tcp.close(); // the session's first channel goes; it lives on over SMB Direct
            long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            // the TCP transport counts its close after the request processor has handled it
            var tcpMeters = server.server.metrics().transport("tcp");
            while (tcpMeters.open() > 0 && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            assertEquals(0, tcpMeters.open(), "the TCP channel is gone and its loss handled");
            ByteBuffer r = rdma.send(Smb2Command.READ, rdmaRead(f, 0, n, Smb2Read.CHANNEL_RDMA_V1_INVALIDATE, dst, n), 4)
                    .get(20, java.util.concurrent.TimeUnit.SECONDS);
            RawSmbClient.check(r, NtStatus.SUCCESS);
            byte[] back = new byte[n];
            dst.segment().asByteBuffer().get(back);
            assertArrayEquals(data, back);
            assertEquals(NtStatus.SUCCESS, rdma.close(f), "the open outlived the TCP connection it was made on");
            assertNull(directClient.violation());
        }
    }

    @Test
    void anOplockBreakReachesTheSmbDirectClientWhenATcpClientOpensTheFile() throws Exception {
        try (RawSmbClient c = logonDirect(); RawSmbClient tcp = new RawSmbClient(server.port())) {
            tcp.logon();
            RawSmbClient.Created held = c.create("shared.txt", 0x09, RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, 5);
            assertEquals(0x09, held.oplockLevel(), "batch oplock granted over SMB Direct");
            var opening = tcp.sendCreate("shared.txt", 0, RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, 1);
            ByteBuffer brk = c.nextBreak(10_000);
            assertNotNull(brk, "the break notification came over SMB Direct");
            assertEquals(held.fileId(), RawSmbClient.breakFileId(brk));
            c.ack(held.fileId(), RawSmbClient.breakLevel(brk));
            RawSmbClient.check(opening.get(20, java.util.concurrent.TimeUnit.SECONDS), NtStatus.SUCCESS);
            assertTrue(direct.openConnections() == 1);
        }
    }
}
