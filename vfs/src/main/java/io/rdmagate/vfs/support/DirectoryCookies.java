package io.rdmagate.vfs.support;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import io.rdmagate.vfs.VirtualFileSystem;
import java.nio.charset.StandardCharsets;

/**
 * Directory cookies that survive changes and restarts: an entry's cookie is a keyed 62-bit hash
 * of its name (like ext4's htree positions), so a listing resumes after the last name it returned
 * wherever other names come and go. Listings are ordered by cookie. The verifier is a constant
 * of the scheme, so a client's cookie stays valid across restarts.
 */
public final class DirectoryCookies {
    public static final long VERIFIER = 0x7264_6d61_6331_0001L;
    private static final HashFunction HASH = Hashing.sipHash24(0x7264_6d61_6761_7465L, 0x636f_6f6b_6965_7331L);

    private DirectoryCookies() {
    }

    public static long cookie(String name) {
        long h = HASH.hashString(name, StandardCharsets.UTF_8).asLong() >>> 2;
        return Math.max(h, VirtualFileSystem.FIRST_COOKIE);
    }
}
