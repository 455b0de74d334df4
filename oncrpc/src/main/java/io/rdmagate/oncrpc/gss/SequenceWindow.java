package io.rdmagate.oncrpc.gss;

/**
 * The RPCSEC_GSS sequence window of one context (RFC 2203 §5.3.3.1): the highest sequence number
 * seen and which of the {@code size} below it were seen. A number above the highest moves the
 * window; one inside it is admitted once; one below it is too old. Not thread-safe: its context's
 * lock guards it.
 */
final class SequenceWindow {
    private final int size;
    private final long[] seen;
    private long top = -1;

    SequenceWindow(int size) {
        this.size = size;
        this.seen = new long[(size + 63) / 64];
    }

    /** Whether {@code seq} is new and inside the window; it counts as seen from now on. */
    boolean admit(long seq) {
        if (seq > top) {
            long shift = top < 0 ? size : seq - top;
            for (long s = top + 1; s <= seq && s - (top + 1) < size; s++) {
                clear(s);
            }
            if (shift >= size) {
                java.util.Arrays.fill(seen, 0);
            }
            top = seq;
            set(seq);
            return true;
        }
        if (top - seq >= size || isSet(seq)) {
            return false;
        }
        set(seq);
        return true;
    }

    private int bit(long seq) {
        return (int) (seq % size);
    }

    private boolean isSet(long seq) {
        int b = bit(seq);
        return (seen[b >>> 6] & (1L << (b & 63))) != 0;
    }

    private void set(long seq) {
        int b = bit(seq);
        seen[b >>> 6] |= 1L << (b & 63);
    }

    private void clear(long seq) {
        int b = bit(seq);
        seen[b >>> 6] &= ~(1L << (b & 63));
    }
}
