package io.rdmagate.smb.mssrvs;

import io.rdmagate.smb.msrpce.Ndr;
import io.rdmagate.smb.msrpce.RpcDecodeException;
import io.rdmagate.smb.msrpce.RpcPdu;
import java.util.List;

/**
 * MS-SRVS share enumeration over the srvsvc interface (v3.0): NetrShareEnum (opnum 15, 3.1.4.8)
 * and NetrShareGetInfo (opnum 16, 3.1.4.10), at info levels 0, 1 and 2 (SHARE_INFO_0/1/2,
 * 2.2.4.22-24). Other levels are answered ERROR_INVALID_LEVEL, an unknown share
 * NERR_NetNameNotFound.
 */
public final class ShareInfo {
    /** The srvsvc interface's UUID. */
    public static final byte[] SRVSVC_UUID = RpcPdu.uuid("4b324fc8-1670-01d3-1278-5a47bf6ee188");
    public static final int SRVSVC_VERSION = 3;
    public static final int NET_SHARE_ENUM = 15;
    public static final int NET_SHARE_GET_INFO = 16;
    /** STYPE_DISKTREE. */
    public static final int DISK = 0;
    /** STYPE_IPC | STYPE_SPECIAL. */
    public static final int IPC = 0x80000003;
    private static final int ERROR_INVALID_LEVEL = 0x7C;
    private static final int NERR_NET_NAME_NOT_FOUND = 0x906;

    /** A share as the server reports it. */
    public record Entry(String name, int type, String remark) {
    }

    private ShareInfo() {
    }

    /** NetrShareEnum: the reply stub listing {@code shares} at the level the request asks. */
    public static byte[] enumerate(Ndr r, List<Entry> shares) throws RpcDecodeException {
        r.uniqueString(); // ServerName
        int level = r.u32();
        Ndr.Writer o = new Ndr.Writer();
        if (level != 0 && level != 1 && level != 2) {
            o.u32(level).u32(level).u32(0).u32(0).u32(0).u32(0).u32(ERROR_INVALID_LEVEL);
            return o.bytes();
        }
        o.u32(level).u32(level).ptr();
        o.u32(shares.size()).ptr().u32(shares.size());
        for (Entry s : shares) {
            info(o, s, level);
        }
        for (Entry s : shares) {
            strings(o, s, level);
        }
        o.u32(shares.size()).u32(0).u32(0); // TotalEntries, ResumeHandle (null), WERR_OK
        return o.bytes();
    }

    /** NetrShareGetInfo: the reply stub for the share the request names (case-insensitive). */
    public static byte[] getInfo(Ndr r, List<Entry> shares) throws RpcDecodeException {
        r.uniqueString(); // ServerName
        String name = r.string();
        int level = r.u32();
        Ndr.Writer o = new Ndr.Writer();
        Entry found = null;
        for (Entry s : shares) {
            if (s.name().equalsIgnoreCase(name)) {
                found = s;
            }
        }
        if (found == null || level > 2) {
            o.u32(level).u32(0).u32(found == null ? NERR_NET_NAME_NOT_FOUND : ERROR_INVALID_LEVEL);
            return o.bytes();
        }
        o.u32(level).ptr();
        info(o, found, level);
        strings(o, found, level);
        o.u32(0);
        return o.bytes();
    }

    private static void info(Ndr.Writer o, Entry s, int level) {
        o.ptr();
        if (level >= 1) {
            o.u32(s.type()).ptr();
        }
        if (level == 2) {
            o.u32(0).u32(-1).u32(0).ptr().ptr(); // permissions, max uses (unlimited), current uses, path, password
        }
    }

    private static void strings(Ndr.Writer o, Entry s, int level) {
        o.string(s.name());
        if (level >= 1) {
            o.string(s.remark());
        }
        if (level == 2) {
            o.string("C:\\");
            o.string("");
        }
    }
}
