package io.rdmagate.nfs.v4;

import static io.rdmagate.nfs.v4.Nfs4.NFS4ERR_BADOWNER;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * owner and owner_group as NFSv4 writes them (RFC 8881 §5.9): "name@domain" for the ids the host's
 * user and group databases name, the number itself for the others and when no domain is set (what
 * the Linux client expects of an AUTH_SYS server by default, nfs4_disable_idmapping).
 *
 * <p>Operation: the databases ({@code /etc/passwd} and {@code /etc/group}, or the files given) are
 * read once and again when their modification time changes, looked at no more than once a second.
 * A client may send a number, or a name at this server's domain (case-insensitive); anything else
 * is NFS4ERR_BADOWNER. Thread-safe: a snapshot is replaced whole.
 */
public final class IdMap {
    /** Numbers only: no domain. */
    public static final IdMap NUMERIC = new IdMap(null, null, null);

    private static final long RECHECK_NANOS = 1_000_000_000L;

    private final String domain;
    private final Path passwd;
    private final Path group;
    private volatile Names names = new Names(Map.of(), Map.of(), Map.of(), Map.of(), null, null, Long.MIN_VALUE / 2);

    /** One read of the databases. */
    private record Names(Map<Integer, String> users, Map<String, Integer> uids, Map<Integer, String> groups,
            Map<String, Integer> gids, FileTime passwdTime, FileTime groupTime, long checked) {
    }

    /** "name@domain" owners from the host's databases; {@code domain} null or empty: numbers only. */
    public static IdMap of(String domain) {
        return domain == null || domain.isEmpty() ? NUMERIC
                : new IdMap(domain, Path.of("/etc/passwd"), Path.of("/etc/group"));
    }

    /** For tests and containers: the databases at these paths. */
    public IdMap(String domain, Path passwd, Path group) {
        this.domain = domain == null || domain.isEmpty() ? null : domain.toLowerCase(Locale.ROOT);
        this.passwd = passwd;
        this.group = group;
    }

    /** The domain owners are written in, or null for numbers only. */
    public String domain() {
        return domain;
    }

    public String owner(int uid) {
        return name(names().users().get(uid), uid);
    }

    public String ownerGroup(int gid) {
        return name(names().groups().get(gid), gid);
    }

    /** The uid an owner names: a number, or a user at this domain; NFS4ERR_BADOWNER otherwise. */
    public int uid(String who) throws Nfs4Exception {
        return id(who, names().uids());
    }

    /** The gid an owner_group names: a number, or a group at this domain; NFS4ERR_BADOWNER otherwise. */
    public int gid(String who) throws Nfs4Exception {
        return id(who, names().gids());
    }

    private String name(String name, int id) {
        return name == null || domain == null ? Integer.toUnsignedString(id) : name + "@" + domain;
    }

    private int id(String who, Map<String, Integer> byName) throws Nfs4Exception {
        int at = who.lastIndexOf('@');
        String n = at > 0 ? who.substring(0, at) : who;
        if (!n.isEmpty() && n.chars().allMatch(ch -> ch >= '0' && ch <= '9') && n.length() <= 10) {
            long id = Long.parseLong(n);
            if (id <= 0xffffffffL) {
                return (int) id;
            }
        }
        if (domain != null && at > 0 && who.substring(at + 1).toLowerCase(Locale.ROOT).equals(domain)) {
            Integer id = byName.get(n);
            if (id != null) {
                return id;
            }
        }
        throw new Nfs4Exception(NFS4ERR_BADOWNER, "owner '" + who + "' is neither a number nor known at "
                + (domain == null ? "this server (numbers only)" : domain));
    }

    private Names names() {
        Names n = names;
        if (domain == null || System.nanoTime() - n.checked() < RECHECK_NANOS) {
            return n;
        }
        synchronized (this) {
            n = names;
            if (System.nanoTime() - n.checked() < RECHECK_NANOS) {
                return n;
            }
            FileTime pt = modified(passwd);
            FileTime gt = modified(group);
            if (pt != null && pt.equals(n.passwdTime()) && gt != null && gt.equals(n.groupTime())) {
                n = new Names(n.users(), n.uids(), n.groups(), n.gids(), pt, gt, System.nanoTime());
            } else {
                Map<Integer, String> users = new HashMap<>();
                Map<String, Integer> uids = new HashMap<>();
                Map<Integer, String> groups = new HashMap<>();
                Map<String, Integer> gids = new HashMap<>();
                read(passwd, users, uids);
                read(group, groups, gids);
                n = new Names(Map.copyOf(users), Map.copyOf(uids), Map.copyOf(groups), Map.copyOf(gids), pt, gt,
                        System.nanoTime());
            }
            names = n;
            return n;
        }
    }

    private static FileTime modified(Path p) {
        try {
            return Files.getLastModifiedTime(p);
        } catch (IOException e) {
            return null;
        }
    }

    /** name:password:id:... lines; the first name of an id wins, as getpwuid answers. */
    private static void read(Path db, Map<Integer, String> names, Map<String, Integer> ids) {
        try {
            for (String line : Files.readAllLines(db, StandardCharsets.UTF_8)) {
                String[] f = line.split(":", 4);
                if (f.length < 3 || f[0].isEmpty() || f[0].startsWith("#")) {
                    continue;
                }
                try {
                    long id = Long.parseLong(f[2]);
                    if (id < 0 || id > 0xffffffffL) {
                        continue;
                    }
                    names.putIfAbsent((int) id, f[0]);
                    ids.putIfAbsent(f[0], (int) id);
                } catch (NumberFormatException e) {
                    // not an entry
                }
            }
        } catch (IOException e) {
            // no database: numbers only until it appears
        }
    }
}
