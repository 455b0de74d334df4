package io.rdmagate.rdma.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * rping's advertisement (librdmacm examples/rping.c, struct rping_rdma_info): 16 bytes, big
 * endian: buffer address (64), rkey (32), size (32).
 */
public record RpingInfo(long address, int rkey, int size) {
    public static final int BYTES = 16;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    public void writeTo(MemorySegment m) {
        m.set(U64, 0, address);
        m.set(U32, 8, rkey);
        m.set(U32, 12, size);
    }

    public static RpingInfo readFrom(MemorySegment m) {
        return new RpingInfo(m.get(U64, 0), m.get(U32, 8), m.get(U32, 12));
    }
}
