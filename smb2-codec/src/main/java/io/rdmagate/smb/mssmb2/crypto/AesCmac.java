package io.rdmagate.smb.mssmb2.crypto;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-CMAC (RFC 4493) over the JDK's AES-CBC, whose block loop the JVM compiles to the CPU's AES
 * instructions: the MAC is the last CBC block, computed with the last message block XORed with
 * subkey K1 (complete) or padded and XORed with K2 (incomplete). The last block is therefore held
 * back until {@link #doFinal}; everything before it goes through CBC in bulk, the ciphertext
 * discarded. Not thread-safe.
 */
final class AesCmac {
    private static final int BLOCK = 16;
    private static final int CHUNK = 64 << 10;
    private static final int RB = 0x87; // RFC 4493 2.3: the constant of the subkey doubling

    private final Cipher cbc;
    private final byte[] k1;
    private final byte[] k2;
    private final byte[] pending = new byte[BLOCK];
    private int pendingLength;
    private final ByteBuffer discard = ByteBuffer.allocate(CHUNK);

    AesCmac(byte[] key) {
        try {
            SecretKeySpec k = new SecretKeySpec(key, "AES");
            Cipher ecb = Cipher.getInstance("AES/ECB/NoPadding");
            ecb.init(Cipher.ENCRYPT_MODE, k);
            k1 = doubled(ecb.doFinal(new byte[BLOCK])); // RFC 4493 2.3: L = AES-K(0); K1 = 2L; K2 = 2K1
            k2 = doubled(k1);
            cbc = Cipher.getInstance("AES/CBC/NoPadding");
            cbc.init(Cipher.ENCRYPT_MODE, k, new IvParameterSpec(new byte[BLOCK]));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES is part of every JDK", e);
        }
    }

    private static byte[] doubled(byte[] in) {
        byte[] out = new byte[BLOCK];
        for (int i = 0; i < BLOCK; i++) {
            out[i] = (byte) (in[i] << 1 | (i + 1 < BLOCK ? (in[i + 1] & 0xff) >>> 7 : 0));
        }
        if ((in[0] & 0x80) != 0) {
            out[BLOCK - 1] ^= (byte) RB;
        }
        return out;
    }

    /** Feeds the remaining bytes of {@code b} (its position moves to its limit). */
    void update(ByteBuffer b) {
        try {
            while (b.hasRemaining()) {
                if (pendingLength == BLOCK) { // more follows, so the held block is not the last
                    cbc.update(pending, 0, BLOCK, discard.array(), 0);
                    pendingLength = 0;
                }
                if (pendingLength == 0 && b.remaining() > BLOCK) {
                    int bulk = Math.min((b.remaining() - 1) / BLOCK * BLOCK, CHUNK); // keep the last block back
                    discard.clear();
                    cbc.update(b.slice(b.position(), bulk), discard);
                    b.position(b.position() + bulk);
                    continue;
                }
                int n = Math.min(BLOCK - pendingLength, b.remaining());
                b.get(pending, pendingLength, n);
                pendingLength += n;
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("CBC over whole blocks into a buffer large enough", e);
        }
    }

    /** The 16-byte MAC of everything fed since the last call; the MAC is then ready for a new message. */
    byte[] doFinal() {
        byte[] last = new byte[BLOCK];
        System.arraycopy(pending, 0, last, 0, pendingLength);
        byte[] k = k1;
        if (pendingLength < BLOCK) {
            last[pendingLength] = (byte) 0x80; // RFC 4493 2.4 step 4: padding 10*
            k = k2;
        }
        for (int i = 0; i < BLOCK; i++) {
            last[i] ^= k[i];
        }
        pendingLength = 0;
        try {
            return cbc.doFinal(last); // resets the CBC chain to the zero IV
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("CBC over one whole block", e);
        }
    }
}
