package io.rdmagate.smb.server;

import io.rdmagate.smb.msdtyp.FileTime;
import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msfscc.FileInfo;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileType;
import java.util.ArrayList;
import java.util.List;

/** The mapping between SMB names and attributes and the vfs (MS-FSCC 2.1.5 names, 2.6 attributes). */
public final class Files {
    private Files() {
    }

    public static long ft(long unixNanos) {
        return FileTime.fromUnixNanos(unixNanos);
    }

    /** FILETIMEs for SMB (the vfs reports a creation time for every file: a set one, the birth time, or the ctime). */
    public static FileInfo info(FileAttributes a, boolean deletePending) {
        long birth = a.birthTimeNanos();
        boolean dir = a.type() == FileType.DIRECTORY;
        long alloc = dir ? 0 : Math.max(a.spaceUsed(), (a.size() + 4095) & ~4095L);
        return new FileInfo(ft(birth), ft(a.atimeNanos()), ft(a.mtimeNanos()), ft(a.ctimeNanos()), alloc,
                dir ? 0 : a.size(), a.dosAttributes(), a.fileId(), (int) Math.min(a.nlink(), Integer.MAX_VALUE),
                deletePending, dir);
    }

    /**
     * Splits a share-relative SMB path ("dir\\file", leading '\' allowed) into components.
     * Refuses (STATUS_OBJECT_NAME_INVALID) empty components, "." and "..", and the characters
     * MS-FSCC 2.1.5.2 forbids; a ':' (a stream name) too, as streams are not served. A '/'
     * separates components like '\\'.
     */
    public static List<String> split(String path) throws SmbException {
        String p = path.replace('/', '\\'); // a separator too, as Samba takes it
        while (p.startsWith("\\")) {
            p = p.substring(1);
        }
        if (p.endsWith("::$DATA")) {
            p = p.substring(0, p.length() - 7);
        }
        List<String> out = new ArrayList<>();
        if (p.isEmpty()) {
            return out;
        }
        for (String c : p.split("\\\\", -1)) {
            if (c.equals("..")) {
                // a path that climbs is malformed as a whole, as Windows and Samba answer it
                throw new SmbException(NtStatus.OBJECT_PATH_SYNTAX_BAD, "'..' in " + path);
            }
            if (c.isEmpty() || c.equals(".")) {
                throw new SmbException(NtStatus.OBJECT_NAME_INVALID, "path component '" + c + "' in " + path);
            }
            for (int i = 0; i < c.length(); i++) {
                char ch = c.charAt(i);
                if (ch < 0x20 || "\"*/:<>?|".indexOf(ch) >= 0) {
                    throw new SmbException(NtStatus.OBJECT_NAME_INVALID, "character 0x" + Integer.toHexString(ch) + " in " + path);
                }
            }
            out.add(c);
        }
        return out;
    }

    public static String join(List<String> comps, int from, int to, String sep) {
        return String.join(sep, comps.subList(from, to));
    }
}
