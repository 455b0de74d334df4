package io.rdmagate.rdma.softiwarp;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The receive direction: reads one MPA FPDU at a time, checks its DDP/RDMAP header, asks the
 * queue pair where its payload belongs, and places the payload in that registered memory; then
 * checks pad and CRC and lets the queue pair deliver.
 *
 * <p>Operation: the socket is read in blocks of up to {@link #STAGING} bytes, so one system call
 * brings the headers, small payloads and trailers of several FPDUs (a burst of RPC calls, the
 * trailer of one FPDU with the header of the next). Payload found there is copied to its place;
 * the rest of a payload of {@link #DIRECT_READ} bytes or more is read from the socket
 * straight into registered memory, with no copy. After such a payload the next read takes only
 * {@link #SMALL_READ_AHEAD} bytes (the trailer and the next header), so that a stream of large
 * FPDUs is read with two system calls each and nearly none of its payload is copied.
 *
 * <p>Accepts: DDP and RDMAP version 1; tagged Write and Read Response; untagged Send (all four
 * kinds) on queue 0, Read Request (exactly 28 bytes, one segment) on queue 1, Terminate (at most
 * {@link #MAX_TERMINATE} bytes) on queue 2. Refuses with a Terminate: other versions, opcodes on
 * the wrong queue or with the wrong T bit, a ULPDU shorter than its header, unknown queues, a bad
 * CRC. What lies where is the {@link Placement}'s to check, before a byte of payload is read.
 */
final class FpduReader {
    static final int MAX_TERMINATE = Rdmap.TERMINATE_BODY + 2 + Rdmap.UNTAGGED_HEADER + Rdmap.READ_REQUEST_BODY + 32;
    /** Bytes read from the socket at once. */
    static final int STAGING = 32 << 10;
    /** A payload this large is read from the socket into its place, but for what was already staged. */
    static final int DIRECT_READ = 8 << 10;
    /** What a read takes after a large payload: a trailer and the next header, with room to spare. */
    static final int SMALL_READ_AHEAD = 64;

    /** Where segments go; every method validates before the payload is read. */
    interface Placement {
        List<MemorySegment> tagged(int opcode, int stag, long to, int length, boolean last) throws TerminateException;

        List<MemorySegment> send(int opcode, int invalidateStag, int msn, long mo, int length, boolean last)
                throws TerminateException;

        void readRequest(int msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo)
                throws TerminateException;

        void terminated(Rdmap.Cause cause);

        /** The segment's trailer checked out: deliver what it completed. */
        void segmentDone() throws TerminateException;
    }

    private final ReadableByteChannel channel;
    private final boolean crc;
    private final Placement placement;
    private final ByteBuffer header = ByteBuffer.allocateDirect(2 + Rdmap.UNTAGGED_HEADER);
    private final ByteBuffer body = ByteBuffer.allocateDirect(MAX_TERMINATE);
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
    private final CRC32C crc32c = new CRC32C();
    /** Bytes read ahead, unread between position and limit. */
    private final ByteBuffer staged = ByteBuffer.allocateDirect(STAGING).limit(0);
    /** How much the next read of the socket may take: all of {@link #STAGING} unless the last payload was large. */
    private int readAhead = STAGING;

    FpduReader(ReadableByteChannel channel, boolean crc, Placement placement) {
        this.channel = channel;
        this.crc = crc;
        this.placement = placement;
    }

    /** Reads and handles one FPDU. Returns false at a clean end of stream between FPDUs. */
    boolean next() throws IOException, TerminateException {
        header.clear().limit(4);
        if (!readFully(header, true)) {
            return false;
        }
        int ulpdu = Short.toUnsignedInt(header.getShort(0));
        int ctrl = Short.toUnsignedInt(header.getShort(2));
        boolean tagged = (ctrl & Rdmap.TAGGED) != 0;
        boolean last = (ctrl & Rdmap.LAST) != 0;
        int opcode = ctrl & Rdmap.OPCODE_MASK;
        if ((ctrl & Rdmap.DDP_VERSION_MASK) != Rdmap.DDP_V1) {
            throw new TerminateException(tagged ? Rdmap.ddp(Rdmap.DDP_TAGGED, Rdmap.DDP_T_VERSION, "version")
                    : Rdmap.ddp(Rdmap.DDP_UNTAGGED, Rdmap.DDP_UT_VERSION, "version"));
        }
        if ((ctrl & Rdmap.RDMAP_VERSION_MASK) != Rdmap.RDMAP_V1) {
            throw new TerminateException(Rdmap.rdmap(Rdmap.RDMAP_REMOTE_OPERATION, Rdmap.RDMAP_VERSION, "version"));
        }
        if (opcode > Rdmap.OP_TERMINATE || Rdmap.tagged(opcode) != tagged) {
            throw new TerminateException(Rdmap.rdmap(Rdmap.RDMAP_REMOTE_OPERATION, Rdmap.RDMAP_OPCODE,
                    "opcode " + opcode + (tagged ? " tagged" : " untagged")));
        }
        int hlen = tagged ? Rdmap.TAGGED_HEADER : Rdmap.UNTAGGED_HEADER;
        if (ulpdu < hlen) {
            throw new TerminateException(Rdmap.llp(Rdmap.LLP_FPDU_START, "ULPDU length " + ulpdu + " below its header"));
        }
        header.limit(2 + hlen);
        readFully(header, false);
        int length = ulpdu - hlen;
        if (tagged) {
            int stag = header.getInt(4);
            long to = header.getLong(8);
            read(placement.tagged(opcode, stag, to, length, last));
        } else {
            int reserved = header.getInt(4);
            int qn = header.getInt(8);
            int msn = header.getInt(12);
            long mo = Integer.toUnsignedLong(header.getInt(16));
            switch (qn) {
                case Rdmap.QN_SEND -> {
                    if (opcode < Rdmap.OP_SEND || opcode > Rdmap.OP_SEND_SE_INVALIDATE) {
                        throw new TerminateException(Rdmap.rdmap(Rdmap.RDMAP_REMOTE_OPERATION, Rdmap.RDMAP_OPCODE,
                                "opcode " + opcode + " on the send queue"));
                    }
                    read(placement.send(opcode, reserved, msn, mo, length, last));
                }
                case Rdmap.QN_READ_REQUEST -> {
                    if (opcode != Rdmap.OP_READ_REQUEST || length != Rdmap.READ_REQUEST_BODY || !last || mo != 0) {
                        throw new TerminateException(Rdmap.rdmap(Rdmap.RDMAP_REMOTE_OPERATION, Rdmap.RDMAP_OPCODE,
                                "malformed read request"));
                    }
                    readBody(length);
                    trailer(length);
                    placement.readRequest(msn, body.getInt(0), body.getLong(4), body.getInt(12), body.getInt(16),
                            body.getLong(20));
                    return true;
                }
                case Rdmap.QN_TERMINATE -> {
                    if (opcode != Rdmap.OP_TERMINATE || length < Rdmap.TERMINATE_BODY || length > MAX_TERMINATE) {
                        throw new TerminateException(Rdmap.rdmap(Rdmap.RDMAP_REMOTE_OPERATION, Rdmap.RDMAP_OPCODE,
                                "malformed terminate"));
                    }
                    readBody(length);
                    trailer(length);
                    placement.terminated(Rdmap.Cause.of(body.getInt(0)));
                    return true;
                }
                default -> throw new TerminateException(Rdmap.ddp(Rdmap.DDP_UNTAGGED, Rdmap.DDP_UT_INVALID_QN, "queue " + qn));
            }
        }
        trailer(length);
        placement.segmentDone();
        return true;
    }

    private void readBody(int length) throws IOException {
        body.clear().limit(length);
        readFully(body, false);
        if (crc) {
            crc32c.update(body.duplicate().flip());
        }
    }

    /** Places the payload: what is staged by copy, the rest of a large one straight from the socket. */
    private void read(List<MemorySegment> targets) throws IOException {
        long total = 0;
        for (MemorySegment t : targets) {
            total += t.byteSize();
        }
        boolean large = total >= DIRECT_READ;
        readAhead = large ? SMALL_READ_AHEAD : STAGING;
        for (MemorySegment t : targets) {
            ByteBuffer b = t.asByteBuffer();
            while (b.hasRemaining()) {
                if (!staged.hasRemaining() && large) {
                    if (channel.read(b) < 0) {
                        throw new EOFException("connection closed inside an FPDU");
                    }
                    continue;
                }
                if (!staged.hasRemaining()) {
                    stage(1, false);
                }
                int k = Math.min(staged.remaining(), b.remaining());
                b.put(b.position(), staged, staged.position(), k).position(b.position() + k);
                staged.position(staged.position() + k);
            }
            if (crc) {
                crc32c.update(b.flip());
            }
        }
    }

    private void trailer(int payloadLength) throws IOException, TerminateException {
        int pad = (-(2 + (header.limit() - 2) + payloadLength)) & 3;
        trailer.clear().limit(pad + 4);
        readFully(trailer, false);
        if (crc) {
            int received = trailer.getInt(pad);
            crc32c.update(trailer.duplicate().position(0).limit(pad));
            int expected = (int) crc32c.getValue();
            crc32c.reset();
            if (received != expected) {
                throw new TerminateException(Rdmap.llp(Rdmap.LLP_CRC, "CRC mismatch"));
            }
        }
    }

    /** Fills {@code b} (from position to limit) from the staged bytes, reading the socket as needed. */
    private boolean readFully(ByteBuffer b, boolean eofAllowedAtStart) throws IOException {
        if (!stage(b.remaining(), eofAllowedAtStart && b.position() == 0)) {
            return false;
        }
        int k = b.remaining();
        b.put(b.position(), staged, staged.position(), k).position(b.limit());
        staged.position(staged.position() + k);
        if (crc && b == header) {
            // the CRC covers the header as read; fold it in once it is complete
            ByteBuffer d = b.duplicate();
            d.position(b.limit() == 4 ? 0 : 4).limit(b.limit());
            crc32c.update(d);
        }
        return true;
    }

    /**
     * Reads the socket until at least {@code n} bytes (at most {@link #STAGING}) are staged.
     * Returns false at an end of stream with nothing staged when {@code eofAllowed}.
     */
    private boolean stage(int n, boolean eofAllowed) throws IOException {
        if (staged.remaining() >= n) {
            return true;
        }
        staged.compact();
        staged.limit(Math.min(STAGING, Math.max(n, readAhead)));
        try {
            while (staged.position() < n) {
                if (channel.read(staged) < 0) {
                    if (eofAllowed && staged.position() == 0) {
                        return false;
                    }
                    throw new EOFException("connection closed inside an FPDU");
                }
            }
        } finally {
            staged.flip();
        }
        return true;
    }
}
