package io.rdmagate.nfs.v4;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.gateway.spi.config.ClientRule;
import io.rdmagate.nfs.ClientAccess;
import io.rdmagate.nfs.ConnectionAccounts;
import io.rdmagate.nfs.NfsExport;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.state.Nfs4State;
import io.rdmagate.nfs.v4.state.Session;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.memory.IoMemoryPool;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One COMPOUND being served (RFC 8881 §16.2, §18.46), and what its operations share: the current
 * and saved filehandles, the current stateid, the session and slot its SEQUENCE took.
 *
 * <p>Operation: the tag, minor version and operation count are read; each operation's number is
 * read and its class runs, writing its result after the operation number and an NFS4_OK status;
 * an operation that throws has what it wrote taken back and its status written instead, and the
 * COMPOUND ends there (§16.2.3). SEQUENCE must come first, except for the operations that may stand
 * alone (§2.10.6.2). The finished reply is kept in the slot for a retry when it fits the session's
 * cached size and carries no DDP payload (the SEQUENCE result is kept always), and the slot is
 * freed. A retry ({@link Nfs4State.Replay}) is answered from the slot without running anything.
 */
public final class Compound {
    private static final Logger LOG = LoggerFactory.getLogger(Compound.class);

    private final Nfs4Server server;
    private final RpcCall call;
    private final ConnectionAccounts accounts;
    private final io.rdmagate.vfs.memory.PayloadCopies copies;
    private final XdrDecoder in;
    private XdrEncoder out;
    private Fh4 current;
    private Fh4 saved;
    private Stateid currentStateid;
    private Nfs4State.NewRequest request;
    private Nfs4State.Replay replay;
    private int opCount;
    private int index;
    private int sequenceStart = -1;
    private int sequenceEnd = -1;
    private int minor;
    /** Where the running operation's status is. */
    private int statusAt;
    /** NFSv4.0: the client the operations named (a clientid, or a stateid of its). */
    private io.rdmagate.nfs.v4.state.ClientRecord named;
    /** NFSv4.0: the owner whose seqid the running operation took, to keep its reply. */
    private io.rdmagate.nfs.v4.state.StateOwner owner40;
    /** NFSv4.0: the status of an operation answered from its owner's kept reply. */
    private int replayed40 = -1;

    private Compound(Nfs4Server server, RpcCall call, ConnectionAccounts accounts,
            io.rdmagate.vfs.memory.PayloadCopies copies) {
        this.server = server;
        this.call = call;
        this.accounts = accounts;
        this.copies = copies;
        this.in = call.decoder();
    }

    static XdrMessage serve(Nfs4Server server, RpcCall call, ConnectionAccounts accounts,
            io.rdmagate.vfs.memory.PayloadCopies copies) throws XdrException {
        return new Compound(server, call, accounts, copies).serve();
    }

    private XdrMessage serve() throws XdrException {
        byte[] tag = in.readOpaque(NFS4_OPAQUE_LIMIT);
        int minor = in.readInt();
        long count = in.readUnsignedInt();
        out = call.success();
        int bodyStart = out.position();
        out.writeInt(NFS4_OK);
        out.writeOpaque(tag);
        int countAt = out.position();
        out.writeInt(0);
        if (minor < server.options().minMinorVersion() || minor > server.options().maxMinorVersion()) {
            return finish(bodyStart, NFS4ERR_MINOR_VERS_MISMATCH, 0, countAt);
        }
        this.minor = minor;
        if (count > server.options().maxOperations()) {
            return finish(bodyStart, NFS4ERR_TOO_MANY_OPS, 0, countAt);
        }
        opCount = (int) count;
        int status = NFS4_OK;
        int done = 0;
        try {
            for (index = 0; index < opCount; index++) {
                int number;
                try {
                    number = in.readInt();
                } catch (XdrException e) {
                    out.writeInt(OP_ILLEGAL);
                    out.writeInt(status = NFS4ERR_BADXDR);
                    done++;
                    break;
                }
                Nfs4Op op = server.operations().get(number, minor);
                out.writeInt(op.number());
                statusAt = out.position();
                out.writeInt(NFS4_OK);
                if (op.number() == OP_SEQUENCE && index == 0) {
                    sequenceStart = statusAt;
                }
                try {
                    checkPosition(op);
                    op.run(this);
                } catch (Nfs4Exception | io.rdmagate.vfs.VfsException | XdrException e) {
                    out.truncate(statusAt);
                    out.writeInt(status = Nfs4Errors.status(e));
                    op.failed(this, e, status);
                    LOG.debug("{} #{} of {}: {}", op.name(), index, call.connection().peer(), e.getMessage());
                } catch (RuntimeException e) {
                    out.truncate(statusAt);
                    out.writeInt(status = NFS4ERR_SERVERFAULT);
                    op.failed(this, e, status);
                    LOG.warn("{} #{} of {} failed", op.name(), index, call.connection().peer(), e);
                }
                if (replayed40 != -1) {
                    status = replayed40;
                    replayed40 = -1;
                } else if (owner40 != null) {
                    owner40.end(status, out.copyRange(statusAt, out.position()), current);
                    owner40 = null;
                }
                if (op.number() == OP_SEQUENCE && index == 0) {
                    sequenceEnd = out.position();
                }
                done++;
                if (replay != null) {
                    return replayed(bodyStart, tag);
                }
                if (status != NFS4_OK) {
                    break;
                }
            }
            return finish(bodyStart, status, done, countAt);
        } catch (RuntimeException | Error e) {
            releaseSlot(null, null);
            if (owner40 != null) {
                owner40.end(NFS4ERR_SERVERFAULT, new byte[4], null);
            }
            throw e;
        }
    }

    /** SEQUENCE first, or one of the operations that may stand alone, alone (RFC 8881 §2.10.6.2). */
    private void checkPosition(Nfs4Op op) throws Nfs4Exception {
        if (minor == MINOR_VERSION_0) {
            return; // NFSv4.0 has no sessions (its SEQUENCE is ILLEGAL)
        }
        if (index == 0) {
            if (op.number() == OP_SEQUENCE || op.number() == OP_ILLEGAL) {
                return;
            }
            if (!op.sessionless()) {
                throw new Nfs4Exception(NFS4ERR_OP_NOT_IN_SESSION, op.name() + " without SEQUENCE");
            }
            if (opCount > 1) {
                throw new Nfs4Exception(NFS4ERR_NOT_ONLY_OP, op.name() + " without SEQUENCE must be alone");
            }
        } else if (op.number() == OP_SEQUENCE) {
            throw new Nfs4Exception(NFS4ERR_SEQUENCE_POS, "SEQUENCE not first");
        }
    }

    private XdrMessage finish(int bodyStart, int status, int done, int countAt) {
        out.patchInt(bodyStart, status);
        out.patchInt(countAt, done);
        if (request != null) {
            byte[] seq = out.copyRange(sequenceStart, sequenceEnd);
            int end = out.position();
            byte[] reply = !out.hasPayload() && end - bodyStart <= request.session().maxCached()
                    ? out.copyRange(bodyStart, end) : null;
            releaseSlot(seq, reply);
        }
        return out.finish();
    }

    private void releaseSlot(byte[] sequenceResult, byte[] reply) {
        if (request != null) {
            server.state().finish(request.slot(), sequenceResult, reply);
            request = null;
        }
    }

    /** A retry of the slot's last request: its kept reply, or its SEQUENCE result and NFS4ERR_RETRY_UNCACHED_REP. */
    private XdrMessage replayed(int bodyStart, byte[] tag) throws XdrException {
        out.discard();
        out = call.success();
        if (replay.reply() != null) {
            out.writeFixedOpaque(replay.reply());
            return out.finish();
        }
        boolean more = opCount > 1;
        out.writeInt(more ? NFS4ERR_RETRY_UNCACHED_REP : NFS4_OK);
        out.writeOpaque(tag);
        out.writeInt(more ? 2 : 1);
        out.writeInt(OP_SEQUENCE);
        out.writeFixedOpaque(replay.sequenceResult());
        if (more) {
            int next = in.hasRemaining() ? in.readInt() : OP_ILLEGAL;
            out.writeInt(server.operations().get(next, minor).number());
            out.writeInt(NFS4ERR_RETRY_UNCACHED_REP);
        }
        return out.finish();
    }

    // ------------------------------------------------------------------ for operations

    public Nfs4Server server() {
        return server;
    }

    public RpcCall call() {
        return call;
    }

    public XdrDecoder in() {
        return in;
    }

    public XdrEncoder out() {
        return out;
    }

    /** The COMPOUND's minor version: 0 (NFSv4.0), 1, or 2 for NFSv4.2's operations and attributes. */
    public int minor() {
        return minor;
    }

    /** Operations in this COMPOUND. */
    public int opCount() {
        return opCount;
    }

    /** The current filehandle; NFS4ERR_NOFILEHANDLE when none was set. */
    public Fh4 current() throws Nfs4Exception {
        if (current == null) {
            throw new Nfs4Exception(NFS4ERR_NOFILEHANDLE, "no current filehandle");
        }
        return current;
    }

    public void current(Fh4 fh) {
        current = fh;
        currentStateid = null;
    }

    /** The current filehandle as a file of an export; {@code pseudoStatus} when it is a pseudo directory. */
    public Target currentFile(int pseudoStatus) throws Nfs4Exception {
        return switch (current()) {
            case Fh4.File f -> f.target();
            case Fh4.Pseudo p -> throw new Nfs4Exception(pseudoStatus, "a directory of the pseudo-filesystem");
        };
    }

    /** The root of the pseudo-filesystem: its root directory, or the export at "/". */
    public Fh4 root() {
        io.rdmagate.nfs.NfsExport e = server.pseudo().rootExport();
        return e != null ? new Fh4.File(new Target(e, e.fs().root())) : new Fh4.Pseudo(server.pseudo().root());
    }

    /** Resolves a wire filehandle (NFS4ERR_BADHANDLE, NFS4ERR_STALE). */
    public Fh4 resolve(byte[] wire) throws io.rdmagate.vfs.VfsException {
        return Fh4.resolve(wire, server.exports(), server.pseudo());
    }

    /** The attributes source of {@code fh}. */
    public Fattr4.Source attributes(Fh4 fh) throws io.rdmagate.vfs.VfsException {
        return Nfs4Attrs.of(fh, server, minor);
    }

    /** The attributes source of a file whose attributes are at hand. */
    public Fattr4.Source attributes(Target t, io.rdmagate.vfs.FileAttributes a) {
        return Nfs4Attrs.of(t, a, server, minor);
    }

    /** The attributes source of a pseudo directory. */
    public Fattr4.Source attributes(Fh4.Pseudo p) {
        return Nfs4Attrs.pseudo(p, server, minor);
    }

    public Fh4 saved() throws Nfs4Exception {
        if (saved == null) {
            throw new Nfs4Exception(NFS4ERR_RESTOREFH, "no saved filehandle");
        }
        return saved;
    }

    public void save() throws Nfs4Exception {
        saved = current();
    }

    /** The stateid the last operation produced, for a stateid of seqid 1 and other zeros (§16.2.3.1.2). */
    public Stateid resolveStateid(Stateid s) throws Nfs4Exception {
        if (!s.isCurrent() || minor == MINOR_VERSION_0) {
            return s;
        }
        if (currentStateid == null) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "no current stateid");
        }
        return currentStateid;
    }

    public void currentStateid(Stateid s) {
        currentStateid = s;
    }

    /** The session SEQUENCE took; only SEQUENCE and the session-less operations run without one. */
    public Session session() throws Nfs4Exception {
        if (request == null) {
            throw new Nfs4Exception(NFS4ERR_OP_NOT_IN_SESSION, "no session");
        }
        return request.session();
    }

    /**
     * Who this COMPOUND's operations are, to the volumes' one state: the session's client, whose own
     * delegations and opens its operations do not recall or run into.
     */
    public Object breaker() {
        return request == null ? named : request.session().client();
    }

    /**
     * The client the operation acts for: the session's; in NFSv4.0, where COMPOUNDs have no
     * session, the one an earlier operation named by clientid or stateid (NFS4ERR_BAD_STATEID when
     * none did).
     */
    public io.rdmagate.nfs.v4.state.ClientRecord client() throws Nfs4Exception {
        if (minor != MINOR_VERSION_0) {
            return session().client();
        }
        if (named == null) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "no client named");
        }
        return named;
    }

    /**
     * The client an operation names by {@code clientId} (an open-owner's, a lock-owner's): the
     * session's, whatever the argument says (RFC 8881 §18.16.3); in NFSv4.0 the confirmed client of
     * that id, its lease renewed (NFS4ERR_STALE_CLIENTID when there is none).
     */
    public io.rdmagate.nfs.v4.state.ClientRecord client(long clientId) throws Nfs4Exception {
        if (minor != MINOR_VERSION_0) {
            return session().client();
        }
        named = server.state().confirmedClient(clientId, server.now());
        return named;
    }

    /** A stateid of {@code c} was used: in NFSv4.0, {@code c} is the client acting, its lease renewed. */
    public void named(io.rdmagate.nfs.v4.state.ClientRecord c) {
        if (minor == MINOR_VERSION_0) {
            named = c;
            server.state().renewed(c, server.now());
        }
    }

    /** The back channel callbacks go on: the session's; null in NFSv4.0 (no callbacks are made to its clients). */
    public io.rdmagate.nfs.v4.state.BackChannel back() throws Nfs4Exception {
        return minor == MINOR_VERSION_0 ? null : session().back();
    }

    /** The largest reply the client takes: the session's; in NFSv4.0, the server's largest. */
    public long maxResponse() throws Nfs4Exception {
        return minor == MINOR_VERSION_0 ? Integer.MAX_VALUE : session().maxResponse();
    }

    /**
     * NFSv4.0 (RFC 7530 §9.1.7): the running operation, whose arguments are all read, is request
     * {@code seqid} of {@code owner}. True: it runs, and its reply is kept for the owner when it
     * ends. False: it is a retransmission of the owner's last request, answered here with the kept
     * reply (and the current filehandle after it); the operation does nothing more.
     */
    public boolean sequence40(io.rdmagate.nfs.v4.state.StateOwner owner, int seqid) throws Nfs4Exception {
        if (!owner.begin(seqid, server.now())) {
            var reply = owner.replay();
            out.truncate(statusAt);
            out.writeFixedOpaque(reply.result());
            if (reply.currentFh() != null) {
                current = (Fh4) reply.currentFh();
            }
            replayed40 = reply.status();
            return false;
        }
        owner40 = owner;
        return true;
    }

    /** What SEQUENCE found: the slot this COMPOUND holds, or a retry to answer from it. */
    public void sequenced(Nfs4State.SequenceOutcome outcome) {
        switch (outcome) {
            case Nfs4State.NewRequest r -> request = r;
            case Nfs4State.Replay r -> replay = r;
        }
    }

    /**
     * What the caller may do on {@code export}: NFS4ERR_ACCESS when no client rule lets it in,
     * NFS4ERR_PERM when a secure rule does and the call came from an unreserved port.
     */
    public ClientAccess access(NfsExport export) throws Nfs4Exception {
        Optional<ClientRule> rule = export.ruleFor(call.connection().peer().getAddress());
        if (rule.isEmpty()) {
            throw new Nfs4Exception(NFS4ERR_ACCESS, "client " + call.connection().peer()
                    + " is not allowed on export " + export.config().name());
        }
        if (!ClientAccess.portAllowed(server.exports(), export, rule.get(), call, "NFSv4 COMPOUND")) {
            throw new Nfs4Exception(NFS4ERR_PERM, "unreserved port");
        }
        if (!ClientAccess.flavorAllowed(rule.get(), call.credentials())) {
            // RFC 8881 2.6.3.1: the client asks SECINFO for the flavors the export takes
            throw new Nfs4Exception(Nfs4.NFS4ERR_WRONGSEC, "flavor " + call.credentials().flavor()
                    + " on export " + export.config().name());
        }
        return ClientAccess.of(rule.get(), export.config().readOnly(), call.credentials());
    }

    /** Whether the caller may see {@code export} at all (the pseudo-filesystem shows only those). */
    public boolean visible(NfsExport export) {
        return export.ruleFor(call.connection().peer().getAddress()).isPresent();
    }

    public Caller reader(Target t) throws Nfs4Exception {
        return access(t.export()).caller();
    }

    /** The caller for an operation that changes {@code t}'s export; NFS4ERR_ROFS on a read-only rule. */
    public Caller writer(Target t) throws Nfs4Exception {
        ClientAccess a = access(t.export());
        if (!a.writable()) {
            throw new Nfs4Exception(NFS4ERR_ROFS, "export " + t.export().config().name() + " is read-only for "
                    + call.connection().peer());
        }
        return a.caller();
    }

    /** Where payload copies are counted. */
    public io.rdmagate.vfs.memory.PayloadCopies copies() {
        return copies;
    }

    /** The pool account of the connection this call came on. */
    public IoMemoryPool.Account memory() {
        return accounts.of(call.connection());
    }
}
