package io.rdmagate.smb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mssmb2.NegotiateContext;
import io.rdmagate.smb.mssmb2.Smb2Compound;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.TransformHeader;
import io.rdmagate.smb.mssmb2.crypto.Smb2Cipher;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * MS-SMB2 2.2.41 transform messages from a hostile client, read as the server reads an encrypted
 * frame (3.3.5.2.1): the header checked ({@link TransformHeader#check}: ProtocolId, Flags,
 * OriginalMessageSize against the frame), the session looked up by SessionId, the message
 * decrypted and authenticated ({@link Smb2Cipher#decrypt}, AES-128/256 in CCM and GCM), the
 * plaintext split into its compound chain. Frames sealed with the session's key, then every field
 * mutated: Signature, Nonce, OriginalMessageSize (edges, and the true size of a cut or extended
 * frame), the reserved bytes, Flags, SessionId, body bits, cuts, trailing bytes, bodies up to
 * 70,000 bytes.
 *
 * <p>The promise checked: a frame is taken if and only if it is byte for byte one the key sealed,
 * and then it is the plaintext that was sealed; every other frame is refused (the server
 * disconnects); nothing throws. {@code -Drdmagate.fuzz.rounds=N} sets the number of frames per
 * cipher for a long run.
 */
class TransformFuzzTest {
    private static final int ROUNDS = Integer.getInteger("rdmagate.fuzz.rounds", 20_000);
    private static final long SESSION = 0x0000_4000_0000_0041L;
    private static final int MAX_COMPOUND = 64;

    @Test
    void mutatedTransformFramesAreTakenOnlyAsSealed() {
        Map<String, Long> outcomes = new TreeMap<>();
        long t0 = System.nanoTime();
        for (int cipherId = NegotiateContext.CIPHER_AES128_CCM; cipherId <= NegotiateContext.CIPHER_AES256_GCM;
                cipherId++) {
            Random rnd = new Random(2241L * cipherId);
            byte[] key = new byte[Smb2Cipher.keyBits(cipherId) / 8];
            rnd.nextBytes(key);
            Smb2Cipher cipher = new Smb2Cipher(cipherId, key, new SecureRandom());
            for (int round = 0; round < ROUNDS; round++) {
                byte[] plain = plaintext(rnd);
                byte[] sealed = bytes(cipher.encrypt(SESSION, ByteBuffer.wrap(plain)));
                byte[] frame = rnd.nextInt(16) == 0 ? sealed.clone() : mutate(rnd, sealed);
                String outcome = read(cipher, frame);
                if (Arrays.equals(frame, sealed)) {
                    assertEquals("taken", outcome, "a frame the key sealed is taken");
                    assertArrayEquals(plain, lastPlain, "as the plaintext that was sealed");
                } else {
                    assertTrue(!outcome.equals("taken"), "a frame the key did not seal is refused");
                }
                outcomes.merge(outcome, 1L, Long::sum);
            }
        }
        System.out.printf("TransformFuzzTest: %d transform frames (%d per cipher, 4 ciphers) in %.1f s, outcomes %s%n",
                4L * ROUNDS, ROUNDS, (System.nanoTime() - t0) / 1e9, outcomes);
        for (String o : new String[] {"taken", "malformed header", "unknown session", "does not decrypt"}) {
            assertTrue(outcomes.getOrDefault(o, 0L) > ROUNDS / 50, "every outcome is exercised: " + outcomes);
        }
    }

    private byte[] lastPlain;

    /** What the server makes of an encrypted frame: taken, or why it disconnects. */
    private String read(Smb2Cipher sessionCipher, byte[] frame) {
        lastPlain = null;
        ByteBuffer m = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        if (!TransformHeader.isTransform(m)) {
            return "not a transform";
        }
        if (!TransformHeader.check(m)) {
            return "malformed header";
        }
        if (TransformHeader.sessionId(m) != SESSION) {
            return "unknown session";
        }
        ByteBuffer plain = sessionCipher.decrypt(m);
        if (plain == null) {
            return "does not decrypt";
        }
        lastPlain = bytes(plain);
        List<ByteBuffer> messages = Smb2Compound.split(plain, MAX_COMPOUND);
        assertNotNull(messages, "what the client sealed is a chain of SMB2 messages");
        return "taken";
    }

    /** One to four SMB2 ECHO requests in a compound chain, sometimes padded to a large message. */
    private static byte[] plaintext(Random rnd) {
        int n = 1 + rnd.nextInt(4);
        int big = rnd.nextInt(64) == 0 ? 8 * rnd.nextInt(70_000 / 8) : 0;
        int each = 72;
        ByteBuffer b = ByteBuffer.allocate(n * each + big).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            ByteBuffer h = b.slice(i * each, i == n - 1 ? each + big : each).order(ByteOrder.LITTLE_ENDIAN);
            Smb2Header.writeRequest(h, 0x000D, 1, 1, i > 0 ? Smb2Header.FLAGS_RELATED_OPERATIONS : 0, i, 0, SESSION);
            h.putShort(Smb2Header.SIZE, (short) 4); // ECHO's StructureSize
            if (i < n - 1) {
                Smb2Header.setNextCommand(h, each);
            }
        }
        return b.array();
    }

    private static byte[] mutate(Random rnd, byte[] sealed) {
        byte[] b = sealed.clone();
        int n = 1 + rnd.nextInt(3);
        for (int k = 0; k < n; k++) {
            ByteBuffer m = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            switch (rnd.nextInt(10)) {
                case 0 -> b[rnd.nextInt(4)] ^= (byte) (1 << rnd.nextInt(8)); // ProtocolId
                case 1 -> b[TransformHeader.SIGNATURE + rnd.nextInt(16)] ^= (byte) (1 << rnd.nextInt(8));
                case 2 -> b[TransformHeader.NONCE + rnd.nextInt(16)] ^= (byte) (1 << rnd.nextInt(8));
                case 3 -> m.putInt(TransformHeader.ORIGINAL_SIZE,
                        new int[] {0, 1, 63, 64, b.length - 52, b.length - 51, b.length - 53, -1, Integer.MAX_VALUE}
                                [rnd.nextInt(9)]);
                case 4 -> m.putShort(40, (short) rnd.nextInt(0x10000)); // Reserved
                case 5 -> m.putShort(TransformHeader.FLAGS, (short) new int[] {0, 1, 2, 0xffff}[rnd.nextInt(4)]);
                case 6 -> m.putLong(TransformHeader.SESSION_ID, rnd.nextBoolean() ? SESSION + 1 : rnd.nextLong());
                case 7 -> b[TransformHeader.SIZE + rnd.nextInt(b.length - TransformHeader.SIZE)] ^= (byte) (1 << rnd.nextInt(8));
                case 8 -> {
                    b = Arrays.copyOf(b, TransformHeader.SIZE + 1 + rnd.nextInt(b.length - TransformHeader.SIZE));
                    if (rnd.nextBoolean()) { // and the size that matches what is left, so the header passes
                        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(TransformHeader.ORIGINAL_SIZE,
                                b.length - TransformHeader.SIZE);
                    }
                }
                default -> {
                    b = Arrays.copyOf(b, b.length + 1 + rnd.nextInt(64));
                    if (rnd.nextBoolean()) {
                        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(TransformHeader.ORIGINAL_SIZE,
                                b.length - TransformHeader.SIZE);
                    }
                }
            }
        }
        return b;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
