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
 * The transmit direction: cuts RDMAP messages into DDP segments, frames each as an MPA FPDU
 * (RFC 5044 §4) and writes header, payload and trailer with one gathering write. Payload is
 * written from the registered segments themselves; only the header and trailer are built here.
 * Used by one thread at a time (the queue pair's transmit thread).
 */
final class FpduWriter {
    private final GatheringByteChannel channel;
    private final boolean crc;
    private final int maxPayload;
    private final ByteBuffer header = ByteBuffer.allocateDirect(2 + Rdmap.UNTAGGED_HEADER + Rdmap.READ_REQUEST_BODY);
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
    private final CRC32C crc32c = new CRC32C();
    private final int[] msn = {1, 1, 1};

    FpduWriter(GatheringByteChannel channel, boolean crc, int maxPayload) {
        this.channel = channel;
        this.crc = crc;
        this.maxPayload = maxPayload;
    }

    /** An untagged message (Send family) on queue 0: MSN per message, MO per segment (RFC 5041 §5.2). */
    void send(int opcode, int invalidateStag, List<MemorySegment> payload) throws IOException {
        int m = msn[Rdmap.QN_SEND]++;
        Cursor c = new Cursor(payload);
        long mo = 0;
        do {
            int n = (int) Math.min(maxPayload, c.remaining());
            header.clear();
            header.putShort((short) (Rdmap.UNTAGGED_HEADER + n));
            header.putShort((short) control(false, c.remaining() == n, opcode));
            header.putInt(invalidateStag).putInt(Rdmap.QN_SEND).putInt(m).putInt((int) mo);
            write(header.flip(), c.take(n));
            mo += n;
        } while (c.remaining() > 0);
    }

    /** A tagged message (RDMA Write or Read Response): each segment carries its own TO. */
    void tagged(int opcode, int stag, long to, List<MemorySegment> payload) throws IOException {
        Cursor c = new Cursor(payload);
        long off = 0;
        do {
            int n = (int) Math.min(maxPayload, c.remaining());
            header.clear();
            header.putShort((short) (Rdmap.TAGGED_HEADER + n));
            header.putShort((short) control(true, c.remaining() == n, opcode));
            header.putInt(stag).putLong(to + off);
            write(header.flip(), c.take(n));
            off += n;
        } while (c.remaining() > 0);
    }

    /** An RDMA Read Request on queue 1 (RFC 5040 §4.4). */
    void readRequest(int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) throws IOException {
        int m = msn[Rdmap.QN_READ_REQUEST]++;
        header.clear();
        header.putShort((short) (Rdmap.UNTAGGED_HEADER + Rdmap.READ_REQUEST_BODY));
        header.putShort((short) control(false, true, Rdmap.OP_READ_REQUEST));
        header.putInt(0).putInt(Rdmap.QN_READ_REQUEST).putInt(m).putInt(0);
        header.putInt(sinkStag).putLong(sinkTo).putInt(size).putInt(sourceStag).putLong(sourceTo);
        write(header.flip(), List.of());
    }

    /** A Terminate on queue 2 (RFC 5040 §4.8), without copies of the offending headers. */
    void terminate(Rdmap.Cause cause) throws IOException {
        int m = msn[Rdmap.QN_TERMINATE]++;
        header.clear();
        header.putShort((short) (Rdmap.UNTAGGED_HEADER + Rdmap.TERMINATE_BODY));
        header.putShort((short) control(false, true, Rdmap.OP_TERMINATE));
        header.putInt(0).putInt(Rdmap.QN_TERMINATE).putInt(m).putInt(0);
        header.putInt(cause.word());
        write(header.flip(), List.of());
    }

    private static int control(boolean tagged, boolean last, int opcode) {
        return (tagged ? Rdmap.TAGGED : 0) | (last ? Rdmap.LAST : 0) | Rdmap.DDP_V1 | Rdmap.RDMAP_V1 | opcode;
    }

    /** One FPDU: header, payload views, pad to a multiple of 4, CRC32c (or zero). */
    private void write(ByteBuffer hdr, List<ByteBuffer> data) throws IOException {
        long len = hdr.remaining();
        for (ByteBuffer d : data) {
            len += d.remaining();
        }
        int pad = (int) (-len & 3);
        trailer.clear();
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
        ByteBuffer[] all = new ByteBuffer[data.size() + 2];
        all[0] = hdr;
        for (int i = 0; i < data.size(); i++) {
            all[i + 1] = data.get(i);
        }
        all[all.length - 1] = trailer;
        long total = len + trailer.remaining();
        long done = 0;
        while (done < total) {
            done += channel.write(all);
        }
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
