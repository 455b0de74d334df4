package io.rdmagate.smb.mssmb2.crypto;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The 3.1.1 preauth integrity hash (MS-SMB2 3.3.5.4, 3.3.5.5): H(i) = SHA-512(H(i-1) || message),
 * starting from 64 zero bytes, over NEGOTIATE and the SESSION_SETUP exchange.
 */
public final class PreauthIntegrity {
    private byte[] value = new byte[64];

    public PreauthIntegrity() {
    }

    public PreauthIntegrity(byte[] start) {
        value = start.clone();
    }

    public void update(ByteBuffer... message) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-512");
            d.update(value);
            for (ByteBuffer b : message) {
                d.update(b.duplicate());
            }
            value = d.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public byte[] value() {
        return value.clone();
    }

    public PreauthIntegrity copy() {
        return new PreauthIntegrity(value);
    }
}
