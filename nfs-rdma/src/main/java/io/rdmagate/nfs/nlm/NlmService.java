package io.rdmagate.nfs.nlm;

import io.rdmagate.nfs.NfsExport;
import io.rdmagate.nfs.NfsExports;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.NfsServer;
import io.rdmagate.oncrpc.client.RpcClient;
import io.rdmagate.oncrpc.client.RpcReplyMessage;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpcbind.Rpcbind;
import io.rdmagate.oncrpc.rpcbind.RpcbindClient;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcErrorException;
import io.rdmagate.oncrpc.server.RpcProgram;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.netty.buffer.Unpooled;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.lock.LockConflictException;
import io.rdmagate.vfs.lock.PendingLock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NLM v4 and NSM over the vfs lock tables, so that NFS clients' fcntl locks and SMB byte-range
 * locks see each other.
 *
 * <p>Operation of a blocking LOCK: the request is queued in the file's {@code LockManager}; the
 * call returns nlm4_blocked; when the lock manager grants it, a virtual thread asks rpcbind on the
 * client's host for its NLM v4 TCP port and calls NLM4_GRANTED there with the lock (retrying a few
 * times); a client that cannot be reached gets the lock taken back, so it is not held forever.
 * CANCEL withdraws a waiting request; FREE_ALL and SM_NOTIFY release everything of a client.
 */
public final class NlmService implements NfsServer.Nlm {
    private static final Logger LOG = LoggerFactory.getLogger(NlmService.class);
    static final int CALLBACK_ATTEMPTS = 5;
    static final Duration CALLBACK_TIMEOUT = Duration.ofSeconds(5);

    private record Waiting(long fileId, int volumeId, String owner, long offset, long length, boolean exclusive) {
    }

    private final NfsExports exports;
    private final Function<InetAddress, InetSocketAddress> clientRpcbind;
    private final Map<Waiting, PendingLock> waiting = new ConcurrentHashMap<>();
    private final ExecutorService callbacks = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("nlm-granted-", 0).factory());
    private final int nsmState = (int) (System.currentTimeMillis() / 1000) | 1; // odd: up
    private final NlmProgram nlm = new NlmProgram();
    private final NsmProgram nsm = new NsmProgram(this);

    /** Callbacks go to rpcbind on port 111 of the client's host. */
    public NlmService(NfsExports exports) {
        this(exports, host -> new InetSocketAddress(host, Rpcbind.PORT));
    }

    /** @param clientRpcbind where the rpcbind of a client host listens (tests use another port) */
    public NlmService(NfsExports exports, Function<InetAddress, InetSocketAddress> clientRpcbind) {
        this.exports = exports;
        this.clientRpcbind = clientRpcbind;
    }

    @Override
    public RpcProgram nlm() {
        return nlm;
    }

    @Override
    public RpcProgram nsm() {
        return nsm;
    }

    int nsmState() {
        return nsmState;
    }

    @Override
    public void close() {
        waiting.values().forEach(PendingLock::cancel);
        waiting.clear();
        callbacks.shutdownNow();
    }

    /** The file of a lock; the caller must be let in by one of the export's client rules. */
    Target target(RpcCall call, byte[] fh) throws VfsException {
        Target t = exports.resolve(fh);
        java.util.Optional<io.rdmagate.gateway.spi.config.ClientRule> rule = t.export().ruleFor(
                call.connection().peer().getAddress());
        if (rule.isEmpty()) {
            String client = call.connection().peer().getAddress().getHostAddress();
            exports.denials().log(io.rdmagate.gateway.spi.log.RateLimitedLog.Level.WARN, client,
                    "NLM {} refused: client {} matches no client rule of export {}", call.procedure(), client,
                    t.export().config().name());
            throw new VfsException(io.rdmagate.vfs.VfsError.ACCESS, "client not allowed on the export");
        }
        if (!io.rdmagate.nfs.ClientAccess.portAllowed(exports, t.export(), rule.get(), call,
                "NLM procedure " + call.procedure())) {
            throw new VfsException(io.rdmagate.vfs.VfsError.ACCESS, "client called from an unreserved port");
        }
        return t;
    }

    static int status(VfsException e) {
        return switch (e.error()) {
            case STALE, BAD_HANDLE -> Nlm4.STALE_FH;
            case LOCK_CONFLICT -> Nlm4.DENIED;
            case DEADLOCK -> Nlm4.DEADLCK;
            case READ_ONLY -> Nlm4.ROFS;
            case FILE_TOO_BIG, INVALID -> Nlm4.FBIG;
            case NO_RESOURCES -> Nlm4.DENIED_NOLOCKS;
            default -> Nlm4.FAILED;
        };
    }

    static XdrMessage res(RpcCall call, byte[] cookie, int stat) {
        XdrEncoder out = call.success();
        out.writeOpaque(cookie);
        out.writeInt(stat);
        return out.finish();
    }

    int lock(RpcCall call, NlmLock lock, boolean exclusive, boolean block, byte[] cookie) {
        Target t;
        try {
            t = target(call, lock.fh());
        } catch (VfsException e) {
            return status(e);
        }
        var locks = t.fs().locks();
        long fileId = t.handle().fileId();
        Waiting key = new Waiting(fileId, t.fs().volumeId(), lock.owner().key(), lock.offset(), lock.length(), exclusive);
        int use = -1;
        try {
            // an SMB client caching the file under a write lease keeps its own locks locally: recall first
            use = t.begin(io.rdmagate.vfs.state.Conflict.LOCK);
            if (!block) {
                locks.lock(fileId, lock.request(exclusive));
                return Nlm4.GRANTED_STAT;
            }
            if (waiting.containsKey(key)) {
                return Nlm4.BLOCKED; // a retransmission of a request that still waits
            }
            PendingLock p = locks.lockOrWait(fileId, lock.request(exclusive));
            if (p.granted().isDone()) {
                return Nlm4.GRANTED_STAT;
            }
            waiting.put(key, p);
            InetAddress client = call.connection().peer().getAddress();
            p.granted().whenComplete((granted, failure) -> {
                waiting.remove(key, p);
                if (failure == null) {
                    callbacks.execute(() -> grant(client, t, lock, exclusive, cookie));
                }
            });
            return Nlm4.BLOCKED;
        } catch (LockConflictException e) {
            return Nlm4.DENIED;
        } catch (VfsException e) {
            return status(e);
        } finally {
            t.end(use);
        }
    }

    int cancel(RpcCall call, NlmLock lock, boolean exclusive) {
        Target t;
        try {
            t = target(call, lock.fh());
        } catch (VfsException e) {
            return status(e);
        }
        Waiting key = new Waiting(t.handle().fileId(), t.fs().volumeId(), lock.owner().key(), lock.offset(),
                lock.length(), exclusive);
        PendingLock p = waiting.remove(key);
        return p != null && p.cancel() ? Nlm4.GRANTED_STAT : Nlm4.DENIED;
    }

    /** Releases every lock and wait of a client host (FREE_ALL, SM_NOTIFY). */
    void releaseClient(String name) {
        int n = 0;
        for (NfsExport e : exports.all()) {
            n += e.fs().locks().releaseAll(o -> name.equals(o.client()) && o.key().startsWith("nlm:"));
        }
        LOG.info("released {} NLM locks of client {}", n, name);
    }

    /** NLM4_GRANTED to the client; on failure after retries the lock is released again. */
    private void grant(InetAddress client, Target t, NlmLock lock, boolean exclusive, byte[] cookie) {
        XdrEncoder args = new XdrEncoder(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, Unpooled.buffer(256));
        args.writeOpaque(cookie);
        args.writeBool(exclusive);
        lock.write(args);
        XdrMessage m = args.finish();
        byte[] body = m.toBytes();
        m.release();
        for (int attempt = 1; attempt <= CALLBACK_ATTEMPTS; attempt++) {
            try {
                int port = new RpcbindClient(clientRpcbind.apply(client), CALLBACK_TIMEOUT)
                        .getPort(Nlm4.PROGRAM, Nlm4.VERSION, Rpcbind.IPPROTO_TCP);
                if (port <= 0) {
                    throw new IOException("no NLM v4 on tcp registered with rpcbind of " + client.getHostAddress());
                }
                try (RpcClient c = RpcClient.connect(new InetSocketAddress(client, port), CALLBACK_TIMEOUT)) {
                    c.credentials(new AuthSys(0, InetAddress.getLocalHost().getHostName(), 0, 0, new int[0]));
                    RpcReplyMessage r = c.call(Nlm4.PROGRAM, Nlm4.VERSION, Nlm4.GRANTED, body, CALLBACK_TIMEOUT);
                    if (!r.header().isSuccess()) {
                        throw new IOException("GRANTED refused: " + r.header());
                    }
                    return;
                }
            } catch (IOException e) {
                LOG.debug("GRANTED callback to {} failed (attempt {}): {}", client.getHostAddress(), attempt,
                        e.getMessage());
                try {
                    Thread.sleep(200L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        LOG.warn("client {} did not take the GRANTED callback; releasing its lock", client.getHostAddress());
        try {
            t.fs().locks().unlock(t.handle().fileId(), lock.owner(), lock.offset(), lock.length(),
                    io.rdmagate.vfs.lock.LockSemantics.POSIX);
        } catch (VfsException e) {
            LOG.warn("could not release an unclaimed lock: {}", e.getMessage());
        }
    }

    /** NLM v4, program 100021: one class per procedure; the _MSG/_RES and SHARE variants are PROC_UNAVAIL. */
    private final class NlmProgram implements RpcProgram {
        private final Map<Integer, NlmProcedure> procedures = Map.of(
                Nlm4.NULL, new Nlm4Null(),
                Nlm4.TEST, new Nlm4Test(),
                Nlm4.LOCK, new Nlm4Lock(true),
                Nlm4.CANCEL, new Nlm4Cancel(),
                Nlm4.UNLOCK, new Nlm4Unlock(),
                Nlm4.NM_LOCK, new Nlm4Lock(false),
                Nlm4.FREE_ALL, new Nlm4FreeAll());

        @Override
        public int program() {
            return Nlm4.PROGRAM;
        }

        @Override
        public String name() {
            return "nlm";
        }

        @Override
        public int lowVersion() {
            return Nlm4.VERSION;
        }

        @Override
        public int highVersion() {
            return Nlm4.VERSION;
        }

        @Override
        public XdrMessage handle(RpcCall call) throws XdrException, RpcErrorException {
            NlmProcedure p = procedures.get(call.procedure());
            if (p == null) {
                throw RpcErrorException.procUnavailable(call.procedure());
            }
            return p.run(NlmService.this, call);
        }
    }

}
