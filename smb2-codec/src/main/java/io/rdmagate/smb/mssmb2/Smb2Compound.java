package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a transport message into the SMB2 messages of a compound chain (MS-SMB2 3.3.5.2.7).
 *
 * <p>Accepts: one message, or a chain linked by NextCommand where every NextCommand is a multiple
 * of 8, at least 64 and inside the frame; the last message has NextCommand 0 and ends the frame.
 * Refuses (returns null, and the caller disconnects per 3.3.5.2.6): a header that is not SMB2, a
 * NextCommand that is unaligned, too small or points past the frame, or more than
 * {@code maxMessages} messages.
 */
public final class Smb2Compound {
    private Smb2Compound() {
    }

    /** Slices (no copy) of each message; each slice's index 0 is its header. */
    public static List<ByteBuffer> split(ByteBuffer frame, int maxMessages) {
        List<ByteBuffer> out = new ArrayList<>(2);
        int at = 0;
        int end = frame.limit();
        while (true) {
            if (out.size() >= maxMessages) {
                return null;
            }
            ByteBuffer rest = frame.slice(at, end - at).order(ByteOrder.LITTLE_ENDIAN);
            if (!Smb2Header.check(rest)) {
                return null;
            }
            long next = Smb2Header.nextCommand(rest);
            if (next == 0) {
                out.add(rest);
                return out;
            }
            if (next < Smb2Header.SIZE || (next & 7) != 0 || next >= end - at) {
                return null;
            }
            out.add(frame.slice(at, (int) next).order(ByteOrder.LITTLE_ENDIAN));
            at += (int) next;
        }
    }
}
