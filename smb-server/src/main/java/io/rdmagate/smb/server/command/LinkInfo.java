package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msfscc.SetInfoDecoder;
import io.rdmagate.smb.server.Access;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Files;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.DirectoryEntry;
import io.rdmagate.vfs.DirectoryPage;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import java.util.List;

/**
 * SET_INFO FileLinkInformation (MS-SMB2 3.3.5.21.1, MS-FSA 2.1.5.14.6): a new name for the open's
 * file, a hard link through {@link VirtualFileSystem#link}. The name is relative to the share root,
 * as for a rename.
 */
final class LinkInfo {
    private LinkInfo() {
    }

    static void link(Ctx c, Open o, VirtualFileSystem vfs, Caller caller, SetInfoDecoder.Link l)
            throws SmbException, VfsException {
        // MS-SMB2 3.3.5.21.1: RootDirectory must be zero
        if (l.rootDirectory() != 0) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "FileLinkInformation RootDirectory " + l.rootDirectory());
        }
        // MS-FSA 2.1.5.14.6: a directory cannot have another link
        if (o.directory()) {
            throw new SmbException(NtStatus.FILE_IS_A_DIRECTORY, "hard link to a directory");
        }
        if ((c.tree.maximalAccess() & Access.FILE_WRITE_DATA) == 0) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "the share is read-only");
        }
        List<String> comps = Files.split(l.target());
        if (comps.isEmpty()) {
            throw new SmbException(NtStatus.OBJECT_NAME_INVALID, "empty link name");
        }
        FileHandle root = c.tree.root();
        FileHandle toDir = SetInfo.targetDirectory(vfs, caller, root, comps, l.target());
        String toName = comps.getLast();
        Existing existing = existing(vfs, caller, toDir, toName);
        if (existing != null) {
            if (!l.replaceIfExists()) {
                throw new SmbException(NtStatus.OBJECT_NAME_COLLISION, l.target() + " exists");
            }
            // MS-FSA 2.1.5.14.6: a directory is never replaced, nor a file someone has open
            if (existing.node().attributes().type() == FileType.DIRECTORY) {
                throw new SmbException(NtStatus.ACCESS_DENIED, l.target() + " is a directory");
            }
            if (existing.node().handle().fileId() == o.handle().fileId()) {
                return; // already a name of this file
            }
            if (c.server.opens().isOpen(existing.node().handle().volumeId(), existing.node().handle().fileId())) {
                throw new SmbException(NtStatus.ACCESS_DENIED, l.target() + " is open");
            }
            vfs.remove(caller, toDir, existing.name());
        }
        vfs.link(caller, o.handle(), toDir, toName);
    }

    private record Existing(Node node, String name) {
    }

    /** The entry a name denotes (not following a symbolic link), matched without case where the share asks. */
    private static Existing existing(VirtualFileSystem vfs, Caller caller, FileHandle dir, String name)
            throws VfsException {
        try {
            return new Existing(vfs.lookup(caller, dir, name), name);
        } catch (VfsException e) {
            if (e.error() != VfsError.NOT_FOUND) {
                throw e;
            }
        }
        if (!vfs.options().caseInsensitive()) {
            return null;
        }
        long cookie = 0;
        long verifier = 0;
        while (true) {
            DirectoryPage p = vfs.readdir(caller, dir, cookie, verifier, 512, false);
            for (DirectoryEntry e : p.entries()) {
                if (e.name().equalsIgnoreCase(name)) {
                    return new Existing(vfs.lookup(caller, dir, e.name()), e.name());
                }
                cookie = e.cookie();
            }
            verifier = p.verifier();
            if (p.eof() || p.entries().isEmpty()) {
                return null;
            }
        }
    }
}
