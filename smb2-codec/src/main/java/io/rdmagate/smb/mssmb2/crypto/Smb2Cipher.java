package io.rdmagate.smb.mssmb2.crypto;

import io.rdmagate.smb.mssmb2.TransformHeader;
import io.rdmagate.smb.mssmb2.NegotiateContext;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.CCMBlockCipher;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * Message encryption (MS-SMB2 3.1.4.3): AES-CCM (11-byte nonce) or AES-GCM (12-byte nonce), 128 or
 * 256-bit keys, a 16-byte tag stored as the transform header's Signature, and the 32 bytes from
 * Nonce to SessionId as additional authenticated data. Encrypting necessarily copies the payload
 * once (into the ciphertext).
 */
public final class Smb2Cipher {
    private final int cipherId;
    private final byte[] key;
    private final SecureRandom random;

    public Smb2Cipher(int cipherId, byte[] key, SecureRandom random) {
        if (cipherId < NegotiateContext.CIPHER_AES128_CCM || cipherId > NegotiateContext.CIPHER_AES256_GCM) {
            throw new IllegalArgumentException("cipher " + cipherId);
        }
        this.cipherId = cipherId;
        this.key = key.clone();
        this.random = random;
    }

    public int cipherId() {
        return cipherId;
    }

    public boolean isGcm() {
        return cipherId == NegotiateContext.CIPHER_AES128_GCM || cipherId == NegotiateContext.CIPHER_AES256_GCM;
    }

    public static int keyBits(int cipherId) {
        return cipherId >= NegotiateContext.CIPHER_AES256_CCM ? 256 : 128;
    }

    private int nonceLength() {
        return isGcm() ? 12 : 11;
    }

    /**
     * Encrypts {@code plain} (one or more SMB2 messages) into a new buffer that starts with the
     * transform header. A fresh random nonce each time.
     */
    public ByteBuffer encrypt(long sessionId, ByteBuffer... plain) {
        int len = 0;
        for (ByteBuffer p : plain) {
            len += p.remaining();
        }
        byte[] nonce = new byte[16];
        byte[] n = new byte[nonceLength()];
        random.nextBytes(n);
        System.arraycopy(n, 0, nonce, 0, n.length);
        byte[] out = new byte[TransformHeader.SIZE + len + 16];
        ByteBuffer o = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        TransformHeader.write(o, nonce, len, sessionId);
        byte[] pt = new byte[len];
        int at = 0;
        for (ByteBuffer p : plain) {
            int r = p.remaining();
            p.duplicate().get(pt, at, r);
            at += r;
        }
        byte[] ct = seal(n, out, pt);
        System.arraycopy(ct, 0, out, TransformHeader.SIZE, len);
        System.arraycopy(ct, len, out, TransformHeader.SIGNATURE, 16);
        return ByteBuffer.wrap(out, 0, TransformHeader.SIZE + len).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Decrypts a checked transform message; null if the tag does not verify. */
    public ByteBuffer decrypt(ByteBuffer m) {
        byte[] hdr = new byte[TransformHeader.SIZE];
        m.get(0, hdr);
        int len = m.limit() - TransformHeader.SIZE;
        byte[] in = new byte[len + 16];
        m.get(TransformHeader.SIZE, in, 0, len);
        System.arraycopy(hdr, TransformHeader.SIGNATURE, in, len, 16);
        byte[] n = java.util.Arrays.copyOfRange(hdr, TransformHeader.NONCE, TransformHeader.NONCE + nonceLength());
        byte[] aad = java.util.Arrays.copyOfRange(hdr, TransformHeader.AAD_OFFSET, TransformHeader.SIZE);
        try {
            byte[] pt;
            if (isGcm()) {
                Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
                c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, n));
                c.updateAAD(aad);
                pt = c.doFinal(in);
            } else {
                org.bouncycastle.crypto.modes.CCMModeCipher c = CCMBlockCipher.newInstance(AESEngine.newInstance());
                c.init(false, new AEADParameters(new KeyParameter(key), 128, n, aad));
                pt = new byte[c.getOutputSize(in.length)];
                int k = c.processBytes(in, 0, in.length, pt, 0);
                c.doFinal(pt, k);
            }
            return ByteBuffer.wrap(pt).order(ByteOrder.LITTLE_ENDIAN);
        } catch (GeneralSecurityException | InvalidCipherTextException e) {
            return null;
        }
    }

    private byte[] seal(byte[] n, byte[] header, byte[] pt) {
        byte[] aad = java.util.Arrays.copyOfRange(header, TransformHeader.AAD_OFFSET, TransformHeader.SIZE);
        try {
            if (isGcm()) {
                Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
                c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, n));
                c.updateAAD(aad);
                return c.doFinal(pt);
            }
            org.bouncycastle.crypto.modes.CCMModeCipher c = CCMBlockCipher.newInstance(AESEngine.newInstance());
            c.init(true, new AEADParameters(new KeyParameter(key), 128, n, aad));
            byte[] out = new byte[c.getOutputSize(pt.length)];
            int k = c.processBytes(pt, 0, pt.length, out, 0);
            c.doFinal(out, k);
            return out;
        } catch (GeneralSecurityException | InvalidCipherTextException e) {
            throw new IllegalStateException(e);
        }
    }
}
