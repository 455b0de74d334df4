package io.rdmagate.oncrpc.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.rdmagate.gateway.spi.net.ConnectionLimiter;
import io.rdmagate.gateway.spi.net.SendDeadline;
import io.rdmagate.oncrpc.tcp.RecordMarkingDecoder;
import io.rdmagate.oncrpc.tcp.RecordMarkingEncoder;
import io.rdmagate.oncrpc.tcp.RpcConnectionHandler;
import io.rdmagate.oncrpc.tcp.Transports;
import io.rdmagate.oncrpc.tcp.UdpRpcHandler;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Serves RPC programs on one TCP port (record marking, RFC 5531 §11), and optionally UDP on the
 * same port number. Procedures run on virtual threads. Start with
 * {@code RpcServer.builder().program(p).limits(l).bind(address, port)}.
 */
public final class RpcServer implements AutoCloseable {
    private final EventLoopGroup group;
    private final ExecutorService executor;
    private final RpcDispatcher dispatcher;
    private final ConnectionLimiter limiter;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final Channel tcp;
    private final Channel udp;

    private RpcServer(Builder b, InetAddress address, int port) throws IOException {
        this.group = Transports.group(b.eventLoopThreads);
        this.executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("rpc-", 0).factory());
        ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
        RpcLimits l = b.limits;
        DuplicateRequestCache drc = l.drcEntries() == 0 ? null
                : new DuplicateRequestCache(l.drcEntries(), l.drcMaxAge(), l.drcChecksumBytes(), b.copies);
        this.dispatcher = new RpcDispatcher(drc, alloc, b.observer).gss(b.gss);
        b.programs.forEach(dispatcher::register);
        this.limiter = new ConnectionLimiter(l.maxConnections(), l.maxConnectionsPerAddress(), new ConnectionLimiter.Events() {
            @Override
            public void opened() {
                b.observer.connectionOpened("tcp");
            }

            @Override
            public void closed() {
                b.observer.connectionClosed("tcp");
            }
        });
        try {
            tcp = new ServerBootstrap().group(group).channel(Transports.serverChannel())
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.ALLOCATOR, alloc)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            channels.add(ch);
                            var p = ch.pipeline();
                            p.addLast(limiter);
                            if (!l.sendTimeout().isZero()) {
                                p.addLast(new SendDeadline(l.sendTimeout(), () -> { }));
                            }
                            if (!l.idleTimeout().isZero()) {
                                p.addLast(new IdleStateHandler(0, 0, l.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
                            }
                            p.addLast(new RecordMarkingDecoder(l.maxRecordSize(), l.maxFragments(), l.recordTimeout()));
                            p.addLast(RecordMarkingEncoder.INSTANCE);
                            p.addLast(new RpcConnectionHandler(dispatcher, executor, l.maxInFlight(), l.maxRecordSize(),
                                    b.backchannelTimeout));
                        }
                    })
                    .bind(address, port).sync().channel();
            channels.add(tcp);
            int bound = ((InetSocketAddress) tcp.localAddress()).getPort();
            udp = b.udp ? bindUdp(b, alloc, address, bound) : null;
        } catch (Exception e) {
            close();
            throw new IOException("cannot serve RPC on " + address.getHostAddress() + ":" + port + ": " + e.getMessage(), e);
        }
    }

    private Channel bindUdp(Builder b, ByteBufAllocator alloc, InetAddress address, int port) throws InterruptedException {
        Bootstrap bs = new Bootstrap().group(group).channel(Transports.datagramChannel())
                .option(ChannelOption.ALLOCATOR, alloc)
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(new UdpRpcHandler(dispatcher, executor, b.limits.maxInFlight(), b.copies));
                    }
                });
        if (Transports.epoll()) {
            bs.option(EpollChannelOption.IP_RECVORIGDSTADDR, true); // the address a datagram was sent to
        }
        Channel ch = bs.bind(address, port).sync().channel();
        channels.add(ch);
        return ch;
    }

    public static Builder builder() {
        return new Builder();
    }

    public InetSocketAddress tcpAddress() {
        return (InetSocketAddress) tcp.localAddress();
    }

    /** The UDP address, or null when UDP is off. */
    public InetSocketAddress udpAddress() {
        return udp == null ? null : (InetSocketAddress) udp.localAddress();
    }

    public int port() {
        return tcpAddress().getPort();
    }

    public RpcDispatcher dispatcher() {
        return dispatcher;
    }

    public int openConnections() {
        return limiter.open();
    }

    /** TCP connections closed to make room for a new client at {@link RpcLimits#maxConnections()}. */
    public long evictedConnections() {
        return limiter.evicted();
    }

    /** Stops accepting, gives calls in flight up to {@code grace} to finish, then closes everything. */
    public void stop(Duration grace) {
        if (tcp != null) {
            tcp.close().syncUninterruptibly();
        }
        executor.shutdown();
        try {
            executor.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        executor.shutdownNow();
        channels.close().awaitUninterruptibly(grace.toMillis() + 1000);
        group.shutdownGracefully(0, grace.toMillis() + 1000, TimeUnit.MILLISECONDS).syncUninterruptibly();
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(2));
    }

    public static final class Builder {
        private final List<RpcProgram> programs = new ArrayList<>();
        private RpcLimits limits = RpcLimits.DEFAULT;
        private PayloadCopies copies = new PayloadCopies();
        private boolean udp;
        private int eventLoopThreads = 0;
        private RpcObserver observer = RpcObserver.NONE;
        private java.time.Duration backchannelTimeout = RpcConnectionHandler.BACKCHANNEL_TIMEOUT;
        private io.rdmagate.oncrpc.gss.RpcSecGss gss;

        private Builder() {
        }

        /** RPCSEC_GSS for the programs of this server ({@link RpcDispatcher#gss}); null for none. */
        public Builder gss(io.rdmagate.oncrpc.gss.RpcSecGss g) {
            this.gss = g;
            return this;
        }

        public Builder program(RpcProgram p) {
            programs.add(p);
            return this;
        }

        public Builder limits(RpcLimits l) {
            this.limits = l;
            return this;
        }

        /** Where payload copies are counted (a server of its own by default). */
        public Builder payloadCopies(PayloadCopies c) {
            this.copies = c;
            return this;
        }

        /** Who is told of every record and TCP connection (metrics); none by default. */
        /** How long a call from the server to a client on its connection waits for the reply (60 s). */
        public Builder backchannelTimeout(java.time.Duration t) {
            if (t.isNegative() || t.isZero()) {
                throw new IllegalArgumentException("backchannel timeout must be positive");
            }
            this.backchannelTimeout = t;
            return this;
        }

        public Builder observer(RpcObserver o) {
            this.observer = o;
            return this;
        }

        /** Also serve UDP on the TCP port's number. */
        public Builder udp(boolean on) {
            this.udp = on;
            return this;
        }

        /** Event loop threads; 0 lets Netty choose (twice the cores). */
        public Builder eventLoopThreads(int n) {
            this.eventLoopThreads = n;
            return this;
        }

        /** Binds and starts serving; port 0 picks a free one (see {@link RpcServer#port()}). */
        public RpcServer bind(InetAddress address, int port) throws IOException {
            return new RpcServer(this, address, port);
        }
    }
}
