package io.rdmagate.nfs.v4;

import io.rdmagate.nfs.NfsExports;
import io.rdmagate.nfs.v4.state.Nfs4State;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * What every transport's NFSv4.1 program shares: the exports and their pseudo-filesystem, the one
 * state of clients, sessions and opens, the server's identity (RFC 8881 §2.5: one server owner and
 * scope on every address, so a client that reaches it over TCP and over RDMA sees one server) and
 * the operations.
 */
public final class Nfs4Server implements AutoCloseable {
    /**
     * @param lease            lease_time: a client that sends no SEQUENCE for this long loses its lease
     * @param maxClients       client records kept at most
     * @param maxSessions      sessions at most, over every client
     * @param maxSlots         slots per session at most (ca_maxrequests)
     * @param maxOperations    operations per COMPOUND at most (ca_maxoperations)
     * @param maxCachedReply   reply bytes kept per slot for replay at most (ca_maxresponsesize_cached)
     * @param grace            after a restart, how long the clients of the previous run may reclaim
     * @param maxDelegations   delegations held at most at once, over every client (0: none are handed out)
     * @param idmapDomain      owners are written "name@idmapDomain" for the ids the host names; empty: numbers
     * @param maxMinorVersion  the newest minor version served: 0, 1, or 2 for NFSv4.2 as well
     * @param maxCopy          bytes one COPY copies at most; a longer copy is answered short and the client
     *                         asks for the rest, so no slot is held for long (RFC 7862 §15.2.3)
     * @param minMinorVersion  the oldest minor version served: 0 for NFSv4.0 (RFC 7530) as well, or 1
     */
    public record Options(Duration lease, int maxClients, int maxSessions, int maxSlots, int maxOperations,
            int maxCachedReply, Duration grace, int maxDelegations, String idmapDomain, int maxMinorVersion,
            long maxCopy, int minMinorVersion) {
        public static final Options DEFAULT = new Options(Duration.ofSeconds(90), 4096, 4096, 64, 64, 8192,
                Duration.ofSeconds(90), 65536, "");

        /** Minor versions from 0 to {@code maxMinorVersion}. */
        public Options(Duration lease, int maxClients, int maxSessions, int maxSlots, int maxOperations,
                int maxCachedReply, Duration grace, int maxDelegations, String idmapDomain, int maxMinorVersion,
                long maxCopy) {
            this(lease, maxClients, maxSessions, maxSlots, maxOperations, maxCachedReply, grace, maxDelegations,
                    idmapDomain, maxMinorVersion, maxCopy, Nfs4.MINOR_VERSION_0);
        }

        /** Minor versions 0, 1 and 2, and at most 64 MiB copied by one COPY. */
        public Options(Duration lease, int maxClients, int maxSessions, int maxSlots, int maxOperations,
                int maxCachedReply, Duration grace, int maxDelegations, String idmapDomain) {
            this(lease, maxClients, maxSessions, maxSlots, maxOperations, maxCachedReply, grace, maxDelegations,
                    idmapDomain, Nfs4.MINOR_VERSION_2, 64L << 20);
        }

        public Options {
            if (lease.toSeconds() < 10 || lease.toSeconds() > 3600 || maxOperations < 8 || maxOperations > 1024
                    || grace.isNegative() || grace.toSeconds() > 3600 || maxDelegations < 0 || idmapDomain == null
                    || idmapDomain.contains("@") || idmapDomain.isBlank() != idmapDomain.isEmpty()
                    || maxMinorVersion < Nfs4.MINOR_VERSION_0 || maxMinorVersion > Nfs4.MINOR_VERSION_2 || maxCopy < 4096
                    || minMinorVersion < Nfs4.MINOR_VERSION_0 || minMinorVersion > maxMinorVersion) {
                throw new IllegalArgumentException("NFSv4 lease must be 10-3600 s, grace 0-3600 s, maxOperations 8-1024,"
                        + " maxDelegations not negative, idmapDomain a domain or empty, minor versions 0 to 2,"
                        + " maxCopy at least 4 KiB");
            }
        }

        public Options withMaxMinorVersion(int minor) {
            return new Options(lease, maxClients, maxSessions, maxSlots, maxOperations, maxCachedReply, grace,
                    maxDelegations, idmapDomain, minor, maxCopy, minMinorVersion);
        }

        /** The oldest minor version served: 0 for NFSv4.0 clients, 1 to refuse them. */
        public Options withMinMinorVersion(int minor) {
            return new Options(lease, maxClients, maxSessions, maxSlots, maxOperations, maxCachedReply, grace,
                    maxDelegations, idmapDomain, maxMinorVersion, maxCopy, minor);
        }
    }

    private final NfsExports exports;
    private final PseudoFs pseudo;
    private final java.util.concurrent.atomic.LongAdder copiedBytes = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder clonedBytes = new java.util.concurrent.atomic.LongAdder();
    private final Nfs4State state;
    private final Options options;
    private final int maxIoSize;
    private final byte[] serverOwner;
    private final long startNanos = System.nanoTime();
    private final long startMillis = System.currentTimeMillis();
    private final Operations operations = new Operations();
    private final io.rdmagate.nfs.v4.state.CrossProtocolState shared;
    private final IdMap idmap;
    /** Drops clients whose lease lapsed, with their locks, every half lease (as knfsd's laundromat). */
    private final java.util.concurrent.ScheduledExecutorService laundromat =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                    Thread.ofPlatform().daemon().name("nfs4-laundromat").factory());

    /** A server that records no client: after a restart nothing is reclaimed. */
    public Nfs4Server(NfsExports exports, Options options, int maxIoSize) {
        this(exports, options, maxIoSize, io.rdmagate.nfs.v4.state.ClientRecovery.NONE);
    }

    /**
     * A server that records its confirmed clients in {@code recovery}; when the previous run recorded
     * some, it starts in a grace period of {@code options.grace()} in which they reclaim their opens
     * and locks (RFC 8881 §8.4.2).
     */
    public Nfs4Server(NfsExports exports, Options options, int maxIoSize,
            io.rdmagate.nfs.v4.state.ClientRecovery recovery) {
        this.exports = exports;
        this.pseudo = new PseudoFs(exports);
        this.options = options;
        this.maxIoSize = maxIoSize;
        this.idmap = IdMap.of(options.idmapDomain());
        this.state = new Nfs4State(new Nfs4State.Limits(options.maxClients(), options.maxSessions(), options.maxSlots(),
                options.maxCachedReply(), options.lease().toNanos(), options.maxDelegations()), recovery,
                options.grace().toNanos(), 0);
        // CB_RECALL on a back channel of the holder's client; none up: the recall fails and revokes
        state.delegations().recaller(new io.rdmagate.nfs.v4.state.Delegations.Recaller() {
            @Override
            public java.util.concurrent.CompletableFuture<Integer> recall(io.rdmagate.nfs.v4.state.Delegation d) {
                io.rdmagate.nfs.v4.state.Session s = state.callbackSession(d.client());
                if (s == null) {
                    return java.util.concurrent.CompletableFuture.completedFuture(-1);
                }
                return io.rdmagate.nfs.v4.callback.Callbacks.recall(s.back(), s.id(), d.stateid(), false,
                        new Fh4.File(d.file()).wire());
            }

            @Override
            public void recallAny(io.rdmagate.nfs.v4.state.ClientRecord c, int keep) {
                io.rdmagate.nfs.v4.state.Session s = state.callbackSession(c);
                if (s != null) {
                    io.rdmagate.nfs.v4.callback.Callbacks.recallAny(s.back(), s.id(), keep);
                }
            }
        });
        this.shared = state.shared();
        for (io.rdmagate.nfs.NfsExport e : exports.all()) {
            e.fs().states().register(shared); // what others do to files NFSv4.1 clients hold recalls their delegations
        }
        // a client that goes (lease expired, replaced by its restart, destroyed) leaves no lock behind
        state.onDrop(c -> {
            String key = io.rdmagate.nfs.v4.state.LockState.clientKey(c.clientId());
            for (io.rdmagate.nfs.NfsExport e : exports.all()) {
                e.fs().locks().releaseAll(o -> key.equals(o.client()));
            }
        });
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        this.serverOwner = ("rdmagate:" + host).getBytes(StandardCharsets.UTF_8);
        long period = Math.max(1, options.lease().toMillis() / 2);
        laundromat.scheduleWithFixedDelay(() -> state.expire(now()), period, period,
                java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /**
     * Stops the laundromat and releases the byte-range locks of this run's clients, as the end of
     * the process would: they are reclaimed in the next run's grace period (the recovery record of
     * the clients is kept for that).
     */
    @Override
    public void close() {
        laundromat.shutdownNow();
        for (io.rdmagate.nfs.NfsExport e : exports.all()) {
            e.fs().states().unregister(shared);
        }
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (long id : state.clientIds()) {
            keys.add(io.rdmagate.nfs.v4.state.LockState.clientKey(id));
        }
        if (!keys.isEmpty()) {
            for (io.rdmagate.nfs.NfsExport e : exports.all()) {
                e.fs().locks().releaseAll(o -> keys.contains(o.client()));
            }
        }
    }

    public NfsExports exports() {
        return exports;
    }

    public PseudoFs pseudo() {
        return pseudo;
    }

    public Nfs4State state() {
        return state;
    }

    public Options options() {
        return options;
    }

    /** This server's part of the volumes' one state: the breaker-side identity its operations skip. */
    public io.rdmagate.nfs.v4.state.CrossProtocolState shared() {
        return shared;
    }

    public int maxIoSize() {
        return maxIoSize;
    }

    /** How owner and owner_group are written and read. */
    public IdMap idmap() {
        return idmap;
    }

    /** so_major_id and eir_server_scope: the same on every address of this server. */
    public byte[] serverOwner() {
        return serverOwner.clone();
    }

    /** Time since start, for leases. */
    public long now() {
        return System.nanoTime() - startNanos;
    }

    /** The server's start, as the times of the pseudo-filesystem's directories. */
    public long startMillis() {
        return startMillis;
    }

    /** Bytes COPY had the backend copy: payload that never crossed the wire. */
    public java.util.concurrent.atomic.LongAdder copiedBytes() {
        return copiedBytes;
    }

    /** Bytes CLONE made share storage. */
    public java.util.concurrent.atomic.LongAdder clonedBytes() {
        return clonedBytes;
    }

    Operations operations() {
        return operations;
    }
}
