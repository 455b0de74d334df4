package io.rdmagate.smb.server;

import io.rdmagate.smb.msfscc.FileInfo;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.lock.LockOwner;
import java.util.List;

/** One open (MS-SMB2 3.3.1.10): a file or directory of a tree, or a named pipe of IPC$. */
public final class Open {
    /** How the keys of SMB opens' byte-range lock owners begin, telling them from other protocols' owners. */
    static final String LOCK_OWNER_PREFIX = "smb:open:";
    private final FileId fileId;
    /**
     * MS-SMB2 3.3.1.10 Open.Session, Open.Connection (where its oplock breaks are sent) and
     * Open.TreeConnect. A durable open that lost its connection keeps its last session (whose user
     * and identity it acts as) with a null connection until the client reconnects it.
     */
    volatile SmbSession session;
    volatile SmbConnection conn;
    private volatile TreeConnect tree;
    /** MS-SMB2 3.3.1.10 Open.IsDurable: 0, or 1 (DHnQ) or 2 (DH2Q) as it was granted. */
    volatile int durable;
    /** Open.CreateGuid (DH2Q) and the client's GUID, which together name the open to a replay or reconnect. */
    volatile byte[] createGuid;
    volatile byte[] clientGuid;
    /** Open.DurableOpenTimeout, in milliseconds. */
    volatile int durableTimeoutMillis;
    /** Counts disconnections, so that a scavenger armed for one does not close a later one. */
    volatile int disconnections;
    private final FileHandle handle;
    private final boolean directory;
    private final int access;
    final int shareAccess;
    private final LockOwner lockOwner;
    /** The file's state shared by all its opens; null for pipes. */
    final FileState file;
    private final NamedPipe pipe;
    public volatile boolean deleteOnClose;
    /** The share-relative path with '\' separators, "" for the share root. */
    public volatile String path;
    public volatile long position;
    public volatile int mode;
    /** Where a QUERY_INFO of FileFullEaInformation without SL_RESTART_SCAN goes on listing the EAs. */
    public volatile int eaIndex;
    /** Set when the open starts closing: a CHANGE_NOTIFY handled meanwhile ends at once (NOTIFY_CLEANUP). */
    public volatile boolean closing;
    /** The times a client fixed through this open (MS-FSA Open.UserSet*Time). */
    public final UserSetTimes userSetTimes = new UserSetTimes();
    /** QUERY_DIRECTORY state (MS-SMB2 3.3.1.10 enumeration); guarded by this open's monitor. */
    public List<DirEntry> listing;
    /** MS-SMB2 3.3.1.10 OplockLevel and OplockState, and the break in progress; guarded by the OpenTable's monitor. */
    int oplockLevel;
    int oplockState;
    int breakingTo;
    java.util.concurrent.CompletableFuture<Void> breakDone;
    long breakDeadline;
    /** The lease the open was made with (oplockLevel is then SMB2_OPLOCK_LEVEL_LEASE), or null. */
    Lease lease;
    public int listingPos;

    /** Its share access in the volume's share reservations (null for attribute-only opens and pipes); set once, under the table. */
    io.rdmagate.vfs.state.ShareReservations.Reservation reservation;

    Open(FileId fileId, SmbConnection conn, SmbSession session, TreeConnect tree, FileHandle handle, boolean directory, int access,
            int shareAccess, FileState file, NamedPipe pipe, String path) {
        this.fileId = fileId;
        this.conn = conn;
        this.session = session;
        this.tree = tree;
        this.handle = handle;
        this.directory = directory;
        this.access = access;
        this.shareAccess = shareAccess;
        this.file = file;
        this.pipe = pipe;
        this.path = path;
        this.lockOwner = new LockOwner(LOCK_OWNER_PREFIX + Long.toUnsignedString(fileId.volatileId()),
                "smb:session:" + Long.toUnsignedString(session.id), 0, new byte[0]);
    }

    public FileId fileId() {
        return fileId;
    }

    public boolean can(int bits) {
        return (access & bits) != 0;
    }

    public int access() {
        return access;
    }

    public NamedPipe pipe() {
        return pipe;
    }

    public FileHandle handle() {
        return handle;
    }

    public boolean directory() {
        return directory;
    }

    public TreeConnect tree() {
        return tree;
    }

    void tree(TreeConnect t) {
        this.tree = t;
    }

    /** Whether the open survives the loss of its connection (MS-SMB2 3.3.1.10 Open.IsDurable). */
    public boolean isDurable() {
        return durable != 0;
    }

    /** Whether the open lost its connection and waits to be reconnected. */
    public boolean isDisconnected() {
        return conn == null;
    }

    /** Makes the open durable (MS-SMB2 3.3.5.9.6, 3.3.5.9.10); through {@link OpenTable#makeDurable}. */
    void makeDurable(int version, byte[] createGuid, byte[] clientGuid, int timeoutMillis) {
        this.createGuid = createGuid;
        this.clientGuid = clientGuid;
        this.durableTimeoutMillis = timeoutMillis;
        this.durable = version;
    }

    public int durableVersion() {
        return durable;
    }

    public int durableTimeoutMillis() {
        return durableTimeoutMillis;
    }

    public byte[] createGuid() {
        return createGuid;
    }

    public byte[] clientGuid() {
        return clientGuid;
    }

    /** The session the open was last used in (for a disconnected open, the one whose loss it outlived). */
    public SmbSession session() {
        return session;
    }

    /** The lease key of the open's lease, or null. */
    public byte[] leaseKey() {
        Lease l = lease;
        return l == null ? null : l.key;
    }

    public int oplockLevel() {
        return oplockLevel;
    }

    public VirtualFileSystem vfs() {
        return tree.share().vfs();
    }

    public LockOwner lockOwner() {
        return lockOwner;
    }

    /** The directory the file is in now (null for pipes). */
    public FileHandle parentHandle() {
        return file == null ? null : file.parent;
    }

    public String name() {
        return file == null ? path : file.name;
    }

    public boolean deletePending() {
        return file != null && file.deletePending;
    }

    public record DirEntry(String name, FileInfo info) {
    }
}
