package io.rdmagate.smb.server;

import io.rdmagate.vfs.state.CacheHolder;
import io.rdmagate.vfs.state.Conflict;
import io.rdmagate.vfs.state.Recall;
import java.util.ArrayList;
import java.util.List;

/**
 * The SMB server's part of each volume's one state ({@link io.rdmagate.vfs.state.FileStates}):
 * an operation of another protocol (an NFSv3 WRITE, an NLM LOCK) on a file has it break the leases
 * and oplocks the operation conflicts with (MS-FSA 2.1.4.12), waiting for the acknowledgments on
 * the timers of MS-SMB2 3.3.2. Breaks are sent after the open table's monitor is released. SMB
 * opens' share modes are the volume's share reservations, held by this holder, where other
 * protocols' operations find them (MS-FSA 2.1.5.1.2).
 *
 * <p>The other way, an SMB CREATE or LOCK asks the volume's other holders first
 * ({@link #othersFirst}): an NFSv4 open's share deny refuses it, and NFSv4 delegations of the file
 * are recalled before the SMB client may use it.
 */
final class CrossProtocolBreaks implements CacheHolder {
    private final OpenTable table;

    CrossProtocolBreaks(OpenTable table) {
        this.table = table;
    }

    @Override
    public String protocol() {
        return "smb";
    }

    @Override
    public boolean holdsAnything() {
        return table.holdsAnything();
    }

    @Override
    public Recall recall(int volumeId, long fileId, long generation, Conflict conflict, Object breaker) {
        Oplocks oplocks = table.oplocks();
        List<Oplocks.Notice> out = new ArrayList<>(2);
        Oplocks.Wait w;
        synchronized (table) {
            FileState f = table.file(volumeId, fileId);
            if (f == null || (generation != 0 && f.generation != generation)) {
                return null; // none open, or only an earlier file that had this inode number
            }
            w = oplocks.breakFor(f, conflict, out);
        }
        oplocks.send(out);
        return w == null ? null : maxNanos -> oplocks.settle(w, maxNanos);
    }

    /**
     * Before an SMB operation that {@code conflict} describes on the file: other protocols' opens
     * that deny it refuse it (STATUS_SHARING_VIOLATION), and what their clients cache of the file
     * that it makes untrue is recalled, waiting for the returns. Nothing to do, and no cost but a
     * volatile read per holder, while no other protocol holds anything.
     */
    void othersFirst(io.rdmagate.vfs.VirtualFileSystem fs, io.rdmagate.vfs.FileHandle file, Conflict conflict)
            throws io.rdmagate.vfs.VfsException {
        io.rdmagate.vfs.state.FileStates states = fs.states();
        if (states.heldExcept(this)) {
            states.end(states.begin(file, conflict, this));
        }
    }
}
