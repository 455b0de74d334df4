package io.rdmagate.smb.server.command;

import io.rdmagate.smb.msdtyp.Inheritance;
import io.rdmagate.smb.msdtyp.SecurityDescriptor;
import io.rdmagate.smb.msdtyp.Sid;
import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msfscc.FileInfo;
import io.rdmagate.smb.msfscc.FullEaInformation;
import io.rdmagate.smb.msfscc.ShortNames;
import io.rdmagate.smb.mssmb2.CreateContext;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.smb.mssmb2.Smb2Create;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Lease;
import io.rdmagate.smb.server.Access;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.ExtendedAttributes;
import io.rdmagate.smb.server.Files;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.OpenTable;
import io.rdmagate.smb.server.Oplocks;
import io.rdmagate.smb.server.Reply;
import io.rdmagate.smb.server.Security;
import io.rdmagate.smb.server.SmbConnection;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.smb.server.SmbSession;
import io.rdmagate.smb.server.StatusMap;
import io.rdmagate.smb.server.SrvsvcPipe;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.CreateMode;
import io.rdmagate.vfs.DosAttributes;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * CREATE (MS-SMB2 3.3.5.9, MS-FSA 2.1.5.1): resolves the path from the share root, applies the
 * create disposition and options, enforces share access across every open of the file, and
 * answers the MxAc and QFid create contexts. Oplocks are granted and other opens' oplocks broken
 * as {@link Oplocks} decides; a CREATE whose break is not acknowledged within 50 ms answers
 * STATUS_PENDING and completes when it is (or when the break times out). Leases (RqLs v1/v2) are
 * granted the same way and answered with their response context. Durable handles (DHnQ, DH2Q) are
 * granted and reconnected (DHnC, DH2C) as {@link DurableHandles} decides.
 */
public final class Create implements Command {
    static final int CANNOT_DELETE = 0xC0000121;

    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException, VfsException {
        Smb2Create.Request req = Smb2Create.decode(c.msg);
        if (c.tree.ipc()) {
            openPipe(c, req);
            return;
        }
        DurableHandles.Ask durable = DurableHandles.ask(c, req);
        if (durable.isReconnect()) {
            DurableHandles.reconnect(c, req, durable); // MS-SMB2 3.3.5.9.7, 3.3.5.9.12
            return;
        }
        req.validate();
        Open replayed = DurableHandles.replay(c, durable);
        if (replayed != null) {
            c.setCompoundFileId(replayed.fileId());
            DurableHandles.answer(c, replayed);
            return;
        }
        int options = req.options();
        if ((options & Smb2Create.FILE_DIRECTORY_FILE) != 0 && (options & Smb2Create.FILE_NON_DIRECTORY_FILE) != 0) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "both DIRECTORY_FILE and NON_DIRECTORY_FILE");
        }
        if ((options & Smb2Create.FILE_OPEN_BY_FILE_ID) != 0) {
            throw new SmbException(NtStatus.NOT_SUPPORTED, "open by file id");
        }
        if (req.name().startsWith("\\")) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "CREATE name with a leading backslash"); // 3.3.5.9
        }
        Plan p = plan(c, req, durable, 0);
        OpenTable.Admission a = p.admit(c);
        long inline = Math.min(INLINE_WAIT_NANOS, c.server.oplocks().timeoutNanos());
        while (a.open() == null) {
            if (a.vanished()) {
                p = p.again(c, req);
                a = p.admit(c);
                continue;
            }
            // MS-FSA 2.1.5.1.2: the open waits for the oplock break it caused
            if (!await(c, a.pending(), inline)) {
                if (c.lastInCompound() && c.conn.mayGoAsync()) {
                    goAsync(c, req, p, a.pending());
                    return;
                }
                // inside a compound, or with maxAsyncRequests pending: wait in place, up to the break's deadline
                await(c, a.pending(), Long.MAX_VALUE);
            }
            p.waited = true;
            a = p.admit(c);
        }
        c.setCompoundFileId(a.open().fileId());
        p.finish(c, c.reply, a);
    }

    /** How often a CREATE looks its name up again when the file it found was deleted before it was opened. */
    static final int MAX_REPLANS = 3;

    /**
     * Looks the name up and decides what to do with it. A file deleted between the lookup and the
     * attempt to open it (its handle went stale) is looked up again: the name is then free.
     */
    private static Plan plan(Ctx c, Smb2Create.Request req, DurableHandles.Ask durable, int replans)
            throws SmbException, VfsException, Smb2DecodeException {
        for (int attempt = replans; ; attempt++) {
            long lookedUp = c.server.opens().deletions();
            try {
                Plan p = lookUp(c, req, lookedUp);
                p.durable = durable;
                p.replans = attempt;
                return p;
            } catch (VfsException e) {
                if (e.error() != VfsError.STALE || attempt >= MAX_REPLANS) {
                    throw e;
                }
            }
        }
    }

    /** MS-SMB2 3.3.5.9, MS-FSA 2.1.5.1: resolves the name, applies the disposition, checks access. */
    private static Plan lookUp(Ctx c, Smb2Create.Request req, long lookedUp)
            throws SmbException, VfsException, Smb2DecodeException {
        int options = req.options();
        List<String> comps = Files.split(req.name());
        VirtualFileSystem vfs = c.tree.share().vfs();
        Caller caller = c.session.caller();
        FileHandle root = c.tree.root();
        boolean readOnly = c.tree.maximalAccess() == Access.READ_ONLY_MAXIMAL;
        if ((req.desiredAccess() & Access.ACCESS_SYSTEM_SECURITY) != 0 && !caller.isSuperuser()) {
            // MS-FSA 2.1.5.1.2.1: the SACL is the superuser's, as SeSecurityPrivilege makes it an administrator's
            throw new SmbException(NtStatus.PRIVILEGE_NOT_HELD, "ACCESS_SYSTEM_SECURITY");
        }
        int desired = Access.map(req.desiredAccess(), c.tree.maximalAccess());
        int disposition = req.disposition();
        if (readOnly && ((desired & Access.WRITE_BITS) != 0 || disposition != Smb2Create.FILE_OPEN)) {
            if (disposition != Smb2Create.FILE_OPEN && disposition != Smb2Create.FILE_OPEN_IF
                    || (desired & Access.WRITE_BITS) != 0) {
                throw new SmbException(NtStatus.ACCESS_DENIED, "read-only share");
            }
        }
        FileHandle parent;
        String name;
        Node existing;
        if (comps.isEmpty()) {
            parent = root;
            name = "";
            existing = new Node(root, vfs.getattr(root));
        } else {
            name = comps.getLast();
            try {
                parent = comps.size() == 1 ? root : directory(vfs, caller, root, comps);
                if (vfs.getattr(parent).type() != FileType.DIRECTORY) {
                    throw new SmbException(NtStatus.OBJECT_PATH_NOT_FOUND, "parent of " + req.name() + " is a file");
                }
            } catch (VfsException e) {
                if (e.error() == VfsError.NOT_FOUND || e.error() == VfsError.NOT_DIRECTORY) {
                    throw new SmbException(NtStatus.OBJECT_PATH_NOT_FOUND, "no directory for " + req.name());
                }
                throw e;
            }
            existing = lookup(vfs, caller, parent, name);
        }
        int action;
        Node node;
        boolean truncate = false;
        SecurityDescriptor sd = null; // the file's stored descriptor, read once for every check of this CREATE
        List<FullEaInformation.Ea> eas = null; // SMB2_CREATE_EA_BUFFER's, for a file this CREATE makes
        if (existing != null) {
            boolean dir = existing.attributes().type() == FileType.DIRECTORY;
            switch (disposition) {
                case Smb2Create.FILE_CREATE -> throw new SmbException(NtStatus.OBJECT_NAME_COLLISION, req.name() + " exists");
                case Smb2Create.FILE_OPEN, Smb2Create.FILE_OPEN_IF -> action = Smb2Create.FILE_OPENED;
                case Smb2Create.FILE_OVERWRITE, Smb2Create.FILE_OVERWRITE_IF -> {
                    action = Smb2Create.FILE_OVERWRITTEN;
                    truncate = true;
                }
                default -> {
                    action = Smb2Create.FILE_SUPERSEDED;
                    truncate = true;
                }
            }
            if ((options & Smb2Create.FILE_DIRECTORY_FILE) != 0 && !dir) {
                throw new SmbException(NtStatus.NOT_A_DIRECTORY, req.name() + " is a file");
            }
            if ((options & Smb2Create.FILE_NON_DIRECTORY_FILE) != 0 && dir) {
                throw new SmbException(NtStatus.FILE_IS_A_DIRECTORY, req.name() + " is a directory");
            }
            if (truncate && dir) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "overwrite of a directory");
            }
            int hiddenSystem = DosAttributes.HIDDEN | DosAttributes.SYSTEM;
            if (truncate && (existing.attributes().dosAttributes() & hiddenSystem & ~req.fileAttributes()) != 0) {
                // MS-FSA 2.1.5.1.2.1: overwriting a hidden or system file must say so
                throw new SmbException(NtStatus.ACCESS_DENIED, "overwrite of a hidden or system file without the attribute");
            }
            sd = Security.stored(vfs, existing.handle());
            desired = grant(vfs, caller, parent, existing, sd, req.desiredAccess(), desired,
                    truncate ? Access.FILE_WRITE_DATA : 0, c.tree.maximalAccess());
            node = existing;
        } else {
            if (disposition == Smb2Create.FILE_OPEN || disposition == Smb2Create.FILE_OVERWRITE) {
                throw new SmbException(NtStatus.OBJECT_NAME_NOT_FOUND, req.name() + " does not exist");
            }
            if (readOnly) {
                throw new SmbException(NtStatus.ACCESS_DENIED, "read-only share");
            }
            // FSCTL_SET_SPARSE sets SPARSE_FILE; READONLY goes along so that the write bits stay cleared
            int dos = req.fileAttributes() & DosAttributes.KEPT & ~DosAttributes.SPARSE_FILE;
            if ((options & Smb2Create.FILE_DIRECTORY_FILE) == 0) {
                dos |= DosAttributes.ARCHIVE; // MS-FSA 2.1.5.1.1: a new file is marked for archiving
            }
            SetAttributes attrs = SetAttributes.create();
            if (dos != 0) {
                attrs.dosAttributes(dos);
            }
            boolean mkdir = (options & Smb2Create.FILE_DIRECTORY_FILE) != 0;
            if (mkdir && (req.fileAttributes() & DosAttributes.TEMPORARY) != 0) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "a temporary directory"); // MS-FSA 2.1.5.1.1
            }
            if ((options & Smb2Create.FILE_DELETE_ON_CLOSE) != 0 && (req.fileAttributes() & DosAttributes.READONLY) != 0) {
                throw new SmbException(CANNOT_DELETE, "a read-only " + name + " cannot be deleted on close"); // MS-FSA 2.1.5.1.1
            }
            CreateContext secd = req.context(CreateContext.SECD);
            SecurityDescriptor supplied = secd == null ? null : SecurityDescriptor.read(secd.data()); // before anything is made
            eas = eaBuffer(req);
            SecurityDescriptor parentSd = Security.stored(vfs, parent);
            if (parentSd != null && (Security.granted(parentSd, caller) & (mkdir ? FILE_ADD_SUBDIRECTORY : FILE_ADD_FILE)) == 0) {
                throw new SmbException(NtStatus.ACCESS_DENIED, "the directory's DACL refuses adding " + name);
            }
            if (mkdir) {
                node = vfs.mkdir(caller, parent, name, attrs.mode(0755));
            } else {
                node = vfs.create(caller, parent, name, CreateMode.GUARDED,
                        attrs.mode((req.fileAttributes() & DosAttributes.READONLY) != 0 ? 0444 : 0644), 0);
            }
            sd = inherit(c, parentSd, supplied, node, mkdir);
            if (sd != null) {
                node = new Node(node.handle(), vfs.getattr(node.handle()));
            }
            action = Smb2Create.FILE_CREATED;
        }
        boolean dir = node.attributes().type() == FileType.DIRECTORY;
        boolean deleteOnClose = (options & Smb2Create.FILE_DELETE_ON_CLOSE) != 0;
        if (deleteOnClose) {
            if ((desired & Access.DELETE) == 0) {
                throw new SmbException(NtStatus.ACCESS_DENIED, "delete-on-close without DELETE access");
            }
            if ((node.attributes().dosAttributes() & DosAttributes.READONLY) != 0) {
                throw new SmbException(CANNOT_DELETE, req.name() + " is read-only");
            }
            if (sd == null) {
                requireMayDelete(vfs, caller, parent, node.attributes()); // a stored descriptor decided DELETE above
            }
        }
        Plan p = new Plan(vfs, caller, node, dir, desired, req.shareAccess(), parent, name, String.join("\\", comps),
                truncate, deleteOnClose, action, req.context(CreateContext.MXAC) != null,
                req.context(CreateContext.QFID) != null,
                new Oplocks.Request(req.oplockLevel(), desired, req.shareAccess(), disposition, deleteOnClose, c.conn.clientGuid,
                        leaseRequest(c, req)), existing != null ? lookedUp : -1);
        p.overwriteAttributes = req.fileAttributes();
        p.mode = options & Smb2Create.OPEN_MODE;
        p.descriptor = sd;
        p.eas = truncate && eas == null ? eaBuffer(req) : eas;
        return p;
    }

    /**
     * MS-SMB2 3.3.5.9.8 and 3.3.5.9.11: a lease request counts when the client asked for the lease
     * level on a dialect that has leases; v2 contexts only on 3.x.
     */
    private static Smb2Lease.Request leaseRequest(Ctx c, Smb2Create.Request req) throws Smb2DecodeException {
        if (req.oplockLevel() != Smb2Create.OPLOCK_LEVEL_LEASE || c.conn.dialect() == Smb2Dialect.SMB_2_0_2) {
            return null;
        }
        CreateContext rq = req.context(CreateContext.RQLS);
        return rq == null ? null : Smb2Lease.decode(rq.data(), Smb2Dialect.is3(c.conn.dialect()));
    }

    /** How long a CREATE waits for an oplock acknowledgment before answering STATUS_PENDING (MS-SMB2 3.3.4.2). */
    static final long INLINE_WAIT_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50);

    private static boolean await(Ctx c, Oplocks.Wait w, long nanos) throws SmbException {
        try {
            return c.server.oplocks().await(w, nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SmbException(NtStatus.CANCELLED, "interrupted while an oplock breaks");
        }
    }

    /** Answers STATUS_PENDING now and completes the CREATE once the break is resolved (MS-SMB2 3.3.4.2). */
    private static void goAsync(Ctx c, Smb2Create.Request req, Plan first, Oplocks.Wait firstWait) throws SmbException {
        SmbConnection.AsyncOp op = c.conn.goAsync(c);
        op.onCancel(() -> op.complete(r -> r.status(NtStatus.CANCELLED)));
        Thread.ofVirtual().name("smb-create-oplock").start(() -> {
            Oplocks.Wait w = firstWait;
            Plan p = first;
            try {
                while (true) {
                    c.server.oplocks().await(w, Long.MAX_VALUE);
                    if (op.done()) {
                        return; // cancelled, or the connection went away
                    }
                    if (c.session.state() != SmbSession.State.VALID) {
                        op.complete(r -> r.status(NtStatus.USER_SESSION_DELETED));
                        return;
                    }
                    p.waited = true;
                    OpenTable.Admission a = p.admit(c);
                    while (a.vanished()) {
                        p = p.again(c, req);
                        a = p.admit(c);
                    }
                    if (a.open() == null) {
                        w = a.pending();
                        continue;
                    }
                    Reply out = new Reply();
                    try {
                        p.finish(c, out, a);
                    } catch (SmbException | VfsException e) {
                        int st = e instanceof SmbException se ? se.status() : StatusMap.of(((VfsException) e).error());
                        op.complete(r -> r.status(st));
                        return;
                    }
                    if (!op.complete(r -> r.copyOf(out))) {
                        Close.closeOpen(c.server, a.open());
                    }
                    return;
                }
            } catch (SmbException e) {
                op.complete(r -> r.status(e.status()));
            } catch (VfsException e) {
                op.complete(r -> r.status(StatusMap.of(e.error())));
            } catch (Smb2DecodeException e) {
                op.complete(r -> r.status(NtStatus.INVALID_PARAMETER)); // decoded once already: not expected
            } catch (InterruptedException e) {
                op.complete(r -> r.status(NtStatus.CANCELLED));
            } catch (RuntimeException e) {
                op.complete(r -> r.status(NtStatus.INTERNAL_ERROR));
            }
        });
    }

    /** What CREATE decided before it registers the open; kept while an oplock break is awaited. */
    private static final class Plan {
        final VirtualFileSystem vfs;
        final Caller caller;
        Node node;
        final boolean dir;
        final int desired;
        final int share;
        final FileHandle parent;
        final String name;
        final String path;
        final boolean truncate;
        final boolean deleteOnClose;
        final int action;
        final boolean mxac;
        final boolean qfid;
        final Oplocks.Request oplock;
        /** The table's deletion mark taken before the lookup ({@link OpenTable#deletions}); -1 for a file this CREATE made. */
        final long lookedUp;
        DurableHandles.Ask durable = DurableHandles.Ask.NONE;
        /** The CREATE's FileAttributes, which an overwrite or supersede gives the file. */
        int overwriteAttributes;
        /** The open's Open.Mode: the CreateOptions it keeps (MS-FSA 2.1.5.1), FILE_WRITE_THROUGH among them. */
        int mode;
        /** The file's stored security descriptor, or null where its mode describes it. */
        SecurityDescriptor descriptor;
        /** SMB2_CREATE_EA_BUFFER's EAs, set on a file this CREATE makes, overwrites or supersedes; null without one. */
        List<FullEaInformation.Ea> eas;
        volatile boolean waited;
        /** Whether the other protocols' state was consulted before this plan's first admission. */
        boolean othersAsked;
        int replans;

        Plan(VirtualFileSystem vfs, Caller caller, Node node, boolean dir, int desired, int share, FileHandle parent,
                String name, String path, boolean truncate, boolean deleteOnClose, int action, boolean mxac, boolean qfid,
                Oplocks.Request oplock, long lookedUp) {
            this.lookedUp = lookedUp;
            this.vfs = vfs;
            this.caller = caller;
            this.node = node;
            this.dir = dir;
            this.desired = desired;
            this.share = share;
            this.parent = parent;
            this.name = name;
            this.path = path;
            this.truncate = truncate;
            this.deleteOnClose = deleteOnClose;
            this.action = action;
            this.mxac = mxac;
            this.qfid = qfid;
            this.oplock = oplock;
        }

        OpenTable.Admission admit(Ctx c) throws SmbException, VfsException {
            if (!othersAsked && !dir && lookedUp != -1) {
                c.server.othersFirst(vfs, node.handle(), conflict()); // NFSv4 deny modes, delegations
                othersAsked = true;
            }
            try {
                return open(c);
            } catch (SmbException e) {
                // MS-SMB2 3.3.7.1: an open whose client dropped its connection a moment ago, the
                // loss not yet handled, is closed (or kept, if durable) before its sharing counts
                if (e.status() != NtStatus.SHARING_VIOLATION || !c.server.settleLostConnections(node.handle(), c.conn)) {
                    throw e;
                }
                return open(c);
            }
        }

        private OpenTable.Admission open(Ctx c) throws SmbException {
            return c.server.opens().open(c.conn, c.session, c.tree, node.handle(), dir, desired, share, parent, name, path,
                    oplock, lookedUp);
        }

        /**
         * What this open may do to the file, as other protocols' state sees it: writes (data,
         * size, attributes), or removal and rename, or only reads.
         */
        io.rdmagate.vfs.state.Conflict conflict() {
            if (truncate || (desired & (OpenTable.DATA_WRITE | Access.FILE_WRITE_ATTRIBUTES)) != 0) {
                return io.rdmagate.vfs.state.Conflict.WRITE;
            }
            return (desired & Access.DELETE) != 0 ? io.rdmagate.vfs.state.Conflict.NAMESPACE
                    : io.rdmagate.vfs.state.Conflict.READ;
        }

        /** The file was deleted before it could be opened: the name is looked up again. */
        Plan again(Ctx c, Smb2Create.Request req) throws SmbException, VfsException, Smb2DecodeException {
            if (replans >= MAX_REPLANS) {
                throw new SmbException(NtStatus.DELETE_PENDING, path + " was deleted while it was opened, " + replans + " times");
            }
            return plan(c, req, durable, replans + 1);
        }

        /** Truncates if asked, answers the create contexts and writes the response into {@code reply}. */
        void finish(Ctx c, Reply reply, OpenTable.Admission a) throws SmbException, VfsException {
            Open o = a.open();
            try {
                if (othersAsked && conflict() != io.rdmagate.vfs.state.Conflict.READ) {
                    // a delegation granted between the first ask and the admission sees this open from now on
                    c.server.othersFirst(vfs, node.handle(), conflict());
                }
                if (truncate) {
                    // MS-FSA 2.1.5.1.2.1: overwrite and supersede give the file the request's attributes and ARCHIVE
                    vfs.setattr(caller, node.handle(), SetAttributes.create().size(0)
                            .dosAttributes(overwriteAttributes & DosAttributes.KEPT & ~DosAttributes.SPARSE_FILE
                                    | node.attributes().dosAttributes() & DosAttributes.SPARSE_FILE | DosAttributes.ARCHIVE));
                }
                if (eas != null) {
                    ExtendedAttributes.set(vfs, caller, node.handle(), eas); // MS-SMB2 2.2.13.2.1: the new file's EAs
                }
                if (truncate || waited) {
                    node = new Node(node.handle(), vfs.getattr(node.handle())); // the holder may have written meanwhile
                }
            } catch (VfsException e) {
                Close.closeOpen(c.server, o);
                throw e;
            }
            o.deleteOnClose = deleteOnClose;
            o.mode = mode;
            List<CreateContext> out = new ArrayList<>();
            if (mxac) {
                // MS-SMB2 2.2.14.2.5: QueryStatus, MaximalAccess
                ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
                b.putInt(0).putInt(descriptor != null ? granted(vfs, caller, parent, descriptor) & c.tree.maximalAccess()
                        : maximalAccess(vfs, caller, node, c.tree.maximalAccess()));
                out.add(new CreateContext(CreateContext.MXAC, b.flip()));
            }
            if (qfid) {
                // MS-SMB2 2.2.14.2.9: DiskFileId, VolumeId, Reserved
                ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
                b.putLong(node.attributes().fileId()).putLong(vfs.volumeId()).putLong(0).putLong(0);
                out.add(new CreateContext(CreateContext.QFID, b.flip()));
            }
            FileInfo f = Files.info(node.attributes(), false);
            Oplocks.Grant g = a.grant();
            if (g.level() == Smb2Create.OPLOCK_LEVEL_LEASE) {
                // MS-SMB2 2.2.14.2.10/11: the lease as it now is, in the version the client asked for
                out.add(new CreateContext(CreateContext.RQLS, Smb2Lease.response(oplock.lease().version(),
                        oplock.lease().key(), g.leaseState(), g.leaseFlags(), oplock.lease().parentKey(), g.epoch())));
            }
            if (g.level() != Smb2Create.OPLOCK_LEVEL_NONE && (g.level() != Smb2Create.OPLOCK_LEVEL_LEASE || g.leaseState() != 0)) {
                c.server.opens().cached(o); // changes made outside the gateway now break what the client caches
            }
            CreateContext d = DurableHandles.grant(c, durable, o, g);
            if (d != null) {
                out.add(d);
            }
            ByteBuffer body = reply.body(89 + 7 + CreateContext.listLength(out));
            reply.length(Smb2Create.write(body, new Smb2Create.Response(g.level(), action, f.creation(),
                    f.lastAccess(), f.lastWrite(), f.change(), f.allocationSize(), f.endOfFile(), f.attributes(), o.fileId(),
                    out)));
        }
    }

    /** SMB2_CREATE_EA_BUFFER (MS-SMB2 2.2.13.2.1): its FILE_FULL_EA_INFORMATION, checked before anything is made. */
    private static List<FullEaInformation.Ea> eaBuffer(Smb2Create.Request req) throws SmbException {
        CreateContext exta = req.context(CreateContext.EXTA);
        return exta == null ? null : ExtendedAttributes.decode(exta.data());
    }

    /**
     * The directory that holds the last of {@code comps}: resolved in one walk, or, when that finds
     * no such directory and a component may be an 8.3 name ({@code PROGRA~1}), component by
     * component through {@link #lookup}, which also matches 8.3 names.
     */
    private static FileHandle directory(VirtualFileSystem vfs, Caller caller, FileHandle root, List<String> comps)
            throws VfsException, SmbException {
        try {
            return vfs.resolve(caller, root, Files.join(comps, 0, comps.size() - 1, "/"), true).handle();
        } catch (VfsException e) {
            if (e.error() != VfsError.NOT_FOUND || comps.subList(0, comps.size() - 1).stream().noneMatch(ShortNames::mayBeMangled)) {
                throw e;
            }
        }
        FileHandle dir = root;
        for (String comp : comps.subList(0, comps.size() - 1)) {
            Node n = lookup(vfs, caller, dir, comp);
            if (n == null) {
                throw new VfsException(VfsError.NOT_FOUND, comp);
            }
            if (n.attributes().type() != FileType.DIRECTORY) {
                throw new VfsException(VfsError.NOT_DIRECTORY, comp);
            }
            dir = n.handle();
        }
        return dir;
    }

    /**
     * The entry {@code name} of {@code parent}, following a symlink; on a case-insensitive share
     * matched without case; and, when no entry has that name, the entry whose 8.3 name it is
     * (MS-FSA 2.1.5.1: a file opens by its short name too), as Samba's mangled names do.
     */
    static Node lookup(VirtualFileSystem vfs, Caller caller, FileHandle parent, String name) throws VfsException, SmbException {
        try {
            Node n = vfs.lookup(caller, parent, name);
            if (n.attributes().type() == FileType.SYMLINK) {
                n = vfs.resolve(caller, parent, name, true);
            }
            return n;
        } catch (VfsException e) {
            if (e.error() == VfsError.NOT_FOUND) {
                Node n = vfs.options().caseInsensitive() ? caseInsensitive(vfs, caller, parent, name) : null;
                if (n == null && ShortNames.mayBeMangled(name)) {
                    n = byShortName(vfs, caller, parent, name);
                }
                return n;
            }
            if (e.error() == VfsError.ESCAPE) {
                throw new SmbException(NtStatus.ACCESS_DENIED, name + " leads out of the share");
            }
            throw e;
        }
    }

    /** Shares on case-insensitive exports match names as Windows does (MS-FSA 2.1.5.1.2.1). */
    static Node caseInsensitive(VirtualFileSystem vfs, Caller caller, FileHandle parent, String name) throws VfsException {
        long cookie = 0;
        long verifier = 0;
        while (true) {
            io.rdmagate.vfs.DirectoryPage p = vfs.readdir(caller, parent, cookie, verifier, 512, false);
            for (io.rdmagate.vfs.DirectoryEntry e : p.entries()) {
                if (e.name().equalsIgnoreCase(name)) {
                    return vfs.lookup(caller, parent, e.name());
                }
                cookie = e.cookie();
            }
            verifier = p.verifier();
            if (p.eof() || p.entries().isEmpty()) {
                return null;
            }
        }
    }

    /** The entry of {@code parent} whose 8.3 name ({@link ShortNames#of}) is {@code shortName}, without case; null if none. */
    static Node byShortName(VirtualFileSystem vfs, Caller caller, FileHandle parent, String shortName) throws VfsException {
        long cookie = 0;
        long verifier = 0;
        while (true) {
            io.rdmagate.vfs.DirectoryPage p = vfs.readdir(caller, parent, cookie, verifier, 512, false);
            for (io.rdmagate.vfs.DirectoryEntry e : p.entries()) {
                if (!ShortNames.isShort(e.name()) && ShortNames.of(e.name()).equalsIgnoreCase(shortName)) {
                    Node n = vfs.lookup(caller, parent, e.name());
                    return n.attributes().type() == FileType.SYMLINK ? vfs.resolve(caller, parent, e.name(), true) : n;
                }
                cookie = e.cookie();
            }
            verifier = p.verifier();
            if (p.eof() || p.entries().isEmpty()) {
                return null;
            }
        }
    }

    private static final int FILE_ADD_FILE = Access.FILE_WRITE_DATA;
    private static final int FILE_ADD_SUBDIRECTORY = Access.FILE_APPEND_DATA;

    /**
     * MS-FSA 2.1.5.1.2.1: the access an open of an existing file gets. With a stored descriptor,
     * what its DACL grants (MAXIMUM_ALLOWED: all of that the share allows), every bit asked for or
     * ACCESS_DENIED; without one, the mode bits decide ({@link #checkAccess}).
     */
    static int grant(VirtualFileSystem vfs, Caller caller, FileHandle parent, Node n, SecurityDescriptor sd, int requested,
            int desired, int implied, int treeMaximal) throws VfsException, SmbException {
        if (sd == null) {
            checkAccess(vfs, caller, n, desired | implied);
            return desired | implied;
        }
        int granted = granted(vfs, caller, parent, sd) | Security.takeOwnership(caller, requested);
        int want = desired | implied;
        if ((requested & Access.MAXIMUM_ALLOWED) != 0) {
            want = Access.map(requested & ~Access.MAXIMUM_ALLOWED, 0) | implied | (granted & treeMaximal);
        }
        int missing = want & ~granted & ~Access.ACCESS_SYSTEM_SECURITY;
        if (missing != 0) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "the DACL refuses 0x" + Integer.toHexString(missing));
        }
        if ((want & (Access.FILE_WRITE_DATA | Access.FILE_APPEND_DATA)) != 0 && n.attributes().type() != FileType.DIRECTORY
                && (n.attributes().dosAttributes() & DosAttributes.READONLY) != 0) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "the file is read-only");
        }
        return want;
    }

    /**
     * What a stored descriptor grants the caller, with what the parent's DACL adds (MS-FSA
     * 2.1.5.1.2.1): DELETE where it grants FILE_DELETE_CHILD, FILE_READ_ATTRIBUTES where it grants
     * FILE_LIST_DIRECTORY.
     */
    private static int granted(VirtualFileSystem vfs, Caller caller, FileHandle parent, SecurityDescriptor sd)
            throws VfsException {
        int g = Security.granted(sd, caller);
        if (parent != null && (g & (Access.DELETE | Access.FILE_READ_ATTRIBUTES)) != (Access.DELETE | Access.FILE_READ_ATTRIBUTES)) {
            int p = Security.granted(Security.of(vfs, parent, vfs.getattr(parent)), caller);
            if ((p & Access.FILE_DELETE_CHILD) != 0) {
                g |= Access.DELETE;
            }
            if ((p & Access.FILE_LIST_DIRECTORY) != 0) {
                g |= Access.FILE_READ_ATTRIBUTES;
            }
        }
        return g;
    }

    /**
     * MS-DTYP 2.5.3.4.1: a new file's descriptor, from the parent's inheritable ACEs and the one
     * the client supplied in an SMB2_CREATE_SD_BUFFER context (MS-SMB2 2.2.13.2.2); kept and
     * returned only when there is one of either, else null: the new file's mode describes it.
     */
    private static SecurityDescriptor inherit(Ctx c, SecurityDescriptor parentSd, SecurityDescriptor supplied, Node node,
            boolean dir) throws VfsException {
        if (parentSd == null && supplied == null) {
            return null;
        }
        Caller caller = c.session.caller();
        SecurityDescriptor sd = Inheritance.create(parentSd, supplied, dir, Sid.unixUser(caller.uid()),
                Sid.unixGroup(caller.gid()));
        if (sd != null) {
            c.tree.share().vfs().securityDescriptor(caller, node.handle(), sd.encode(), Security.posix(sd, node.attributes()));
        }
        return sd;
    }

    static void checkAccess(VirtualFileSystem vfs, Caller caller, Node n, int desired) throws VfsException, SmbException {
        int want = 0;
        if ((desired & (Access.FILE_READ_DATA | Access.FILE_EXECUTE)) != 0) {
            want |= n.attributes().type() == FileType.DIRECTORY ? VirtualFileSystem.ACCESS_LOOKUP : VirtualFileSystem.ACCESS_READ;
        }
        if ((desired & (Access.FILE_WRITE_DATA | Access.FILE_APPEND_DATA)) != 0) {
            want |= VirtualFileSystem.ACCESS_MODIFY;
            if (n.attributes().type() != FileType.DIRECTORY
                    && (n.attributes().dosAttributes() & DosAttributes.READONLY) != 0) {
                throw new SmbException(NtStatus.ACCESS_DENIED, "the file is read-only");
            }
        }
        if (want != 0 && (vfs.access(caller, n.handle(), want) & want) != want) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "mode bits refuse the access");
        }
    }

    static int maximalAccess(VirtualFileSystem vfs, Caller caller, Node n, int treeMaximal) throws VfsException {
        int got = vfs.access(caller, n.handle(), VirtualFileSystem.ACCESS_READ | VirtualFileSystem.ACCESS_MODIFY
                | VirtualFileSystem.ACCESS_EXECUTE | VirtualFileSystem.ACCESS_LOOKUP | VirtualFileSystem.ACCESS_DELETE);
        int m = Access.FILE_READ_ATTRIBUTES | Access.READ_CONTROL | Access.SYNCHRONIZE | Access.FILE_READ_EA;
        if ((got & (VirtualFileSystem.ACCESS_READ | VirtualFileSystem.ACCESS_LOOKUP)) != 0) {
            m |= Access.FILE_GENERIC_READ;
        }
        if ((got & VirtualFileSystem.ACCESS_MODIFY) != 0) {
            m |= Access.FILE_GENERIC_WRITE | Access.DELETE | Access.FILE_DELETE_CHILD | Access.WRITE_DAC | Access.WRITE_OWNER;
        }
        if ((got & (VirtualFileSystem.ACCESS_EXECUTE | VirtualFileSystem.ACCESS_LOOKUP)) != 0) {
            m |= Access.FILE_GENERIC_EXECUTE;
        }
        return m & treeMaximal;
    }

    private static void openPipe(Ctx c, Smb2Create.Request req) throws SmbException {
        String n = req.name().startsWith("\\") ? req.name().substring(1) : req.name();
        if (!n.equalsIgnoreCase("srvsvc")) {
            throw new SmbException(NtStatus.OBJECT_NAME_NOT_FOUND, "no pipe " + n);
        }
        List<io.rdmagate.smb.mssrvs.ShareInfo.Entry> entries = new ArrayList<>();
        for (io.rdmagate.smb.server.SmbShare s : c.server.config().shares()) {
            entries.add(new io.rdmagate.smb.mssrvs.ShareInfo.Entry(s.name(), io.rdmagate.smb.mssrvs.ShareInfo.DISK, ""));
        }
        entries.add(new io.rdmagate.smb.mssrvs.ShareInfo.Entry("IPC$", io.rdmagate.smb.mssrvs.ShareInfo.IPC, "IPC Service"));
        Open o = c.server.opens().openPipe(c.conn, c.session, c.tree, new SrvsvcPipe(entries), n);
        c.setCompoundFileId(o.fileId());
        c.reply.length(Smb2Create.write(c.reply.body(89), new Smb2Create.Response(0, Smb2Create.FILE_OPENED, 0, 0, 0, 0,
                4096, 0, DosAttributes.NORMAL, o.fileId(), List.of())));
    }


    /**
     * Delete access to a name (MS-FSA 2.1.5.1.2.1, the DELETE right or the parent's
     * FILE_DELETE_CHILD), in POSIX terms: the caller may unlink it from its directory (write and
     * search on the directory; in a sticky directory, only the owner of the file or directory).
     * Checked when delete is asked for, so that a delete the close could not carry out is refused
     * up front rather than reported done.
     */
    static void requireMayDelete(VirtualFileSystem vfs, Caller caller, FileHandle parent,
            io.rdmagate.vfs.FileAttributes victim) throws SmbException, VfsException {
        if (parent == null) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "delete of the share root");
        }
        try {
            io.rdmagate.vfs.support.Permissions.requireUnlink(caller, vfs.getattr(parent), victim);
        } catch (VfsException e) {
            throw new SmbException(NtStatus.ACCESS_DENIED, e.getMessage());
        }
    }
}
