package io.rdmagate.rdma.softiwarp;

import io.rdmagate.rdma.ConnectionRequest;
import io.rdmagate.rdma.ConnectionRequestHandler;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.QueuePairSetup;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RdmaListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts TCP connections and runs the responder side of the MPA exchange: reads the MPA Request,
 * refuses markers and malformed frames with a Reject, hands the request to the handler, and sends
 * the Reply the handler's accept or reject asks for (RFC 5044 §7.1.1, RFC 6581 §5-6).
 */
final class SoftIwarpListener implements RdmaListener {
    private static final Logger log = LoggerFactory.getLogger(SoftIwarpListener.class);

    private final SoftIwarpDevice device;
    private final ServerSocketChannel server;
    private final ConnectionRequestHandler handler;
    private final InetSocketAddress address;
    /**
     * Sockets accepted that have not yet sent a whole MPA Request, oldest first (guarded by itself):
     * at {@code maxPendingHandshakes} the oldest is closed for a newcomer, as knfsd closes its
     * oldest idle connection, so silent sockets cannot keep a real client out.
     */
    private final java.util.LinkedHashSet<SocketChannel> owingRequest = new java.util.LinkedHashSet<>();

    private SoftIwarpListener(SoftIwarpDevice device, ServerSocketChannel server, ConnectionRequestHandler handler)
            throws IOException {
        this.device = device;
        this.server = server;
        this.handler = handler;
        this.address = (InetSocketAddress) server.getLocalAddress();
    }

    static SoftIwarpListener open(SoftIwarpDevice device, InetSocketAddress address, ConnectionRequestHandler handler)
            throws IOException {
        ServerSocketChannel s = ServerSocketChannel.open();
        s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        s.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
        s.bind(address);
        SoftIwarpListener l = new SoftIwarpListener(device, s, handler);
        Thread.ofVirtual().name("siw-listen-" + l.address).start(l::acceptLoop);
        return l;
    }

    @Override
    public InetSocketAddress localAddress() {
        return address;
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            log.debug("closing listener {}", address, e);
        }
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            try {
                SocketChannel ch = server.accept();
                SocketChannel oldest = null;
                synchronized (owingRequest) {
                    if (owingRequest.size() >= device.options().maxPendingHandshakes()) {
                        oldest = owingRequest.removeFirst();
                    }
                    owingRequest.add(ch);
                }
                if (oldest != null) {
                    // too many sockets still owe their MPA Request: the one silent longest goes, unanswered
                    device.countRefusedHandshake();
                    SoftIwarpDevice.closeQuietly(oldest);
                }
                Thread.ofVirtual().name("siw-mpa").start(() -> respond(ch));
            } catch (IOException e) {
                if (server.isOpen()) {
                    log.warn("accept on {} failed", address, e);
                }
            }
        }
    }

    private void respond(SocketChannel ch) {
        try {
            respondOnce(ch);
        } finally {
            requestRead(ch);
        }
    }

    /** {@code ch} sent its MPA Request (or is done with): it no longer holds a pending place. */
    private void requestRead(SocketChannel ch) {
        synchronized (owingRequest) {
            owingRequest.remove(ch);
        }
    }

    private void respondOnce(SocketChannel ch) {
        Deadline d = Deadline.arm(ch, device.options().handshakeTimeout());
        try {
            SoftIwarpDevice.tune(ch);
            MpaFrame req = MpaHandshake.read(ch, true);
            requestRead(ch);
            if (req == null) {
                MpaHandshake.write(ch, MpaFrame.encode(false, false, true, false, new byte[0], 0, 0, false, 0));
                SoftIwarpDevice.closeQuietly(ch);
                return;
            }
            if (req.markers()) {
                // RFC 5044 §7.1.2: a responder that will not use markers rejects a request for them
                MpaHandshake.write(ch, MpaFrame.encode(false, false, true, req.enhanced(), new byte[0], 0, 0, false, 0));
                SoftIwarpDevice.closeQuietly(ch);
                return;
            }
            handler.onRequest(new Request(ch, req, d));
        } catch (IOException | RuntimeException e) {
            log.debug("MPA exchange with a client failed", e);
            d.disarm();
            SoftIwarpDevice.closeQuietly(ch);
        }
    }

    private final class Request implements ConnectionRequest {
        private final SocketChannel ch;
        private final MpaFrame req;
        private final Deadline deadline;
        private final AtomicBoolean answered = new AtomicBoolean();

        Request(SocketChannel ch, MpaFrame req, Deadline deadline) {
            this.ch = ch;
            this.req = req;
            this.deadline = deadline;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            try {
                return (InetSocketAddress) ch.getRemoteAddress();
            } catch (IOException e) {
                return null;
            }
        }

        @Override
        public InetSocketAddress localAddress() {
            return address;
        }

        @Override
        public byte[] privateData() {
            return req.privateData().clone();
        }

        @Override
        public int requestedIrd() {
            return req.ird();
        }

        @Override
        public int requestedOrd() {
            return req.ord();
        }

        @Override
        public QueuePair accept(QpConfig config, byte[] privateData, QueuePairSetup setup) throws RdmaException {
            device.checkConfig(config, privateData);
            if (!answered.compareAndSet(false, true)) {
                throw new RdmaException("connection request already answered");
            }
            boolean crc = req.crc() || device.options().requireCrc();
            // RFC 6581 §5: our IRD bounds the peer's reads; our ORD is bounded by the peer's IRD
            int ird = config.ird();
            int ord = req.enhanced() ? Math.min(config.ord(), req.ird()) : config.ord();
            int rtr = 0;
            if (req.peerToPeer()) {
                rtr = (req.rtrBits() & MpaFrame.V2_WRITE_RTR) != 0 ? MpaFrame.V2_WRITE_RTR
                        : (req.rtrBits() & MpaFrame.V2_READ_RTR) != 0 ? MpaFrame.V2_READ_RTR : 0;
                if (rtr == 0) {
                    // answered already (above): the reject is sent here, not through reject(), which
                    // would see the request answered and leave the socket open until the deadline
                    sendReject(new byte[0]);
                    throw new RdmaException("peer-to-peer request without an RTR type this provider supports");
                }
            }
            try {
                SoftIwarpQueuePair qp = new SoftIwarpQueuePair(device, config, ch, crc, req.privateData(), ird, ord,
                        req.peerToPeer());
                setup.setup(qp);
                MpaHandshake.write(ch, MpaFrame.encode(false, crc, false, req.enhanced(), privateData, ird, ord,
                        req.peerToPeer(), rtr));
                deadline.disarm();
                qp.start();
                return qp;
            } catch (IOException e) {
                SoftIwarpDevice.closeQuietly(ch);
                throw new RdmaException("sending the MPA reply failed: " + e.getMessage(), e);
            }
        }

        @Override
        public void reject(byte[] privateData) {
            if (answered.compareAndSet(false, true)) {
                sendReject(privateData);
            }
        }

        /** An MPA Reply with the Reject flag (RFC 5044 §7.1.1), then the socket is closed. */
        private void sendReject(byte[] privateData) {
            try {
                byte[] pd = privateData.length > device.limits().maxPrivateDataBytes() ? new byte[0] : privateData;
                MpaHandshake.write(ch, MpaFrame.encode(false, false, true, req.enhanced(), pd, 0, 0, false, 0));
            } catch (IOException e) {
                log.debug("sending an MPA reject failed", e);
            } finally {
                deadline.disarm();
                SoftIwarpDevice.closeQuietly(ch);
            }
        }
    }
}
