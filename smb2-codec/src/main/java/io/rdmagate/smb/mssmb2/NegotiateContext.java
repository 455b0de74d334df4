package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * SMB2_NEGOTIATE_CONTEXT (MS-SMB2 2.2.3.1): ContextType(2) DataLength(2) Reserved(4) Data, each
 * context 8-byte aligned (from the header).
 *
 * <p>Accepts up to 32 contexts whose data lie in the message. Refuses a context that leaves it.
 */
public record NegotiateContext(int type, ByteBuffer data) {
    public static final int PREAUTH_INTEGRITY_CAPABILITIES = 1;
    public static final int ENCRYPTION_CAPABILITIES = 2;
    public static final int COMPRESSION_CAPABILITIES = 3;
    public static final int NETNAME_NEGOTIATE_CONTEXT_ID = 5;
    public static final int TRANSPORT_CAPABILITIES = 6;
    public static final int RDMA_TRANSFORM_CAPABILITIES = 7;
    public static final int SIGNING_CAPABILITIES = 8;

    public static final int HASH_SHA512 = 1;
    public static final int CIPHER_AES128_CCM = 1;
    public static final int CIPHER_AES128_GCM = 2;
    public static final int CIPHER_AES256_CCM = 3;
    public static final int CIPHER_AES256_GCM = 4;
    public static final int SIGNING_HMAC_SHA256 = 0;
    public static final int SIGNING_AES_CMAC = 1;
    public static final int SIGNING_AES_GMAC = 2;

    static List<NegotiateContext> decodeList(ByteBuffer m, long offset, int count) throws Smb2DecodeException {
        if (count > 32) {
            throw new Smb2DecodeException("NegotiateContextCount " + count);
        }
        List<NegotiateContext> out = new ArrayList<>(count);
        long at = offset;
        for (int i = 0; i < count; i++) {
            at = Wire.align8((int) at);
            Wire.range(m, at, 8, "negotiate context");
            int type = Wire.u16(m, (int) at);
            int len = Wire.u16(m, (int) at + 2);
            out.add(new NegotiateContext(type, Wire.slice(m, at + 8, len, "negotiate context data")));
            at += 8 + len;
        }
        return out;
    }

    /** The 16-bit ids of a capabilities context (hash algorithms, ciphers, signing algorithms). */
    public List<Integer> ids() throws Smb2DecodeException {
        int skip = type == PREAUTH_INTEGRITY_CAPABILITIES ? 4 : 2;
        if (data.limit() < 2) {
            throw new Smb2DecodeException("negotiate context " + type + " too short");
        }
        int n = Wire.u16(data, 0);
        Wire.range(data, skip, 2L * n, "negotiate context ids");
        List<Integer> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add(Wire.u16(data, skip + 2 * i));
        }
        return ids;
    }

    /** Writes one context at {@code at} (aligned by the caller); returns the end. */
    public static int write(ByteBuffer m, int at, int type, byte[] data) {
        m.putShort(at, (short) type).putShort(at + 2, (short) data.length).putInt(at + 4, 0);
        m.put(at + 8, data);
        return at + 8 + data.length;
    }
}
