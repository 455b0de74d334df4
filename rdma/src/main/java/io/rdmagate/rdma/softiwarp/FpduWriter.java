package io.rdmagate.rdma.softiwarp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.GatheringByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The transmit direction: cuts RDMAP messages into DDP segments and frames each as an MPA FPDU
 * (RFC 5044 §4). Payload is written from the registered segments themselves; only the header and
 * trailer are built here, each in a slot of its own.
 *
 * <p>Operation: FPDUs are gathered into a batch (header, payload views, trailer) and written with
 * one gathering write when {@link #flush()} is called, or before the batch would pass
 * {@link #MAX_BATCH_FPDUS} FPDUs, {@link #MAX_BATCH_BUFFERS} buffers or {@link #MAX_BATCH_BYTES}
 * bytes. The queue pair flushes whenever its work queue runs empty, so a burst of replies costs
 * one system call, not one per FPDU. Until it is flushed, a batch refers to the payload's memory:
 * the work requests it carries complete only after the flush. Used by one thread at a time (the
 * queue pair's transmit thread).
 */
final class FpduWriter {
    /** FPDUs per gathering write. */
    static final int MAX_BATCH_FPDUS = 64;
    /** Buffers per gathering write, below Linux's IOV_MAX of 1024. */
    static final int MAX_BATCH_BUFFERS = 256;
    /** Bytes per gathering write: enough to fill a socket buffer in one call, not to delay the first byte. */
    static final long MAX_BATCH_BYTES = 512 << 10;
    private static final int HEADER_SLOT = 64;

    private final GatheringByteChannel channel;
    private final boolean crc;
    private final int maxPayload;
    private final ByteBuffer[] headers = new ByteBuffer[MAX_BATCH_FPDUS];
    private final ByteBuffer[] trailers = new ByteBuffer[MAX_BATCH_FPDUS];
    private final ByteBuffer[] batch = new ByteBuffer[MAX_BATCH_BUFFERS];
    private int fpdus;
    private int buffers;
    private long bytes;
    /** When the write under way started (0: none), and when the socket last took bytes of it. */
    private volatile long writingSince;
    private volatile long lastProgressNanos;
    private final CRC32C crc32c = new CRC32C();
    private final int[] msn = {1, 1, 1};

    FpduWriter(GatheringByteChannel channel, boolean crc, int maxPayload) {
        this.channel = channel;
        this.crc = crc;
        this.maxPayload = maxPayload;
        ByteBuffer h = ByteBuffer.allocateDirect(MAX_BATCH_FPDUS * HEADER_SLOT);
        ByteBuffer t = ByteBuffer.allocateDirect(MAX_BATCH_FPDUS * 8);
        for (int i = 0; i < MAX_BATCH_FPDUS; i++) {
            headers[i] = h.slice(i * HEADER_SLOT, HEADER_SLOT);
            trailers[i] = t.slice(i * 8, 8).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    /** An untagged message (Send family) on queue 0: MSN per message, MO per segment (RFC 5041 §5.2). */
    void send(int opcode, int invalidateStag, List<MemorySegment> payload) throws IOException {
        int m = msn[Rdmap.QN_SEND]++;
        Cursor c = new Cursor(payload);
        long mo = 0;
        do {
            int n = (int) Math.min(maxPayload, c.remaining());
            boolean last = c.remaining() == n;
            List<ByteBuffer> data = c.take(n);
            ByteBuffer header = slot(data.size());
            header.putShort((short) (Rdmap.UNTAGGED_HEADER + n));
            header.putShort((short) control(false, last, opcode));
            header.putInt(invalidateStag).putInt(Rdmap.QN_SEND).putInt(m).putInt((int) mo);
            add(header.flip(), data);
            mo += n;
        } while (c.remaining() > 0);
    }

    /** A tagged message (RDMA Write or Read Response): each segment carries its own TO. */
    void tagged(int opcode, int stag, long to, List<MemorySegment> payload) throws IOException {
        Cursor c = new Cursor(payload);
        long off = 0;
        do {
            int n = (int) Math.min(maxPayload, c.remaining());
            boolean last = c.remaining() == n;
            List<ByteBuffer> data = c.take(n);
            ByteBuffer header = slot(data.size());
            header.putShort((short) (Rdmap.TAGGED_HEADER + n));
            header.putShort((short) control(true, last, opcode));
            header.putInt(stag).putLong(to + off);
            add(header.flip(), data);
            off += n;
        } while (c.remaining() > 0);
    }

    /** An RDMA Read Request on queue 1 (RFC 5040 §4.4). */
    void readRequest(int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) throws IOException {
        int m = msn[Rdmap.QN_READ_REQUEST]++;
        ByteBuffer header = slot(0);
        header.putShort((short) (Rdmap.UNTAGGED_HEADER + Rdmap.READ_REQUEST_BODY));
        header.putShort((short) control(false, true, Rdmap.OP_READ_REQUEST));
        header.putInt(0).putInt(Rdmap.QN_READ_REQUEST).putInt(m).putInt(0);
        header.putInt(sinkStag).putLong(sinkTo).putInt(size).putInt(sourceStag).putLong(sourceTo);
        add(header.flip(), List.of());
    }

    /** A Terminate on queue 2 (RFC 5040 §4.8), without copies of the offending headers; written at once. */
    void terminate(Rdmap.Cause cause) throws IOException {
        int m = msn[Rdmap.QN_TERMINATE]++;
        ByteBuffer header = slot(0);
        header.putShort((short) (Rdmap.UNTAGGED_HEADER + Rdmap.TERMINATE_BODY));
        header.putShort((short) control(false, true, Rdmap.OP_TERMINATE));
        header.putInt(0).putInt(Rdmap.QN_TERMINATE).putInt(m).putInt(0);
        header.putInt(cause.word());
        add(header.flip(), List.of());
        flush();
    }

    /** Whether FPDUs wait in the batch. */
    boolean pending() {
        return buffers > 0;
    }

    /** Writes the batch with gathering writes until all of it is in the socket. */
    void flush() throws IOException {
        long done = 0;
        writingSince = System.nanoTime();
        try {
            while (done < bytes) {
                long n = channel.write(batch, 0, buffers);
                done += n;
                if (n > 0) {
                    lastProgressNanos = System.nanoTime();
                }
            }
        } finally {
            writingSince = 0;
            discard();
        }
    }

    /**
     * How long the write under way has gone without the socket taking a byte, or 0 when none is
     * under way: the send deadline's measure (read from another thread).
     */
    long stalledNanos(long now) {
        return writingSince == 0 ? 0 : now - Math.max(writingSince, lastProgressNanos);
    }

    /** Forgets the batch unwritten (the connection is gone). */
    void discard() {
        java.util.Arrays.fill(batch, 0, buffers, null);
        fpdus = 0;
        buffers = 0;
        bytes = 0;
    }

    private static int control(boolean tagged, boolean last, int opcode) {
        return (tagged ? Rdmap.TAGGED : 0) | (last ? Rdmap.LAST : 0) | Rdmap.DDP_V1 | Rdmap.RDMAP_V1 | opcode;
    }

    /** The next FPDU's header slot, cleared; flushes first when an FPDU of {@code dataBuffers} would not fit. */
    private ByteBuffer slot(int dataBuffers) throws IOException {
        if (fpdus == MAX_BATCH_FPDUS || buffers + dataBuffers + 2 > MAX_BATCH_BUFFERS || bytes >= MAX_BATCH_BYTES) {
            flush();
        }
        return headers[fpdus].clear();
    }

    /** Adds one FPDU to the batch: header, payload views, pad to a multiple of 4, CRC32c (or zero). */
    private void add(ByteBuffer hdr, List<ByteBuffer> data) {
        long len = hdr.remaining();
        for (ByteBuffer d : data) {
            len += d.remaining();
        }
        int pad = (int) (-len & 3);
        ByteBuffer trailer = trailers[fpdus].clear();
        for (int i = 0; i < pad; i++) {
            trailer.put((byte) 0);
        }
        int value = 0;
        if (crc) {
            crc32c.reset();
            crc32c.update(hdr.duplicate());
            for (ByteBuffer d : data) {
                crc32c.update(d.duplicate());
            }
            crc32c.update(trailer.duplicate().flip());
            value = (int) crc32c.getValue();
        }
        trailer.putInt(value).flip();
        batch[buffers++] = hdr;
        for (ByteBuffer d : data) {
            batch[buffers++] = d;
        }
        batch[buffers++] = trailer;
        bytes += len + trailer.remaining();
        fpdus++;
    }

    /** Walks a list of segments, handing out byte-buffer views of the next n bytes. */
    private static final class Cursor {
        private final List<MemorySegment> segs;
        private int index;
        private long offset;
        private long remaining;

        Cursor(List<MemorySegment> segs) {
            this.segs = segs;
            for (MemorySegment s : segs) {
                remaining += s.byteSize();
            }
        }

        long remaining() {
            return remaining;
        }

        List<ByteBuffer> take(int n) {
            List<ByteBuffer> out = new ArrayList<>(2);
            int left = n;
            while (left > 0) {
                MemorySegment s = segs.get(index);
                long k = Math.min(left, s.byteSize() - offset);
                out.add(s.asSlice(offset, k).asByteBuffer());
                offset += k;
                left -= (int) k;
                if (offset == s.byteSize()) {
                    index++;
                    offset = 0;
                }
            }
            remaining -= n;
            while (index < segs.size() && segs.get(index).byteSize() == 0) {
                index++;
            }
            return out;
        }
    }
}
