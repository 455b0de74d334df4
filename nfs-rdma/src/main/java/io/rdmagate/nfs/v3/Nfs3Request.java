package io.rdmagate.nfs.v3;

import io.rdmagate.gateway.spi.config.ClientRule;
import io.rdmagate.nfs.ClientAccess;
import io.rdmagate.nfs.NfsExport;
import io.rdmagate.nfs.NfsExports;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.util.Optional;

/** One NFSv3 call being served: its arguments, who sent it, and what it may touch. */
public final class Nfs3Request {
    private final Nfs3Program server;
    private final RpcCall call;

    Nfs3Request(Nfs3Program server, RpcCall call) {
        this.server = server;
        this.call = call;
    }

    public RpcCall call() {
        return call;
    }

    public XdrDecoder in() {
        return call.decoder();
    }

    public NfsExports exports() {
        return server.exports();
    }

    public int maxIoSize() {
        return server.maxIoSize();
    }

    public PayloadCopies copies() {
        return server.copies();
    }

    /** The pool account of the connection this call came on. */
    public IoMemoryPool.Account memory() {
        return server.accounts().of(call.connection());
    }

    /** Resolves a wire handle (NFS3ERR_BADHANDLE, NFS3ERR_STALE). */
    public Target resolve(byte[] fh) throws VfsException {
        return server.exports().resolve(fh);
    }

    /**
     * What the caller may do on {@code export}; NFS3ERR_ACCES when no client rule lets it in,
     * NFS3ERR_PERM when a secure rule does and the call came from an unreserved port (as knfsd
     * answers nfserr_perm).
     */
    public ClientAccess access(NfsExport export) throws Nfs3Exception {
        Optional<ClientRule> rule = export.ruleFor(call.connection().peer().getAddress());
        if (rule.isEmpty()) {
            throw new Nfs3Exception(Nfs3Status.NFS3ERR_ACCES, "client " + call.connection().peer()
                    + " is not allowed on export " + export.config().name());
        }
        if (!ClientAccess.portAllowed(server.exports(), export, rule.get(), call, "NFSv3 procedure "
                + call.procedure())) {
            throw new Nfs3Exception(Nfs3Status.NFS3ERR_PERM, "client " + call.connection().peer()
                    + " called export " + export.config().name() + " from an unreserved port");
        }
        if (!ClientAccess.flavorAllowed(rule.get(), call.credentials())) {
            throw new Nfs3Exception(Nfs3Status.NFS3ERR_ACCES, "client " + call.connection().peer() + " used flavor "
                    + call.credentials().flavor() + ", which export " + export.config().name() + " does not allow it");
        }
        return ClientAccess.of(rule.get(), export.config().readOnly(), call.credentials());
    }

    /** The squashed caller for a call that reads. */
    public Caller reader(Target t) throws Nfs3Exception {
        return access(t.export()).caller();
    }

    /** The squashed caller for a call that changes something; NFS3ERR_ROFS on a read-only rule. */
    public Caller writer(Target t) throws Nfs3Exception {
        ClientAccess a = access(t.export());
        if (!a.writable()) {
            throw new Nfs3Exception(Nfs3Status.NFS3ERR_ROFS, "export " + t.export().config().name()
                    + " is read-only for " + call.connection().peer());
        }
        return a.caller();
    }

    /** The attributes of a file for post_op_attr, or null when they cannot be had. */
    public static FileAttributes attributesOrNull(Target t) {
        if (t == null) {
            return null;
        }
        try {
            return t.fs().getattr(t.handle());
        } catch (VfsException e) {
            return null;
        }
    }

    /** A reply with NFS3_OK written; the procedure writes the resok after it. */
    public XdrEncoder ok() {
        return status(Nfs3Status.NFS3_OK);
    }

    /** A reply with {@code status} written; the procedure writes the resfail after it. */
    public XdrEncoder status(int status) {
        XdrEncoder out = call.success();
        out.writeInt(status);
        return out;
    }

    /** A reply with the status of a failure written. */
    public XdrEncoder fail(Exception e) {
        return status(Nfs3Errors.status(e));
    }
}
