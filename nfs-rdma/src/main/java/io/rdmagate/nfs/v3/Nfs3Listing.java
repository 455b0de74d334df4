package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.DirectoryEntry;
import io.rdmagate.vfs.DirectoryPage;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What READDIR and READDIRPLUS share: a page of a directory with "." (cookie 1) and ".." (cookie
 * 2) in front of the vfs's entries, whose cookies are at least {@link VirtualFileSystem#FIRST_COOKIE}
 * and stay valid while the directory changes. A cookie of 3..15 was never handed out:
 * NFS3ERR_BAD_COOKIE. The cookie verifier is the vfs's; it is checked (by the vfs) only when
 * resuming inside the vfs's entries, so a first call may send anything (RFC 1813 §3.3.16 says 0).
 */
final class Nfs3Listing {
    static final long DOT_COOKIE = 1;
    static final long DOTDOT_COOKIE = 2;
    static final int MAX_ENTRIES = 4096;

    record Item(String name, byte[] utf8, long fileId, long cookie, Node node) {
        int paddedNameLength() {
            return (utf8.length + 3) & ~3;
        }
    }

    record Page(List<Item> items, long verifier, boolean eof) {
    }

    private Nfs3Listing() {
    }

    static Page list(Target dir, Caller c, long cookie, long verifier, int maxEntries, boolean plus)
            throws VfsException, Nfs3Exception {
        if (cookie > DOTDOT_COOKIE && cookie < VirtualFileSystem.FIRST_COOKIE) {
            throw new Nfs3Exception(Nfs3Status.NFS3ERR_BAD_COOKIE, "cookie " + cookie + " was never handed out");
        }
        VirtualFileSystem fs = dir.fs();
        List<Item> items = new ArrayList<>();
        if (cookie < DOT_COOKIE) {
            Node self = new Node(dir.handle(), plus ? fs.getattr(dir.handle()) : null);
            items.add(item(".", dir.handle().fileId(), DOT_COOKIE, self));
        }
        if (cookie < DOTDOT_COOKIE) {
            Node parent = fs.parent(c, dir.handle());
            items.add(item("..", parent.handle().fileId(), DOTDOT_COOKIE, plus ? parent : null));
        }
        boolean inVfs = cookie >= VirtualFileSystem.FIRST_COOKIE;
        DirectoryPage page = fs.readdir(c, dir.handle(), inVfs ? cookie : 0, inVfs ? verifier : 0,
                Math.max(1, Math.min(maxEntries, MAX_ENTRIES)), plus);
        for (DirectoryEntry e : page.entries()) {
            items.add(item(e.name(), e.fileId(), e.cookie(), e.node()));
        }
        return new Page(items, page.verifier(), page.eof());
    }

    private static Item item(String name, long fileId, long cookie, Node node) {
        return new Item(name, name.getBytes(StandardCharsets.UTF_8), fileId, cookie, node);
    }
}
