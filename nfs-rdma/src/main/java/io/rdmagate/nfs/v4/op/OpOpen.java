package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.ClientAccess;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fattr4;
import io.rdmagate.nfs.v4.Fh4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Delegation;
import io.rdmagate.nfs.v4.state.OpenState;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.nfs.v4.state.StateOwner;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.CreateMode;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 8881 §18.16 OPEN: args seqid, share access, share deny, open-owner, openflag4, open_claim4;
 * resok stateid, change_info4, rflags, attrset, delegation.
 *
 * <p>A regular file is opened by name in the current directory (CLAIM_NULL) or as the
 * current filehandle (CLAIM_FH). The caller must be allowed what it asks (read, write); a read-only
 * client rule refuses write access; an SMB open whose share mode denies it is NFS4ERR_SHARE_DENIED,
 * and what SMB clients and other NFSv4.1 clients cache of the file is recalled first, as for an
 * NFSv3 access (the volume's one state, until the open is in the table). The open-owner's clientid
 * is the session's (§18.16.3). The file becomes the current filehandle, the open's stateid the
 * current stateid.
 *
 * <p>A read-only open of a client whose back channel is up gets a read delegation (§10.4) when
 * nobody has the file open for writing or is changing it, an open for writing a write delegation
 * when nobody else has it open, and neither when it was recalled a moment ago
 * ({@link io.rdmagate.nfs.v4.state.Delegations}); a client that said it wants none
 * (OPEN4_SHARE_ACCESS_WANT_NO_DELEG) gets none, one that asked for one and gets none is told why
 * (OPEN_DELEGATE_NONE_EXT). While a delegation is recalled, its client turns the opens it made
 * locally into real ones with CLAIM_DELEG_CUR_FH or CLAIM_DELEGATE_CUR, naming the delegation.
 *
 * <p>OPEN4_CREATE creates as NFSv3 CREATE does (UNCHECKED4, GUARDED4, and EXCLUSIVE4/EXCLUSIVE4_1
 * with the verifier kept by the vfs); the attributes given are set and reported in attrset.
 *
 * <p>After a restart, clients of the previous run reclaim their opens with CLAIM_PREVIOUS during the
 * grace period (RFC 8881 §8.4.2); every other OPEN is NFS4ERR_GRACE until it ends. A reclaim that
 * names the delegation its client held (delegate_type, §18.16.1) gets that delegation back when it
 * could be granted now: its session has a back channel not known to be down (its probe may still
 * be on its way) and no other client or protocol uses the file in conflict (NFSv3 and SMB do not wait for the grace period). Otherwise the reclaim gets the
 * open alone and the client writes back what it kept under the delegation, as it does for one
 * recalled. CLAIM_DELEGATE_PREV and CLAIM_DELEG_PREV_FH (a client's own restart) are NFS4ERR_NOTSUPP.
 *
 * <p>NFSv4.0 (RFC 7530 §16.16): the open-owner is the confirmed client's that its clientid names,
 * and its seqid orders the request ({@link Compound#sequence40}); a new owner's first open asks for
 * OPEN_CONFIRM (OPEN4_RESULT_CONFIRM). NFSv4.0 has CLAIM_NULL, CLAIM_PREVIOUS and the delegation
 * claims, no delegation wants, and gets no delegation (this server makes no NFSv4.0 callbacks).
 */
public final class OpOpen extends Nfs4Op {
    public OpOpen() {
        super(OP_OPEN, "OPEN");
    }

    /** What OPEN4_CREATE asks: how, the attributes, the exclusive-create verifier. */
    private record Create(CreateMode mode, Fattr4.Settable attrs, long verifier) {
    }

    /**
     * open_claim4, read whole before anything is done: an NFSv4.0 retransmission is answered from
     * its owner's kept reply, past its arguments. The name stays bytes until it is used.
     */
    private record Claim(int type, byte[] name, Stateid delegation, int delegateType) {
        static Claim read(XdrDecoder in, int minor) throws XdrException, Nfs4Exception {
            int type = in.readInt();
            if (minor == MINOR_VERSION_0 && type > CLAIM_DELEGATE_PREV) {
                throw new Nfs4Exception(NFS4ERR_BADXDR, "claim " + type + " is NFSv4.1's");
            }
            return switch (type) {
                case CLAIM_NULL, CLAIM_DELEGATE_PREV -> new Claim(type, in.readOpaque(NFS4_OPAQUE_LIMIT), null, 0);
                case CLAIM_FH, CLAIM_DELEG_PREV_FH -> new Claim(type, null, null, 0);
                case CLAIM_PREVIOUS -> new Claim(type, null, null, in.readInt());
                case CLAIM_DELEG_CUR_FH -> new Claim(type, null, Stateid.read(in), 0);
                case CLAIM_DELEGATE_CUR -> {
                    Stateid d = Stateid.read(in);
                    yield new Claim(type, in.readOpaque(NFS4_OPAQUE_LIMIT), d, 0);
                }
                default -> throw new Nfs4Exception(NFS4ERR_INVAL, "claim " + type);
            };
        }
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        int seqid = in.readInt(); // NFSv4.0's open-owner orders its requests by it; NFSv4.1 by the slot
        int shareAccess = in.readInt();
        int shareDeny = in.readInt();
        long clientId = in.readHyper(); // the owner's clientid: NFSv4.1 uses the session's (§18.16.3)
        byte[] owner = in.readOpaque(NFS4_OPAQUE_LIMIT);
        int openType = in.readInt();
        Create create = switch (openType) {
            case OPEN4_NOCREATE -> null;
            case OPEN4_CREATE -> readCreate(in, c.server().idmap());
            default -> throw new Nfs4Exception(NFS4ERR_INVAL, "opentype " + openType);
        };
        Claim claim = Claim.read(in, c.minor());
        var client = c.client(clientId);
        StateOwner owner40 = c.minor() == MINOR_VERSION_0
                ? c.server().state().openOwner(client, owner, seqid, c.server().now()) : null;
        if (owner40 != null && !c.sequence40(owner40, seqid)) {
            return; // a retransmission, answered from the owner's last reply
        }
        if (create != null && claim.type() != CLAIM_NULL) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "OPEN4_CREATE with claim " + claim.type());
        }
        int access = shareAccess & ~OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
        int wants = shareAccess & OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
        if (access < OPEN4_SHARE_ACCESS_READ || access > OPEN4_SHARE_ACCESS_BOTH
                || shareDeny < OPEN4_SHARE_DENY_NONE || shareDeny > OPEN4_SHARE_DENY_BOTH
                || (wants != 0 && c.minor() == MINOR_VERSION_0)) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "share access " + shareAccess + " deny " + shareDeny);
        }
        if (claim.type() != CLAIM_PREVIOUS && claim.type() != CLAIM_DELEGATE_CUR
                && claim.type() != CLAIM_DELEG_CUR_FH) {
            c.server().state().notInGrace(c.server().now()); // reclaims come first after a restart
        }
        long[] cinfo = new long[2];
        int[] attrset = new int[0];
        int reclaimDelegation = OPEN_DELEGATE_NONE;
        Target file = switch (claim.type()) {
            case CLAIM_NULL -> {
                String name = Names4.check(claim.name());
                Target dir = Dirs.directory(c.current());
                cinfo[0] = ChangeInfo.of(dir);
                Target t;
                if (create == null) {
                    t = new Target(dir.export(), dir.fs().lookup(c.reader(dir), dir.handle(), name).handle());
                } else {
                    t = create(c, dir, name, create);
                    attrset = create.attrs().bitmap();
                }
                cinfo[1] = ChangeInfo.of(dir);
                if (cinfo[1] != cinfo[0]) {
                    dir.stable(); // the file was created
                }
                yield t;
            }
            case CLAIM_FH -> c.currentFile(NFS4ERR_ISDIR);
            case CLAIM_PREVIOUS -> {
                reclaimDelegation = claim.delegateType(); // the delegation held before the restart
                if (reclaimDelegation != OPEN_DELEGATE_NONE && reclaimDelegation != OPEN_DELEGATE_READ
                        && reclaimDelegation != OPEN_DELEGATE_WRITE) {
                    throw new Nfs4Exception(NFS4ERR_INVAL, "delegate_type " + reclaimDelegation);
                }
                c.server().state().mayReclaim(client, c.server().now());
                yield c.currentFile(NFS4ERR_ISDIR);
            }
            case CLAIM_DELEG_CUR_FH -> {
                Target t = c.currentFile(NFS4ERR_ISDIR);
                c.server().state().delegations().find(c.resolveStateid(claim.delegation()), client, t);
                yield t;
            }
            case CLAIM_DELEGATE_CUR -> {
                String name = Names4.check(claim.name());
                Target dir = Dirs.directory(c.current());
                Target t = new Target(dir.export(), dir.fs().lookup(c.reader(dir), dir.handle(), name).handle());
                c.server().state().delegations().find(c.resolveStateid(claim.delegation()), client, t);
                yield t;
            }
            default -> throw new Nfs4Exception(NFS4ERR_NOTSUPP, "delegations are not reclaimed after a restart");
        };
        FileAttributes a = file.fs().getattr(file.handle());
        switch (a.type()) {
            case REGULAR -> {
            }
            case DIRECTORY -> throw new Nfs4Exception(NFS4ERR_ISDIR, "OPEN of a directory");
            case SYMLINK -> throw new Nfs4Exception(NFS4ERR_SYMLINK, "OPEN of a symlink");
            default -> throw new Nfs4Exception(NFS4ERR_WRONG_TYPE, "OPEN of a " + a.type());
        }
        ClientAccess who = c.access(file.export());
        boolean write = (access & OPEN4_SHARE_ACCESS_WRITE) != 0;
        if (write && !who.writable()) {
            throw new Nfs4Exception(NFS4ERR_ROFS, "export is read-only for this client");
        }
        int want = ((access & OPEN4_SHARE_ACCESS_READ) != 0 ? VirtualFileSystem.ACCESS_READ : 0)
                | (write ? VirtualFileSystem.ACCESS_MODIFY : 0);
        if ((file.fs().access(who.caller(), file.handle(), want) & want) != want && a.uid() != who.caller().uid()) {
            throw new Nfs4Exception(NFS4ERR_ACCESS, "mode bits refuse the open");
        }
        // until the open is in the table, a delegation granted meanwhile sees the change in progress
        int use = file.begin(write ? Conflict.WRITE : Conflict.READ, c.breaker());
        OpenState o;
        try {
            o = c.server().state().open(client, owner, owner40, file, access, shareDeny);
        } finally {
            file.end(use);
        }
        Delegation d = claim.type() == CLAIM_NULL || claim.type() == CLAIM_FH ? delegate(c, file, access, wants)
                : reclaimDelegation != OPEN_DELEGATE_NONE && mayCallBack(c)
                        ? grantUncontended(c, file, reclaimDelegation == OPEN_DELEGATE_WRITE) : null;
        XdrEncoder out = c.out();
        o.stateid().write(out);
        new ChangeInfo(claim.type() == CLAIM_NULL ? cinfo[0] : a.changeId(), claim.type() == CLAIM_NULL ? cinfo[1] : a.changeId())
                .write(out);
        // §20.11: blocked locks of this client are told when they may be free, when it can be called;
        // RFC 7530 §16.16.5: an NFSv4.0 owner's first open is confirmed before it is used
        var back = c.back();
        out.writeInt(OPEN4_RESULT_LOCKTYPE_POSIX | (back != null && back.granted() ? OPEN4_RESULT_MAY_NOTIFY_LOCK : 0)
                | (owner40 != null && !owner40.confirmed() ? OPEN4_RESULT_CONFIRM : 0));
        Fattr4.writeBitmap(out, attrset);
        if (d != null) {
            out.writeInt(d.type());
            d.stateid().write(out);
            out.writeBool(false); // recall: not being recalled
            if (d.writes()) {
                // space_limit (§10.4.1), a size of 0 as knfsd gives: a client may not keep writes
                // beyond it without flushing, so the Linux client writes back and waits on every
                // close (nfs4_delegation_flush_on_close). Close-to-open then holds for the host and
                // every other client, write errors (ENOSPC) reach close(2), and no writeback still
                // in flight keeps the file busy when it is removed right after (a silly rename).
                out.writeInt(NFS_LIMIT_SIZE).writeHyper(0L);
            }
            // permissions: ACE4_ACCESS_ALLOWED_ACE_TYPE, no flags, no mask: the client asks ACCESS itself
            out.writeInt(0).writeInt(0).writeInt(0).writeOpaque(new byte[0]);
        } else if (wants == OPEN4_SHARE_ACCESS_WANT_NO_PREFERENCE) {
            out.writeInt(OPEN_DELEGATE_NONE);
        } else {
            out.writeInt(OPEN_DELEGATE_NONE_EXT); // §18.16.3: the client said what it wants; why it got none
            if (wants == OPEN4_SHARE_ACCESS_WANT_NO_DELEG || wants == OPEN4_SHARE_ACCESS_WANT_CANCEL) {
                out.writeInt(wants == OPEN4_SHARE_ACCESS_WANT_NO_DELEG ? WND4_NOT_WANTED : WND4_CANCELLED);
            } else {
                out.writeInt(WND4_CONTENTION);
                out.writeBool(false); // ond_server_will_push_deleg
            }
        }
        c.current(new Fh4.File(file));
        c.currentStateid(o.stateid());
    }

    /**
     * A delegation for this open, or null: for a client whose back channel is up and that did not
     * refuse one; a read delegation for a read-only open of a file nobody writes (no NFSv4.1 open
     * for writing, no other protocol's, no change in progress), a write delegation for an open for
     * writing of a file nobody else has open. Checked after the delegation is in the table, so
     * that a conflicting operation that starts meanwhile either is seen here or recalls it.
     */
    private static Delegation delegate(Compound c, Target file, int access, int wants) throws Nfs4Exception {
        boolean write = (access & OPEN4_SHARE_ACCESS_WRITE) != 0;
        if (wants == OPEN4_SHARE_ACCESS_WANT_NO_DELEG || wants == OPEN4_SHARE_ACCESS_WANT_CANCEL
                || (wants == OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG && !write)
                || (wants == OPEN4_SHARE_ACCESS_WANT_READ_DELEG && write) || c.back() == null || !c.back().pathUp()) {
            return null;
        }
        return grantUncontended(c, file, write);
    }

    /**
     * Whether a reclaimed delegation can be recalled: the session has a back channel that is not
     * known to be down. A client reclaims right after CREATE_SESSION, often before it has answered
     * the probe (CB_NULL) of its new back channel; a path that then fails the probe is reported
     * by SEQUENCE, and a recall that cannot be sent revokes the delegation after a lease.
     */
    private static boolean mayCallBack(Compound c) throws Nfs4Exception {
        var back = c.back();
        return back != null && back.granted() && !back.pathDown();
    }

    /**
     * A read or write delegation of the file for the session's client, or null when the table
     * refuses one or the file is contended: for a read delegation, someone writes it; for a write
     * delegation, someone else has it open.
     */
    private static Delegation grantUncontended(Compound c, Target file, boolean write) throws Nfs4Exception {
        var state = c.server().state();
        var client = c.client();
        Delegation d = state.delegations().grant(client, file, write ? OPEN_DELEGATE_WRITE : OPEN_DELEGATE_READ);
        if (d == null) {
            return null;
        }
        var states = file.fs().states();
        long fileId = file.handle().fileId();
        int volumeId = file.handle().volumeId();
        // a read delegation: nobody writes; a write delegation: nobody else has it open
        boolean contended = write
                ? state.opened(volumeId, fileId, false, client) || states.opened(file.handle(), c.server().shared(), false)
                : state.opened(volumeId, fileId, true, null) || states.opened(file.handle(), c.server().shared(), true);
        if (contended) {
            state.delegations().withdraw(d);
            return null;
        }
        states.cached(file.handle()); // changes made outside the gateway recall it too
        d.ended().thenRunAsync(() -> states.uncached(fileId), Thread::startVirtualThread); // not in the ender's monitor
        return d;
    }

    /** createhow4: UNCHECKED4 and GUARDED4 with attributes, EXCLUSIVE4 with a verifier, EXCLUSIVE4_1 with both. */
    private static Create readCreate(XdrDecoder in, io.rdmagate.nfs.v4.IdMap ids) throws XdrException, Nfs4Exception {
        int how = in.readInt();
        return switch (how) {
            case 0 -> new Create(CreateMode.UNCHECKED, Fattr4.readSettable(in, ids), 0);
            case 1 -> new Create(CreateMode.GUARDED, Fattr4.readSettable(in, ids), 0);
            case 2 -> new Create(CreateMode.EXCLUSIVE, new Fattr4.Settable(SetAttributes.NONE, new int[0]), in.readHyper());
            case 3 -> {
                long verifier = in.readHyper();
                yield new Create(CreateMode.EXCLUSIVE, Fattr4.readSettable(in, ids), verifier);
            }
            default -> throw new Nfs4Exception(NFS4ERR_INVAL, "createmode4 " + how);
        };
    }

    /**
     * Creates (or, UNCHECKED4, finds) the file as NFSv3 CREATE does; an exclusive create's attributes
     * are set after it, as a retransmission must find the file the verifier names unchanged.
     */
    private static Target create(Compound c, Target dir, String name, Create how) throws Nfs4Exception, VfsException {
        Caller caller = c.writer(dir);
        int use = dir.begin(name, Conflict.WRITE, c.breaker()); // UNCHECKED over an existing file sets its attributes (size 0 truncates)
        try {
            SetAttributes attrs = how.attrs().attributes();
            boolean exclusive = how.mode() == CreateMode.EXCLUSIVE;
            Node n = dir.fs().create(caller, dir.handle(), name, how.mode(), exclusive ? SetAttributes.NONE : attrs,
                    how.verifier());
            Target t = new Target(dir.export(), n.handle());
            if (exclusive && !attrs.isEmpty()) {
                t.fs().setattr(caller, t.handle(), attrs);
            }
            return t;
        } finally {
            dir.end(use);
        }
    }
}
