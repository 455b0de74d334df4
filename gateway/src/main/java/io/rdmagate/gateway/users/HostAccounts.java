package io.rdmagate.gateway.users;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntPredicate;

/**
 * The host's user accounts, read from the passwd file, so that an SMB user the gateway picks a
 * uid for never silently acts as an existing host account.
 */
public final class HostAccounts {
    /** Where the first free uid is looked for, as useradd(8) does for ordinary users. */
    public static final int FIRST_UID = 1000;
    private static final int LAST_UID = 59999;

    private final Map<Integer, String> byUid;

    private HostAccounts(Map<Integer, String> byUid) {
        this.byUid = byUid;
    }

    public static HostAccounts read() {
        return read(Path.of("/etc/passwd"));
    }

    /** Lines {@code name:x:uid:...}; a missing or unreadable file is no accounts. */
    public static HostAccounts read(Path passwd) {
        Map<Integer, String> m = new HashMap<>();
        try {
            for (String line : Files.readAllLines(passwd, StandardCharsets.UTF_8)) {
                String[] f = line.split(":", -1);
                if (f.length >= 3 && f[2].matches("\\d{1,9}")) {
                    m.putIfAbsent(Integer.parseInt(f[2]), f[0]);
                }
            }
        } catch (IOException e) {
            // no passwd file (a minimal container): no host accounts to avoid
        }
        return new HostAccounts(m);
    }

    /** The host account that has this uid. */
    public Optional<String> nameOf(int uid) {
        return Optional.ofNullable(byUid.get(uid));
    }

    /** The first uid from {@link #FIRST_UID} that no host account has and {@code alsoTaken} does not hold. */
    public int firstFreeUid(IntPredicate alsoTaken) {
        for (int u = FIRST_UID; u <= LAST_UID; u++) {
            if (!byUid.containsKey(u) && !alsoTaken.test(u)) {
                return u;
            }
        }
        throw new IllegalStateException("no free uid between " + FIRST_UID + " and " + LAST_UID);
    }
}
