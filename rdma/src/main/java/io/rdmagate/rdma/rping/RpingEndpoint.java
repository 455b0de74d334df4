package io.rdmagate.rdma.rping;

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
import io.rdmagate.rdma.WcStatus;
import io.rdmagate.rdma.WorkCompletion;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What both rping roles hold: the buffers rping registers (a 16-byte receive and send buffer, the
 * data buffers with local write and remote read and write), one receive posted at a time, and the
 * completions of the one connection.
 */
abstract class RpingEndpoint implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(30);

    protected final Arena arena = Arena.ofShared();
    protected final RdmaDevice device;
    protected final ProtectionDomain pd;
    protected final MemoryRegion recvBuf;
    protected final MemoryRegion sendBuf;
    protected final MemoryRegion rdmaBuf;
    protected final int size;
    private final BlockingQueue<WorkCompletion> sends = new LinkedBlockingQueue<>();
    private final BlockingQueue<WorkCompletion> recvs = new LinkedBlockingQueue<>();
    protected final CompletionQueue sendCq;
    protected final CompletionQueue recvCq;
    protected QueuePair qp;

    RpingEndpoint(RdmaDevice device, int size) throws RdmaException {
        if (size < 26 || size > 65535) {
            throw new IllegalArgumentException("rping sizes are 26..65535, not " + size);
        }
        this.size = size;
        this.device = device;
        this.pd = device.allocateProtectionDomain();
        this.recvBuf = pd.register(arena.allocate(RpingInfo.BYTES, 8), EnumSet.of(Access.LOCAL_WRITE));
        this.sendBuf = pd.register(arena.allocate(RpingInfo.BYTES, 8), EnumSet.noneOf(Access.class));
        this.rdmaBuf = pd.register(arena.allocate(size, 64), EnumSet.allOf(Access.class));
        this.sendCq = device.createCompletionQueue(32, sends::add);
        this.recvCq = device.createCompletionQueue(32, recvs::add);
    }

    QpConfig config() {
        return new QpConfig(pd, sendCq, recvCq, 16, 2, 1, 1, 1, ConnectionEvents.NONE);
    }

    void postReceive(QueuePair q) throws RdmaException {
        q.postReceive(RecvWr.of(0, recvBuf.sge(0, RpingInfo.BYTES)));
    }

    /** The next 16-byte message; rping re-posts its one receive before it acts on the message. */
    RpingInfo receive() throws IOException, InterruptedException, RdmaException {
        WorkCompletion wc = recvs.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        check(wc, "receive");
        if (wc.byteLength() != RpingInfo.BYTES) {
            throw new IOException("received " + wc.byteLength() + " bytes, rping messages are 16");
        }
        RpingInfo info = RpingInfo.readFrom(recvBuf.segment());
        postReceive(qp);
        return info;
    }

    void send(RpingInfo info) throws IOException, InterruptedException, RdmaException {
        info.writeTo(sendBuf.segment());
        qp.postSend(SendWr.send(1, sendBuf.sge(0, RpingInfo.BYTES)));
        check(sends.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS), "send");
    }

    void rdma(SendWr wr) throws IOException, InterruptedException, RdmaException {
        qp.postSend(wr);
        check(sends.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS), wr.opcode().toString());
    }

    private static void check(WorkCompletion wc, String what) throws IOException {
        if (wc == null) {
            throw new IOException(what + ": no completion within " + WAIT);
        }
        if (wc.status() != WcStatus.SUCCESS) {
            throw new IOException(what + " failed: " + wc.status());
        }
    }

    @Override
    public void close() {
        if (qp != null) {
            qp.disconnect();
        }
        sendCq.close();
        recvCq.close();
        pd.close();
        arena.close();
    }
}
