package io.rdmagate.rdma.softiwarp;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.Random;

/**
 * MPA Requests for fuzz campaigns (RFC 5044 §7.1, RFC 6581 §5): what Linux siw sends, mutated in
 * the fields a hostile client controls, and what the soft-iWARP listener reads of one. Shared by
 * the campaigns that send them over TCP to a listener and those that read them in memory. The
 * Replies a connecting side reads ({@link #siwReply}) have the same layout and take the same
 * mutations.
 */
public final class MpaRequests {
    private MpaRequests() {
    }

    /**
     * A request as siw sends it: revision 2, enhanced (IRD and ORD 16), CRC now and then,
     * peer-to-peer with a read or write RTR half the time, then {@code userData} (RFC 8797's bytes
     * for RPC-over-RDMA).
     */
    public static byte[] siw(Random rnd, byte[] userData) {
        ByteBuffer b = ByteBuffer.allocate(MpaFrame.HEADER + 4 + userData.length);
        int flags = MpaFrame.FLAG_ENHANCED | (rnd.nextInt(4) == 0 ? MpaFrame.FLAG_CRC : 0);
        b.put(MpaFrame.KEY_REQ).put((byte) flags).put((byte) 2).putShort((short) (4 + userData.length));
        boolean p2p = rnd.nextBoolean();
        int rtr = rnd.nextBoolean() ? MpaFrame.V2_READ_RTR : MpaFrame.V2_WRITE_RTR;
        b.putShort((short) (16 | (p2p ? MpaFrame.V2_PEER_TO_PEER : 0))).putShort((short) (16 | (p2p ? rtr : 0)));
        b.put(userData);
        return b.array();
    }

    /**
     * A Reply as a siw responder sends it: revision 2, enhanced (IRD and ORD 16), CRC now and then,
     * a Reject one time in eight, then {@code userData}.
     */
    public static byte[] siwReply(Random rnd, byte[] userData) {
        ByteBuffer b = ByteBuffer.allocate(MpaFrame.HEADER + 4 + userData.length);
        int flags = MpaFrame.FLAG_ENHANCED | (rnd.nextInt(4) == 0 ? MpaFrame.FLAG_CRC : 0)
                | (rnd.nextInt(8) == 0 ? MpaFrame.FLAG_REJECT : 0);
        b.put(MpaFrame.KEY_REP).put((byte) flags).put((byte) 2).putShort((short) (4 + userData.length));
        b.putShort((short) 16).putShort((short) 16);
        b.put(userData);
        return b.array();
    }

    /**
     * One to three mutations of a request (or reply): the key, the flags (markers, CRC, reject, enhanced),
     * the revision, the private data length against what follows, the IRD and ORD words, the user
     * data, a cut, or bytes beyond the declared private data.
     */
    public static byte[] mutate(Random rnd, byte[] seed) {
        byte[] b = seed.clone();
        ByteBuffer m = ByteBuffer.wrap(b);
        int n = 1 + rnd.nextInt(3);
        for (int k = 0; k < n; k++) {
            switch (rnd.nextInt(9)) {
                case 0 -> b[rnd.nextInt(16)] ^= (byte) (1 << rnd.nextInt(8));
                case 1 -> m.put(16, (byte) new int[] {0, 0x10, 0x20, 0x40, 0x50, 0x80, 0x90, 0xf0, 0xff}[rnd.nextInt(9)]);
                case 2 -> m.put(17, (byte) new int[] {0, 1, 2, 3, 255}[rnd.nextInt(5)]);
                case 3 -> m.putShort(18, (short) new int[] {0, 1, 3, 4, 11, 12, 13, 512, 513, 0xffff}[rnd.nextInt(10)]);
                case 4 -> m.putShort(20, (short) rnd.nextInt(0x10000));
                case 5 -> m.putShort(22, (short) rnd.nextInt(0x10000));
                case 6 -> b[24 + rnd.nextInt(Math.min(8, b.length - 24))] = (byte) rnd.nextInt(256); // user data
                case 7 -> {
                    b = Arrays.copyOf(b, rnd.nextInt(b.length + 1));
                    m = ByteBuffer.wrap(b);
                }
                default -> {
                    b = Arrays.copyOf(b, b.length + 1 + rnd.nextInt(600));
                    m = ByteBuffer.wrap(b);
                }
            }
            if (b.length < 32) {
                break; // cut short: nothing left to mutate in place
            }
        }
        return b;
    }

    /**
     * What the listener makes of {@code frame} when the client sends it and closes: "closed" (the
     * stream ended before the frame was whole), "rejected" (not a request it takes, or one asking
     * for markers), or the request handed to the upper layer.
     */
    public static Read read(byte[] frame) throws IOException {
        MpaFrame f;
        try {
            f = MpaHandshake.read(Channels.newChannel(new ByteArrayInputStream(frame)), true);
        } catch (EOFException cut) {
            return new Read("closed", null, 0, 0, false, 0, 0);
        }
        if (f == null || f.markers()) {
            return new Read("rejected", null, 0, 0, false, 0, 0);
        }
        return new Read("request", f.privateData(), f.ird(), f.ord(), f.peerToPeer(), f.rtrBits(), f.revision());
    }

    /** A request as the listener read it, or why it did not. */
    public record Read(String outcome, byte[] privateData, int ird, int ord, boolean peerToPeer, int rtrBits,
            int revision) {
    }
}
