package io.rdmagate.vfs.inmemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.TreeMap;

/** File content in off-heap pages; holes read as zeroes and take no memory. */
final class SparseData {
    static final int PAGE = 64 * 1024;
    private final TreeMap<Long, MemorySegment> pages = new TreeMap<>();
    private long size;

    long size() {
        return size;
    }

    long spaceUsed() {
        return (long) pages.size() * PAGE;
    }

    void write(long offset, MemorySegment src) {
        long n = src.byteSize();
        long done = 0;
        while (done < n) {
            long pos = offset + done;
            long idx = pos / PAGE;
            int in = (int) (pos % PAGE);
            int chunk = (int) Math.min(PAGE - in, n - done);
            MemorySegment page = pages.computeIfAbsent(idx, k -> Arena.ofAuto().allocate(PAGE, 8));
            MemorySegment.copy(src, done, page, in, chunk);
            done += chunk;
        }
        size = Math.max(size, offset + n);
    }

    /** Copies up to dst.byteSize() bytes from offset; returns the count (0 at or past EOF). */
    int read(long offset, MemorySegment dst) {
        if (offset >= size) {
            return 0;
        }
        int n = (int) Math.min(dst.byteSize(), size - offset);
        long done = 0;
        while (done < n) {
            long pos = offset + done;
            long idx = pos / PAGE;
            int in = (int) (pos % PAGE);
            int chunk = (int) Math.min(PAGE - in, n - done);
            MemorySegment page = pages.get(idx);
            if (page == null) {
                dst.asSlice(done, chunk).fill((byte) 0);
            } else {
                MemorySegment.copy(page, in, dst, done, chunk);
            }
            done += chunk;
        }
        return n;
    }

    void truncate(long newSize) {
        if (newSize < size) {
            long firstDropped = (newSize + PAGE - 1) / PAGE;
            pages.tailMap(firstDropped, true).clear();
            int tail = (int) (newSize % PAGE);
            if (tail != 0) {
                Map.Entry<Long, MemorySegment> last = pages.floorEntry(newSize / PAGE);
                if (last != null && last.getKey() == newSize / PAGE) {
                    last.getValue().asSlice(tail).fill((byte) 0);
                }
            }
        }
        size = newSize;
    }

    /** The first offset at or after {@code offset} in a page that holds data; -1 when none before the end. */
    long seekData(long offset) {
        if (offset >= size) {
            return -1;
        }
        Long idx = pages.ceilingKey(offset / PAGE);
        if (idx == null || idx * PAGE >= size) {
            return -1;
        }
        return Math.max(offset, idx * PAGE);
    }

    /** The first offset at or after {@code offset} that is in no page, or the size; -1 at or past the end. */
    long seekHole(long offset) {
        if (offset >= size) {
            return -1;
        }
        long idx = offset / PAGE;
        while (pages.containsKey(idx)) {
            idx++;
        }
        return Math.min(size, Math.max(offset, idx * PAGE));
    }

    /** Gives every page of the range memory; the size grows to cover it. */
    void allocate(long offset, long length) {
        for (long idx = offset / PAGE; idx <= (offset + length - 1) / PAGE; idx++) {
            pages.computeIfAbsent(idx, k -> Arena.ofAuto().allocate(PAGE, 8));
        }
        size = Math.max(size, offset + length);
    }

    /** Zeroes the range within the size: whole pages are dropped (at once, however many), partial ones cleared. */
    void punch(long offset, long length) {
        long end = Math.min(size, offset + length);
        if (offset >= end) {
            return;
        }
        long firstWhole = (offset + PAGE - 1) / PAGE;
        long endWhole = end / PAGE; // pages [firstWhole, endWhole) lie wholly inside
        if (firstWhole < endWhole) {
            pages.subMap(firstWhole, endWhole).clear();
        }
        clear(offset, Math.min(end, firstWhole * PAGE));
        clear(Math.max(offset, endWhole * PAGE), end);
    }

    /** Zeroes bytes [from, to) of one page, if it has memory. */
    private void clear(long from, long to) {
        if (from >= to) {
            return;
        }
        MemorySegment page = pages.get(from / PAGE);
        if (page != null) {
            page.asSlice(from % PAGE, to - from).fill((byte) 0);
        }
    }
}
