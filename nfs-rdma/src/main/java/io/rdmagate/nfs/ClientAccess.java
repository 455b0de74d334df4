package io.rdmagate.nfs;

import io.rdmagate.gateway.spi.config.ClientRule;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.gateway.spi.log.RateLimitedLog;
import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.vfs.Caller;

/**
 * What one call may do on one export: the {@link Caller} after the client rule's squashing
 * (exports(5) root_squash, all_squash, anonuid, anongid), and whether it may change anything.
 *
 * <p>AUTH_NONE acts as the anonymous ids. With root squash, uid 0 becomes anonUid and gid 0 (as
 * primary or supplementary group) becomes anonGid, as knfsd does; with all squash every caller is
 * anonUid/anonGid with no supplementary groups.
 */
public record ClientAccess(Caller caller, boolean writable) {
    /** RPCSEC_GSS (RFC 2203): the first flavor whose credentials are proven, not stated. */
    private static final int RPCSEC_GSS = 6;

    /**
     * Whether {@code rule} lets a call with {@code credentials} in from {@code connection}: a
     * {@link ClientRule#secure} rule wants stated credentials from a reserved port, as knfsd's
     * nfsd_originating_port_ok does.
     */
    public static boolean portAllowed(ClientRule rule, Connection connection, Credentials credentials) {
        return !rule.secure() || credentials.flavor() >= RPCSEC_GSS || connection.fromReservedPort();
    }

    /**
     * {@link #portAllowed} for a call on {@code export}; a refusal is logged to the security log as
     * "{@code what} refused on export ...".
     */
    public static boolean portAllowed(NfsExports exports, NfsExport export, ClientRule rule, RpcCall call,
            String what) {
        if (portAllowed(rule, call.connection(), call.credentials())) {
            return true;
        }
        String client = call.connection().peer().getAddress().getHostAddress();
        exports.denials().log(RateLimitedLog.Level.WARN, client, "{} refused on export {}: client {} {}", what,
                export.config().name(), client, insecurePort(call.connection()));
        return false;
    }

    /**
     * Whether {@code rule}'s sec= lets a call with {@code credentials} in: AUTH_SYS and AUTH_NONE
     * under sys, a verified RPCSEC_GSS principal under krb5, krb5i or krb5p by its service.
     */
    public static boolean flavorAllowed(ClientRule rule, Credentials credentials) {
        ClientRule.Sec sec = credentials instanceof io.rdmagate.oncrpc.rpc.GssPrincipal g ? switch (g.service()) {
            case io.rdmagate.oncrpc.rpc.RpcGssCred.SERVICE_INTEGRITY -> ClientRule.Sec.KRB5I;
            case io.rdmagate.oncrpc.rpc.RpcGssCred.SERVICE_PRIVACY -> ClientRule.Sec.KRB5P;
            default -> ClientRule.Sec.KRB5;
        } : ClientRule.Sec.SYS;
        return rule.sec().contains(sec);
    }

    /** The words of a log line for a call {@link #portAllowed} refused. */
    public static String insecurePort(Connection connection) {
        return "called from port " + connection.peer().getPort() + " (not below " + Connection.RESERVED_PORTS
                + ") and the client rule is secure; a client program that runs as root uses a reserved port,"
                + " or the rule may say secure: false";
    }

    public static ClientAccess of(ClientRule rule, boolean exportReadOnly, Credentials credentials) {
        boolean writable = !exportReadOnly && rule.access() == ClientRule.Access.RW;
        Caller anon = new Caller(rule.anonUid(), rule.anonGid(), new int[0]);
        AuthSys sys = switch (credentials) {
            case AuthSys s -> s;
            case io.rdmagate.oncrpc.rpc.GssPrincipal g -> g.identity(); // RPCSEC_GSS: the principal's account
            default -> null;
        };
        if (sys == null || rule.allSquash()) {
            return new ClientAccess(anon, writable);
        }
        if (!rule.rootSquash()) {
            return new ClientAccess(sys.toCaller(), writable);
        }
        int uid = sys.uid() == 0 ? rule.anonUid() : sys.uid();
        int gid = sys.gid() == 0 ? rule.anonGid() : sys.gid();
        int[] gids = sys.gids();
        for (int i = 0; i < gids.length; i++) {
            if (gids[i] == 0) {
                gids[i] = rule.anonGid();
            }
        }
        return new ClientAccess(new Caller(uid, gid, gids), writable);
    }
}
