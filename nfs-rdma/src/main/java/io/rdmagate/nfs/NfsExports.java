package io.rdmagate.nfs;

import io.rdmagate.gateway.spi.log.RateLimitedLog;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * The exports the NFS server serves, and the wire form of their file handles.
 *
 * <p>A wire handle is the vfs's 24-byte handle behind a 4-byte prefix (28 bytes, inside the 64 of
 * RFC 1813 §2.5 nfs_fh3):
 * <pre>
 *  0    1    2         3           4..27
 *  'R'  'G'  version 1  export id   vfs FileHandle (version, type, volume id, file id, generation)
 * </pre>
 * Parsing ({@link #resolve}) accepts exactly that. It refuses, with {@link VfsError#BAD_HANDLE}
 * (NFS3ERR_BADHANDLE), any other length, magic or version, a vfs handle the vfs cannot parse, and
 * a handle whose vfs volume is not its export's (a handle of export A relabelled as export B); a
 * well-formed handle of an export id that is not served is {@link VfsError#STALE}
 * (NFS3ERR_STALE: the export is gone). Whether the file still exists is the backend's to say.
 */
public final class NfsExports {
    public static final int HANDLE_LENGTH = 4 + FileHandle.LENGTH;
    private static final byte MAGIC_0 = 'R';
    private static final byte MAGIC_1 = 'G';
    private static final byte VERSION = 1;

    /** A file of an export, resolved from a wire handle. */
    public record Target(NfsExport export, FileHandle handle) {
        public VirtualFileSystem fs() {
            return export.fs();
        }

        /**
         * Before an operation on this file: what another protocol's opens deny is refused, what its
         * clients cache and the operation makes untrue is recalled and waited for (see
         * {@link io.rdmagate.vfs.state.FileStates#begin}). The token goes to {@link #end}.
         */
        public int begin(io.rdmagate.vfs.state.Conflict c) throws io.rdmagate.vfs.VfsException {
            return fs().states().begin(handle, c, null);
        }

        /**
         * {@link #begin(io.rdmagate.vfs.state.Conflict)} by a client that holds state of its own
         * ({@code breaker}, an NFSv4.1 client record): its own delegations and opens are left alone.
         */
        public int begin(io.rdmagate.vfs.state.Conflict c, Object breaker) throws io.rdmagate.vfs.VfsException {
            return fs().states().begin(handle, c, breaker);
        }

        /**
         * {@link #begin} for the file {@code name} in this directory, when another protocol holds
         * anything at all; -1 (nothing to end) when it holds nothing or the name does not exist.
         */
        public int begin(String name, io.rdmagate.vfs.state.Conflict c) throws io.rdmagate.vfs.VfsException {
            return begin(name, c, null);
        }

        /** {@link #begin(String, io.rdmagate.vfs.state.Conflict)} by a client with state of its own. */
        public int begin(String name, io.rdmagate.vfs.state.Conflict c, Object breaker)
                throws io.rdmagate.vfs.VfsException {
            if (!fs().states().held()) {
                return -1;
            }
            FileHandle file;
            try {
                file = fs().lookup(io.rdmagate.vfs.Caller.ROOT, handle, name).handle();
            } catch (io.rdmagate.vfs.VfsException e) {
                return -1; // the operation itself reports the name's error
            }
            return fs().states().begin(file, c, breaker);
        }

        public void end(int token) {
            fs().states().end(token);
        }

        /**
         * After a change of this directory's entries (or of this file's attributes), before the
         * reply: when the export is {@code sync} (the default), returns once the change is on
         * stable storage. NFS promises that of every reply that reports a change, UNSTABLE WRITEs
         * alone excepted: RFC 1094 §2 for every procedure, kept by RFC 1813 for NFSv3, and RFC 7530
         * §14.3 (Synchronous Modifying Operations) for NFSv4; knfsd's {@code sync} export does the
         * same. A failure is the operation's {@link VfsError#IO}: it happened but may not last.
         */
        public void stable() throws VfsException {
            if (export.config().sync()) {
                fs().commit(handle);
            }
        }

        /** {@link #stable()} of this directory and of {@code other} when it is another (a rename's two). */
        public void stable(Target other) throws VfsException {
            stable();
            if (other.handle.fileId() != handle.fileId()) {
                other.stable();
            }
        }
    }

    private final List<NfsExport> exports;
    private final NfsExport[] byId = new NfsExport[256];
    private final RateLimitedLog denials = RateLimitedLog.perMinute(LoggerFactory.getLogger(SECURITY_LOG));

    /** The logger of refused mounts and access denials (rate-limited per client address). */
    public static final String SECURITY_LOG = "io.rdmagate.security";

    public NfsExports(List<NfsExport> exports) {
        this.exports = Collections.unmodifiableList(new ArrayList<>(exports));
        for (NfsExport e : exports) {
            if (byId[e.id()] != null) {
                throw new IllegalArgumentException("two exports with id " + e.id());
            }
            byId[e.id()] = e;
        }
    }

    /** Where refused mounts and access denials of these exports' clients are logged, rate-limited per client. */
    public RateLimitedLog denials() {
        return denials;
    }

    public List<NfsExport> all() {
        return exports;
    }

    /** The export mounted at exactly {@code nfsPath} (trailing '/' ignored). */
    public Optional<NfsExport> byPath(String nfsPath) {
        String p = trim(nfsPath);
        return exports.stream().filter(e -> trim(e.nfsPath()).equals(p)).findFirst();
    }

    private static String trim(String p) {
        String t = p;
        while (t.length() > 1 && t.endsWith("/")) {
            t = t.substring(0, t.length() - 1);
        }
        return t;
    }

    /** The wire handle of a file of {@code export}. */
    public static byte[] wire(NfsExport export, FileHandle handle) {
        byte[] vfs = handle.toBytes();
        byte[] out = new byte[4 + vfs.length];
        out[0] = MAGIC_0;
        out[1] = MAGIC_1;
        out[2] = VERSION;
        out[3] = (byte) export.id();
        System.arraycopy(vfs, 0, out, 4, vfs.length);
        return out;
    }

    /** Resolves a wire handle; see the class comment for what is refused. */
    public Target resolve(byte[] wire) throws VfsException {
        if (wire.length != HANDLE_LENGTH || wire[0] != MAGIC_0 || wire[1] != MAGIC_1 || wire[2] != VERSION) {
            throw new VfsException(VfsError.BAD_HANDLE, "not a handle of this server (" + wire.length + " bytes)");
        }
        byte[] vfs = new byte[FileHandle.LENGTH];
        System.arraycopy(wire, 4, vfs, 0, vfs.length);
        FileHandle h = FileHandle.decode(vfs);
        NfsExport e = byId[wire[3] & 0xff];
        if (e == null) {
            throw new VfsException(VfsError.STALE, "export " + (wire[3] & 0xff) + " is not served");
        }
        if (h.volumeId() != e.fs().volumeId()) {
            throw new VfsException(VfsError.BAD_HANDLE, "handle of volume " + h.volumeId() + " labelled as export "
                    + e.config().name());
        }
        return new Target(e, h);
    }
}
