package io.rdmagate.vfs.support;

import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * A directory's names in cookie order, from which pages are cut. Both backends page through
 * this, so their cookies agree and a listing resumes after the cookie of the last entry returned.
 */
public final class DirectoryListing {
    private final String[] names;
    private final long[] cookies;

    private DirectoryListing(String[] names, long[] cookies) {
        this.names = names;
        this.cookies = cookies;
    }

    public static DirectoryListing of(Collection<String> entryNames) {
        record E(long cookie, String name) {
        }
        List<E> es = new ArrayList<>(entryNames.size());
        for (String n : entryNames) {
            es.add(new E(DirectoryCookies.cookie(n), n));
        }
        es.sort((a, b) -> a.cookie != b.cookie ? Long.compare(a.cookie, b.cookie) : a.name.compareTo(b.name));
        String[] names = new String[es.size()];
        long[] cookies = new long[es.size()];
        for (int i = 0; i < names.length; i++) {
            names[i] = es.get(i).name;
            cookies[i] = es.get(i).cookie;
        }
        return new DirectoryListing(names, cookies);
    }

    /** Index of the first entry after {@code cookie} (0 = from the start). */
    public int startAfter(long cookie, long verifier) throws VfsException {
        if (verifier != 0 && verifier != DirectoryCookies.VERIFIER) {
            throw new VfsException(VfsError.BAD_COOKIE, "cookie verifier does not match");
        }
        if (cookie == 0) {
            return 0;
        }
        if (cookie < 0) {
            throw new VfsException(VfsError.BAD_COOKIE, "cookie " + cookie);
        }
        int i = Arrays.binarySearch(cookies, cookie);
        if (i < 0) {
            return -i - 1;
        }
        // equal cookies (a hash collision) are ordered by name; skip past all of them
        while (i < cookies.length && cookies[i] == cookie) {
            i++;
        }
        return i;
    }

    public int size() {
        return names.length;
    }

    public String name(int i) {
        return names[i];
    }

    public long cookie(int i) {
        return cookies[i];
    }
}
