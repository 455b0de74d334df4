package io.rdmagate.smb.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmagate.gateway.spi.log.RateLimitedLog;
import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.server.command.Cancel;
import io.rdmagate.smb.server.command.ChangeNotify;
import io.rdmagate.smb.server.command.Close;
import io.rdmagate.smb.server.command.Create;
import io.rdmagate.smb.server.command.Echo;
import io.rdmagate.smb.server.command.Flush;
import io.rdmagate.smb.server.command.Ioctl;
import io.rdmagate.smb.server.command.Lock;
import io.rdmagate.smb.server.command.Logoff;
import io.rdmagate.smb.server.command.Negotiate;
import io.rdmagate.smb.server.command.OplockBreak;
import io.rdmagate.smb.server.command.QueryDirectory;
import io.rdmagate.smb.server.command.QueryInfo;
import io.rdmagate.smb.server.command.Read;
import io.rdmagate.smb.server.command.SessionSetup;
import io.rdmagate.smb.server.command.SetInfo;
import io.rdmagate.smb.server.command.TreeDisconnect;
import io.rdmagate.smb.server.command.Write;
import io.rdmagate.vfs.VfsException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SMB 2/3 server: binds a TCP listener whose connections speak Direct TCP transport framing
 * (MS-SMB2 2.1) and dispatches each command to its handler.
 */
public final class SmbServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SmbServer.class);

    private final SmbServerConfig config;
    private final Command[] commands = new Command[Smb2Command.COUNT];
    private final OpenTable opens;
    private final CrossProtocolBreaks breaks;
    private final LogonThrottle throttle;
    private final SecureRandom random = new SecureRandom();
    private final byte[] serverGuid;
    private final ChangeNotify.Watchers watchers = new ChangeNotify.Watchers();
    /** MS-SMB2 3.3.1.5 GlobalSessionTable: every connection's sessions, by SessionId. */
    private final java.util.Map<Long, SmbSession> globalSessions = new java.util.concurrent.ConcurrentHashMap<>();
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    /** Closes durable opens whose client did not come back in time (MS-SMB2 3.3.2.2, the Durable Open Scavenger Timer). */
    private final java.util.concurrent.ScheduledExecutorService scavenger =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "smb-durable-scavenger");
                t.setDaemon(true);
                return t;
            });
    private EventLoopGroup group;
    private volatile io.rdmagate.smbdirect.SmbDirectServer smbDirect;
    private Channel listener;
    private io.rdmagate.gateway.spi.net.ConnectionLimiter limiter;
    private final java.util.concurrent.atomic.LongAdder handshakeTimeouts = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder internalErrors = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder idleClosed = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder sendTimeouts = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder serverSideCopyBytes = new java.util.concurrent.atomic.LongAdder();

    private final SmbMetrics metrics;
    private final RateLimitedLog denials = RateLimitedLog.perMinute(LoggerFactory.getLogger(SECURITY_LOG));

    /** The logger of failed logons and refused tree connects (rate-limited per client address). */
    public static final String SECURITY_LOG = "io.rdmagate.security";

    public SmbServer(SmbServerConfig config) {
        this(config, new SimpleMeterRegistry());
    }

    /** With the SMB meters ({@link SmbMetrics}) registered in {@code registry}. */
    public SmbServer(SmbServerConfig config, MeterRegistry registry) {
        this.config = config;
        this.metrics = new SmbMetrics(registry, this);
        this.opens = new OpenTable(config.oplockBreakTimeout());
        this.opens.oplocks().onDisconnected(this::closeDisconnected);
        this.breaks = opens.holder();
        for (SmbShare share : config.shares()) {
            share.vfs().states().register(breaks); // what NFS does to these files now breaks SMB's leases first
        }
        this.throttle = new LogonThrottle(config.logonFailureDelay());
        UUID u = UUID.nameUUIDFromBytes(("rdmagate-smb:" + config.serverName()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        this.serverGuid = java.nio.ByteBuffer.allocate(16).putLong(u.getMostSignificantBits())
                .putLong(u.getLeastSignificantBits()).array();
        commands[Smb2Command.NEGOTIATE] = new Negotiate();
        commands[Smb2Command.SESSION_SETUP] = new SessionSetup();
        commands[Smb2Command.LOGOFF] = new Logoff();
        commands[Smb2Command.TREE_CONNECT] = new io.rdmagate.smb.server.command.TreeConnect();
        commands[Smb2Command.TREE_DISCONNECT] = new TreeDisconnect();
        commands[Smb2Command.CREATE] = new Create();
        commands[Smb2Command.CLOSE] = new Close();
        commands[Smb2Command.FLUSH] = new Flush();
        commands[Smb2Command.READ] = new Read();
        commands[Smb2Command.WRITE] = new Write();
        commands[Smb2Command.LOCK] = new Lock();
        commands[Smb2Command.IOCTL] = new Ioctl();
        commands[Smb2Command.CANCEL] = new Cancel();
        commands[Smb2Command.ECHO] = new Echo();
        commands[Smb2Command.QUERY_DIRECTORY] = new QueryDirectory();
        commands[Smb2Command.CHANGE_NOTIFY] = new ChangeNotify();
        commands[Smb2Command.QUERY_INFO] = new QueryInfo();
        commands[Smb2Command.SET_INFO] = new SetInfo();
        commands[Smb2Command.OPLOCK_BREAK] = new OplockBreak();
    }

    public static SmbServer start(SmbServerConfig config, InetAddress address, int port) throws InterruptedException {
        return start(config, address, port, new SimpleMeterRegistry());
    }

    public static SmbServer start(SmbServerConfig config, InetAddress address, int port, MeterRegistry registry)
            throws InterruptedException {
        SmbServer s = new SmbServer(config, registry);
        s.bind(address, port);
        return s;
    }

    SmbMetrics metrics() {
        return metrics;
    }

    /** Where failed logons and refused tree connects are logged, rate-limited per client address. */
    public RateLimitedLog denials() {
        return denials;
    }

    /** Sessions authenticated now, for the sessions gauge (read at scrape time, not on a hot path). */
    int validSessions() {
        int n = 0;
        for (SmbSession s : globalSessions.values()) {
            if (s.state == SmbSession.State.VALID) {
                n++;
            }
        }
        return n;
    }

    private void bind(InetAddress address, int port) throws InterruptedException {
        boolean epoll = Epoll.isAvailable();
        group = new MultiThreadIoEventLoopGroup(2, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        limiter = new io.rdmagate.gateway.spi.net.ConnectionLimiter(config.maxConnections(),
                config.maxConnectionsPerAddress(), io.rdmagate.gateway.spi.net.ConnectionLimiter.Events.NONE);
        listener = new ServerBootstrap().group(group)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        io.rdmagate.smb.server.transport.TcpTransport transport =
                                new io.rdmagate.smb.server.transport.TcpTransport(metrics.transport("tcp"), config.copies());
                        SmbConnection conn = new SmbConnection(SmbServer.this, transport);
                        transport.attach(conn);
                        ch.pipeline().addLast(limiter);
                        if (!config.sendTimeout().isZero()) {
                            ch.pipeline().addLast(new io.rdmagate.gateway.spi.net.SendDeadline(config.sendTimeout(),
                                    sendTimeouts::increment));
                        }
                        ch.pipeline().addLast(
                                new io.rdmagate.smb.server.transport.NetBiosFrameDecoder(config.maxMessageSize(),
                                        config.maxHandshakeMessageSize(), () -> conn.authenticated,
                                        metrics.transport("tcp"), config.copies()), transport);
                        // a connection that never authenticates (silent, trickling, or stuck in SESSION_SETUP) ends
                        ch.eventLoop().schedule(() -> {
                            if (!conn.authenticated && ch.isActive()) {
                                handshakeTimeouts.increment();
                                log.debug("closing {}: no session authenticated within {}", ch.remoteAddress(),
                                        config.handshakeTimeout());
                                ch.close();
                            }
                        }, config.handshakeTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                        watchIdle(ch, conn);
                    }
                })
                .bind(new InetSocketAddress(address, port)).sync().channel();
        log.info("SMB listening on {}", listener.localAddress());
    }

    /**
     * Listens for SMB Direct (MS-SMBD) on {@code address} with the process's RDMA device and the
     * pool of this server's configuration (which must be the one registered with {@code rdma}):
     * each negotiated connection gets a request processor as a TCP connection does, and READ and
     * WRITE may use the RDMA channel. RDMA transfers are bounded by the server's {@code maxIo}.
     */
    public io.rdmagate.smbdirect.SmbDirectServer listenSmbDirect(io.rdmagate.rdma.RdmaResources rdma,
            io.rdmagate.smbdirect.SmbDirectOptions options, InetSocketAddress address)
            throws io.rdmagate.rdma.RdmaException {
        io.rdmagate.smbdirect.SmbDirectServer s = new io.rdmagate.smbdirect.SmbDirectServer(rdma, config.pool(),
                config.copies(), options.withMaxReadWriteSize(Math.min(options.maxReadWriteSize(), config.maxIo())),
                c -> new io.rdmagate.smb.server.transport.SmbDirectTransport(c, metrics.transport("rdma"), t -> {
                    SmbConnection conn = new SmbConnection(this, t);
                    watch(conn);
                    return conn;
                }));
        try {
            s.bind(address);
        } catch (io.rdmagate.rdma.RdmaException | RuntimeException e) {
            s.close();
            throw e;
        }
        smbDirect = s;
        return s;
    }

    /** The SMB Direct listener, or null. */
    public io.rdmagate.smbdirect.SmbDirectServer smbDirect() {
        return smbDirect;
    }

    /**
     * The handshake deadline and the idle check of a connection that has no event loop (SMB
     * Direct), on the server's timer thread: the same rules as {@link #watchIdle} and the TCP
     * pipeline's handshake deadline.
     */
    private void watch(SmbConnection conn) {
        scavenger.schedule(() -> {
            if (!conn.authenticated && conn.isOpen()) {
                handshakeTimeouts.increment();
                conn.close("no session authenticated within " + config.handshakeTimeout());
            }
        }, config.handshakeTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        long timeout = config.idleTimeout().toNanos();
        if (timeout == 0) {
            return;
        }
        long period = Math.max(timeout / 4, java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100));
        java.util.concurrent.atomic.AtomicReference<java.util.concurrent.ScheduledFuture<?>> self =
                new java.util.concurrent.atomic.AtomicReference<>();
        self.set(scavenger.scheduleAtFixedRate(() -> {
            if (!conn.isOpen()) {
                var f = self.get();
                if (f != null) {
                    f.cancel(false);
                }
            } else if (conn.idle(timeout)) {
                idleClosed.increment();
                conn.close("no open file and no request for " + config.idleTimeout());
            }
        }, period, period, java.util.concurrent.TimeUnit.NANOSECONDS));
    }

    /** Connections open now. */
    public int openConnections() {
        return limiter == null ? 0 : limiter.open();
    }

    /** Connections closed to make room for a new client at {@code maxConnections}. */
    public long evictedConnections() {
        return limiter == null ? 0 : limiter.evicted();
    }

    /** Connections closed because no session authenticated within {@code handshakeTimeout}. */
    /**
     * Closes {@code conn} once it is idle for {@code smb.idleTimeout} (Windows' autodisconnect):
     * checked on its event loop every quarter of the timeout, so a connection goes between one and
     * one and a quarter timeouts after its last request, its last open closed.
     */
    private void watchIdle(io.netty.channel.Channel ch, SmbConnection conn) {
        long timeout = config.idleTimeout().toNanos();
        if (timeout == 0) {
            return;
        }
        long period = Math.max(timeout / 4, java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100));
        var check = ch.eventLoop().scheduleAtFixedRate(() -> {
            if (ch.isActive() && conn.idle(timeout)) {
                idleClosed.increment();
                log.debug("closing {}: no open file and no request for {}", ch.remoteAddress(), config.idleTimeout());
                ch.close();
            }
        }, period, period, java.util.concurrent.TimeUnit.NANOSECONDS);
        ch.closeFuture().addListener(f -> check.cancel(false));
    }

    /** Connections closed because their client took none of their responses for the send timeout. */
    public long sendTimeouts() {
        return sendTimeouts.sum();
    }

    /** Bytes FSCTL_SRV_COPYCHUNK had the backend copy: none of them crossed the wire. */
    public java.util.concurrent.atomic.LongAdder serverSideCopyBytes() {
        return serverSideCopyBytes;
    }

    /** Connections closed for being idle with no open file. */
    public long idleClosed() {
        return idleClosed.sum();
    }

    /**
     * Requests whose processing threw where a status was due (the connection was closed): a
     * defect, which the fuzz campaigns assert never happens.
     */
    public long internalErrors() {
        return internalErrors.sum();
    }

    void internalError() {
        internalErrors.increment();
    }

    public long handshakeTimeouts() {
        return handshakeTimeouts.sum();
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) listener.localAddress();
    }

    public SmbServerConfig config() {
        return config;
    }

    /**
     * Before an SMB operation on a file: other protocols' opens that deny it refuse it, and their
     * clients' caching of the file that it conflicts with (NFSv4 delegations) is recalled first.
     */
    public void othersFirst(io.rdmagate.vfs.VirtualFileSystem fs, io.rdmagate.vfs.FileHandle file,
            io.rdmagate.vfs.state.Conflict conflict) throws io.rdmagate.vfs.VfsException {
        breaks.othersFirst(fs, file, conflict);
    }

    public OpenTable opens() {
        return opens;
    }

    public Oplocks oplocks() {
        return opens.oplocks();
    }

    public LogonThrottle throttle() {
        return throttle;
    }

    public SecureRandom random() {
        return random;
    }

    public byte[] serverGuid() {
        return serverGuid.clone();
    }

    public ChangeNotify.Watchers watchers() {
        return watchers;
    }

    Command command(int cmd) {
        return commands[cmd];
    }

    /** Closes every open of a session (or of one of its trees), as LOGOFF and disconnects do. */
    public void closeOpens(SmbSession s, TreeConnect tree) {
        for (Open o : opens.of(s, tree)) {
            Close.closeOpen(this, o);
        }
    }

    /** Registers a new session id unless another connection uses it. */
    boolean registerSession(SmbSession s) {
        return globalSessions.putIfAbsent(s.id, s) == null;
    }

    /** A session of any connection (MS-SMB2 3.3.5.5: binding and PreviousSessionId look it up globally). */
    public SmbSession globalSession(long id) {
        return globalSessions.get(id);
    }

    void logoff(SmbSession s) {
        globalSessions.remove(s.id, s);
        s.state = SmbSession.State.EXPIRED;
        closeOpens(s, null);
        s.trees.clear();
    }

    /**
     * MS-SMB2 3.3.7.1: the session's connection is gone, or the session logged off. Durable opens
     * lose their connection and wait, each for its own timeout, for the client to reconnect them;
     * every other open closes.
     */
    void connectionLost(SmbSession s) {
        globalSessions.remove(s.id, s);
        s.state = SmbSession.State.EXPIRED;
        for (Open o : opens.of(s, null)) {
            // a delete-on-close open, or one with a break in flight that can never be acknowledged
            // now, closes as any other (as Samba does: smbtorture smb2.durable-open.delete_on_close1)
            boolean keep = o.isDurable() && !o.deleteOnClose && !opens.oplocks().breaking(o);
            int disconnection = keep ? opens.disconnect(o) : -1;
            if (disconnection < 0) {
                Close.closeOpen(this, o);
                continue;
            }
            watchers.closed(o); // its pending CHANGE_NOTIFYs went with the connection
            long delay = o.durableTimeoutMillis();
            scavenger.schedule(() -> {
                if (opens.stillDisconnected(o, disconnection)) {
                    log.debug("durable open {} of {} was not reconnected within {} ms", o.fileId(), o.name(), delay);
                    Close.closeOpen(this, o);
                }
            }, delay, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        s.trees.clear();
    }

    /**
     * A durable reconnect can arrive on a new connection before the server has seen the old one
     * close (the client dropped it a moment ago; its FIN is still queued). Waits up to
     * {@code grace} for the open's old transport to go down, and then hands the open's session to
     * the loss handling at once, so the open is disconnected and can be reconnected. Returns
     * whether the open is now disconnected. An open held by {@code asker} itself, or by a connection
     * that stays up, stays as it is (MS-SMB2 3.3.5.9.7: it is then not found).
     */
    public boolean awaitLoss(Open o, SmbConnection asker, java.time.Duration grace) throws InterruptedException {
        SmbConnection held = o.conn;
        if (held == null) {
            return true;
        }
        if (held == asker) {
            return false;
        }
        long end = System.nanoTime() + grace.toNanos();
        while (held.isOpen() && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        if (held.isOpen()) {
            return false;
        }
        SmbSession s = o.session();
        if (s != null) {
            held.endPrevious(s);
        }
        return o.conn == null;
    }

    /** How long a CREATE waits for the loss of a dropped connection to be handled. */
    static final long SETTLE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);

    /**
     * A CREATE met a sharing conflict with opens whose client dropped its connection a moment ago
     * (the transport is down, the loss not yet handled: a client that reconnects and opens again
     * can be faster than its old connection's teardown). Handles that loss now, MS-SMB2 3.3.7.1:
     * the opens close, or wait disconnected if durable. Returns whether there were such opens and
     * they are settled, so that the CREATE tries once more.
     */
    public boolean settleLostConnections(io.rdmagate.vfs.FileHandle file, SmbConnection asker) {
        java.util.List<Open> lost = opens.ofLostConnections(file.volumeId(), file.fileId(), asker);
        if (lost.isEmpty()) {
            return false;
        }
        for (Open o : lost) {
            SmbConnection held = o.conn;
            SmbSession s = o.session();
            if (held != null && s != null) {
                held.endPrevious(s); // once per session, whoever comes first; the other returns at once
            }
        }
        try {
            return opens.awaitSettled(lost, SETTLE_NANOS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * A break cannot reach an open that lost its connection: the durable open is closed instead,
     * which resolves the break for whoever waits on it (as Samba and Windows do).
     */
    void closeDisconnected(Open o) {
        log.debug("durable open {} of {} closed: a break could not reach its client", o.fileId(), o.name());
        Close.closeOpen(this, o);
    }

    @Override
    public void close() {
        for (SmbShare share : config.shares()) {
            share.vfs().states().unregister(breaks);
        }
        if (listener != null) {
            listener.close().awaitUninterruptibly();
        }
        if (smbDirect != null) {
            smbDirect.close();
        }
        channels.close().awaitUninterruptibly();
        scavenger.shutdownNow();
        if (group != null) {
            group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    /**
     * Deletes the file whose last open ({@code file}) closed with delete pending (MS-FSA 2.1.5.4):
     * that file, not another one a client of another protocol or the host has put under its name
     * since (as Samba checks device and inode before it unlinks). The filesystem drops the file's
     * locks with its last name (not this: its inode number may already be a new file's).
     */
    void deleteFile(SmbSession s, FileState f, io.rdmagate.vfs.FileHandle file, io.rdmagate.vfs.VirtualFileSystem vfs) {
        try {
            vfs.removeIfSame(s.caller(), f.parent, f.name, file);
        } catch (VfsException e) {
            log.warn("delete on close of {} failed: {}", f.name, e.getMessage());
        }
    }
}
