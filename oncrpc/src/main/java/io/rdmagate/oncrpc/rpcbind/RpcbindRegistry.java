package io.rdmagate.oncrpc.rpcbind;

import java.util.ArrayList;
import java.util.List;

/**
 * The embedded rpcbind's table. A program version is registered at most once per netid (RFC 1833
 * §2.2.1: SET fails if it is); UNSET removes every netid of a version. Lookups take the exact
 * version first and, unless asked for exactly that version, any version of the program on that
 * netid (as rpcbind's find_service does, so a client learns where to get PROG_MISMATCH).
 * At most {@code maxMappings} registrations are kept: a SET beyond them fails, as a SET of a
 * version already registered does (SET comes only from the host itself, but any local process
 * may send it). Thread-safe.
 */
public final class RpcbindRegistry {
    public static final int DEFAULT_MAX_MAPPINGS = 1024;

    private final List<Mapping> mappings = new ArrayList<>();
    private final int maxMappings;

    public RpcbindRegistry() {
        this(DEFAULT_MAX_MAPPINGS);
    }

    public RpcbindRegistry(int maxMappings) {
        if (maxMappings < 1) {
            throw new IllegalArgumentException("maxMappings must be at least 1");
        }
        this.maxMappings = maxMappings;
    }

    public synchronized boolean set(Mapping m) {
        if (mappings.size() >= maxMappings) {
            return false;
        }
        for (Mapping x : mappings) {
            if (x.program() == m.program() && x.version() == m.version() && x.netid().equals(m.netid())) {
                return false;
            }
        }
        mappings.add(m);
        return true;
    }

    /** Removes the version's registrations on {@code netid}, or on every netid when it is null or empty. */
    public synchronized boolean unset(int program, int version, String netid) {
        return mappings.removeIf(x -> x.program() == program && x.version() == version
                && (netid == null || netid.isEmpty() || x.netid().equals(netid)));
    }

    public synchronized Mapping lookup(int program, int version, String netid, boolean exactVersion) {
        Mapping any = null;
        for (Mapping x : mappings) {
            if (x.program() == program && x.netid().equals(netid)) {
                if (x.version() == version) {
                    return x;
                }
                if (any == null) {
                    any = x;
                }
            }
        }
        return exactVersion ? null : any;
    }

    /** Registrations of a program version on any netid. */
    public synchronized List<Mapping> lookupAll(int program, int version) {
        return mappings.stream().filter(x -> x.program() == program && x.version() == version).toList();
    }

    public synchronized List<Mapping> list() {
        return List.copyOf(mappings);
    }
}
