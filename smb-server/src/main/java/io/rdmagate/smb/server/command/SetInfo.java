package io.rdmagate.smb.server.command;

import io.rdmagate.smb.msdtyp.FileTime;
import io.rdmagate.smb.msdtyp.SecurityDescriptor;
import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msfscc.FileInformationClass;
import io.rdmagate.smb.msfscc.FullEaInformation;
import io.rdmagate.smb.msfscc.SetInfoDecoder;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2QueryInfo;
import io.rdmagate.smb.mssmb2.Smb2SetInfo;
import io.rdmagate.smb.server.Access;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.ExtendedAttributes;
import io.rdmagate.smb.server.Files;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.Security;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.DosAttributes;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import java.util.List;

/**
 * SET_INFO (MS-SMB2 3.3.5.21, MS-FSA 2.1.5.14): basic (times, DOS attributes), rename, link, disposition
 * (delete on last close), end of file, allocation, position, mode and extended attributes
 * ({@link ExtendedAttributes}); the security descriptor.
 * Filesystem and quota information cannot be set (STATUS_NOT_SUPPORTED).
 */
public final class SetInfo implements Command {
    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException, VfsException {
        Smb2SetInfo.Request req = Smb2SetInfo.decode(c.msg);
        Open o = c.open(req.fileId());
        if (req.infoType() == Smb2QueryInfo.INFO_SECURITY && o.pipe() == null) {
            security(o, c.session.caller(), req);
            c.reply.length(Smb2SetInfo.write(c.reply.body(2)));
            return;
        }
        if (req.infoType() != Smb2QueryInfo.INFO_FILE || o.pipe() != null) {
            throw new SmbException(NtStatus.NOT_SUPPORTED, "SET_INFO type " + req.infoType());
        }
        VirtualFileSystem vfs = o.vfs();
        Caller caller = c.session.caller();
        switch (req.infoClass()) {
            case FileInformationClass.FILE_BASIC -> basic(o, vfs, caller, SetInfoDecoder.basic(req.buffer()));
            case FileInformationClass.FILE_RENAME -> rename(c, o, vfs, caller, SetInfoDecoder.rename(req.buffer()));
            case FileInformationClass.FILE_LINK -> LinkInfo.link(c, o, vfs, caller, SetInfoDecoder.link(req.buffer()));
            case FileInformationClass.FILE_DISPOSITION -> disposition(c, o, vfs, caller, SetInfoDecoder.disposition(req.buffer()));
            case FileInformationClass.FILE_END_OF_FILE -> {
                long eof = SetInfoDecoder.int64(req.buffer(), "FileEndOfFileInformation");
                need(o, Access.FILE_WRITE_DATA);
                if (o.directory()) {
                    throw new SmbException(NtStatus.INVALID_PARAMETER, "end of file of a directory");
                }
                c.server.oplocks().breakLevelII(o); // MS-FSA 2.1.5.14.2
                vfs.setattr(caller, o.handle(), SetAttributes.create().size(eof));
                o.userSetTimes.restore(vfs, caller, o.handle());
            }
            case FileInformationClass.FILE_ALLOCATION -> {
                long alloc = SetInfoDecoder.int64(req.buffer(), "FileAllocationInformation");
                need(o, Access.FILE_WRITE_DATA);
                if (!o.directory()) {
                    c.server.oplocks().breakLevelII(o); // MS-FSA 2.1.5.14.1
                }
                // MS-FSA 2.1.5.14.1: an allocation below the end of file truncates it
                if (!o.directory() && alloc < vfs.getattr(o.handle()).size()) {
                    vfs.setattr(caller, o.handle(), SetAttributes.create().size(alloc));
                }
            }
            case FileInformationClass.FILE_POSITION -> o.position = SetInfoDecoder.int64(req.buffer(), "FilePositionInformation");
            case FileInformationClass.FILE_MODE -> o.mode = SetInfoDecoder.mode(req.buffer());
            case FileInformationClass.FILE_FULL_EA -> {
                // MS-FSCC 2.4.15: the EAs to set, an empty value removing one; FILE_WRITE_EA needed
                List<FullEaInformation.Ea> eas = ExtendedAttributes.decode(req.buffer());
                need(o, Access.FILE_WRITE_EA);
                ExtendedAttributes.set(vfs, caller, o.handle(), eas);
            }
            default -> throw new SmbException(NtStatus.INVALID_INFO_CLASS, "file class " + req.infoClass());
        }
        c.reply.length(Smb2SetInfo.write(c.reply.body(2)));
    }

    /**
     * MS-SMB2 3.3.5.21.3, MS-FSA 2.1.5.16: replaces the parts AdditionalInformation names. The
     * owner and group need WRITE_OWNER, the DACL WRITE_DAC; a SACL is refused (no open holds
     * ACCESS_SYSTEM_SECURITY). The vfs keeps the descriptor and sets the mode, owner and group
     * that say the same to NFS and the host.
     */
    private static void security(Open o, Caller caller, Smb2SetInfo.Request req)
            throws SmbException, Smb2DecodeException, VfsException {
        int info = req.additionalInformation();
        if ((info & SecurityDescriptor.SACL_SECURITY_INFORMATION) != 0) {
            need(o, Access.ACCESS_SYSTEM_SECURITY);
        }
        if ((info & (SecurityDescriptor.OWNER_SECURITY_INFORMATION | SecurityDescriptor.GROUP_SECURITY_INFORMATION)) != 0) {
            need(o, Access.WRITE_OWNER);
        }
        if ((info & SecurityDescriptor.DACL_SECURITY_INFORMATION) != 0) {
            need(o, Access.WRITE_DAC);
        }
        SecurityDescriptor set = SecurityDescriptor.read(req.buffer());
        VirtualFileSystem vfs = o.vfs();
        FileAttributes cur = vfs.getattr(o.handle());
        SecurityDescriptor next = Security.of(vfs, o.handle(), cur).with(set, info);
        vfs.securityDescriptor(caller, o.handle(), next.encode(), Security.posix(next, cur));
    }

    private static void need(Open o, int bits) throws SmbException {
        if (!o.can(bits)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "open lacks access 0x" + Integer.toHexString(bits));
        }
    }

    private static long time(long fileTime) {
        return FileTime.toUnixNanos(fileTime);
    }

    // MS-FSA 2.1.5.14.2: 0 leaves a time, -1 freezes it for this open's later writes, -2 thaws it
    private static void basic(Open o, VirtualFileSystem vfs, Caller caller, SetInfoDecoder.Basic b)
            throws SmbException, VfsException {
        need(o, Access.FILE_WRITE_ATTRIBUTES);
        SetAttributes s = SetAttributes.create();
        if (b.creation() > 0) {
            s.birthTime(time(b.creation()));
        }
        if (b.lastAccess() > 0) {
            s.atime(time(b.lastAccess()));
        }
        if (b.lastWrite() > 0) {
            s.mtime(time(b.lastWrite()));
        }
        if (b.change() > 0) {
            s.changeTime(time(b.change()));
        }
        if (b.attributes() != 0) {
            int a = b.attributes();
            if ((a & DosAttributes.DIRECTORY) != 0 && !o.directory()) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "FILE_ATTRIBUTE_DIRECTORY on a file");
            }
            if ((a & DosAttributes.TEMPORARY) != 0 && o.directory()) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "FILE_ATTRIBUTE_TEMPORARY on a directory"); // MS-FSA 2.1.5.14.2
            }
            FileAttributes cur = vfs.getattr(o.handle());
            // a file's READONLY clears the write bits, or gives the owner's back; SPARSE_FILE is FSCTL_SET_SPARSE's alone
            s.dosAttributes((a & DosAttributes.KEPT & ~DosAttributes.SPARSE_FILE)
                    | (cur.dosAttributes() & DosAttributes.SPARSE_FILE));
        }
        FileAttributes after = s.isEmpty() ? null : vfs.setattr(caller, o.handle(), s);
        if (b.lastWrite() != 0 || b.change() != 0) {
            o.userSetTimes.set(b.lastWrite(), b.change(), after != null ? after : vfs.getattr(o.handle()));
        }
    }

    private static void rename(Ctx c, Open o, VirtualFileSystem vfs, Caller caller, SetInfoDecoder.Rename r)
            throws SmbException, VfsException {
        need(o, Access.DELETE);
        if (o.path.isEmpty()) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "rename of the share root");
        }
        List<String> comps = Files.split(r.target());
        if (comps.isEmpty()) {
            throw new SmbException(NtStatus.OBJECT_NAME_INVALID, "empty rename target");
        }
        if (c.server.opens().othersLackShareDelete(o)) {
            throw new SmbException(NtStatus.SHARING_VIOLATION, "another open does not share delete");
        }
        FileHandle root = c.tree.root();
        FileHandle toDir = targetDirectory(vfs, caller, root, comps, r.target());
        String toName = comps.getLast();
        FileHandle fromDir = o.parentHandle();
        String fromName = o.name();
        if (Create.lookup(vfs, caller, toDir, toName) != null && !r.replaceIfExists()
                && !(toDir.equals(fromDir) && toName.equalsIgnoreCase(fromName))) {
            throw new SmbException(NtStatus.OBJECT_NAME_COLLISION, r.target() + " exists");
        }
        vfs.rename(caller, fromDir, fromName, toDir, toName, true);
        c.server.opens().moved(o, toDir, toName, String.join("\\", comps));
    }

    private static void disposition(Ctx c, Open o, VirtualFileSystem vfs, Caller caller, boolean delete)
            throws SmbException, VfsException {
        need(o, Access.DELETE);
        if (delete) {
            if (o.path.isEmpty()) {
                throw new SmbException(NtStatus.ACCESS_DENIED, "delete of the share root");
            }
            FileAttributes a = vfs.getattr(o.handle());
            if (a.type() != FileType.DIRECTORY && (a.dosAttributes() & DosAttributes.READONLY) != 0) {
                throw new SmbException(Create.CANNOT_DELETE, "the file is read-only");
            }
            if (a.type() == FileType.DIRECTORY
                    && !vfs.readdir(caller, o.handle(), 0, 0, 1, false).entries().isEmpty()) {
                throw new SmbException(NtStatus.DIRECTORY_NOT_EMPTY, "directory is not empty");
            }
            Create.requireMayDelete(vfs, caller, o.parentHandle(), a);
        }
        c.server.opens().setDeletePending(o, delete);
        if (delete && o.directory()) {
            c.server.watchers().deletePending(c.server.opens().deletePendingOpens(o));
        }
    }

    /** The directory a rename or link target names (all but its last component), from the share root. */
    static FileHandle targetDirectory(io.rdmagate.vfs.VirtualFileSystem vfs, io.rdmagate.vfs.Caller caller,
            FileHandle root, java.util.List<String> comps, String target) throws VfsException, SmbException {
        try {
            return comps.size() == 1 ? root
                    : vfs.resolve(caller, root, Files.join(comps, 0, comps.size() - 1, "/"), true).handle();
        } catch (VfsException e) {
            if (e.error() == VfsError.NOT_FOUND || e.error() == VfsError.NOT_DIRECTORY) {
                throw new SmbException(NtStatus.OBJECT_PATH_NOT_FOUND, "no directory for " + target);
            }
            throw e;
        }
    }
}
