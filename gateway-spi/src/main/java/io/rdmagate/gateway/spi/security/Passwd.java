package io.rdmagate.gateway.spi.security;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * The host's accounts as the C library's name service sees them ({@code getpwnam_r(3)}: passwd
 * files, LDAP or SSSD, whatever nsswitch.conf names), so a Kerberos user maps to the account the
 * host's own services would use.
 */
public final class Passwd {
    /** A local account's POSIX identity. */
    public record Account(String name, int uid, int gid) {
    }

    // struct passwd on LP64 glibc: pw_name, pw_passwd (pointers), pw_uid, pw_gid (uint32), then pointers
    private static final long PW_UID = 16;
    private static final long PW_GID = 20;
    private static final long SIZEOF_PASSWD = 48;
    private static final int BUFFER = 16 << 10;
    private static final MethodHandle GETPWNAM_R;

    static {
        Linker linker = Linker.nativeLinker();
        GETPWNAM_R = linker.defaultLookup().find("getpwnam_r").map(f -> linker.downcallHandle(f,
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                        ValueLayout.JAVA_LONG, ValueLayout.ADDRESS))).orElse(null);
    }

    private Passwd() {
    }

    /** The account named {@code name}, or empty when the name service knows none (or cannot be asked). */
    public static Optional<Account> byName(String name) {
        if (GETPWNAM_R == null || name.isEmpty() || name.indexOf('\0') >= 0) {
            return Optional.empty();
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pwd = a.allocate(SIZEOF_PASSWD, 8);
            MemorySegment buf = a.allocate(BUFFER);
            MemorySegment result = a.allocate(ValueLayout.ADDRESS);
            int rc = (int) GETPWNAM_R.invokeExact(a.allocateFrom(name), pwd, buf, (long) BUFFER, result);
            if (rc != 0 || result.get(ValueLayout.ADDRESS, 0).equals(MemorySegment.NULL)) {
                return Optional.empty();
            }
            return Optional.of(new Account(name, pwd.get(ValueLayout.JAVA_INT, PW_UID), pwd.get(ValueLayout.JAVA_INT, PW_GID)));
        } catch (Throwable t) {
            return Optional.empty();
        }
    }
}
