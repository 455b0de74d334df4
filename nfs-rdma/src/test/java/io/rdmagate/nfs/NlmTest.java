package io.rdmagate.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.nlm.Nlm4;
import io.rdmagate.nfs.nlm.NlmLock;
import io.rdmagate.oncrpc.client.RpcClient;
import io.rdmagate.oncrpc.rpcbind.Mapping;
import io.rdmagate.oncrpc.rpcbind.RpcbindRegistry;
import io.rdmagate.oncrpc.rpcbind.RpcbindServer;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcLimits;
import io.rdmagate.oncrpc.server.RpcProgram;
import io.rdmagate.oncrpc.server.RpcServer;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.inmemory.InMemoryFileSystem;
import io.rdmagate.vfs.lock.ByteRangeLock;
import io.rdmagate.vfs.lock.LockOwner;
import io.rdmagate.vfs.lock.LockSemantics;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * NLM v4 and NSM over loopback: a client's NLM callback service is played by a small RPC server
 * registered with its own rpcbind, which the server finds the way it finds a real client's.
 */
class NlmTest {
    private NfsFixture fx;
    private RpcbindServer clientRpcbind;
    private RpcServer clientNlm;
    private final BlockingQueue<NlmLock> granted = new LinkedBlockingQueue<>();
    private RpcClient nlm;
    private byte[] fh;
    private FileHandle file;
    private VirtualFileSystem fs;

    /** The client side's NLM: takes NLM4_GRANTED callbacks. */
    private final class CallbackNlm implements RpcProgram {
        public int program() {
            return Nlm4.PROGRAM;
        }

        public String name() {
            return "client-nlm";
        }

        public int lowVersion() {
            return 4;
        }

        public int highVersion() {
            return 4;
        }

        public XdrMessage handle(RpcCall call) throws XdrException {
            XdrDecoder in = call.decoder();
            byte[] cookie = in.readOpaque(1024);
            in.readBool();
            granted.add(NlmLock.read(in));
            XdrEncoder out = call.success();
            out.writeOpaque(cookie);
            out.writeInt(Nlm4.GRANTED_STAT);
            return out.finish();
        }
    }

    @BeforeEach
    void start() throws Exception {
        clientRpcbind = RpcbindServer.start(NfsFixture.LOOPBACK, 0, new RpcbindRegistry(), null, RpcLimits.DEFAULT);
        clientNlm = RpcServer.builder().program(new CallbackNlm()).bind(NfsFixture.LOOPBACK, 0);
        clientRpcbind.registry().set(new Mapping(Nlm4.PROGRAM, 4, "tcp", clientNlm.port(), "superuser"));
        fs = InMemoryFileSystem.create(21, ExportOptions.DEFAULT);
        fx = new NfsFixture(List.of(NfsFixture.export(0, "data", fs, NfsFixture.rule("127.0.0.0/8", Access.RW,
                false, false))), host -> new InetSocketAddress(host, clientRpcbind.port()));
        try (Nfs3Client c = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            byte[] root = Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT);
            fh = c.create(root, "locked", 0644);
        }
        file = fx.exports.resolve(fh).handle();
        nlm = RpcClient.connect(fx.nlm(), Nfs3Client.TIMEOUT).credentials(NfsFixture.ROOT);
    }

    @AfterEach
    void stop() throws Exception {
        nlm.close();
        fx.close();
        clientNlm.close();
        clientRpcbind.close();
    }

    private NlmLock lock(String host, int svid, long offset, long length) {
        return new NlmLock(host, fh, ("oh-" + svid).getBytes(StandardCharsets.US_ASCII), svid, offset, length);
    }

    private XdrDecoder call(int proc, java.util.function.Consumer<XdrEncoder> args) throws Exception {
        var r = nlm.call(Nlm4.PROGRAM, 4, proc, Nfs3Client.encode(args), Nfs3Client.TIMEOUT);
        assertTrue(r.header().isSuccess(), r.header().toString());
        return r.results();
    }

    private int lockCall(NlmLock l, boolean block, boolean exclusive) throws Exception {
        XdrDecoder d = call(Nlm4.LOCK, e -> {
            e.writeOpaque(new byte[] {1, 2, 3}).writeBool(block).writeBool(exclusive);
            l.write(e);
            e.writeBool(false).writeInt(1);
        });
        d.readOpaque(1024);
        return d.readInt();
    }

    private int simple(int proc, NlmLock l, boolean exclusive) throws Exception {
        XdrDecoder d = call(proc, e -> {
            e.writeOpaque(new byte[] {9});
            if (proc == Nlm4.CANCEL) {
                e.writeBool(true).writeBool(exclusive);
            }
            l.write(e);
        });
        d.readOpaque(1024);
        return d.readInt();
    }

    @Test
    void lockTestUnlockAndGrantedCallback() throws Exception {
        assertEquals(Nlm4.GRANTED_STAT, lockCall(lock("alpha", 1, 0, 100), false, true));
        XdrDecoder t = call(Nlm4.TEST, e -> {
            e.writeOpaque(new byte[0]).writeBool(true);
            lock("beta", 2, 50, 10).write(e);
        });
        t.readOpaque(1024);
        assertEquals(Nlm4.DENIED, t.readInt());
        assertTrue(t.readBool(), "holder is exclusive");
        assertEquals(1, t.readInt(), "holder svid");
        assertEquals("oh-1", new String(t.readOpaque(1024), StandardCharsets.US_ASCII));
        assertEquals(0, t.readHyper());
        assertEquals(100, t.readHyper());

        assertEquals(Nlm4.DENIED, lockCall(lock("beta", 2, 50, 10), false, true));
        assertEquals(Nlm4.BLOCKED, lockCall(lock("beta", 2, 50, 10), true, true));
        assertEquals(Nlm4.BLOCKED, lockCall(lock("beta", 2, 50, 10), true, true), "retransmission still waits");
        assertEquals(Nlm4.GRANTED_STAT, simple(Nlm4.UNLOCK, lock("alpha", 1, 0, 0), false));
        NlmLock cb = granted.poll(20, TimeUnit.SECONDS);
        assertNotNull(cb, "GRANTED callback");
        assertEquals(2, cb.svid());
        assertEquals(50, cb.offset());
        List<ByteRangeLock> held = fs.locks().locks(file.fileId());
        assertEquals(1, held.size());
        assertEquals(2, held.getFirst().owner().pid());
    }

    @Test
    void cancelFreeAllAndNotify() throws Exception {
        assertEquals(Nlm4.GRANTED_STAT, lockCall(lock("alpha", 1, 0, 0), false, true));
        assertEquals(Nlm4.DENIED, simple(Nlm4.CANCEL, lock("beta", 2, 0, 0), true), "nothing waits");
        assertEquals(Nlm4.BLOCKED, lockCall(lock("beta", 2, 0, 0), true, true));
        assertEquals(Nlm4.GRANTED_STAT, simple(Nlm4.CANCEL, lock("beta", 2, 0, 0), true));
        call(Nlm4.FREE_ALL, e -> e.writeString("alpha").writeInt(3));
        assertTrue(fs.locks().locks(file.fileId()).isEmpty(), "FREE_ALL released alpha's lock");
        assertEquals(null, granted.poll(300, TimeUnit.MILLISECONDS), "the cancelled request was never granted");

        assertEquals(Nlm4.GRANTED_STAT, lockCall(lock("gamma", 3, 0, 10), false, false));
        assertEquals(Nlm4.GRANTED_STAT, lockCall(lock("delta", 4, 0, 10), false, false), "shared locks share");
        try (RpcClient nsm = RpcClient.connect(fx.nsm(), Nfs3Client.TIMEOUT)) {
            var r = nsm.call(Nlm4.NSM_PROGRAM, 1, Nlm4.SM_NOTIFY,
                    Nfs3Client.encode(e -> e.writeString("gamma").writeInt(5)), Nfs3Client.TIMEOUT);
            assertTrue(r.header().isSuccess());
            var st = nsm.call(Nlm4.NSM_PROGRAM, 1, Nlm4.SM_STAT, Nfs3Client.encode(e -> e.writeString("x")),
                    Nfs3Client.TIMEOUT).results();
            assertEquals(Nlm4.STAT_SUCC, st.readInt());
            assertEquals(1, st.readInt() & 1, "odd state: up");
        }
        List<ByteRangeLock> left = fs.locks().locks(file.fileId());
        assertEquals(1, left.size());
        assertEquals("delta", left.getFirst().owner().client());
    }

    @Test
    void nfsLocksConflictWithWindowsLocksOfTheSameFile() throws Exception {
        LockOwner smb = new LockOwner("smb:open:1", "smb-client", 0, new byte[0]);
        fs.locks().lock(file.fileId(), new ByteRangeLock(smb, 0, 10, true, LockSemantics.WINDOWS));
        assertEquals(Nlm4.DENIED, lockCall(lock("alpha", 1, 5, 1), false, false));
        assertEquals(Nlm4.STALE_FH, lockCall(new NlmLock("alpha", new byte[28], new byte[0], 1, 0, 1), false, true));
    }
}
