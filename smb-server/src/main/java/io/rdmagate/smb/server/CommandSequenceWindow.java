package io.rdmagate.smb.server;

/**
 * A connection's CommandSequenceWindow (MS-SMB2 3.3.1.1): the MessageIds its client may use next.
 *
 * <p>Operation: the window is the MessageIds from {@code low}, the lowest one not yet received, up
 * to {@code high}, one past the highest one granted. A request takes as many MessageIds as its
 * CreditCharge says, at least one (3.3.5.2.3, 3.3.5.2.5); {@link #receive} refuses one that is
 * below the window, beyond it or already received, and the connection is then closed, as Windows
 * and Samba do. Received MessageIds are marked in a ring of {@code capacity} bits; the window slides
 * up over them as its lowest ones arrive. Each response's CreditResponse extends the window at the
 * top ({@link #grant}). A client may leave a MessageId unused for a while (a request of it still on
 * the wire): the window then cannot slide, and grows no further than {@code capacity} MessageIds,
 * which bounds what the client can have outstanding however it orders its requests.
 *
 * <p>The credits a client holds are the MessageIds in the window it has not used.
 */
final class CommandSequenceWindow {
    private final int capacity;
    private final long[] received;
    /** The lowest MessageId not yet received. */
    private long low;
    /** One past the highest MessageId granted. */
    private long high;
    /** MessageIds received inside [low, high). */
    private int marked;

    /** A window of MessageId 0 alone (3.3.1.1: a new connection's window), at most {@code capacity} wide. */
    CommandSequenceWindow(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        this.capacity = capacity;
        this.received = new long[(capacity + 63) / 64];
        this.high = 1;
    }

    /**
     * MS-SMB2 3.3.5.2.3: takes the MessageIds {@code messageId} .. {@code messageId + charge - 1}
     * ({@code charge} at least 1). Returns false, taking none, when any of them is outside the
     * window or was received before.
     */
    synchronized boolean receive(long messageId, int charge) {
        int n = Math.max(1, charge);
        if (messageId < low || n > high - low || messageId > high - n) {
            return false;
        }
        for (long id = messageId; id < messageId + n; id++) {
            if (isSet(id)) {
                return false;
            }
        }
        for (long id = messageId; id < messageId + n; id++) {
            flip(id);
        }
        marked += n;
        while (low < high && isSet(low)) {
            flip(low++);
            marked--;
        }
        return true;
    }

    /** Credits the client holds: MessageIds granted and not yet used. */
    synchronized int credits() {
        return (int) (high - low) - marked;
    }

    /**
     * MS-SMB2 3.3.1.2: grants up to {@code requested} credits (at least one asked for) while the
     * client holds no more than {@code ceiling}, and never leaves it with none; returns how many.
     */
    synchronized int grant(int requested, int ceiling) {
        int held = credits();
        int room = capacity - (int) (high - low);
        int g = Math.min(Math.max(requested, 1), Math.min(ceiling - held, room));
        if (g < 1) {
            g = held == 0 ? 1 : 0; // holding none, the window is empty: room is the whole capacity
        }
        high += g;
        return g;
    }

    private boolean isSet(long id) {
        int bit = (int) (id % capacity);
        return (received[bit >>> 6] & 1L << bit) != 0;
    }

    private void flip(long id) {
        int bit = (int) (id % capacity);
        received[bit >>> 6] ^= 1L << bit;
    }
}
