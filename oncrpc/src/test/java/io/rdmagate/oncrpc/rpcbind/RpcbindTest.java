package io.rdmagate.oncrpc.rpcbind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.client.RpcClient;
import io.rdmagate.oncrpc.client.RpcReplyMessage;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.CallHeaders;
import io.rdmagate.oncrpc.rpc.ReplyHeader;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.oncrpc.server.RpcLimits;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RpcbindTest {
    private static final Duration T = Duration.ofSeconds(10);
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int MOUNT = 100005;

    private RpcbindServer server;
    private RpcbindClient client;

    @BeforeEach
    void start() throws Exception {
        server = RpcbindServer.start(LOOPBACK, 0, new RpcbindRegistry(), null, RpcLimits.DEFAULT);
        client = new RpcbindClient(server.tcpAddress(), T);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void aRegisteredProgramIsFoundWithGetportAndGetaddr() throws Exception {
        assertTrue(client.set(MOUNT, 3, "tcp", 20048));
        assertTrue(client.set(MOUNT, 3, "udp", 20049));
        assertFalse(client.set(MOUNT, 3, "tcp", 20050), "a second SET of the same version and netid fails");
        assertEquals(20048, client.getPort(MOUNT, 3, Rpcbind.IPPROTO_TCP));
        assertEquals(20049, client.getPort(MOUNT, 3, Rpcbind.IPPROTO_UDP));
        assertEquals(20048, client.getPort(MOUNT, 1, Rpcbind.IPPROTO_TCP), "another version: where to ask");
        assertEquals(0, client.getPort(MOUNT + 1, 3, Rpcbind.IPPROTO_TCP));
        // 20048 = 78 * 256 + 80
        assertEquals("127.0.0.1.78.80", client.getAddr(MOUNT, 3, "tcp", false));
        assertEquals("127.0.0.1.78.80", client.getAddr(MOUNT, 1, "tcp", false));
        assertEquals("", client.getAddr(MOUNT, 1, "tcp", true), "GETVERSADDR wants that very version");
        assertEquals("127.0.0.1.78.81", client.getAddr(MOUNT, 3, "udp", true));
        assertEquals("", client.getAddr(MOUNT + 1, 3, "tcp", false));

        List<Mapping> dump = client.dump();
        assertTrue(dump.contains(new Mapping(MOUNT, 3, "tcp", 20048, "")), dump.toString());
        assertTrue(dump.contains(new Mapping(Rpcbind.PROGRAM, 2, "udp", server.port(), "")), dump.toString());

        assertTrue(client.unset(MOUNT, 3));
        assertEquals(0, client.getPort(MOUNT, 3, Rpcbind.IPPROTO_TCP));
        assertEquals(0, client.getPort(MOUNT, 3, Rpcbind.IPPROTO_UDP));
    }

    @Test
    void universalAddressesCarryTheAddressTheQueryArrivedOn() throws Exception {
        server.registry().set(new Mapping(MOUNT, 3, "tcp", 2049, "superuser"));
        RpcDispatcher d = new RpcDispatcher(null, PooledByteBufAllocator.DEFAULT)
                .register(new RpcbindProgram(server.registry(), null));
        Connection forwarded = new Connection(1, new InetSocketAddress("10.0.2.15", 800),
                new InetSocketAddress("10.0.2.100", 111), "tcp");
        assertEquals("10.0.2.100.8.1", getaddr(d, forwarded));
        Connection v6 = new Connection(2, new InetSocketAddress("fd00::15", 800), new InetSocketAddress("fd00::1", 111),
                "tcp");
        assertEquals("fd00:0:0:0:0:0:0:1.8.1", getaddr(d, v6));
        RpcDispatcher fixed = new RpcDispatcher(null, PooledByteBufAllocator.DEFAULT)
                .register(new RpcbindProgram(server.registry(), InetAddress.getByName("192.0.2.7")));
        assertEquals("192.0.2.7.8.1", getaddr(fixed, forwarded));
    }

    private static String getaddr(RpcDispatcher d, Connection c) throws Exception {
        ByteBuf call = CallHeaders.write(Unpooled.buffer(), 5, Rpcbind.PROGRAM, 4, Rpcbind.RPCBPROC_GETADDR,
                new AuthSys(0, "x", 0, 0, new int[0]));
        call.writeInt(MOUNT).writeInt(3).writeInt(3).writeBytes("tcp\0".getBytes()).writeInt(0).writeInt(0);
        XdrMessage m = d.dispatch(call, c);
        XdrDecoder x = new XdrDecoder(Unpooled.wrappedBuffer(m.toBytes()));
        m.release();
        assertTrue(ReplyHeader.decode(x).isSuccess());
        return x.readString(64);
    }

    @Test
    void setAndUnsetFromAnotherHostAreRefused() throws Exception {
        RpcDispatcher d = new RpcDispatcher(null, PooledByteBufAllocator.DEFAULT)
                .register(new RpcbindProgram(server.registry(), null));
        Connection remote = new Connection(1, new InetSocketAddress("192.0.2.1", 700),
                new InetSocketAddress("192.0.2.2", 111), "tcp");
        ByteBuf set = CallHeaders.write(Unpooled.buffer(), 6, Rpcbind.PROGRAM, 2, Rpcbind.PMAPPROC_SET,
                new AuthSys(0, "x", 0, 0, new int[0]));
        set.writeInt(MOUNT).writeInt(3).writeInt(Rpcbind.IPPROTO_TCP).writeInt(999);
        XdrMessage m = d.dispatch(set, remote);
        XdrDecoder x = new XdrDecoder(Unpooled.wrappedBuffer(m.toBytes()));
        m.release();
        assertTrue(ReplyHeader.decode(x).isSuccess());
        assertFalse(x.readBool());
        assertEquals(0, client.getPort(MOUNT, 3, Rpcbind.IPPROTO_TCP));
    }

    @Test
    void callitAndTliProceduresAreRefusedWithoutForwarding() throws Exception {
        try (RpcClient c = RpcClient.connect(server.tcpAddress(), T)) {
            byte[] callit = ByteBufUtil.getBytes(Unpooled.buffer().writeInt(MOUNT).writeInt(3).writeInt(0).writeInt(0));
            assertEquals(Rpc.PROC_UNAVAIL, c.call(Rpcbind.PROGRAM, 2, Rpcbind.PMAPPROC_CALLIT, callit, T).header().acceptStat());
            assertEquals(Rpc.PROC_UNAVAIL, c.call(Rpcbind.PROGRAM, 3, Rpcbind.RPCBPROC_CALLIT, callit, T).header().acceptStat());
            assertEquals(Rpc.PROC_UNAVAIL, c.call(Rpcbind.PROGRAM, 4, Rpcbind.RPCBPROC_INDIRECT, callit, T).header().acceptStat());
            assertEquals(Rpc.PROC_UNAVAIL, c.call(Rpcbind.PROGRAM, 3, Rpcbind.RPCBPROC_UADDR2TADDR, callit, T).header().acceptStat());
            assertEquals(Rpc.PROC_UNAVAIL, c.call(Rpcbind.PROGRAM, 3, Rpcbind.RPCBPROC_GETVERSADDR, callit, T).header().acceptStat());
            assertEquals(Rpc.PROG_MISMATCH, c.call(Rpcbind.PROGRAM, 5, 0, new byte[0], T).header().acceptStat());
            RpcReplyMessage time = c.call(Rpcbind.PROGRAM, 3, Rpcbind.RPCBPROC_GETTIME, new byte[0], T);
            long now = System.currentTimeMillis() / 1000;
            assertTrue(Math.abs(time.results().readUnsignedInt() - now) < 5);
            // a GETADDR with a netid over the limit is GARBAGE_ARGS
            byte[] longNetid = ByteBufUtil.getBytes(Unpooled.buffer().writeInt(MOUNT).writeInt(3).writeInt(100).writeZero(100));
            assertEquals(Rpc.GARBAGE_ARGS, c.call(Rpcbind.PROGRAM, 4, Rpcbind.RPCBPROC_GETADDR, longNetid, T).header().acceptStat());
        }
    }

    @Test
    void getaddrlistListsEveryTransport() throws Exception {
        server.registry().set(new Mapping(MOUNT, 3, "tcp", 2049, "superuser"));
        server.registry().set(new Mapping(MOUNT, 3, "udp", 2049, "superuser"));
        try (RpcClient c = RpcClient.connect(server.tcpAddress(), T)) {
            byte[] args = ByteBufUtil.getBytes(Unpooled.buffer().writeInt(MOUNT).writeInt(3).writeInt(0).writeInt(0).writeInt(0));
            XdrDecoder x = c.call(Rpcbind.PROGRAM, 4, Rpcbind.RPCBPROC_GETADDRLIST, args, T).results();
            assertTrue(x.readBool());
            assertEquals("127.0.0.1.8.1", x.readString(64));
            assertEquals("tcp", x.readString(32));
            assertEquals(3, x.readInt());
            assertEquals("inet", x.readString(32));
            assertEquals("tcp", x.readString(32));
            assertTrue(x.readBool());
            assertEquals("127.0.0.1.8.1", x.readString(64));
            assertEquals("udp", x.readString(32));
            assertEquals(1, x.readInt());
            x.readString(32);
            x.readString(32);
            assertFalse(x.readBool());
        }
    }

    @Test
    void getportOverUdp() throws Exception {
        server.registry().set(new Mapping(MOUNT, 3, "udp", 635, "superuser"));
        ByteBuf call = CallHeaders.write(Unpooled.buffer(), 0x5151, Rpcbind.PROGRAM, 2, Rpcbind.PMAPPROC_GETPORT,
                new AuthSys(0, "x", 0, 0, new int[0]));
        call.writeInt(MOUNT).writeInt(3).writeInt(Rpcbind.IPPROTO_UDP).writeInt(0);
        byte[] bytes = ByteBufUtil.getBytes(call);
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
            s.setSoTimeout(10_000);
            s.send(new DatagramPacket(bytes, bytes.length, server.udpAddress()));
            byte[] in = new byte[1024];
            DatagramPacket p = new DatagramPacket(in, in.length);
            s.receive(p);
            XdrDecoder x = new XdrDecoder(Unpooled.wrappedBuffer(in, 0, p.getLength()));
            ReplyHeader h = ReplyHeader.decode(x);
            assertEquals(0x5151, h.xid());
            assertTrue(h.isSuccess());
            assertEquals(635, x.readInt());
        }
    }

    @Test
    void universalAddressesParseAndFormat() {
        assertEquals("10.0.2.2.8.1", UniversalAddress.format(new InetSocketAddress("10.0.2.2", 0).getAddress(), 2049));
        assertEquals(new InetSocketAddress("10.0.2.2", 2049), UniversalAddress.parse("10.0.2.2.8.1"));
        assertEquals(new InetSocketAddress("::1", 111), UniversalAddress.parse("::1.0.111"));
        assertThrows(IllegalArgumentException.class, () -> UniversalAddress.parse("10.0.2.2.8"));
        assertThrows(IllegalArgumentException.class, () -> UniversalAddress.parse("10.0.2.2.8.256"));
        assertThrows(IllegalArgumentException.class, () -> UniversalAddress.parse("example.com.8.1"));
        assertThrows(IllegalArgumentException.class, () -> UniversalAddress.parse(""));
    }

    @Test
    void theSystemAdvertiserRegistersAndWithdraws() throws Exception {
        // our embedded rpcbind stands in for the host's
        try (PortAdvertiser a = PortAdvertiser.system(client)) {
            a.advertise(MOUNT, 3, "tcp", 20048);
            a.advertise(MOUNT, 3, "udp", 20048);
            assertEquals(20048, client.getPort(MOUNT, 3, Rpcbind.IPPROTO_TCP));
            // a stale registration of a previous run is replaced
            server.registry().set(new Mapping(100021, 4, "tcp", 1, "superuser"));
            a.advertise(100021, 4, "tcp", 4045);
            assertEquals(4045, client.getPort(100021, 4, Rpcbind.IPPROTO_TCP));
        }
        assertEquals(0, client.getPort(MOUNT, 3, Rpcbind.IPPROTO_TCP));
        assertEquals(0, client.getPort(100021, 4, Rpcbind.IPPROTO_TCP));
        try (PortAdvertiser a = PortAdvertiser.embedded(server.registry())) {
            a.advertise(MOUNT, 3, "tcp", 1234);
            assertEquals("127.0.0.1.4.210", client.getAddr(MOUNT, 3, "tcp", true));
        }
        assertEquals("", client.getAddr(MOUNT, 3, "tcp", true));
    }
}
