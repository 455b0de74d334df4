package io.rdmagate.smb.mssmb2.crypto;

import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.mssmb2.Smb2Header;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Message signing (MS-SMB2 3.1.4.1): the signature is computed over the whole message (one message
 * of a compound, padding included) with the Signature field zeroed, and its first 16 bytes are
 * stored there. HMAC-SHA256 for 2.0.2/2.1, AES-128-CMAC for 3.0/3.0.2 (and 3.1.1 by default),
 * AES-128-GMAC when 3.1.1 negotiated it.
 *
 * <p>A signer is not thread-safe; a connection uses it from one thread at a time.
 */
public abstract sealed class Smb2Signer {
    public static Smb2Signer hmacSha256(byte[] key) {
        return new Hmac(key);
    }

    public static Smb2Signer aesCmac(byte[] key) {
        return new Cmac(key);
    }

    public static Smb2Signer aesGmac(byte[] key) {
        return new Gmac(key);
    }

    /** Computes the signature of {@code m} (its index 0 is the header), without changing m. */
    public abstract byte[] signature(ByteBuffer m, ByteBuffer payload);

    /** Sets FLAGS_SIGNED and the signature; {@code payload} is data sent after m (or null). */
    public void sign(ByteBuffer m, ByteBuffer payload) {
        Smb2Header.setFlags(m, Smb2Header.flags(m) | Smb2Header.FLAGS_SIGNED);
        for (int i = 0; i < 16; i++) {
            m.put(Smb2Header.SIGNATURE + i, (byte) 0);
        }
        m.put(Smb2Header.SIGNATURE, signature(m, payload));
    }

    /** Checks a received message's signature in constant time; m is restored afterwards. */
    public boolean verify(ByteBuffer m) {
        byte[] got = new byte[16];
        m.get(Smb2Header.SIGNATURE, got);
        for (int i = 0; i < 16; i++) {
            m.put(Smb2Header.SIGNATURE + i, (byte) 0);
        }
        byte[] want = signature(m, null);
        m.put(Smb2Header.SIGNATURE, got);
        return MessageDigest.isEqual(got, want);
    }

    static void feed(ByteBuffer b, java.util.function.Consumer<ByteBuffer> sink) {
        if (b != null) {
            sink.accept(b.duplicate().position(0).limit(b.limit()));
        }
    }

    static final class Hmac extends Smb2Signer {
        private final Mac mac;

        Hmac(byte[] key) {
            try {
                mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(java.util.Arrays.copyOf(key, 16), "HmacSHA256"));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public byte[] signature(ByteBuffer m, ByteBuffer payload) {
            feed(m, mac::update);
            feed(payload, mac::update);
            return java.util.Arrays.copyOf(mac.doFinal(), 16);
        }
    }

    static final class Cmac extends Smb2Signer {
        private final AesCmac mac;

        Cmac(byte[] key) {
            mac = new AesCmac(key);
        }

        @Override
        public byte[] signature(ByteBuffer m, ByteBuffer payload) {
            feed(m, mac::update);
            feed(payload, mac::update);
            return mac.doFinal();
        }
    }

    /**
     * AES-128-GMAC (3.1.4.1): GCM with no plaintext, the message as AAD, and a 12-byte nonce of the
     * MessageId followed by a word whose bit 0 says "from the server" and bit 1 "a CANCEL request".
     */
    static final class Gmac extends Smb2Signer {
        private final SecretKeySpec key;

        Gmac(byte[] key) {
            this.key = new SecretKeySpec(key, "AES");
        }

        @Override
        public byte[] signature(ByteBuffer m, ByteBuffer payload) {
            byte[] nonce = new byte[12];
            long mid = Smb2Header.messageId(m);
            for (int i = 0; i < 8; i++) {
                nonce[i] = (byte) (mid >>> (8 * i));
            }
            int flags = Smb2Header.flags(m);
            int w = ((flags & Smb2Header.FLAGS_SERVER_TO_REDIR) != 0 ? 1 : 0)
                    | (Smb2Header.command(m) == Smb2Command.CANCEL && (flags & Smb2Header.FLAGS_SERVER_TO_REDIR) == 0 ? 2 : 0);
            nonce[8] = (byte) w;
            try {
                Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
                c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, nonce));
                feed(m, c::updateAAD);
                feed(payload, c::updateAAD);
                return c.doFinal();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
