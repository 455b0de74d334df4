package io.rdmagate.smbdirect;

import io.rdmagate.rdma.WorkCompletion;
import io.rdmagate.rdma.WcStatus;
import io.rdmagate.smbdirect.message.DataTransfer;
import io.rdmagate.smbdirect.message.NegotiateRequest;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.memory.IoMemory;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The receive side of one connection (MS-SMBD 3.1.5.2, 3.1.5.7, 3.1.5.8).
 *
 * <p>Operation: called on the receive completion queue's handler, one completion at a time. The
 * first message must be the Negotiate Request; later ones are Data Transfer Messages, each checked
 * before use (a malformed one, or one sent without a credit, ends the connection). Credits granted
 * go to the {@link SendQueue}. A message that is whole in its receive buffer goes up as a view of
 * that buffer, which is posted again when the upper layer releases it — so the client's credits
 * follow what the server has consumed. Fragments are gathered into one buffer leased from the
 * connection's account (without waiting), up to MaxFragmentedSize, and their receives posted again
 * at once. Never blocks.
 */
final class RecvFrom {
    private final SmbDirectConnection conn;
    private IoMemory reassembly;
    private long reassemblyTotal;
    private long reassembled;
    /** Set by {@link #close}: a completion still delivered after it leases nothing. */
    private boolean closed;

    RecvFrom(SmbDirectConnection conn) {
        this.conn = conn;
    }

    synchronized void completed(WorkCompletion wc) {
        if (closed) {
            return;
        }
        if (!wc.ok()) {
            if (wc.status() != WcStatus.WR_FLUSH_ERROR) {
                conn.close("receive completion " + wc.status());
            }
            return;
        }
        int k = (int) wc.wrId();
        int n = (int) wc.byteLength();
        conn.received();
        ByteBuffer m = conn.receiveBuffer(k).asSlice(0, n).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        if (!conn.negotiated()) {
            conn.sendQueue().negotiateReceived();
            NegotiateRequest req = NegotiateRequest.decode(m, n);
            conn.repost(k);
            conn.negotiate(req, n);
            return;
        }
        String bad = DataTransfer.check(m, n);
        if (bad == null && DataTransfer.creditsRequested(m) == 0) {
            bad = "CreditsRequested 0";
        }
        if (bad != null) {
            conn.close("malformed data transfer message: " + bad);
            return;
        }
        boolean asked = (DataTransfer.flags(m) & DataTransfer.FLAG_RESPONSE_REQUESTED) != 0;
        if (!conn.sendQueue().received(DataTransfer.creditsGranted(m), asked)) {
            conn.close("the client sent without a credit, or granted more than 65535");
            return;
        }
        long length = DataTransfer.dataLength(m);
        long remaining = DataTransfer.remainingDataLength(m);
        if (length == 0) {
            conn.repost(k); // credits or a keep-alive only
        } else if (reassembly != null) {
            if (length > reassemblyTotal - reassembled || remaining != reassemblyTotal - reassembled - length) {
                conn.close("fragment of " + length + " bytes, " + remaining + " remaining, does not continue a message of "
                        + reassemblyTotal);
                return;
            }
            gather(m, k, length);
        } else if (remaining > 0) {
            long total = length + remaining;
            if (total > conn.options().maxFragmentedSize()) {
                conn.close("a fragmented message of " + total + " bytes is above MaxFragmentedSize "
                        + conn.options().maxFragmentedSize());
                return;
            }
            try {
                reassembly = conn.account().leaseNow((int) total);
            } catch (VfsException e) {
                conn.close("no memory to reassemble a message of " + total + " bytes: " + e.getMessage());
                return;
            }
            reassembly.shrink(total);
            reassemblyTotal = total;
            reassembled = 0;
            gather(m, k, length);
        } else {
            int offset = (int) DataTransfer.dataOffset(m);
            conn.deliver(m.slice(offset, (int) length).order(ByteOrder.LITTLE_ENDIAN), k);
        }
        conn.sendQueue().pump(false);
    }

    /** Copies a fragment into the message being reassembled and posts its receive again. */
    private void gather(ByteBuffer m, int k, long length) {
        MemorySegment.copy(MemorySegment.ofBuffer(m), DataTransfer.dataOffset(m), reassembly.segment(), reassembled,
                length);
        reassembled += length;
        conn.countCopy(length);
        conn.repost(k);
        if (reassembled == reassemblyTotal) {
            IoMemory whole = reassembly;
            reassembly = null;
            conn.deliverReassembled(whole);
        }
    }

    /**
     * Releases a message left half reassembled by a connection that ended. Synchronized with
     * {@link #completed}: a completion the provider is still delivering either finishes first or
     * finds the receive side closed.
     */
    synchronized void close() {
        closed = true;
        IoMemory r = reassembly;
        reassembly = null;
        if (r != null) {
            r.release();
        }
    }
}
