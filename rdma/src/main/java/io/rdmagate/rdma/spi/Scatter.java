package io.rdmagate.rdma.spi;

import java.lang.foreign.MemorySegment;
import java.util.List;

/** Copies a gather list into a scatter list, straight between registered segments. */
public final class Scatter {
    private Scatter() {
    }

    public static long total(List<MemorySegment> segs) {
        long n = 0;
        for (MemorySegment s : segs) {
            n += s.byteSize();
        }
        return n;
    }

    /** Copies all of {@code src} into the front of {@code dst}; the caller checked it fits. */
    public static void copy(List<MemorySegment> src, List<MemorySegment> dst) {
        int di = 0;
        long doff = 0;
        for (MemorySegment s : src) {
            long soff = 0;
            while (soff < s.byteSize()) {
                MemorySegment d = dst.get(di);
                long n = Math.min(s.byteSize() - soff, d.byteSize() - doff);
                MemorySegment.copy(s, soff, d, doff, n);
                soff += n;
                doff += n;
                if (doff == d.byteSize()) {
                    di++;
                    doff = 0;
                }
            }
        }
    }

    /** Copies {@code src} into one contiguous {@code dst} (a tagged buffer). */
    public static void gatherInto(List<MemorySegment> src, MemorySegment dst) {
        long off = 0;
        for (MemorySegment s : src) {
            MemorySegment.copy(s, 0, dst, off, s.byteSize());
            off += s.byteSize();
        }
    }

    /** Copies one contiguous {@code src} out to a scatter list. */
    public static void scatterFrom(MemorySegment src, List<MemorySegment> dst) {
        long off = 0;
        for (MemorySegment d : dst) {
            long n = Math.min(d.byteSize(), src.byteSize() - off);
            if (n <= 0) {
                break;
            }
            MemorySegment.copy(src, off, d, 0, n);
            off += n;
        }
    }
}
