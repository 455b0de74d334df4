package io.rdmagate.smbdirect;

import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.Sge;
import io.rdmagate.rdma.WorkCompletion;
import io.rdmagate.smbdirect.message.DataTransfer;
import io.rdmagate.vfs.memory.IoMemory;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything the connection sends, and the credits of both directions (MS-SMBD 3.1.5.1).
 *
 * <p>Operation: work waits in one queue in the order it was submitted — SMB2 messages to be sent
 * as Data Transfer Messages, empty messages that grant credits or answer a keep-alive, chains of
 * RDMA Writes or Reads for the RDMA channel — and is posted by {@link #pump} as far as the send
 * queue, the send buffers and the credits allow. A message longer than one send is cut into
 * fragments, each with the bytes still to come in RemainingDataLength; each fragment costs a send
 * credit the client granted, and the last credit goes only to a message that grants credits back,
 * so the two sides never both wait. Each message grants the client the receives posted since the
 * last grant. A chain of RDMA Writes goes ahead of the response that follows it in the queue: on a
 * reliable connection the data is placed before the response arrives. Whatever cannot go now is
 * posted by the completion or the grant that makes room — so a completion handler never waits, and
 * nobody else does either: a sender only queues.
 *
 * <p>Threads: submitters (the SMB workers) ring the doorbell themselves ({@code doorbell(true)});
 * completion handlers only post and wake the provider's transmitter.
 */
final class SendQueue {
    private static final long MESSAGE = 1L << 62;

    private final SmbDirectConnection conn;
    private final ArrayDeque<Item> waiting = new ArrayDeque<>();
    private final Map<Long, RdmaChain> postedChains = new HashMap<>();
    private final ArrayDeque<Integer> freeBuffers = new ArrayDeque<>();
    private final int receiveCredits;
    private final int creditTarget;
    private int sendCredits;
    private int grantedToPeer;
    private int postedReceives;
    private int sqFree;
    private int readsFree;
    private boolean responseDue;
    private boolean paused;
    private boolean closed;
    private long nextChain = 1;
    /** When the head of the queue started waiting for a credit (0: it is not waiting). */
    private long starvedSince;

    SendQueue(SmbDirectConnection conn, int sendBuffers, int sqSlots, int receiveCredits, int creditTarget) {
        this.conn = conn;
        for (int k = 0; k < sendBuffers; k++) {
            freeBuffers.add(k);
        }
        this.sqFree = sqSlots;
        this.receiveCredits = receiveCredits;
        this.creditTarget = creditTarget;
    }

    /** Something to post: true when all of it went (it leaves the queue). */
    private interface Item {
        boolean post(QueuePair qp) throws RdmaException;

        /** The connection ended first. */
        void abandoned();
    }

    // ---- credits: called by the receive side, serially

    synchronized void setReadsFree(int ord) {
        this.readsFree = ord;
    }

    /** A receive was posted (at setup, or again once its message was consumed). */
    void receivePosted() {
        boolean grant;
        synchronized (this) {
            postedReceives++;
            // the client is running low and nothing else is about to go: an empty message grants
            grant = !closed && waiting.isEmpty() && grantedToPeer <= receiveCredits / 4 && grantable() > 0
                    && conn.negotiated();
            if (grant) {
                waiting.add(new Message(List.of(), null, -1, false));
            }
        }
        if (grant) {
            pump(false);
        }
    }

    /**
     * A data transfer message arrived and took one of our posted receives: the client spent a
     * credit, granted some, and set its target. Returns false when it sent without a credit.
     */
    synchronized boolean received(int granted, boolean responseRequested) {
        postedReceives--;
        if (--grantedToPeer < 0) {
            return false;
        }
        sendCredits = Math.min(65535 + 1, sendCredits + granted);
        if (granted > 0) {
            starvedSince = 0;
        }
        if (responseRequested) {
            responseDue = true;
            if (waiting.isEmpty()) {
                waiting.add(new Message(List.of(), null, -1, false));
            }
        }
        return sendCredits <= 65535;
    }

    /** The Negotiate Request took a receive: no credit was spent (MS-SMBD 3.1.5.2). */
    synchronized void negotiateReceived() {
        postedReceives--;
    }

    /** Credits the next message may grant: receives posted and not yet granted (none while paused). */
    private int grantable() {
        return paused ? 0 : Math.min(65535, Math.max(0, postedReceives - grantedToPeer));
    }

    /** The credits the Negotiate Response grants: every receive posted (MS-SMBD 3.1.5.2). */
    synchronized int grantAll() {
        int g = Math.min(65535, postedReceives);
        grantedToPeer = g;
        return g;
    }

    /** Posts the Negotiate Response: it needs no credit (MS-SMBD 3.1.5.2), only a send buffer. */
    void postNegotiateResponse(io.rdmagate.smbdirect.message.NegotiateResponse resp) throws RdmaException {
        QueuePair qp = conn.queuePair();
        synchronized (this) {
            int buffer = freeBuffers.poll();
            MemorySegment b = conn.sendBuffer(buffer);
            int n = resp.encode(b.asByteBuffer());
            sqFree--;
            qp.postSendDeferred(SendWr.send(MESSAGE | buffer, new Sge(b.address(), n, conn.sendLkey(buffer))));
        }
        qp.doorbell(false);
    }

    void pause(boolean pause) {
        synchronized (this) {
            if (paused == pause) {
                return;
            }
            paused = pause;
            if (!pause && !closed && waiting.isEmpty() && grantedToPeer <= receiveCredits / 4 && grantable() > 0) {
                waiting.add(new Message(List.of(), null, -1, false));
            }
        }
        if (!pause) {
            pump(false);
        }
    }

    /** How long the head of the queue has waited for a credit, in nanoseconds (0: it does not). */
    synchronized long starvedNanos() {
        return starvedSince == 0 ? 0 : System.nanoTime() - starvedSince;
    }

    // ---- submitting

    /**
     * Queues an SMB2 message: {@code parts} then {@code payload} (released once copied into the send
     * buffers). {@code invalidate}: the client token the last fragment invalidates, or -1.
     */
    void submit(List<ByteBuffer> parts, IoMemory payload, long invalidate) {
        enqueue(new Message(parts, payload, invalidate, false));
    }

    /** Queues an empty message that asks the client to answer (a keep-alive, MS-SMBD 3.1.6.2). */
    void keepalive() {
        enqueue(new Message(List.of(), null, -1, true));
    }

    /** Queues a chain of RDMA Writes or Reads: the last is signaled and its completion runs {@code done}. */
    void submitChain(List<SendWr> wrs, int reads, Completion done) {
        enqueue(new RdmaChain(wrs, reads, done));
    }

    /** The end of an RDMA chain: its last work request's completion, or null when abandoned. */
    interface Completion {
        void completed(WorkCompletion wc);
    }

    private void enqueue(Item item) {
        synchronized (this) {
            if (!closed) {
                waiting.add(item);
                item = null;
            }
        }
        if (item != null) {
            item.abandoned();
            return;
        }
        pump(Thread.currentThread().isVirtual());
    }

    /** Posts what can go, in order; then rings the doorbell (here: the caller may transmit). */
    void pump(boolean here) {
        QueuePair qp = conn.queuePair();
        if (qp == null) {
            return;
        }
        try {
            synchronized (this) {
                while (!closed && !waiting.isEmpty()) {
                    Item head = waiting.peek();
                    if (!head.post(qp)) {
                        if (head instanceof Message && starvedSince == 0 && sendCredits == 0) {
                            starvedSince = System.nanoTime();
                        }
                        break;
                    }
                    waiting.poll();
                }
            }
        } catch (RdmaException | RuntimeException e) {
            conn.close("posting to the send queue failed: " + e);
            return;
        }
        qp.doorbell(here);
    }

    /** A send completion: frees its send buffer or finishes its chain. */
    void completed(WorkCompletion wc) {
        RdmaChain chain = null;
        synchronized (this) {
            if ((wc.wrId() & MESSAGE) != 0) {
                freeBuffers.add((int) (wc.wrId() & 0xFFFFFFFFL));
                sqFree++;
            } else {
                chain = postedChains.remove(wc.wrId());
                if (chain != null) {
                    sqFree += chain.wrs.size();
                    readsFree += chain.reads;
                }
            }
        }
        if (chain != null) {
            chain.done.completed(wc);
        }
        if (!wc.ok()) {
            conn.close("send queue completion " + wc.status());
            return;
        }
        pump(false);
    }

    /** The connection ended (its queue pair flushed): everything still queued or posted is abandoned. */
    void close() {
        List<Item> gone;
        synchronized (this) {
            closed = true;
            gone = new ArrayList<>(waiting);
            waiting.clear();
            gone.addAll(postedChains.values());
            postedChains.clear();
        }
        for (Item i : gone) {
            i.abandoned();
        }
    }

    /** An SMB2 message, sent as one or more Data Transfer Messages. */
    private final class Message implements Item {
        private final List<ByteBuffer> parts;
        private final IoMemory payload;
        private final long invalidate;
        private final boolean askResponse;
        private final long total;
        private long sent;
        private int part;
        private long partAt;

        Message(List<ByteBuffer> parts, IoMemory payload, long invalidate, boolean askResponse) {
            List<ByteBuffer> all = new ArrayList<>(parts.size() + 1);
            long n = 0;
            for (ByteBuffer p : parts) {
                all.add(p.duplicate());
                n += p.remaining();
            }
            if (payload != null) {
                ByteBuffer b = payload.segment().asByteBuffer();
                all.add(b);
                n += b.remaining();
            }
            this.parts = all;
            this.payload = payload;
            this.invalidate = invalidate;
            this.askResponse = askResponse;
            this.total = n;
        }

        @Override
        public boolean post(QueuePair qp) throws RdmaException {
            if (total > conn.peerMaxFragmented()) {
                throw new RdmaException("a message of " + total + " bytes is above the client's MaxFragmentedSize "
                        + conn.peerMaxFragmented());
            }
            do {
                int grant = grantable();
                if (freeBuffers.isEmpty() || sqFree == 0 || sendCredits == 0 || sendCredits == 1 && grant == 0) {
                    return false;
                }
                int buffer = freeBuffers.poll();
                MemorySegment b = conn.sendBuffer(buffer);
                int n = (int) Math.min(total - sent, conn.sendSize() - DataTransfer.DATA_OFFSET);
                copy(b, DataTransfer.DATA_OFFSET, n);
                sent += n;
                boolean last = sent == total;
                int flags = askResponse ? DataTransfer.FLAG_RESPONSE_REQUESTED : 0;
                DataTransfer.write(b.asByteBuffer(), creditTarget, grant, flags, total - sent, n);
                sendCredits--;
                grantedToPeer += grant;
                sqFree--;
                responseDue = false;
                Sge sge = new Sge(b.address(), DataTransfer.DATA_OFFSET + n, conn.sendLkey(buffer));
                long id = MESSAGE | buffer;
                qp.postSendDeferred(last && invalidate >= 0
                        ? SendWr.sendWithInvalidate(id, (int) invalidate, sge)
                        : SendWr.send(id, sge));
            } while (sent < total);
            if (payload != null) {
                payload.release();
            }
            return true;
        }

        /** Copies the next {@code n} bytes of the message into {@code to} at {@code at}. */
        private void copy(MemorySegment to, long at, int n) {
            while (n > 0) {
                ByteBuffer p = parts.get(part);
                int take = (int) Math.min(n, p.remaining() - partAt);
                MemorySegment.copy(MemorySegment.ofBuffer(p), partAt, to, at, take);
                at += take;
                n -= take;
                partAt += take;
                if (partAt == p.remaining()) {
                    part++;
                    partAt = 0;
                }
            }
        }

        @Override
        public void abandoned() {
            if (payload != null) {
                payload.release();
            }
        }
    }

    /** RDMA Writes or Reads of the RDMA channel: only the last is signaled. */
    private final class RdmaChain implements Item {
        final List<SendWr> wrs;
        final int reads;
        final Completion done;

        RdmaChain(List<SendWr> wrs, int reads, Completion done) {
            this.wrs = wrs;
            this.reads = reads;
            this.done = done;
        }

        @Override
        public boolean post(QueuePair qp) throws RdmaException {
            if (sqFree < wrs.size() || readsFree < reads) {
                return false;
            }
            long id = nextChain++;
            sqFree -= wrs.size();
            readsFree -= reads;
            postedChains.put(id, this);
            for (int i = 0; i < wrs.size(); i++) {
                SendWr w = wrs.get(i);
                boolean last = i == wrs.size() - 1;
                qp.postSendDeferred(new SendWr(last ? id : 0, w.opcode(), w.sgl(), w.remoteAddress(), w.rkey(), 0, last));
            }
            return true;
        }

        @Override
        public void abandoned() {
            done.completed(null);
        }
    }
}
