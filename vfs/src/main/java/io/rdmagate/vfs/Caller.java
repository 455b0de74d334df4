package io.rdmagate.vfs;

import java.util.Arrays;

/**
 * Who performs an operation, after the protocol layer has authenticated it and applied the
 * export's squashing. The backends check POSIX mode bits against it and make it the owner of
 * what it creates.
 */
public record Caller(int uid, int gid, int[] groups) {
    public static final Caller ROOT = new Caller(0, 0, new int[0]);

    public Caller {
        groups = groups.clone();
    }

    public boolean isSuperuser() {
        return uid == 0;
    }

    public boolean inGroup(int g) {
        if (g == gid) {
            return true;
        }
        for (int x : groups) {
            if (x == g) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int[] groups() {
        return groups.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Caller c && c.uid == uid && c.gid == gid && Arrays.equals(c.groups, groups);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * uid + gid) + Arrays.hashCode(groups);
    }

    @Override
    public String toString() {
        return "uid=" + uid + " gid=" + gid + " groups=" + Arrays.toString(groups);
    }
}
