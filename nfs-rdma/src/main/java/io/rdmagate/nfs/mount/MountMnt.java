package io.rdmagate.nfs.mount;

import io.rdmagate.gateway.spi.config.ClientRule;
import io.rdmagate.nfs.ClientAccess;
import io.rdmagate.nfs.NfsExport;
import io.rdmagate.nfs.NfsExports;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcErrorException;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.VfsException;
import java.util.Optional;

/**
 * RFC 1813 §5.2.1 MOUNTPROC3_MNT: args dirpath (at most MNTPATHLEN bytes, else GARBAGE_ARGS);
 * resok fhandle3, auth_flavors [AUTH_SYS]; else a mountstat3.
 *
 * <p>The path is an export's nfsPath, or a directory below it (resolved inside the export as the
 * squashed caller; a path leaving the export is MNT3ERR_ACCES). The client's address must match one
 * of the export's client rules, else MNT3ERR_ACCES; an unknown path is MNT3ERR_NOENT. Versions 1
 * and 2 (NFSv2 handles) are PROC_UNAVAIL: this server speaks NFSv3 only.
 */
final class MountMnt implements MountProcedure {
    @Override
    public XdrMessage run(MountProgram server, RpcCall call) throws XdrException, RpcErrorException {
        String path = call.decoder().readString(Mount.MNTPATHLEN);
        if (call.version() != Mount.VERSION) {
            throw RpcErrorException.procUnavailable(Mount.MNT);
        }
        int status;
        Mounted mounted = null;
        try {
            mounted = mount(server, call, path);
            status = Mount.MNT3_OK;
        } catch (MountException e) {
            status = e.status;
        }
        XdrEncoder out = call.success();
        out.writeInt(status);
        if (status == Mount.MNT3_OK) {
            out.writeOpaque(mounted.handle());
            // RFC 1813 5.2.1 auth_flavors: the ones the client rule's sec= allows (RFC 2623 2.3.1)
            out.writeInt(mounted.flavors().size());
            for (ClientRule.Sec f : mounted.flavors()) {
                out.writeInt(f.pseudoFlavor);
            }
            server.table().add(MountProgram.host(call), path);
        }
        return out.finish();
    }

    /** A mounted path's file handle, and the flavors its client rule allows. */
    private record Mounted(byte[] handle, java.util.List<ClientRule.Sec> flavors) {
    }

    private static Mounted mount(MountProgram server, RpcCall call, String path) throws MountException {
        NfsExports exports = server.exports();
        NfsExport export = null;
        String rest = "";
        for (NfsExport e : exports.all()) {
            String p = e.nfsPath().endsWith("/") && e.nfsPath().length() > 1
                    ? e.nfsPath().substring(0, e.nfsPath().length() - 1) : e.nfsPath();
            String trimmed = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
            if (trimmed.equals(p)) {
                export = e;
                rest = "";
                break;
            }
            String prefix = p.equals("/") ? "/" : p + "/";
            if (trimmed.startsWith(prefix) && (export == null || p.length() > export.nfsPath().length())) {
                export = e;
                rest = trimmed.substring(prefix.length());
            }
        }
        if (export == null) {
            throw new MountException(Mount.MNT3ERR_NOENT);
        }
        Optional<ClientRule> rule = export.ruleFor(call.connection().peer().getAddress());
        if (rule.isEmpty()) {
            refused(exports, call, path, "matches no client rule of export " + export.config().name());
            throw new MountException(Mount.MNT3ERR_ACCES);
        }
        if (!ClientAccess.portAllowed(rule.get(), call.connection(), call.credentials())) {
            refused(exports, call, path, ClientAccess.insecurePort(call.connection()));
            throw new MountException(Mount.MNT3ERR_ACCES); // as mountd answers an "illegal port"
        }
        if (rest.isEmpty()) {
            return new Mounted(NfsExports.wire(export, export.fs().root()), rule.get().sec());
        }
        ClientAccess access = ClientAccess.of(rule.get(), export.config().readOnly(), call.credentials());
        try {
            Node n = export.fs().resolve(access.caller(), export.fs().root(), rest, true);
            if (n.attributes().type() != FileType.DIRECTORY) {
                throw new MountException(Mount.MNT3ERR_NOTDIR);
            }
            return new Mounted(NfsExports.wire(export, n.handle()), rule.get().sec());
        } catch (VfsException e) {
            if (e.error() == io.rdmagate.vfs.VfsError.ACCESS || e.error() == io.rdmagate.vfs.VfsError.ESCAPE) {
                refused(exports, call, path, "may not reach it (" + e.error() + ")");
            }
            throw new MountException(switch (e.error()) {
                case NOT_FOUND -> Mount.MNT3ERR_NOENT;
                case NOT_DIRECTORY -> Mount.MNT3ERR_NOTDIR;
                case ACCESS, ESCAPE, LOOP -> Mount.MNT3ERR_ACCES;
                case NAME_TOO_LONG -> Mount.MNT3ERR_NAMETOOLONG;
                case INVALID -> Mount.MNT3ERR_INVAL;
                default -> Mount.MNT3ERR_IO;
            });
        }
    }

    /** A refused mount is logged (rate-limited per client) with the client's address, uid and the path. */
    private static void refused(NfsExports exports, RpcCall call, String path, String why) {
        String client = call.connection().peer().getAddress().getHostAddress();
        io.rdmagate.oncrpc.rpc.AuthSys a = call.authSys();
        exports.denials().log(io.rdmagate.gateway.spi.log.RateLimitedLog.Level.WARN, client,
                "MOUNT of {} refused: client {} (uid {}) {}", path, client,
                a == null ? "none" : Integer.toUnsignedString(a.uid()), why);
    }

    private static final class MountException extends Exception {
        private static final long serialVersionUID = 1L;
        final int status;

        MountException(int status) {
            super(null, null, false, false);
            this.status = status;
        }
    }
}
