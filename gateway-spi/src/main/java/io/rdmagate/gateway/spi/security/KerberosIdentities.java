package io.rdmagate.gateway.spi.security;

import io.rdmagate.gateway.spi.config.KerberosConfig;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Maps a Kerberos client principal to the POSIX identity its requests run as (no PAC is read):
 * first {@code security.kerberos.idmap} (the principal to {@code uid:gid} or to a local name),
 * else {@code user@REALM} of the gateway's realm is the local user {@code user}. A local name is
 * looked up in {@code local} (the configured SMB users) and then in the host's name service.
 * Principals of other realms, and names nobody knows, map to nothing and are refused.
 */
public final class KerberosIdentities {
    private final String realm;
    private final Map<String, String> idmap;
    private final Function<String, Optional<Passwd.Account>> local;

    public KerberosIdentities(KerberosConfig config, Function<String, Optional<Passwd.Account>> local) {
        this.realm = config.realm();
        this.idmap = config.idmap();
        this.local = local;
    }

    /** With the configured users ({@code users:}, by name, case-insensitive) as the local accounts. */
    public static KerberosIdentities withUsers(KerberosConfig config, java.util.List<io.rdmagate.gateway.spi.config.UserEntry> users) {
        return new KerberosIdentities(config, name -> users.stream().filter(u -> u.name().equalsIgnoreCase(name))
                .findFirst().map(u -> new Passwd.Account(u.name(), u.uid(), u.gid())));
    }

    /** The identity of {@code principal} (user@REALM), or empty when it maps to none. */
    public Optional<Passwd.Account> map(String principal) {
        String mapped = idmap.get(principal);
        if (mapped != null) {
            int[] ids = ids(mapped);
            return ids != null ? Optional.of(new Passwd.Account(principal, ids[0], ids[1])) : lookUp(mapped);
        }
        int at = principal.lastIndexOf('@');
        if (at <= 0 || !principal.substring(at + 1).equals(realm)) {
            return Optional.empty(); // another realm's user is no local user unless idmap says so
        }
        String user = principal.substring(0, at);
        if (user.indexOf('/') >= 0) {
            return Optional.empty(); // a service or host principal, not a user
        }
        return lookUp(user);
    }

    private Optional<Passwd.Account> lookUp(String name) {
        Optional<Passwd.Account> a = local.apply(name);
        return a.isPresent() ? a : Passwd.byName(name);
    }

    /** Checks an idmap value: {@code uid:gid} (each below 2^32) or a local name. */
    public static boolean validIdmapValue(String v) {
        return ids(v) != null || v.matches("[A-Za-z0-9_.][A-Za-z0-9_.@-]*\\$?");
    }

    private static int[] ids(String v) {
        if (!v.matches("\\d{1,10}:\\d{1,10}")) {
            return null;
        }
        int colon = v.indexOf(':');
        try {
            return new int[] {Integer.parseUnsignedInt(v.substring(0, colon)), Integer.parseUnsignedInt(v.substring(colon + 1))};
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
