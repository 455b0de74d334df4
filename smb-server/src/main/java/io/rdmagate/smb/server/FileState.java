package io.rdmagate.smb.server;

import io.rdmagate.vfs.FileHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * What all opens of one file share (MS-SMB2 3.3.1.10 / MS-FSA 2.1.1.4 Stream): the opens, for
 * share-mode checks, and the delete-pending flag. Guarded by the {@link OpenTable}'s monitor.
 */
final class FileState {
    final int volumeId;
    final long fileId;
    /**
     * The generation of the file's handle: once the file is deleted, the filesystem may give its
     * inode number (the table's key) to a new file at once, while this state is still leaving.
     */
    final long generation;
    final List<Open> opens = new ArrayList<>();
    boolean deletePending;
    /** Some open may hold a Level II oplock (set on grant, cleared when they are broken); read unlocked. */
    volatile boolean levelII;
    /** An open was granted caching: the volume watches the file for changes made outside the gateway. */
    boolean watching;
    /** Where {@link #watching} registered once it has, to end it at the last close. */
    io.rdmagate.vfs.state.FileStates watchedBy;
    /** The last open closed with delete pending and the file is being deleted; the state leaves the table after. */
    boolean deleting;
    /** The last open closed: the state left the table. */
    boolean forgotten;
    /** Where the file is now: parent directory and name (rename moves it). */
    FileHandle parent;
    String name;

    FileState(FileHandle handle, FileHandle parent, String name) {
        this.volumeId = handle.volumeId();
        this.fileId = handle.fileId();
        this.generation = handle.generation();
        this.parent = parent;
        this.name = name;
    }
}
