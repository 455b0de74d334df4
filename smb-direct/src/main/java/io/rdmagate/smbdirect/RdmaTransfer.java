package io.rdmagate.smbdirect;

import io.rdmagate.rdma.Access;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.Opcode;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.Sge;
import io.rdmagate.smbdirect.message.BufferDescriptor;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The RDMA channel's data movement (MS-SMB2 3.3.5.12, 3.3.5.13; MS-SMBD 3.1.4.3, 3.1.4.4).
 *
 * <p>Operation: a READ's data, in I/O memory (a pool buffer the file was read into, or a mapped
 * region of the file), is RDMA-Written into the client's buffer descriptors, one Write per
 * descriptor, straight from where it lies: a pool buffer by the slab's registration, a mapped
 * region through a registration made for this transfer and dropped when it completes. The chain
 * goes into the {@link SendQueue} ahead of the response, so the data is placed first. A WRITE's
 * data is RDMA-Read into pool memory (registered already), in chains of at most the connection's
 * outbound read depth, and handed to the vfs from there.
 */
final class RdmaTransfer {
    /** Work requests of one chain, and send queue slots kept for chains beside the sends. */
    static final int MAX_CHAIN = 64;

    private final SmbDirectConnection conn;

    RdmaTransfer(SmbDirectConnection conn) {
        this.conn = conn;
    }

    /** The memory as a local SGE; {@code temporary[0]} receives a registration made for it. */
    private Sge sgeOf(IoMemory m, MemoryRegion[] temporary) throws RdmaException {
        if (m.registration() instanceof MemoryRegion mr && conn.server().rdma().owns(mr) && mr.isValid()) {
            return new Sge(m.segment().address(), (int) m.length(), mr.lkey());
        }
        MemoryRegion t = conn.server().rdma().pd().register(m.segment(), EnumSet.of(Access.LOCAL_WRITE));
        temporary[0] = t;
        return new Sge(m.segment().address(), (int) m.length(), t.lkey());
    }

    void write(List<BufferDescriptor> into, IoMemory data) {
        MemoryRegion[] temporary = new MemoryRegion[1];
        Sge source;
        try {
            source = sgeOf(data, temporary);
        } catch (RdmaException e) {
            data.release();
            conn.close("registering a READ's data failed: " + e.getMessage());
            return;
        }
        List<SendWr> wrs = new ArrayList<>(into.size());
        long at = 0;
        for (BufferDescriptor d : into) {
            if (at == source.length()) {
                break;
            }
            int n = (int) Math.min(Integer.toUnsignedLong(d.length()), source.length() - at);
            wrs.add(SendWr.write(0, d.offset(), d.token(), new Sge(source.address() + at, n, source.lkey())));
            at += n;
        }
        if (at < source.length() || wrs.size() > MAX_CHAIN) {
            throw new IllegalArgumentException("the descriptors hold " + at + " of " + source.length() + " bytes");
        }
        conn.sendQueue().submitChain(wrs, 0, wc -> {
            if (temporary[0] != null) {
                temporary[0].close();
            }
            data.release();
        });
    }

    CompletableFuture<IoMemory> read(List<BufferDescriptor> from, int length, IoMemoryPool.Account account) {
        CompletableFuture<IoMemory> result = new CompletableFuture<>();
        if (BufferDescriptor.total(from) < length) {
            result.completeExceptionally(new IllegalArgumentException("the descriptors hold less than " + length));
            return result;
        }
        IoMemory m;
        Sge target;
        try {
            m = account.lease(Math.max(1, length));
            m.shrink(length);
            MemoryRegion[] temporary = new MemoryRegion[1];
            target = sgeOf(m, temporary);
            if (temporary[0] != null) {
                temporary[0].close();
                m.release();
                throw new RdmaException("pool memory is not registered");
            }
        } catch (VfsException | RdmaException e) {
            result.completeExceptionally(e);
            return result;
        }
        // one Read per descriptor (trimmed to the length), in chains of at most the read depth
        List<SendWr> reads = new ArrayList<>(from.size());
        long at = 0;
        for (BufferDescriptor d : from) {
            if (at == length) {
                break;
            }
            int n = (int) Math.min(Integer.toUnsignedLong(d.length()), length - at);
            reads.add(new SendWr(0, Opcode.RDMA_READ, List.of(new Sge(target.address() + at, n, target.lkey())),
                    d.offset(), d.token(), 0, false));
            at += n;
        }
        int depth = Math.max(1, Math.min(conn.queuePair().outboundReads(), MAX_CHAIN));
        int chains = (reads.size() + depth - 1) / depth;
        AtomicInteger left = new AtomicInteger(chains);
        for (int c = 0; c < chains; c++) {
            List<SendWr> chain = reads.subList(c * depth, Math.min(reads.size(), (c + 1) * depth));
            conn.sendQueue().submitChain(List.copyOf(chain), chain.size(), wc -> {
                if (wc == null || !wc.ok()) {
                    if (!result.isDone() && result.completeExceptionally(new RdmaException(
                            wc == null ? "the connection ended" : "RDMA Read " + wc.status()))) {
                        // released once every chain has ended, so no Read still targets it
                    }
                }
                if (left.decrementAndGet() == 0) {
                    if (result.isCompletedExceptionally()) {
                        m.release();
                    } else {
                        conn.countRead(length);
                        result.complete(m);
                    }
                }
            });
        }
        return result;
    }
}
