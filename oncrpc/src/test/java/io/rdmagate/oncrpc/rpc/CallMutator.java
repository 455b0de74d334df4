package io.rdmagate.oncrpc.rpc;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

/**
 * The structure-aware mutations the RPC fuzz campaigns apply to a valid message: one to three of
 * a bit flip, a small value (discriminants, booleans, counts), any value, a length near 2^32 over
 * a word, a truncation, trailing bytes. Shared with the NFS modules' campaigns (oncrpc's test jar).
 */
public final class CallMutator {
    private CallMutator() {
    }

    public static byte[] mutate(byte[] message, Random rnd) {
        byte[] m = message.clone();
        int mutations = 1 + rnd.nextInt(3);
        for (int k = 0; k < mutations && m.length > 0; k++) {
            int word = rnd.nextInt(Math.max(1, m.length / 4)) * 4;
            switch (rnd.nextInt(6)) {
                case 0 -> m[rnd.nextInt(m.length)] ^= (byte) (1 << rnd.nextInt(8));
                case 1 -> putInt(m, word, rnd.nextInt(4));
                case 2 -> putInt(m, word, rnd.nextInt());
                case 3 -> putInt(m, word, -1 - rnd.nextInt(4));
                case 4 -> m = Arrays.copyOf(m, rnd.nextInt(m.length + 1));
                default -> m = Arrays.copyOf(m, m.length + 4 * rnd.nextInt(8));
            }
        }
        return m;
    }

    private static void putInt(byte[] m, int at, int v) {
        if (at + 4 <= m.length) {
            ByteBuffer.wrap(m).putInt(at, v);
        }
    }
}
