package io.rdmagate.smb.server;

import io.rdmagate.vfs.state.CacheHolder;
import io.rdmagate.vfs.state.Conflict;
import io.rdmagate.vfs.state.Recall;
import java.util.ArrayList;
import java.util.List;

/**
 * The SMB server's part of each volume's one state ({@link io.rdmagate.vfs.state.FileStates}):
 * an operation of another protocol (an NFSv3 WRITE, an NLM LOCK) on a file asks it whether an SMB
 * open's share mode denies the operation (MS-FSA 2.1.5.1.2), and has it break the leases and
 * oplocks the operation conflicts with (MS-FSA 2.1.4.12), waiting for the acknowledgments on the
 * timers of MS-SMB2 3.3.2. Breaks are sent after the open table's monitor is released.
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
    public Recall recall(int volumeId, long fileId, Conflict conflict) {
        Oplocks oplocks = table.oplocks();
        List<Oplocks.Notice> out = new ArrayList<>(2);
        Oplocks.Wait w;
        synchronized (table) {
            FileState f = table.file(volumeId, fileId);
            if (f == null) {
                return null;
            }
            w = oplocks.breakFor(f, conflict, out);
        }
        oplocks.send(out);
        return w == null ? null : maxNanos -> oplocks.settle(w, maxNanos);
    }

    @Override
    public boolean denies(int volumeId, long fileId, Conflict conflict) {
        int access = switch (conflict) {
            case WRITE -> OpenTable.DATA_WRITE;
            case NAMESPACE -> Access.DELETE;
            case READ -> OpenTable.DATA_READ;
            case LOCK -> 0;
        };
        synchronized (table) {
            FileState f = table.file(volumeId, fileId);
            if (f == null) {
                return false;
            }
            for (Open e : f.opens) {
                if (!OpenTable.compatible(e, access, 0x7)) {
                    return true;
                }
            }
            return false;
        }
    }
}
