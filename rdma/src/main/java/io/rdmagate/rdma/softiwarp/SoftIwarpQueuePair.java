package io.rdmagate.rdma.softiwarp;

import io.rdmagate.rdma.Access;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RecvWr;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.Sge;
import io.rdmagate.rdma.WcStatus;
import io.rdmagate.rdma.WorkCompletion;
import io.rdmagate.rdma.spi.RegionTable;
import io.rdmagate.rdma.spi.SerialCompletionQueue;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue pair of the software iWARP provider, on one TCP connection after the MPA exchange.
 *
 * <p>Operation: work is taken in order from one queue (posted sends, RDMA Read Responses the
 * receive side owes, a Terminate) by whoever owns the writer, and its FPDUs gathered with
 * {@link FpduWriter}, written in one gathering write when the queue runs empty (or the batch is
 * full, or an RDMA Read must wait for a credit). The owner is the transmit thread, or a worker
 * that rings {@link #doorbell} after posting a reply while nobody transmits: it writes its reply
 * itself, as a kernel provider's post_send does, instead of waking the transmit thread. A receive thread reads FPDUs with {@link FpduReader} and, as its
 * {@link FpduReader.Placement}, checks every segment against the queue pair's state before its
 * payload is placed: STag, rights and bounds for tagged data (RFC 5040 §5.2.1, §6.4), queue, MSN
 * and MO for untagged (RFC 5041 §5.3), the IRD for Read Requests. A violation sends a Terminate
 * and ends the connection; both directions then flush. Sends and Writes complete when their batch
 * is handed to TCP (iWARP's local completion), Reads when their last Read Response segment is
 * placed; those successes are delivered to their completion queue's handler on the transmitting or
 * receive thread itself ({@code offerInline}), flushes on the queue's delivery thread.
 */
final class SoftIwarpQueuePair implements QueuePair, FpduReader.Placement {
    private static final Logger log = LoggerFactory.getLogger(SoftIwarpQueuePair.class);

    private sealed interface Job permits WrJob, ResponseJob, TerminateJob, StopJob {
    }

    /** Ends the transmit thread once the connection is closed (no interrupt: a write under way finishes). */
    private record StopJob() implements Job {
    }

    private record WrJob(SendWr wr) implements Job {
    }

    private record ResponseJob(MemorySegment source, int sinkStag, long sinkTo) implements Job {
    }

    private record TerminateJob(Rdmap.Cause cause) implements Job {
    }

    /** One Read Request in flight: where its response lands. */
    private static final class PendingRead {
        final SendWr wr;
        final boolean lastOfWr;
        final int sinkStag;
        final long sinkTo;
        final MemorySegment sink;
        long placed;

        PendingRead(SendWr wr, boolean lastOfWr, int sinkStag, long sinkTo, MemorySegment sink) {
            this.wr = wr;
            this.lastOfWr = lastOfWr;
            this.sinkStag = sinkStag;
            this.sinkTo = sinkTo;
            this.sink = sink;
        }
    }

    /** The Send message being received. */
    private static final class Inbound {
        final RecvWr wr;
        final List<MemorySegment> buffers;
        final long capacity;
        long placed;

        Inbound(RecvWr wr, List<MemorySegment> buffers, long capacity) {
            this.wr = wr;
            this.buffers = buffers;
            this.capacity = capacity;
        }
    }

    private final SoftIwarpDevice device;
    private final QpConfig config;
    private final java.nio.channels.ByteChannel channel;
    // the receive side reads with scattering reads: a socket, or a byte source under test
    private final FpduWriter writer;
    private final FpduReader reader;
    private final byte[] remotePrivateData;
    private final int inboundReads;
    private final int outboundReads;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;

    private final Object lock = new Object();
    private final ArrayDeque<RecvWr> receives = new ArrayDeque<>();
    /** Transmit work in order; under {@code lock}. */
    private final ArrayDeque<Job> jobs = new ArrayDeque<>();
    /** Someone owns the writer and the batch: the transmit thread, or a worker in {@link #doorbell}; under {@code lock}. */
    private boolean transmitting;
    private volatile Thread transmitter;
    private final ArrayDeque<PendingRead> reads = new ArrayDeque<>();
    private final Semaphore readCredits;
    private final AtomicInteger inboundReadsInFlight = new AtomicInteger();
    private final AtomicInteger sendsInFlight = new AtomicInteger();
    /** Sends and Writes in the writer's batch, completed when it is flushed; the transmit thread's own. */
    private final ArrayList<SendWr> batched = new ArrayList<>();
    private int expectedMsn = 1;
    private int expectedReadMsn = 1;
    private Inbound inbound;
    /** Completions owed once the current segment's trailer has been checked. */
    private final List<Runnable> onSegmentDone = new ArrayList<>(2);
    private volatile State state = State.CONNECTED;
    /** RFC 6581 §6: as responder in peer-to-peer mode, nothing is sent before the initiator's RTR. */
    private final java.util.concurrent.CountDownLatch rtrReceived;
    private volatile Thread rx;
    private volatile Thread tx;

    SoftIwarpQueuePair(SoftIwarpDevice device, QpConfig config, SocketChannel channel, boolean crc,
            byte[] remotePrivateData, int inboundReads, int outboundReads, boolean awaitRtr) throws IOException {
        this(device, config, channel, channel, (InetSocketAddress) channel.getLocalAddress(),
                (InetSocketAddress) channel.getRemoteAddress(), crc, remotePrivateData, inboundReads, outboundReads, awaitRtr);
    }

    /** Over any channel pair: a socket in service, a byte source and sink under test. */
    <C extends java.nio.channels.ByteChannel & java.nio.channels.ScatteringByteChannel> SoftIwarpQueuePair(
            SoftIwarpDevice device, QpConfig config, C channel,
            java.nio.channels.GatheringByteChannel out, InetSocketAddress local, InetSocketAddress remote, boolean crc,
            byte[] remotePrivateData, int inboundReads, int outboundReads, boolean awaitRtr) {
        this.device = device;
        this.config = config;
        this.channel = channel;
        this.writer = new FpduWriter(out, crc, device.maxFpduPayload());
        this.reader = new FpduReader(channel, crc, this);
        this.remotePrivateData = remotePrivateData.clone();
        this.inboundReads = inboundReads;
        this.outboundReads = outboundReads;
        this.readCredits = new Semaphore(Math.max(outboundReads, 0));
        this.rtrReceived = new java.util.concurrent.CountDownLatch(awaitRtr ? 1 : 0);
        this.local = local;
        this.remote = remote;
    }

    void start() {
        device.started(this);
        rx = Thread.ofPlatform().daemon().name("siw-rx-" + remote).start(this::receiveLoop);
        tx = Thread.ofPlatform().daemon().name("siw-tx-" + remote).start(this::transmitLoop);
        Thread.ofVirtual().start(() -> config.events().established(this));
    }

    // ------------------------------------------------------------------ posting

    @Override
    public void postReceive(RecvWr wr) throws RdmaException {
        if (wr.sgl().size() > config.maxSge()) {
            throw new RdmaException(wr.sgl().size() + " SGEs; the queue pair allows " + config.maxSge());
        }
        synchronized (lock) {
            if (state != State.CONNECTED) {
                recvCq().offer(recvCompletion(wr, WcStatus.WR_FLUSH_ERROR, 0, 0, false));
                return;
            }
            if (receives.size() >= config.maxRecvWr()) {
                throw new RdmaException("receive queue full (" + config.maxRecvWr() + ")");
            }
            receives.addLast(wr);
        }
    }

    @Override
    public void postSend(SendWr wr) throws RdmaException {
        post(wr, true);
    }

    @Override
    public void postSendDeferred(SendWr wr) throws RdmaException {
        post(wr, false);
    }

    private void post(SendWr wr, boolean wake) throws RdmaException {
        if (wr.sgl().size() > config.maxSge()) {
            throw new RdmaException(wr.sgl().size() + " SGEs; the queue pair allows " + config.maxSge());
        }
        synchronized (lock) {
            if (state != State.CONNECTED) {
                sendCq().offer(WorkCompletion.forSend(wr, WcStatus.WR_FLUSH_ERROR, this));
                return;
            }
            if (sendsInFlight.get() >= config.maxSendWr()) {
                throw new RdmaException("send queue full (" + config.maxSendWr() + ")");
            }
            sendsInFlight.incrementAndGet();
            enqueue(new WrJob(wr), wake);
        }
    }

    /** Queues transmit work; with {@code wake}, the transmit thread looks unless a transmitter is at work (it will see it). */
    private void enqueue(Job job, boolean wake) {
        synchronized (lock) {
            jobs.addLast(job);
            if (wake && !transmitting) {
                lock.notifyAll();
            }
        }
    }

    /**
     * Transmits the queued work on the calling thread when nobody is transmitting and the work at
     * the head is a Send, an RDMA Write or a Read Response (an RDMA Read may wait for ORD credits:
     * the transmit thread's); else wakes the transmit thread. A worker posting a reply thus writes
     * it to the socket itself, as a kernel provider's post_send does, instead of handing it over.
     */
    @Override
    public void doorbell(boolean transmitHere) {
        synchronized (lock) {
            if (jobs.isEmpty() || transmitting) {
                return;
            }
            if (!transmitHere || state != State.CONNECTED || rtrReceived.getCount() > 0 || onOwnThread()
                    || !inlineable(jobs.peekFirst())) {
                lock.notifyAll();
                return;
            }
            transmitting = true;
            transmitter = Thread.currentThread();
        }
        try {
            drain(true);
        } catch (IOException e) {
            abandonBatch();
            fail("connection lost while sending: " + e.getMessage(), null);
        } catch (InterruptedException e) {
            abandonBatch();
            Thread.currentThread().interrupt();
        } finally {
            synchronized (lock) {
                transmitting = false;
                transmitter = null;
                if (!jobs.isEmpty()) {
                    lock.notifyAll(); // what came meanwhile, or what only the transmit thread does
                }
            }
        }
    }

    private static boolean inlineable(Job job) {
        return job instanceof ResponseJob
                || job instanceof WrJob w && w.wr().opcode() != io.rdmagate.rdma.Opcode.RDMA_READ;
    }

    // ------------------------------------------------------------------ transmit

    /**
     * The transmit thread: whenever work is queued and no worker is transmitting, it owns the writer
     * and drains the queue.
     */
    private void transmitLoop() {
        boolean owner = false;
        try {
            rtrReceived.await();
            while (true) {
                synchronized (lock) {
                    if (owner) {
                        transmitting = false;
                        transmitter = null;
                        owner = false;
                    }
                    while (jobs.isEmpty() || transmitting) {
                        lock.wait();
                    }
                    transmitting = true;
                    transmitter = tx;
                    owner = true;
                }
                if (!drain(false)) {
                    return;
                }
            }
        } catch (IOException e) {
            abandonBatch();
            fail("connection lost while sending: " + e.getMessage(), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (owner) {
                abandonBatch();
            }
            if (state != State.CONNECTED) {
                closeChannel();
            }
        }
    }

    /**
     * Runs queued work while the caller owns the writer, until the queue runs empty (then what was
     * gathered goes out in one write) or, {@code inline}, until work only the transmit thread does.
     * False once the transmit side has ended (a Terminate was written, or the channel closed).
     */
    private boolean drain(boolean inline) throws IOException, InterruptedException {
        while (true) {
            Job job;
            synchronized (lock) {
                job = jobs.peekFirst();
                if (job == null || inline && !inlineable(job)) {
                    break;
                }
                jobs.pollFirst();
            }
            switch (job) {
                case TerminateJob t -> {
                    abandonBatch();
                    writer.terminate(t.cause());
                    return false;
                }
                case StopJob s -> {
                    return false;
                }
                case ResponseJob r -> {
                    // the request leaves the IRD count when its response starts: the peer can only
                    // see the response's end, and send its next request, after that
                    inboundReadsInFlight.decrementAndGet();
                    if (state == State.CONNECTED) {
                        writer.tagged(Rdmap.OP_READ_RESPONSE, r.sinkStag(), r.sinkTo(), List.of(r.source()));
                    }
                }
                case WrJob w -> {
                    if (state != State.CONNECTED) {
                        complete(w.wr(), WcStatus.WR_FLUSH_ERROR);
                        continue;
                    }
                    try {
                        transmit(w.wr());
                    } catch (IOException | InterruptedException e) {
                        // the connection ended under this request: it is flushed like the rest,
                        // after those gathered before it
                        abandonBatch();
                        if (!isQueuedRead(w.wr())) {
                            complete(w.wr(), WcStatus.WR_FLUSH_ERROR);
                        }
                        throw e;
                    }
                }
            }
        }
        flushBatch();
        return true;
    }

    /**
     * Writes the gathered FPDUs and completes the Sends and Writes among them (iWARP completes
     * those once TCP has them). Once the connection has failed, nothing more is written: they
     * are flushed in error instead.
     */
    private void flushBatch() throws IOException {
        if (state != State.CONNECTED) {
            abandonBatch();
            return;
        }
        if (writer.pending()) {
            writer.flush();
        }
        for (int i = 0; i < batched.size(); i++) {
            succeeded(batched.get(i));
        }
        batched.clear();
    }

    /** Drops the unwritten batch; its Sends and Writes complete as flushed. */
    private void abandonBatch() {
        writer.discard();
        for (int i = 0; i < batched.size(); i++) {
            complete(batched.get(i), WcStatus.WR_FLUSH_ERROR);
        }
        batched.clear();
    }

    private void transmit(SendWr wr) throws IOException, InterruptedException {
        boolean isRead = wr.opcode() == io.rdmagate.rdma.Opcode.RDMA_READ;
        List<MemorySegment> local = new ArrayList<>(wr.sgl().size());
        for (Sge s : wr.sgl()) {
            RegionTable.Checked c = device.regions().local(config.pd(), s, isRead);
            if (!c.ok()) {
                complete(wr, c.error());
                fail("work request " + wr.wrId() + ": " + c.reason(),
                        Rdmap.rdmap(Rdmap.RDMAP_CATASTROPHIC, Rdmap.RDMAP_CATASTROPHIC_STREAM, "local protection error"));
                return;
            }
            local.add(c.memory());
        }
        long length = wr.length();
        if (length > device.limits().maxMessageBytes()) {
            complete(wr, WcStatus.LOCAL_LENGTH_ERROR);
            fail("message of " + length + " bytes over the device limit", null);
            return;
        }
        switch (wr.opcode()) {
            case RDMA_WRITE -> {
                writer.tagged(Rdmap.OP_WRITE, wr.rkey(), wr.remoteAddress(), local);
                batched.add(wr);
            }
            case RDMA_READ -> {
                if (outboundReads == 0) {
                    complete(wr, WcStatus.LOCAL_QP_OPERATION_ERROR);
                    fail("RDMA Read with ORD 0", null);
                    return;
                }
                long remoteOff = 0;
                for (int i = 0; i < wr.sgl().size(); i++) {
                    Sge s = wr.sgl().get(i);
                    if (!readCredits.tryAcquire()) {
                        flushBatch(); // the responses that free a credit need the requests out first
                        readCredits.acquire();
                    }
                    if (state != State.CONNECTED) {
                        if (i == 0) {
                            complete(wr, WcStatus.WR_FLUSH_ERROR); // parts already sent were flushed with the reads
                        }
                        return;
                    }
                    synchronized (lock) {
                        reads.addLast(new PendingRead(wr, i == wr.sgl().size() - 1, s.lkey(), s.address(), local.get(i)));
                    }
                    writer.readRequest(s.lkey(), s.address(), s.length(), wr.rkey(), wr.remoteAddress() + remoteOff);
                    remoteOff += s.length();
                }
            }
            default -> {
                writer.send(Rdmap.sendOpcode(wr.opcode()), wr.opcode().invalidates() ? wr.invalidateRkey() : 0, local);
                batched.add(wr);
            }
        }
    }

    /** Whether part of this read is among the outstanding reads (fail() flushes those). */
    private boolean isQueuedRead(SendWr wr) {
        synchronized (lock) {
            for (PendingRead r : reads) {
                if (r.wr == wr) {
                    return true;
                }
            }
            return false;
        }
    }

    private void succeeded(SendWr wr) {
        if (wr.signaled()) {
            complete(wr, WcStatus.SUCCESS);
        } else {
            sendsInFlight.decrementAndGet();
        }
    }

    private void complete(SendWr wr, WcStatus status) {
        sendsInFlight.decrementAndGet();
        WorkCompletion wc = WorkCompletion.forSend(wr, status, this);
        // a success on this pair's own threads (no lock held here) is delivered on the spot
        boolean offered = status == WcStatus.SUCCESS && deliversInline() ? sendCq().offerInline(wc) : sendCq().offer(wc);
        if (!offered && status == WcStatus.SUCCESS) {
            fail("send completion queue overrun", null);
        }
    }

    // ------------------------------------------------------------------ receive

    /** The receive direction until the connection ends; its own thread in service, called directly by tests. */
    void receiveLoop() {
        try {
            while (state == State.CONNECTED && reader.next()) {
                // one FPDU at a time
            }
            fail("connection closed by peer", null);
        } catch (TerminateException e) {
            fail("terminated: " + e.terminateCause(), e.terminateCause());
        } catch (IOException e) {
            fail("connection lost: " + e.getMessage(), null);
        } catch (RuntimeException e) {
            device.countInternalError();
            log.error("receive path failed", e);
            fail("internal error: " + e, Rdmap.rdmap(Rdmap.RDMAP_CATASTROPHIC, Rdmap.RDMAP_CATASTROPHIC_STREAM, "internal"));
        }
    }

    @Override
    public List<MemorySegment> tagged(int opcode, int stag, long to, int length, boolean last) throws TerminateException {
        if (rtrReceived.getCount() > 0) {
            if (opcode != Rdmap.OP_WRITE || length != 0) {
                throw new TerminateException(Rdmap.llp(Rdmap.LLP_NO_MATCHING_RTR, "expected a zero-length RDMA Write RTR"));
            }
            rtrReceived.countDown();
            return List.of();
        }
        if (opcode == Rdmap.OP_WRITE) {
            RegionTable.Checked c = device.regions().remote(config.pd(), stag, to, length, Access.REMOTE_WRITE);
            if (!c.ok()) {
                device.countViolation();
                throw new TerminateException(remoteProtection(c.error(), c.reason()));
            }
            return List.of(c.memory());
        }
        // Read Response: it must continue the oldest outstanding Read Request, in order
        synchronized (lock) {
            PendingRead r = reads.peekFirst();
            if (r == null || r.sinkStag != stag || r.sinkTo + r.placed != to || r.placed + length > r.sink.byteSize()) {
                device.countViolation();
                throw new TerminateException(Rdmap.ddp(Rdmap.DDP_TAGGED, Rdmap.DDP_T_BASE_BOUNDS,
                        "read response does not match an outstanding read"));
            }
            MemorySegment target = r.sink.asSlice(r.placed, length);
            r.placed += length;
            if (last) {
                if (r.placed != r.sink.byteSize()) {
                    throw new TerminateException(Rdmap.ddp(Rdmap.DDP_TAGGED, Rdmap.DDP_T_BASE_BOUNDS, "short read response"));
                }
                onSegmentDone.add(() -> readDone(r));
            }
            return List.of(target);
        }
    }

    private void readDone(PendingRead r) {
        synchronized (lock) {
            reads.pollFirst();
        }
        readCredits.release();
        if (r.lastOfWr) {
            succeeded(r.wr);
        }
    }

    @Override
    public List<MemorySegment> send(int opcode, int invalidateStag, int msn, long mo, int length, boolean last)
            throws TerminateException {
        if (rtrReceived.getCount() > 0) {
            throw new TerminateException(Rdmap.llp(Rdmap.LLP_NO_MATCHING_RTR, "a Send before the RTR"));
        }
        synchronized (lock) {
            if (inbound == null) {
                if (msn != expectedMsn) {
                    throw new TerminateException(Rdmap.ddp(Rdmap.DDP_UNTAGGED, Rdmap.DDP_UT_MSN_RANGE,
                            "MSN " + Integer.toUnsignedString(msn) + ", expected " + expectedMsn));
                }
                RecvWr wr = receives.pollFirst();
                if (wr == null) {
                    throw new TerminateException(Rdmap.ddp(Rdmap.DDP_UNTAGGED, Rdmap.DDP_UT_NO_BUFFER, "no receive posted"));
                }
                List<MemorySegment> bufs = new ArrayList<>(wr.sgl().size());
                for (Sge s : wr.sgl()) {
                    RegionTable.Checked c = device.regions().local(config.pd(), s, true);
                    if (!c.ok()) {
                        recvCq().offer(recvCompletion(wr, c.error(), 0, 0, false));
                        throw new TerminateException(Rdmap.rdmap(Rdmap.RDMAP_CATASTROPHIC, Rdmap.RDMAP_CATASTROPHIC_STREAM,
                                "receive buffer: " + c.reason()));
                    }
                    bufs.add(c.memory());
                }
                inbound = new Inbound(wr, bufs, wr.length());
            } else if (msn != expectedMsn) {
                throw new TerminateException(Rdmap.ddp(Rdmap.DDP_UNTAGGED, Rdmap.DDP_UT_MSN_RANGE, "MSN changed inside a message"));
            }
            Inbound in = inbound;
            if (mo != in.placed) {
                throw new TerminateException(Rdmap.ddp(Rdmap.DDP_UNTAGGED, Rdmap.DDP_UT_INVALID_MO,
                        "MO " + mo + ", expected " + in.placed));
            }
            if (in.placed + length > in.capacity) {
                recvCq().offer(recvCompletion(in.wr, WcStatus.LOCAL_LENGTH_ERROR, 0, 0, false));
                inbound = null;
                throw new TerminateException(Rdmap.ddp(Rdmap.DDP_UNTAGGED, Rdmap.DDP_UT_TOO_LONG, "message longer than the receive"));
            }
            List<MemorySegment> targets = slices(in.buffers, in.placed, length);
            in.placed += length;
            if (last) {
                inbound = null;
                expectedMsn++;
                boolean invalidates = opcode == Rdmap.OP_SEND_INVALIDATE || opcode == Rdmap.OP_SEND_SE_INVALIDATE;
                boolean solicited = opcode == Rdmap.OP_SEND_SE || opcode == Rdmap.OP_SEND_SE_INVALIDATE;
                if (invalidates && !device.regions().invalidateRemote(config.pd(), invalidateStag)) {
                    recvCq().offer(recvCompletion(in.wr, WcStatus.REMOTE_INVALID_REQUEST_ERROR, 0, 0, false));
                    throw new TerminateException(Rdmap.rdmap(Rdmap.RDMAP_REMOTE_PROTECTION, Rdmap.RDMAP_CANNOT_INVALIDATE,
                            "cannot invalidate STag " + Integer.toHexString(invalidateStag)));
                }
                int inv = invalidates ? invalidateStag : 0;
                onSegmentDone.add(() -> {
                    // runs on the receive thread after the segment, with no lock held: delivered on the spot
                    if (!recvCq().offerInline(recvCompletion(in.wr, WcStatus.SUCCESS, in.placed, inv, solicited))) {
                        fail("receive completion queue overrun", null);
                    }
                });
            }
            return targets;
        }
    }

    @Override
    public void readRequest(int msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo)
            throws TerminateException {
        if (msn != expectedReadMsn) {
            throw new TerminateException(Rdmap.ddp(Rdmap.DDP_UNTAGGED, Rdmap.DDP_UT_MSN_RANGE, "read request MSN"));
        }
        if (rtrReceived.getCount() > 0) {
            if (size != 0) {
                throw new TerminateException(Rdmap.llp(Rdmap.LLP_NO_MATCHING_RTR, "expected a zero-length RDMA Read RTR"));
            }
            expectedReadMsn++;
            inboundReadsInFlight.incrementAndGet();
            enqueue(new ResponseJob(MemorySegment.NULL, sinkStag, sinkTo), true);
            rtrReceived.countDown();
            return;
        }
        expectedReadMsn++;
        if (inboundReadsInFlight.incrementAndGet() > inboundReads) {
            throw new TerminateException(Rdmap.rdmap(Rdmap.RDMAP_REMOTE_OPERATION, Rdmap.RDMAP_CATASTROPHIC_STREAM,
                    "more read requests than IRD " + inboundReads));
        }
        RegionTable.Checked c = device.regions().remote(config.pd(), sourceStag, sourceTo, Integer.toUnsignedLong(size),
                Access.REMOTE_READ);
        if (!c.ok()) {
            device.countViolation();
            throw new TerminateException(remoteProtection(c.error(), c.reason()));
        }
        enqueue(new ResponseJob(c.memory(), sinkStag, sinkTo), true);
    }

    @Override
    public void terminated(Rdmap.Cause cause) {
        fail("peer terminated: " + cause, null);
    }

    @Override
    public void segmentDone() {
        List<Runnable> done;
        synchronized (lock) {
            if (onSegmentDone.isEmpty()) {
                return;
            }
            done = List.copyOf(onSegmentDone);
            onSegmentDone.clear();
        }
        done.forEach(Runnable::run);
    }

    private static Rdmap.Cause remoteProtection(WcStatus status, String reason) {
        int code = reason.contains("bounds") ? Rdmap.RDMAP_BASE_BOUNDS
                : reason.contains("without") ? Rdmap.RDMAP_ACCESS_RIGHTS
                : reason.contains("domain") ? Rdmap.RDMAP_STAG_NOT_ASSOCIATED : Rdmap.RDMAP_INVALID_STAG;
        return Rdmap.rdmap(Rdmap.RDMAP_REMOTE_PROTECTION, code, "remote protection: " + reason + " (" + status + ")");
    }

    private static List<MemorySegment> slices(List<MemorySegment> bufs, long offset, long length) {
        List<MemorySegment> out = new ArrayList<>(2);
        long skip = offset;
        long left = length;
        for (MemorySegment b : bufs) {
            if (left == 0) {
                break;
            }
            if (skip >= b.byteSize()) {
                skip -= b.byteSize();
                continue;
            }
            long n = Math.min(b.byteSize() - skip, left);
            out.add(b.asSlice(skip, n));
            left -= n;
            skip = 0;
        }
        return out;
    }

    // ------------------------------------------------------------------ errors and teardown

    /** Ends the connection once: sends a Terminate if given, flushes everything posted, tells the user. */
    private void fail(String reason, Rdmap.Cause terminate) {
        List<RecvWr> flushRecv;
        List<PendingRead> flushReads;
        synchronized (lock) {
            if (state != State.CONNECTED) {
                return;
            }
            state = terminate == null && reason.startsWith("disconnected") ? State.CLOSED : State.ERROR;
            flushRecv = new ArrayList<>(receives);
            receives.clear();
            flushReads = new ArrayList<>(reads);
            reads.clear();
            if (inbound != null) {
                flushRecv.add(0, inbound.wr);
                inbound = null;
            }
        }
        List<Job> pending;
        synchronized (lock) {
            pending = new ArrayList<>(jobs);
            jobs.clear();
        }
        if (terminate != null) {
            enqueue(new TerminateJob(terminate), true);
        } else {
            closeChannel();
        }
        readCredits.release(Math.max(outboundReads, 1) * 2);
        rtrReceived.countDown();
        for (RecvWr r : flushRecv) {
            recvCq().offer(recvCompletion(r, WcStatus.WR_FLUSH_ERROR, 0, 0, false));
        }
        SendWr lastFlushed = null;
        for (PendingRead r : flushReads) {
            if (r.wr != lastFlushed) {
                complete(r.wr, WcStatus.WR_FLUSH_ERROR);
                lastFlushed = r.wr;
            }
        }
        for (Job j : pending) {
            if (j instanceof WrJob w) {
                complete(w.wr(), WcStatus.WR_FLUSH_ERROR);
            }
        }
        if (terminate != null && tx != null && !tx.isAlive()) {
            closeChannel();
        }
        Thread.ofVirtual().start(() -> config.events().disconnected(this, reason));
    }

    /** Fails the connection when its write has waited {@code timeoutNanos} without the peer taking a byte. */
    void checkSendDeadline(long now, long timeoutNanos) {
        long stalled = writer.stalledNanos(now);
        if (stalled >= timeoutNanos && state == State.CONNECTED) {
            fail("the peer took no data for " + stalled / 1_000_000_000L + " s", null);
        }
    }

    private void closeChannel() {
        device.ended(this);
        try {
            channel.close();
        } catch (IOException e) {
            log.debug("closing {}", remote, e);
        }
        enqueue(new StopJob(), true);
    }

    /** This pair's threads, and a worker transmitting in {@link #doorbell}, deliver successes inline (they hold no lock then). */
    private boolean deliversInline() {
        return onOwnThread() || Thread.currentThread() == transmitter;
    }

    private boolean onOwnThread() {
        Thread t = Thread.currentThread();
        return t == tx || t == rx;
    }

    private WorkCompletion recvCompletion(RecvWr wr, WcStatus st, long bytes, int invalidated, boolean solicited) {
        return new WorkCompletion(wr.wrId(), WorkCompletion.Kind.RECV, st, bytes, invalidated, solicited, this);
    }

    private SerialCompletionQueue sendCq() {
        return (SerialCompletionQueue) config.sendCq();
    }

    private SerialCompletionQueue recvCq() {
        return (SerialCompletionQueue) config.recvCq();
    }

    @Override
    public State state() {
        return state;
    }

    @Override
    public byte[] remotePrivateData() {
        return remotePrivateData.clone();
    }

    @Override
    public int inboundReads() {
        return inboundReads;
    }

    @Override
    public int outboundReads() {
        return outboundReads;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    /**
     * Disconnects and waits until neither direction touches registered memory any more, so the
     * caller may deregister and free it when this returns.
     */
    @Override
    public void disconnect() {
        fail("disconnected locally", null);
        closeChannel();
        for (Thread t : new Thread[] {rx, tx}) {
            if (t != null && t != Thread.currentThread()) {
                try {
                    if (!t.join(java.time.Duration.ofSeconds(5))) {
                        log.warn("{} did not stop within 5 s", t.getName());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
