package io.rdmagate.smb.msnlmp;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.engines.RC4Engine;
import org.bouncycastle.crypto.params.KeyParameter;

/** The NTLMv2 functions of MS-NLMP 3.3.2 and the key functions of 3.4.5. */
public final class NtlmCrypto {
    private NtlmCrypto() {
    }

    public static byte[] hmacMd5(byte[] key, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance("HmacMD5");
            mac.init(new SecretKeySpec(key, "HmacMD5"));
            for (byte[] p : parts) {
                mac.update(p);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public static byte[] md5(byte[]... parts) {
        try {
            MessageDigest d = MessageDigest.getInstance("MD5");
            for (byte[] p : parts) {
                d.update(p);
            }
            return d.digest();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** MS-NLMP 3.3.2: NTOWFv2 = HMAC_MD5(NTOWFv1, UNICODE(Uppercase(User) + UserDom)), from the stored NT hash. */
    public static byte[] ntowfV2(byte[] ntHash, String user, String domain) {
        return hmacMd5(ntHash, (user.toUpperCase(Locale.ROOT) + domain).getBytes(StandardCharsets.UTF_16LE));
    }

    /** NTProofStr = HMAC_MD5(ResponseKeyNT, ServerChallenge || temp), temp being the client's blob. */
    public static byte[] ntProofStr(byte[] responseKeyNt, byte[] serverChallenge, byte[] temp) {
        return hmacMd5(responseKeyNt, serverChallenge, temp);
    }

    /** SessionBaseKey = HMAC_MD5(ResponseKeyNT, NTProofStr). */
    public static byte[] sessionBaseKey(byte[] responseKeyNt, byte[] ntProofStr) {
        return hmacMd5(responseKeyNt, ntProofStr);
    }

    public static byte[] rc4(byte[] key, byte[] data) {
        RC4Engine e = new RC4Engine();
        e.init(true, new KeyParameter(key));
        byte[] out = new byte[data.length];
        e.processBytes(data, 0, data.length, out, 0);
        return out;
    }

    /** MS-NLMP 3.4.5.2 SIGNKEY and 3.4.5.3 SEALKEY (128-bit) for one direction. */
    public static byte[] signKey(byte[] exportedSessionKey, boolean clientToServer) {
        String magic = clientToServer ? "session key to client-to-server signing key magic constant"
                : "session key to server-to-client signing key magic constant";
        return md5(exportedSessionKey, (magic + "\0").getBytes(StandardCharsets.US_ASCII));
    }

    public static byte[] sealKey(byte[] exportedSessionKey, boolean clientToServer) {
        String magic = clientToServer ? "session key to client-to-server sealing key magic constant"
                : "session key to server-to-client sealing key magic constant";
        return md5(exportedSessionKey, (magic + "\0").getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * MS-NLMP 3.4.4.2: the signature of a message with extended session security, sequence number
     * {@code seq}, the checksum sealed with RC4(SealingKey) when key exchange was negotiated (the
     * first use of a fresh RC4 handle, as for the SPNEGO mechListMIC).
     */
    public static byte[] mac(byte[] exportedSessionKey, boolean clientToServer, int seq, byte[] message, boolean keyExch) {
        byte[] s = {(byte) seq, (byte) (seq >>> 8), (byte) (seq >>> 16), (byte) (seq >>> 24)};
        byte[] checksum = java.util.Arrays.copyOf(hmacMd5(signKey(exportedSessionKey, clientToServer), s, message), 8);
        if (keyExch) {
            checksum = rc4(sealKey(exportedSessionKey, clientToServer), checksum);
        }
        byte[] out = new byte[16];
        out[0] = 1;
        System.arraycopy(checksum, 0, out, 4, 8);
        System.arraycopy(s, 0, out, 12, 4);
        return out;
    }
}
