package io.rdmagate.gateway.users;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.bouncycastle.crypto.digests.MD4Digest;

/** The NT hash of a password (MS-NLMP 3.3.1, NTOWFv1): MD4 of its UTF-16LE bytes. */
public final class NtHash {
    private NtHash() {
    }

    /** 32 upper-case hex digits. The caller may clear {@code password} afterwards; the copy made here is cleared. */
    public static String of(char[] password) {
        ByteBuffer utf16 = StandardCharsets.UTF_16LE.encode(CharBuffer.wrap(password));
        byte[] bytes = new byte[utf16.remaining()];
        utf16.get(bytes);
        if (utf16.hasArray()) {
            Arrays.fill(utf16.array(), (byte) 0);
        }
        MD4Digest md4 = new MD4Digest();
        md4.update(bytes, 0, bytes.length);
        Arrays.fill(bytes, (byte) 0);
        byte[] out = new byte[md4.getDigestSize()];
        md4.doFinal(out, 0);
        return HexFormat.of().withUpperCase().formatHex(out);
    }
}
