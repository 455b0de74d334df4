package io.rdmagate.interop;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * Runs in the guest, on the gateway's class path: keeps a kernel NFS client's file handles across
 * a reboot and opens them again, as a program that holds handles (a backup or HSM tool, a
 * user-space NFS re-exporter) does, through name_to_handle_at(2) and open_by_handle_at(2) on the
 * NFS mount. The Linux client's handle carries the server's file handle, and opening it on a new
 * mount asks the server about that handle: a server that forgot it answers STALE.
 *
 * <pre>
 *   save MOUNT NAME...   one line per file: "HANDLE NAME TYPE HEX" (NAME relative to MOUNT)
 *   open MOUNT NAME TYPE HEX   "REOPENED NAME SHA256" of the file the handle names now, or "STALE NAME errno"
 * </pre>
 */
public final class HandleProbe {
    private static final int AT_FDCWD = -100;
    private static final int O_RDONLY = 0;
    private static final int O_DIRECTORY = 0200000;
    /** MAX_HANDLE_SZ of linux/fcntl.h (bytes of f_handle). */
    private static final int MAX_HANDLE_SZ = 128;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(java.lang.foreign.MemoryLayout.PathElement
            .groupElement("errno"));
    private static final MethodHandle NAME_TO_HANDLE_AT = libc("name_to_handle_at",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle OPEN_BY_HANDLE_AT = libc("open_by_handle_at",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle OPEN = libc("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle CLOSE = libc("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private HandleProbe() {
    }

    private static MethodHandle libc(String name, FunctionDescriptor fd) {
        SymbolLookup lookup = LINKER.defaultLookup();
        return LINKER.downcallHandle(lookup.find(name).orElseThrow(), fd, Linker.Option.captureCallState("errno"));
    }

    public static void main(String[] args) throws Throwable {
        if (args.length >= 2 && args[0].equals("save")) {
            for (int i = 2; i < args.length; i++) {
                System.out.println(save(Path.of(args[1]), args[i]));
            }
        } else if (args.length == 5 && args[0].equals("open")) {
            System.out.println(open(Path.of(args[1]), args[2], Integer.parseInt(args[3]), HexFormat.of().parseHex(args[4])));
        } else {
            System.err.println("usage: HandleProbe save MOUNT NAME... | open MOUNT NAME TYPE HEX");
            System.exit(2);
        }
    }

    /** struct file_handle { unsigned int handle_bytes; int handle_type; unsigned char f_handle[]; } */
    private static String save(Path mount, String name) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            MemorySegment fh = a.allocate(8 + MAX_HANDLE_SZ, 8);
            fh.set(JAVA_INT, 0, MAX_HANDLE_SZ);
            MemorySegment mountId = a.allocate(JAVA_INT);
            int rc = (int) NAME_TO_HANDLE_AT.invokeExact(state, AT_FDCWD,
                    a.allocateFrom(mount.resolve(name).toString()), fh, mountId, 0);
            if (rc != 0) {
                throw new IllegalStateException("name_to_handle_at " + name + ": errno " + (int) ERRNO.get(state, 0L));
            }
            int bytes = fh.get(JAVA_INT, 0);
            int type = fh.get(JAVA_INT, 4);
            return "HANDLE " + name + " " + type + " " + HexFormat.of().formatHex(fh.asSlice(8, bytes).toArray(
                    java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    private static String open(Path mount, String name, int type, byte[] handle) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            int mountFd = (int) OPEN.invokeExact(state, a.allocateFrom(mount.toString()), O_RDONLY | O_DIRECTORY);
            if (mountFd < 0) {
                throw new IllegalStateException("open " + mount + ": errno " + (int) ERRNO.get(state, 0L));
            }
            try {
                MemorySegment fh = a.allocate(8 + handle.length, 8);
                fh.set(JAVA_INT, 0, handle.length);
                fh.set(JAVA_INT, 4, type);
                MemorySegment.copy(handle, 0, fh, java.lang.foreign.ValueLayout.JAVA_BYTE, 8, handle.length);
                int fd = (int) OPEN_BY_HANDLE_AT.invokeExact(state, mountFd, fh, O_RDONLY);
                if (fd < 0) {
                    return "STALE " + name + " errno " + (int) ERRNO.get(state, 0L);
                }
                try {
                    byte[] content = Files.readAllBytes(Path.of("/proc/self/fd/" + fd));
                    return "REOPENED " + name + " "
                            + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
                } finally {
                    int ignored = (int) CLOSE.invokeExact(state, fd);
                }
            } finally {
                int ignored = (int) CLOSE.invokeExact(state, mountFd);
            }
        }
    }
}
