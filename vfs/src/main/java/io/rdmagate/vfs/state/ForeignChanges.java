package io.rdmagate.vfs.state;

import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.VfsException;
import java.util.function.Consumer;

/**
 * Changes that processes other than this gateway make to a volume's files: programs on the host,
 * a second gateway over the same directory. Clients that cache a file must hear of them as they
 * hear of another protocol's operations ({@link FileStates#cached}). The gateway's own changes are
 * never reported.
 */
public interface ForeignChanges {
    /** A backend with no other writers (the in-memory filesystem). */
    ForeignChanges NONE = (file, sink) -> () -> { };

    /**
     * Reports each foreign change of {@code file} to {@code sink} until the returned watch is
     * closed: {@link Conflict#WRITE} for its data or attributes, {@link Conflict#NAMESPACE} for a
     * rename or removal; both when the backend lost track of what changed. The sink runs on the
     * feed's thread and must not block.
     */
    Watch watch(FileHandle file, Consumer<Conflict> sink) throws VfsException;

    /** Whether and how foreign changes are seen, and what was seen, in a line for an operator. */
    default String status() {
        return "no other writers";
    }

    /** One file's registration. */
    interface Watch extends AutoCloseable {
        @Override
        void close();
    }
}
