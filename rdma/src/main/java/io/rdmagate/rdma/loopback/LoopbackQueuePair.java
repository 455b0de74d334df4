package io.rdmagate.rdma.loopback;

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
import io.rdmagate.rdma.spi.Scatter;
import io.rdmagate.rdma.spi.SerialCompletionQueue;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One end of a loopback connection. A send work request runs when it is posted, under a lock the
 * two ends share, so requests run in order; its data moves straight between the two ends'
 * registered segments. Errors follow iWARP: a fault is fatal to the connection, as a Terminate
 * would make it (RFC 5040 §5.1, §6.4): the failing request completes with its status, and both
 * ends flush whatever is still posted.
 */
final class LoopbackQueuePair implements QueuePair {
    private final LoopbackDevice device;
    private final QpConfig config;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final byte[] localPrivateData;
    private final ArrayDeque<RecvWr> receives = new ArrayDeque<>();
    private Object lock = this;
    private LoopbackQueuePair peer;
    private volatile State state = State.CONNECTED;

    LoopbackQueuePair(LoopbackDevice device, QpConfig config, InetSocketAddress local, InetSocketAddress remote,
            byte[] localPrivateData) {
        this.device = device;
        this.config = config;
        this.local = local;
        this.remote = remote;
        this.localPrivateData = localPrivateData.clone();
    }

    static void join(LoopbackQueuePair a, LoopbackQueuePair b) {
        Object shared = new Object();
        a.lock = shared;
        b.lock = shared;
        a.peer = b;
        b.peer = a;
    }

    QpConfig config() {
        return config;
    }

    byte[] localPrivateData() {
        return localPrivateData.clone();
    }

    void established() {
        Thread.ofVirtual().start(() -> config.events().established(this));
    }

    @Override
    public void postReceive(RecvWr wr) throws RdmaException {
        if (wr.sgl().size() > config.maxSge()) {
            throw new RdmaException(wr.sgl().size() + " SGEs; the queue pair allows " + config.maxSge());
        }
        synchronized (lock) {
            if (state != State.CONNECTED) {
                recvCq().offer(new WorkCompletion(wr.wrId(), WorkCompletion.Kind.RECV, WcStatus.WR_FLUSH_ERROR, 0, 0, false,
                        this));
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
        if (wr.sgl().size() > config.maxSge()) {
            throw new RdmaException(wr.sgl().size() + " SGEs; the queue pair allows " + config.maxSge());
        }
        synchronized (lock) {
            if (state != State.CONNECTED) {
                sendCq().offer(WorkCompletion.forSend(wr, WcStatus.WR_FLUSH_ERROR, this));
                return;
            }
            WcStatus st = switch (wr.opcode()) {
                case RDMA_WRITE -> write(wr);
                case RDMA_READ -> read(wr);
                default -> send(wr);
            };
            if (st != WcStatus.SUCCESS) {
                sendCq().offer(WorkCompletion.forSend(wr, st, this));
                fail("work request " + wr.wrId() + " failed: " + st);
            } else if (wr.signaled() && !sendCq().offer(WorkCompletion.forSend(wr, st, this))) {
                fail("send completion queue overrun");
            }
        }
    }

    /** Gathers the local list, or returns null after recording why not. */
    private List<MemorySegment> localList(List<Sge> sgl, boolean write, WcStatus[] why) {
        List<MemorySegment> out = new ArrayList<>(sgl.size());
        for (Sge s : sgl) {
            RegionTable.Checked c = device.regions.local(config.pd(), s, write);
            if (!c.ok()) {
                why[0] = c.error();
                return null;
            }
            out.add(c.memory());
        }
        return out;
    }

    private WcStatus send(SendWr wr) {
        WcStatus[] why = new WcStatus[1];
        List<MemorySegment> src = localList(wr.sgl(), false, why);
        if (src == null) {
            return why[0];
        }
        long len = Scatter.total(src);
        if (len > device.limits().maxMessageBytes()) {
            return WcStatus.LOCAL_LENGTH_ERROR;
        }
        RecvWr r = peer.receives.pollFirst();
        if (r == null) {
            return WcStatus.REMOTE_OPERATION_ERROR; // DDP: no untagged buffer (receive not ready)
        }
        List<MemorySegment> dst = peer.localList(r.sgl(), true, why);
        if (dst == null || Scatter.total(dst) < len) {
            peer.recvCq().offer(new WorkCompletion(r.wrId(), WorkCompletion.Kind.RECV,
                    dst == null ? why[0] : WcStatus.LOCAL_LENGTH_ERROR, 0, 0, false, peer));
            return WcStatus.REMOTE_OPERATION_ERROR;
        }
        int invalidated = 0;
        if (wr.opcode().invalidates()) {
            if (!peer.device.regions.invalidateRemote(peer.config.pd(), wr.invalidateRkey())) {
                peer.recvCq().offer(new WorkCompletion(r.wrId(), WorkCompletion.Kind.RECV,
                        WcStatus.REMOTE_INVALID_REQUEST_ERROR, 0, 0, false, peer));
                return WcStatus.REMOTE_INVALID_REQUEST_ERROR;
            }
            invalidated = wr.invalidateRkey();
        }
        Scatter.copy(src, dst);
        if (!peer.recvCq().offer(new WorkCompletion(r.wrId(), WorkCompletion.Kind.RECV, WcStatus.SUCCESS, len, invalidated,
                wr.opcode().solicited(), peer))) {
            peer.fail("receive completion queue overrun");
        }
        return WcStatus.SUCCESS;
    }

    private WcStatus write(SendWr wr) {
        WcStatus[] why = new WcStatus[1];
        List<MemorySegment> src = localList(wr.sgl(), false, why);
        if (src == null) {
            return why[0];
        }
        long len = Scatter.total(src);
        RegionTable.Checked target = peer.device.regions.remote(peer.config.pd(), wr.rkey(), wr.remoteAddress(), len,
                Access.REMOTE_WRITE);
        if (!target.ok()) {
            return target.error();
        }
        Scatter.gatherInto(src, target.memory());
        return WcStatus.SUCCESS;
    }

    private WcStatus read(SendWr wr) {
        if (config.ord() == 0 || peer.config.ird() == 0) {
            return WcStatus.LOCAL_QP_OPERATION_ERROR;
        }
        WcStatus[] why = new WcStatus[1];
        List<MemorySegment> dst = localList(wr.sgl(), true, why);
        if (dst == null) {
            return why[0];
        }
        long len = Scatter.total(dst);
        RegionTable.Checked source = peer.device.regions.remote(peer.config.pd(), wr.rkey(), wr.remoteAddress(), len,
                Access.REMOTE_READ);
        if (!source.ok()) {
            return source.error();
        }
        Scatter.scatterFrom(source.memory(), dst);
        return WcStatus.SUCCESS;
    }

    /** Moves both ends to error (the Terminate of iWARP), flushing what they still have posted. */
    private void fail(String reason) {
        toError(reason, State.ERROR);
        if (peer != null) {
            peer.toError("peer terminated: " + reason, State.ERROR);
        }
    }

    private void toError(String reason, State next) {
        if (state != State.CONNECTED) {
            return;
        }
        state = next;
        RecvWr r;
        while ((r = receives.pollFirst()) != null) {
            recvCq().offer(new WorkCompletion(r.wrId(), WorkCompletion.Kind.RECV, WcStatus.WR_FLUSH_ERROR, 0, 0, false, this));
        }
        Thread.ofVirtual().start(() -> config.events().disconnected(this, reason));
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
        return peer == null ? new byte[0] : peer.localPrivateData.clone();
    }

    @Override
    public int inboundReads() {
        return peer == null ? config.ird() : Math.min(config.ird(), peer.config.ord());
    }

    @Override
    public int outboundReads() {
        return peer == null ? config.ord() : Math.min(config.ord(), peer.config.ird());
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public void disconnect() {
        synchronized (lock) {
            toError("disconnected locally", State.CLOSED);
            if (peer != null) {
                peer.toError("disconnected by peer", State.CLOSED);
            }
        }
    }
}
