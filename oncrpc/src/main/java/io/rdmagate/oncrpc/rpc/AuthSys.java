package io.rdmagate.oncrpc.rpc;

import io.rdmagate.vfs.Caller;
import java.util.Arrays;

/**
 * An AUTH_SYS credential as the client sent it (RFC 5531 Appendix A, authsys_parms). Squashing
 * (root_squash, all_squash) is the export's: apply it to {@link #toCaller()}.
 */
public record AuthSys(int stamp, String machineName, int uid, int gid, int[] gids) implements Credentials {
    /** Appendix A: machinename<255>. */
    public static final int MAX_MACHINE_NAME = 255;
    /** Appendix A: gids<16>. */
    public static final int MAX_GIDS = 16;

    public AuthSys {
        gids = gids.clone();
    }

    @Override
    public int flavor() {
        return AuthFlavor.AUTH_SYS;
    }

    @Override
    public int[] gids() {
        return gids.clone();
    }

    /**
     * Appendix A authsys_parms: stamp, machinename, uid, gid, gids; as an AUTH_SYS credential's
     * body and as NFSv4.1's callback_sec_parms4 carry it.
     */
    public static AuthSys decode(io.rdmagate.oncrpc.xdr.XdrDecoder x) throws io.rdmagate.oncrpc.xdr.XdrException {
        int stamp = x.readInt();
        String machine = x.readString(MAX_MACHINE_NAME);
        int uid = x.readInt();
        int gid = x.readInt();
        int n = x.readLength(MAX_GIDS);
        int[] gids = new int[n];
        for (int i = 0; i < n; i++) {
            gids[i] = x.readInt();
        }
        return new AuthSys(stamp, machine, uid, gid, gids);
    }

    /** The caller as sent, unsquashed. */
    public Caller toCaller() {
        return new Caller(uid, gid, gids);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AuthSys a && a.stamp == stamp && a.uid == uid && a.gid == gid
                && a.machineName.equals(machineName) && Arrays.equals(a.gids, gids);
    }

    @Override
    public int hashCode() {
        return (31 * uid + gid) * 31 + Arrays.hashCode(gids);
    }

    @Override
    public String toString() {
        return "AUTH_SYS(" + machineName + " uid=" + uid + " gid=" + gid + " gids=" + Arrays.toString(gids) + ")";
    }
}
