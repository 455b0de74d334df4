package io.rdmagate.smb.mssmb2.crypto;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * SP800-108 KDF in counter mode with HMAC-SHA256, r = 32, one iteration (MS-SMB2 3.1.4.2), and the
 * labels and contexts of MS-SMB2 3.2.5.3.1 / 3.3.5.5.3. Labels include their terminating NUL, and
 * the KDF adds the 0x00 separator after them, as Windows and Samba do.
 */
public final class Smb2Kdf {
    private Smb2Kdf() {
    }

    /** KDF(Ki, Label, Context) truncated to {@code bits} (128 or 256). */
    public static byte[] derive(byte[] key, byte[] label, byte[] context, int bits) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(new byte[] {0, 0, 0, 1});
            mac.update(label);
            mac.update((byte) 0);
            mac.update(context);
            mac.update(new byte[] {0, 0, (byte) (bits >>> 8), (byte) bits});
            byte[] out = mac.doFinal();
            return java.util.Arrays.copyOf(out, bits / 8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is missing from the JDK", e);
        }
    }

    static byte[] z(String s) {
        return (s + "\0").getBytes(StandardCharsets.US_ASCII);
    }

    /** The session's keys from the server's point of view. */
    public record Keys(byte[] signing, byte[] encryption, byte[] decryption, byte[] application) {
    }

    /**
     * MS-SMB2 3.3.5.5.3 Session.SessionKey: the first 16 bytes of the authentication's key (a
     * Kerberos AES-256 key has 32), right-padded with zeros when shorter.
     */
    public static byte[] sessionKey(byte[] fullSessionKey) {
        return fullSessionKey.length == 16 ? fullSessionKey : java.util.Arrays.copyOf(fullSessionKey, 16);
    }

    /**
     * Keys for 3.0 and 3.0.2 (fixed contexts) or 3.1.1 (context = the session's preauth integrity
     * hash), from the authentication's whole key. {@code cipherBits} is 256 for the AES-256
     * ciphers, else 128: 3.1.4.2, L = 256, and the cipher keys then come from the full session
     * key (Session.FullSessionKey); the others, and all keys of other ciphers, from its first 16 bytes.
     */
    public static Keys serverKeys(byte[] fullSessionKey, boolean is311, byte[] preauthHash, int cipherBits) {
        byte[] sessionKey = sessionKey(fullSessionKey);
        byte[] cipherKey = is311 && cipherBits == 256 ? fullSessionKey : sessionKey;
        if (!is311) {
            return new Keys(derive(sessionKey, z("SMB2AESCMAC"), z("SmbSign"), 128),
                    derive(sessionKey, z("SMB2AESCCM"), z("ServerOut"), 128),
                    derive(sessionKey, z("SMB2AESCCM"), z("ServerIn "), 128),
                    derive(sessionKey, z("SMB2APP"), z("SmbRpc"), 128));
        }
        return new Keys(derive(sessionKey, z("SMBSigningKey"), preauthHash, 128),
                derive(cipherKey, z("SMBS2CCipherKey"), preauthHash, cipherBits),
                derive(cipherKey, z("SMBC2SCipherKey"), preauthHash, cipherBits),
                derive(sessionKey, z("SMBAppKey"), preauthHash, 128));
    }
}
