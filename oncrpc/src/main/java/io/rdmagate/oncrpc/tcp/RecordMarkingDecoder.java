package io.rdmagate.oncrpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits a TCP byte stream into RPC records (RFC 5531 §11): each fragment starts with a 4-byte
 * mark whose high bit says "last fragment of the record" and whose low 31 bits are the fragment's
 * length. A one-fragment record is passed on as a retained slice of the received bytes, a
 * multi-fragment record as a composite of such slices: the bytes are never copied.
 *
 * <p>Implementation limits: a record (its fragments' lengths summed) of at most
 * {@code maxRecordSize} bytes, at most {@code maxFragments} fragments.
 * <br>Sanity checks: the limits are checked as soon as a fragment's mark has arrived, before its
 * bytes are accumulated, and a violation closes the connection (no reply: the xid may not have
 * arrived). A record shorter than 8 bytes cannot hold an xid and a msg_type, so it closes the
 * connection too; this covers empty records. A record that is still incomplete
 * {@code recordTimeout} after its first byte arrived closes the connection when more of it
 * trickles in (a slowloris client keeps its connection looking busy, so the idle timeout and the
 * quietest-first eviction would never pick it); a silent one is left to the idle timeout.
 */
public final class RecordMarkingDecoder extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(RecordMarkingDecoder.class);
    private static final int LAST_FRAGMENT = 0x80000000;

    private final int maxRecordSize;
    private final int maxFragments;
    private CompositeByteBuf partial;
    private long partialLength;
    /** Fragments of the record being gathered; counted here, since a composite may merge its components. */
    private int partialFragments;
    private boolean failed;
    private final long recordTimeoutNanos;
    /** Whether bytes of a record not yet complete have arrived, and since when. */
    private boolean inRecord;
    private long recordStartNanos;

    /** Without a deadline for completing a record. */
    public RecordMarkingDecoder(int maxRecordSize, int maxFragments) {
        this(maxRecordSize, maxFragments, java.time.Duration.ZERO);
    }

    /** {@code recordTimeout} zero: no deadline. */
    public RecordMarkingDecoder(int maxRecordSize, int maxFragments, java.time.Duration recordTimeout) {
        this.maxRecordSize = maxRecordSize;
        this.maxFragments = maxFragments;
        this.recordTimeoutNanos = recordTimeout.isZero() ? Long.MAX_VALUE : recordTimeout.toNanos();
        setCumulator(COMPOSITE_CUMULATOR); // received buffers are kept, not merged by copying
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        long now = System.nanoTime();
        if (!inRecord && in.isReadable()) {
            inRecord = true;
            recordStartNanos = now;
        }
        decodeRecords(ctx, in, out, now);
        if (failed) {
            return;
        }
        if (!in.isReadable() && partial == null) {
            inRecord = false;
        } else if (now - recordStartNanos > recordTimeoutNanos) {
            fail(ctx, in, "a record still incomplete " + (now - recordStartNanos) / 1_000_000 + " ms after its first byte");
        }
    }

    private void decodeRecords(ChannelHandlerContext ctx, ByteBuf in, List<Object> out, long now) {
        while (!failed && in.readableBytes() >= 4) {
            int mark = in.getInt(in.readerIndex());
            boolean last = (mark & LAST_FRAGMENT) != 0;
            int length = mark & ~LAST_FRAGMENT;
            long recordLength = partialLength + length;
            if (recordLength > maxRecordSize) {
                fail(ctx, in, "record of at least " + recordLength + " bytes is over the limit of " + maxRecordSize);
                return;
            }
            if (in.readableBytes() < 4 + length) {
                return; // wait for the rest of the fragment; at most 4 + maxRecordSize bytes are held
            }
            in.skipBytes(4);
            ByteBuf fragment = in.readRetainedSlice(length);
            if (partial == null && last) {
                if (length < 8) {
                    fragment.release();
                    fail(ctx, in, "record of " + length + " bytes");
                    return;
                }
                out.add(fragment);
                recordStartNanos = now; // the next record starts with what follows
                continue;
            }
            if (partial == null) {
                // room for every fragment the limit allows, so the composite never merges (copies) them
                partial = ctx.alloc().compositeBuffer(maxFragments);
            }
            if (partialFragments >= maxFragments) {
                fragment.release();
                fail(ctx, in, "record of more than " + maxFragments + " fragments");
                return;
            }
            partial.addComponent(true, fragment);
            partialFragments++;
            partialLength = recordLength;
            if (last) {
                CompositeByteBuf record = partial;
                partial = null;
                partialLength = 0;
                partialFragments = 0;
                if (record.readableBytes() < 8) {
                    record.release();
                    fail(ctx, in, "record of " + recordLength + " bytes");
                    return;
                }
                out.add(record);
                recordStartNanos = now;
            }
        }
        if (failed) {
            in.skipBytes(in.readableBytes());
        }
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, String why) {
        failed = true;
        in.skipBytes(in.readableBytes());
        releasePartial();
        LOG.debug("closing {}: {}", ctx.channel().remoteAddress(), why);
        ctx.close();
    }

    private void releasePartial() {
        if (partial != null) {
            partial.release();
            partial = null;
            partialLength = 0;
            partialFragments = 0;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        releasePartial();
    }
}
