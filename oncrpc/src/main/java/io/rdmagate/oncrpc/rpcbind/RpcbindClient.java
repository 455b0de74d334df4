package io.rdmagate.oncrpc.rpcbind;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.client.RpcClient;
import io.rdmagate.oncrpc.client.RpcReplyMessage;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Talks to an rpcbind over TCP (the host's on 127.0.0.1:111, or ours in tests): SET and UNSET
 * with rpcbind version 4, falling back to portmap version 2 when the server lacks version 4,
 * and the queries GETPORT (v2), GETADDR (v4) and DUMP (v2). One short connection per call.
 */
public final class RpcbindClient {
    private static final AuthSys ROOT = new AuthSys(0, "localhost", 0, 0, new int[0]);

    private final InetSocketAddress server;
    private final Duration timeout;

    public RpcbindClient(InetSocketAddress server, Duration timeout) {
        this.server = server;
        this.timeout = timeout;
    }

    public static RpcbindClient system() {
        return new RpcbindClient(new InetSocketAddress(InetAddress.getLoopbackAddress(), Rpcbind.PORT),
                Duration.ofSeconds(3));
    }

    private RpcReplyMessage call(int vers, int proc, ByteBuf args) throws IOException {
        try (RpcClient c = RpcClient.connect(server, timeout).credentials(ROOT)) {
            RpcReplyMessage r = c.call(Rpcbind.PROGRAM, vers, proc, ByteBufUtil.getBytes(args), timeout);
            return r;
        }
    }

    private static ByteBuf rpcb(int prog, int vers, String netid, String uaddr, String owner) {
        ByteBuf b = Unpooled.buffer().writeInt(prog).writeInt(vers);
        for (String s : new String[] {netid, uaddr, owner}) {
            byte[] x = s.getBytes(StandardCharsets.US_ASCII);
            b.writeInt(x.length).writeBytes(x).writeZero(-x.length & 3);
        }
        return b;
    }

    private static boolean bool(RpcReplyMessage r, String what) throws IOException {
        if (!r.header().isSuccess()) {
            throw new IOException(what + ": " + r.header());
        }
        try {
            return r.results().readBool();
        } catch (XdrException e) {
            throw new IOException(what + ": " + e.getMessage(), e);
        }
    }

    /** Registers {@code port} for a program version on a netid ("tcp", "udp"). */
    public boolean set(int prog, int vers, String netid, int port) throws IOException {
        String uaddr = UniversalAddress.format(InetAddress.getByAddress(new byte[4]), port);
        RpcReplyMessage r = call(4, Rpcbind.RPCBPROC_SET, rpcb(prog, vers, netid, uaddr, "superuser"));
        if (r.header().isSuccess()) {
            return bool(r, "rpcbind SET");
        }
        int proto = netid.startsWith("udp") ? Rpcbind.IPPROTO_UDP : Rpcbind.IPPROTO_TCP;
        ByteBuf m = Unpooled.buffer().writeInt(prog).writeInt(vers).writeInt(proto).writeInt(port);
        return bool(call(2, Rpcbind.PMAPPROC_SET, m), "portmap SET");
    }

    /** Removes every registration of a program version. */
    public boolean unset(int prog, int vers) throws IOException {
        RpcReplyMessage r = call(4, Rpcbind.RPCBPROC_UNSET, rpcb(prog, vers, "", "", "superuser"));
        if (r.header().isSuccess()) {
            return bool(r, "rpcbind UNSET");
        }
        ByteBuf m = Unpooled.buffer().writeInt(prog).writeInt(vers).writeInt(0).writeInt(0);
        return bool(call(2, Rpcbind.PMAPPROC_UNSET, m), "portmap UNSET");
    }

    /** Portmap GETPORT: the port, or 0 when not registered. */
    public int getPort(int prog, int vers, int protocol) throws IOException {
        ByteBuf m = Unpooled.buffer().writeInt(prog).writeInt(vers).writeInt(protocol).writeInt(0);
        RpcReplyMessage r = call(2, Rpcbind.PMAPPROC_GETPORT, m);
        try {
            return (int) results(r, "GETPORT").readUnsignedInt();
        } catch (XdrException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** rpcbind v4 GETADDR (or GETVERSADDR when {@code exactVersion}): a universal address, or "". */
    public String getAddr(int prog, int vers, String netid, boolean exactVersion) throws IOException {
        int proc = exactVersion ? Rpcbind.RPCBPROC_GETVERSADDR : Rpcbind.RPCBPROC_GETADDR;
        RpcReplyMessage r = call(4, proc, rpcb(prog, vers, netid, "", ""));
        try {
            return results(r, "GETADDR").readString(Rpcbind.MAX_UADDR);
        } catch (XdrException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** Portmap DUMP. */
    public List<Mapping> dump() throws IOException {
        RpcReplyMessage r = call(2, Rpcbind.PMAPPROC_DUMP, Unpooled.EMPTY_BUFFER);
        List<Mapping> out = new ArrayList<>();
        try {
            XdrDecoder x = results(r, "DUMP");
            while (x.readBool()) {
                int prog = x.readInt();
                int vers = x.readInt();
                String netid = Mapping.netidOf(x.readInt());
                int port = x.readInt();
                out.add(new Mapping(prog, vers, netid == null ? "?" : netid, port, ""));
            }
        } catch (XdrException e) {
            throw new IOException(e.getMessage(), e);
        }
        return out;
    }

    private static XdrDecoder results(RpcReplyMessage r, String what) throws IOException {
        if (!r.header().isSuccess()) {
            throw new IOException(what + ": " + r.header());
        }
        return r.results();
    }
}
