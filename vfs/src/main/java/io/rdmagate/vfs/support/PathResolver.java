package io.rdmagate.vfs.support;

import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Server-side path resolution over a {@link VirtualFileSystem}'s own lookup, parent and readlink,
 * so that every backend confines it the same way.
 *
 * <p>Accepts: relative paths, "." and "..", relative symlink targets, up to
 * {@link VirtualFileSystem#MAX_SYMLINK_HOPS} symlinks. Refuses: ".." at the export root and
 * absolute symlink targets ({@link VfsError#ESCAPE}), more hops ({@link VfsError#LOOP}).
 */
public final class PathResolver {
    private PathResolver() {
    }

    public static Node resolve(VirtualFileSystem vfs, Caller caller, FileHandle start, String path, boolean followLast)
            throws VfsException {
        FileHandle root = vfs.root();
        Node cur = new Node(start, vfs.getattr(start));
        Deque<String> todo = new ArrayDeque<>();
        push(todo, path);
        int hops = 0;
        while (!todo.isEmpty()) {
            String part = todo.pollFirst();
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (cur.attributes().type() != FileType.DIRECTORY) {
                throw new VfsException(VfsError.NOT_DIRECTORY, part);
            }
            if (part.equals("..")) {
                if (cur.handle().equals(root)) {
                    throw new VfsException(VfsError.ESCAPE, "'..' above the export root");
                }
                cur = vfs.parent(caller, cur.handle());
                continue;
            }
            Node next = vfs.lookup(caller, cur.handle(), part);
            if (next.attributes().type() == FileType.SYMLINK && (followLast || !todo.isEmpty())) {
                if (++hops > VirtualFileSystem.MAX_SYMLINK_HOPS) {
                    throw new VfsException(VfsError.LOOP, "too many symlinks in " + path);
                }
                String target = vfs.readlink(caller, next.handle());
                if (target.startsWith("/")) {
                    throw new VfsException(VfsError.ESCAPE, "absolute symlink " + part + " -> " + target);
                }
                push(todo, target);
                continue;
            }
            cur = next;
        }
        return cur;
    }

    private static void push(Deque<String> todo, String path) {
        String[] parts = path.split("/", -1);
        for (int i = parts.length - 1; i >= 0; i--) {
            todo.addFirst(parts[i]);
        }
    }
}
