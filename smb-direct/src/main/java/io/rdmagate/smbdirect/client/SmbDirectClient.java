package io.rdmagate.smbdirect.client;

import io.rdmagate.rdma.Access;
import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.ConnectionEvents;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.ProtectionDomain;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RecvWr;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.WorkCompletion;
import io.rdmagate.smbdirect.SmbDirectConnection;
import io.rdmagate.smbdirect.message.DataTransfer;
import io.rdmagate.smbdirect.message.NegotiateRequest;
import io.rdmagate.smbdirect.message.NegotiateResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An SMB Direct requester (MS-SMBD as the client) for tests and benchmarks: negotiates, sends SMB2
 * messages in fragments within the credits the server grants, reassembles what it receives, answers
 * the server's keep-alives, and registers buffers the server may RDMA-Read or -Write (SMB2's RDMA
 * channel). Blocking: a send waits for a credit.
 *
 * <p>It checks the server as Linux cifs does (credits granted in the Negotiate Response, sizes in
 * range) and more: a message above the size it advertised, or sent without a credit, fails the
 * client ({@link #violation()}).
 */
public final class SmbDirectClient implements AutoCloseable {
    public static final int RECEIVES = 32;
    public static final int RECEIVE_SIZE = 1364;
    public static final int MAX_FRAGMENTED = 1 << 20;
    private static final int SEND_SLOTS = 15;

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final Arena arena = Arena.ofShared();
    private final MemoryRegion receives;
    private final MemoryRegion sends;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    private final BlockingQueue<ByteBuffer> messages = new LinkedBlockingQueue<>();
    private final CompletableFuture<NegotiateResponse> negotiated = new CompletableFuture<>();
    private final CompletableFuture<String> ended = new CompletableFuture<>();
    private final List<Integer> invalidated = new CopyOnWriteArrayList<>();
    private final Object credits = new Object();
    private int sendCredits;
    private int posted;
    private int grantedToServer;
    private int maxSendBytes = 1364;
    private volatile String violation;
    private ByteArrayOutputStream reassembly;
    private long reassemblyLeft;
    private final java.util.concurrent.BlockingQueue<Integer> freeSlots = new java.util.concurrent.ArrayBlockingQueue<>(SEND_SLOTS);
    private volatile boolean answerKeepalives = true;
    private volatile int receivedMessages;
    private final java.util.concurrent.atomic.AtomicBoolean grantPending = new java.util.concurrent.atomic.AtomicBoolean();

    private SmbDirectClient(RdmaDevice device, InetSocketAddress server, byte[] privateData) throws Exception {
        this.device = device;
        this.pd = device.allocateProtectionDomain();
        this.receives = pd.register(arena.allocate((long) RECEIVES * RECEIVE_SIZE, 4096), EnumSet.of(Access.LOCAL_WRITE));
        this.sends = pd.register(arena.allocate(16L * RECEIVE_SIZE, 4096), EnumSet.of(Access.LOCAL_WRITE));
        this.sendCq = device.createCompletionQueue(SEND_SLOTS + 1, this::onSend);
        this.recvCq = device.createCompletionQueue(RECEIVES, this::onRecv);
        QpConfig config = new QpConfig(pd, sendCq, recvCq, 64, RECEIVES, 4, 16, 0, new ConnectionEvents() {
            @Override
            public void disconnected(QueuePair q, String reason) {
                ended.complete(reason);
            }
        });
        this.qp = device.connect(server, config, privateData, q -> {
            for (int k = 0; k < RECEIVES; k++) {
                q.postReceive(RecvWr.of(k, receives.sge((long) k * RECEIVE_SIZE, RECEIVE_SIZE)));
            }
        }).get(30, TimeUnit.SECONDS);
        synchronized (credits) {
            posted = RECEIVES;
        }
        for (int k = 0; k < SEND_SLOTS; k++) {
            freeSlots.add(k);
        }
    }

    /** Connects and negotiates with the sizes and credits Linux cifs uses. */
    public static SmbDirectClient connect(RdmaDevice device, InetSocketAddress server) throws Exception {
        SmbDirectClient c = new SmbDirectClient(device, server, irdOrd());
        c.negotiate(new NegotiateRequest(SmbDirectConnection.VERSION, SmbDirectConnection.VERSION, 255, 1364,
                RECEIVE_SIZE, MAX_FRAGMENTED));
        return c;
    }

    /** Connects without negotiating: for tests of what the server does with a bad or missing request. */
    public static SmbDirectClient connectOnly(RdmaDevice device, InetSocketAddress server) throws Exception {
        return new SmbDirectClient(device, server, irdOrd());
    }

    private static byte[] irdOrd() {
        return ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putInt(16).putInt(1).array();
    }

    /** Sends {@code req} and waits for the response; then grants the server its credits at once, as Linux does. */
    public NegotiateResponse negotiate(NegotiateRequest req) throws Exception {
        MemorySegment b = sends.segment().asSlice(0, RECEIVE_SIZE);
        int n = req.encode(b.asByteBuffer());
        qp.postSend(SendWr.send(1L << 40, sends.sge(0, n)));
        NegotiateResponse r = negotiated.get(30, TimeUnit.SECONDS);
        if (r.status() == 0) {
            synchronized (credits) {
                sendCredits = r.creditsGranted();
                maxSendBytes = Math.min(RECEIVE_SIZE, r.maxReceiveSize());
            }
            sendMessage(new byte[0], 0);
        }
        return r;
    }

    public NegotiateResponse negotiateResponse() throws Exception {
        return negotiated.get(30, TimeUnit.SECONDS);
    }

    /** Sends an SMB2 message in as many Data Transfer Messages as it takes, each within a credit. */
    public void send(byte[] message) throws Exception {
        sendMessage(message, 0);
    }

    private void sendMessage(byte[] message, int flags) throws Exception {
        int per = maxSendBytes - DataTransfer.DATA_OFFSET;
        int at = 0;
        do {
            int n = Math.min(per, message.length - at);
            int grant;
            Integer slot = freeSlots.poll(30, TimeUnit.SECONDS);
            if (slot == null) {
                throw new IOException("no send buffer came back");
            }
            synchronized (credits) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (sendCredits == 0 || sendCredits == 1 && posted == grantedToServer) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0 || ended.isDone()) {
                        throw new IOException("no send credit from the server"
                                + (ended.isDone() ? " (disconnected: " + ended.getNow("") + ")" : ""));
                    }
                    credits.wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
                }
                sendCredits--;
                grant = posted - grantedToServer;
                grantedToServer += grant;
            }
            MemorySegment b = sends.segment().asSlice((long) slot * RECEIVE_SIZE, RECEIVE_SIZE);
            DataTransfer.write(b.asByteBuffer(), 255, grant, flags, message.length - at - n, n);
            MemorySegment.copy(MemorySegment.ofArray(message), at, b, DataTransfer.DATA_OFFSET, n);
            qp.postSend(SendWr.send(slot, sends.sge((long) slot * RECEIVE_SIZE, DataTransfer.DATA_OFFSET + n)));
            at += n;
        } while (at < message.length);
    }

    /** Sends raw bytes as one message, without any header of ours: malformed-input tests. Takes no credit. */
    public void sendRaw(byte[] bytes) throws RdmaException {
        MemorySegment b = sends.segment().asSlice(15L * RECEIVE_SIZE, RECEIVE_SIZE);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, b, 0, bytes.length);
        qp.postSend(SendWr.send(15, sends.sge(15L * RECEIVE_SIZE, bytes.length)));
    }

    /** The next whole message from the server, or null after {@code millis}. */
    public ByteBuffer receive(long millis) throws InterruptedException {
        return messages.poll(millis, TimeUnit.MILLISECONDS);
    }

    /** Whether the connection ends within {@code millis}. */
    public boolean endsWithin(long millis) throws Exception {
        try {
            ended.get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return qp.state() != QueuePair.State.CONNECTED;
        }
    }

    /** What the server did wrong, or null. */
    public String violation() {
        return violation;
    }

    /** Tokens the server invalidated with Send with Invalidate. */
    public List<Integer> invalidated() {
        return invalidated;
    }

    /** Whether to answer a message that asks for a response (keep-alive). */
    public void answerKeepalives(boolean answer) {
        answerKeepalives = answer;
    }

    /** Credits the server granted and this client has not used. */
    public int sendCredits() {
        synchronized (credits) {
            return sendCredits;
        }
    }

    /** Messages received, keep-alives and credit grants included. */
    public int receivedMessages() {
        return receivedMessages;
    }

    /** Registers {@code size} bytes the server may RDMA-Read and -Write (a buffer descriptor's target). */
    public MemoryRegion register(int size) throws RdmaException {
        return pd.register(arena.allocate(size, 4096), EnumSet.allOf(Access.class));
    }

    private boolean serverLow() {
        synchronized (credits) {
            return grantedToServer <= RECEIVES / 4 && posted > grantedToServer;
        }
    }

    /** Sends empty messages while the server runs low; checks once more after letting go, so no grant is lost. */
    private void grantCredits() {
        do {
            try {
                while (serverLow() && !ended.isDone()) {
                    sendMessage(new byte[0], 0);
                }
            } catch (Exception e) {
                ended.complete("credit grant: " + e);
            } finally {
                grantPending.set(false);
            }
        } while (serverLow() && !ended.isDone() && grantPending.compareAndSet(false, true));
    }

    private void onSend(WorkCompletion wc) {
        if (!wc.ok()) {
            ended.complete("send " + wc.status());
        }
        if (wc.wrId() < SEND_SLOTS) {
            freeSlots.add((int) wc.wrId());
        }
    }

    private void onRecv(WorkCompletion wc) {
        if (!wc.ok()) {
            ended.complete("receive " + wc.status());
            return;
        }
        int k = (int) wc.wrId();
        int n = (int) wc.byteLength();
        receivedMessages++;
        if (wc.invalidatedRkey() != 0) {
            invalidated.add(wc.invalidatedRkey());
        }
        MemorySegment buf = receives.segment().asSlice((long) k * RECEIVE_SIZE, n);
        ByteBuffer m = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
        m.put(buf.asByteBuffer()).flip();
        try {
            qp.postReceive(RecvWr.of(k, receives.sge((long) k * RECEIVE_SIZE, RECEIVE_SIZE)));
        } catch (RdmaException e) {
            ended.complete("repost: " + e.getMessage());
            return;
        }
        if (!negotiated.isDone()) {
            NegotiateResponse r = NegotiateResponse.decode(m, n);
            if (r == null || r.status() == 0 && (r.creditsGranted() == 0 || r.preferredSendSize() > RECEIVE_SIZE
                    || r.negotiatedVersion() != SmbDirectConnection.VERSION)) {
                violation = "bad Negotiate Response " + r;
            }
            synchronized (credits) {
                grantedToServer = 0; // what we posted is granted with our first message
            }
            negotiated.complete(r);
            return;
        }
        String bad = n > RECEIVE_SIZE ? "message of " + n + " bytes" : DataTransfer.check(m, n);
        if (bad != null) {
            violation = bad;
            return;
        }
        synchronized (credits) {
            if (--grantedToServer < 0) {
                violation = "the server sent without a credit";
            }
            sendCredits += DataTransfer.creditsGranted(m);
            credits.notifyAll();
        }
        long len = DataTransfer.dataLength(m);
        long remaining = DataTransfer.remainingDataLength(m);
        if ((DataTransfer.flags(m) & DataTransfer.FLAG_RESPONSE_REQUESTED) != 0 && answerKeepalives) {
            Thread.ofVirtual().start(() -> {
                try {
                    sendMessage(new byte[0], 0);
                } catch (Exception e) {
                    ended.complete("keep-alive answer: " + e);
                }
            });
        }
        if (serverLow() && grantPending.compareAndSet(false, true)) {
            // as Linux cifs does: the server is running out of credits and we may have nothing to send
            Thread.ofVirtual().start(this::grantCredits);
        }
        if (len == 0) {
            return;
        }
        byte[] data = new byte[(int) len];
        m.get((int) DataTransfer.dataOffset(m), data);
        if (reassembly == null) {
            if (len + remaining > MAX_FRAGMENTED) {
                violation = "message of " + (len + remaining) + " bytes";
                return;
            }
            reassembly = new ByteArrayOutputStream((int) (len + remaining));
            reassemblyLeft = len + remaining;
        } else if (remaining != reassemblyLeft - len) {
            violation = "fragment does not continue the message";
        }
        reassembly.writeBytes(data);
        reassemblyLeft -= len;
        if (reassemblyLeft == 0) {
            messages.add(ByteBuffer.wrap(reassembly.toByteArray()).order(ByteOrder.LITTLE_ENDIAN));
            reassembly = null;
        }
    }

    @Override
    public void close() {
        qp.disconnect();
        sendCq.close();
        recvCq.close();
        receives.close();
        sends.close();
        pd.close();
        arena.close();
    }
}
