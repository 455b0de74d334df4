package io.rdmagate.vfs.local;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads a directory with getdents64 (struct linux_dirent64: d_ino u64, d_off s64, d_reclen u16,
 * d_type u8, d_name NUL-terminated). Names that are not valid UTF-8 cannot be named by any
 * protocol here and are left out; "." and ".." are left out.
 */
final class DirectoryReader {
    private DirectoryReader() {
    }

    /** Name to inode number, in directory order. */
    static Map<String, Long> read(int dirPathFd) throws Libc.Errno {
        Map<String, Long> out = new LinkedHashMap<>();
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        try (Arena a = Arena.ofConfined()) {
            int fd = Libc.openat(a, dirPathFd, ".", Libc.O_RDONLY | Libc.O_DIRECTORY, 0);
            try {
                MemorySegment buf = a.allocate(64 * 1024, 8);
                while (true) {
                    long n = Libc.getdents64(a, fd, buf);
                    if (n == 0) {
                        break;
                    }
                    long off = 0;
                    while (off < n) {
                        long ino = buf.get(ValueLayout.JAVA_LONG, off);
                        int reclen = Short.toUnsignedInt(buf.get(ValueLayout.JAVA_SHORT, off + 16));
                        MemorySegment nameSeg = buf.asSlice(off + 19, reclen - 19);
                        long len = 0;
                        while (nameSeg.get(ValueLayout.JAVA_BYTE, len) != 0) {
                            len++;
                        }
                        byte[] raw = nameSeg.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE);
                        off += reclen;
                        if ((len == 1 && raw[0] == '.') || (len == 2 && raw[0] == '.' && raw[1] == '.')) {
                            continue;
                        }
                        try {
                            out.put(utf8.decode(ByteBuffer.wrap(raw)).toString(), ino);
                        } catch (CharacterCodingException e) {
                            // not representable to clients; skipped
                        }
                    }
                }
            } finally {
                Libc.close(fd);
            }
        }
        return out;
    }
}
