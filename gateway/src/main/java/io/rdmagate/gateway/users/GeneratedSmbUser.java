package io.rdmagate.gateway.users;

import io.rdmagate.gateway.spi.config.UserEntry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * The SMB user a start creates when the configuration names none, so that the SMB client lines
 * the gateway prints work as printed. It lives in the state directory, in two files of mode 0600:
 * <ul>
 *   <li>{@value #STORE}: {@code name:uid:gid:NTHASH}, the user store (the NT hash, never the password);
 *   <li>{@value #CREDENTIALS}: {@code username=}, {@code password=}, {@code domain=} lines, the format
 *       {@code smbclient -A FILE} and {@code mount -t cifs -o credentials=FILE} both read.
 * </ul>
 * Later starts reuse them. When the credentials file was deleted, a new password is made (the
 * store alone cannot give it back). A configuration that names users does not use these files.
 */
public final class GeneratedSmbUser {
    public static final String NAME = "rdmagate";
    public static final String STORE = "smb-user";
    public static final String CREDENTIALS = "smb-credentials";
    private static final String ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    private static final int PASSWORD_LENGTH = 20;

    /**
     * @param user        the user to serve
     * @param credentials the credentials file
     * @param created     whether this start made (or remade) the password
     */
    public record Outcome(UserEntry user, Path credentials, boolean created) {
    }

    private GeneratedSmbUser() {
    }

    /** The user of {@code stateDir}, made now if it has none (uid: the first that no host account has). */
    public static Outcome ensure(Path stateDir, String domain, HostAccounts accounts) throws IOException {
        Path store = stateDir.resolve(STORE);
        Path credentials = stateDir.resolve(CREDENTIALS);
        if (Files.isRegularFile(store) && Files.isRegularFile(credentials)) {
            UserEntry u = parse(store);
            if (u != null) {
                return new Outcome(u, credentials, false);
            }
        }
        Files.createDirectories(stateDir);
        UserEntry old = Files.isRegularFile(store) ? parse(store) : null;
        int uid = old != null ? old.uid() : accounts.firstFreeUid(u -> false);
        int gid = old != null ? old.gid() : uid;
        char[] password = password(new SecureRandom());
        UserEntry user = new UserEntry(NAME, uid, gid, NtHash.of(password));
        UsersFile.writeOwnerOnly(credentials, "username=" + NAME + "\npassword=" + new String(password) + "\ndomain=" + domain + "\n");
        UsersFile.writeOwnerOnly(store, user.name() + ":" + uid + ":" + gid + ":" + user.ntHash() + "\n");
        java.util.Arrays.fill(password, '\0');
        return new Outcome(user, credentials, true);
    }

    private static UserEntry parse(Path store) throws IOException {
        String[] f = Files.readString(store, StandardCharsets.UTF_8).strip().split(":");
        if (f.length != 4 || !f[1].matches("\\d{1,9}") || !f[2].matches("\\d{1,9}") || !f[3].matches("[0-9A-F]{32}")) {
            return null; // damaged: made anew
        }
        return new UserEntry(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3]);
    }

    static char[] password(SecureRandom random) {
        char[] p = new char[PASSWORD_LENGTH];
        for (int i = 0; i < p.length; i++) {
            p[i] = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
        }
        return p;
    }
}
