package io.rdmagate.smb.server.command;

import io.rdmagate.smb.msdtyp.FileTime;
import io.rdmagate.smb.msdtyp.SecurityDescriptor;
import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msfscc.FileInfo;
import io.rdmagate.smb.msfscc.FileInfoEncoder;
import io.rdmagate.smb.msfscc.FileInformationClass;
import io.rdmagate.smb.msfscc.FullEaInformation;
import io.rdmagate.smb.msfscc.ShortNames;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2QueryInfo;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.ExtendedAttributes;
import io.rdmagate.smb.server.Files;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.Security;
import io.rdmagate.smb.server.Access;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FsStat;
import io.rdmagate.vfs.VfsException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * QUERY_INFO (MS-SMB2 3.3.5.20): file classes (basic, standard, internal, EA, full EA, access, position,
 * mode, alignment, all, name, alternate (8.3) name, network open, attribute tag, stream, compression), filesystem classes
 * (volume, size, full size, device, attribute, sector size, object id), and a security descriptor
 * derived from the owner, group and mode bits. Quotas are not supported.
 */
public final class QueryInfo implements Command {
    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException, VfsException {
        Smb2QueryInfo.Request req = Smb2QueryInfo.decode(c.msg);
        Open o = c.open(req.fileId());
        long max = Integer.toUnsignedLong(req.outputLength());
        if (max > c.server.config().maxIo()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "OutputBufferLength " + max);
        }
        ByteBuffer data = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        switch (req.infoType()) {
            case Smb2QueryInfo.INFO_FILE -> {
                if (req.infoClass() == FileInformationClass.FILE_FULL_EA) {
                    data = fullEa(c, o, req, max);
                } else {
                    file(c, o, req.infoClass(), data, max);
                }
            }
            case Smb2QueryInfo.INFO_FILESYSTEM -> filesystem(c, o, req.infoClass(), data, max);
            case Smb2QueryInfo.INFO_SECURITY -> {
                if (o.pipe() != null) {
                    throw new SmbException(NtStatus.NOT_SUPPORTED, "security of a pipe");
                }
                byte[] sd = security(o, req.additionalInformation());
                if (sd.length > max) {
                    // 3.3.5.20.3: STATUS_BUFFER_TOO_SMALL with the size needed as ErrorData
                    ByteBuffer b = c.reply.body(12);
                    b.putShort(64, (short) 9).putInt(68, 4).putInt(72, sd.length);
                    c.reply.status(NtStatus.BUFFER_TOO_SMALL);
                    c.reply.length(12);
                    return;
                }
                if (sd.length > data.remaining()) {
                    data = ByteBuffer.allocate(sd.length).order(ByteOrder.LITTLE_ENDIAN);
                }
                data.put(sd);
            }
            default -> throw new SmbException(NtStatus.NOT_SUPPORTED, "quota information");
        }
        int len = data.position();
        if (len > max) {
            len = (int) max;
            c.reply.status(NtStatus.BUFFER_OVERFLOW);
        }
        ByteBuffer b = c.reply.body(8 + Math.max(len, 1));
        b.put(Smb2QueryInfo.OUTPUT_OFFSET, data.array(), 0, len);
        c.reply.length(Smb2QueryInfo.write(b, len));
    }

    /**
     * MS-SMB2 3.3.5.20.3, MS-FSA 2.1.5.13: the parts of the file's descriptor asked for; owner,
     * group and DACL need READ_CONTROL, the SACL ACCESS_SYSTEM_SECURITY (which no open holds: the
     * gateway keeps no SACL).
     */
    private static byte[] security(Open o, int info) throws SmbException, VfsException {
        if ((info & SecurityDescriptor.SACL_SECURITY_INFORMATION) != 0 && !o.can(Access.ACCESS_SYSTEM_SECURITY)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "SACL without ACCESS_SYSTEM_SECURITY");
        }
        int parts = SecurityDescriptor.OWNER_SECURITY_INFORMATION | SecurityDescriptor.GROUP_SECURITY_INFORMATION
                | SecurityDescriptor.DACL_SECURITY_INFORMATION;
        if ((info & parts) != 0 && !o.can(Access.READ_CONTROL)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "security without READ_CONTROL");
        }
        FileAttributes a = o.vfs().getattr(o.handle());
        return Security.of(o.vfs(), o.handle(), a).select(info).encode();
    }

    private static void file(Ctx c, Open o, int cls, ByteBuffer d, long max) throws SmbException, VfsException {
        // MS-SMB2 3.3.5.20.1: room for the structure as Windows declares it, a name's first
        // character included and padded to 8 (FileAllInformation 104, FileStreamInformation 32,
        // FileNameInformation 8), as smbtorture's qfile_buffercheck expects
        int fixed = FileInfoEncoder.fixedSize(cls);
        if (cls == FileInformationClass.FILE_ALL) {
            fixed = 104;
        } else if (cls == FileInformationClass.FILE_STREAM) {
            fixed = 32;
        }
        if (fixed > 0 && max < fixed || fixed < 0 && max < 8) {
            throw new SmbException(NtStatus.INFO_LENGTH_MISMATCH, "OutputBufferLength " + max + " for class " + cls);
        }
        if (o.pipe() == null && readsAttributes(cls) && !o.can(Access.FILE_READ_ATTRIBUTES)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "file class " + cls + " without FILE_READ_ATTRIBUTES");
        }
        FileInfo f;
        if (o.pipe() != null) {
            f = new FileInfo(0, 0, 0, 0, 4096, 0, 0x80, 0, 1, false, false);
        } else {
            f = Files.info(o.vfs().getattr(o.handle()), o.deletePending());
        }
        String name = "\\" + o.path;
        switch (cls) {
            case FileInformationClass.FILE_BASIC -> FileInfoEncoder.basic(d, f);
            case FileInformationClass.FILE_STANDARD -> FileInfoEncoder.standard(d, f);
            case FileInformationClass.FILE_INTERNAL -> FileInfoEncoder.internal(d, f);
            case FileInformationClass.FILE_EA -> d.putInt(eaSize(c, o));
            case FileInformationClass.FILE_ACCESS -> d.putInt(o.access());
            case FileInformationClass.FILE_POSITION -> d.putLong(o.position);
            case FileInformationClass.FILE_MODE -> d.putInt(o.mode);
            case FileInformationClass.FILE_ALIGNMENT -> d.putInt(0);
            case FileInformationClass.FILE_ALL -> FileInfoEncoder.all(d, f, eaSize(c, o), o.access(), o.position, o.mode, name);
            case FileInformationClass.FILE_NAME, FileInformationClass.FILE_NORMALIZED_NAME -> FileInfoEncoder.name(d, name);
            case FileInformationClass.FILE_ALTERNATE_NAME -> {
                // MS-FSCC 2.4.5: the 8.3 name of the last component; the share's root has none
                if (o.path.isEmpty() || o.pipe() != null) {
                    throw new SmbException(NtStatus.OBJECT_NAME_NOT_FOUND, "no 8.3 name");
                }
                FileInfoEncoder.name(d, ShortNames.of(o.path.substring(o.path.lastIndexOf('\\') + 1)));
            }
            case FileInformationClass.FILE_NETWORK_OPEN -> FileInfoEncoder.networkOpen(d, f);
            case FileInformationClass.FILE_ATTRIBUTE_TAG -> FileInfoEncoder.attributeTag(d, f);
            case FileInformationClass.FILE_STREAM -> FileInfoEncoder.stream(d, f);
            case FileInformationClass.FILE_COMPRESSION -> FileInfoEncoder.compression(d, f);
            default -> throw new SmbException(NtStatus.INVALID_INFO_CLASS, "file class " + cls);
        }
    }

    /**
     * MS-FSA 2.1.5.11: the classes that report the times and attributes need FILE_READ_ATTRIBUTES on
     * the open (Basic, All, NetworkOpen, AttributeTag); the others any open may ask.
     */
    private static boolean readsAttributes(int cls) {
        return cls == FileInformationClass.FILE_BASIC || cls == FileInformationClass.FILE_ALL
                || cls == FileInformationClass.FILE_NETWORK_OPEN || cls == FileInformationClass.FILE_ATTRIBUTE_TAG;
    }

    private static int eaSize(Ctx c, Open o) throws VfsException {
        return o.pipe() != null ? 0 : ExtendedAttributes.size(o.vfs(), c.session.caller(), o.handle());
    }

    /** MS-SMB2 2.2.37 Flags of a FileFullEaInformation query. */
    private static final int SL_RESTART_SCAN = 0x1;
    private static final int SL_RETURN_SINGLE_ENTRY = 0x2;

    /**
     * FileFullEaInformation (MS-SMB2 3.3.5.20.1, MS-FSCC 2.4.15), needing FILE_READ_EA: the EAs the
     * input buffer names (FILE_GET_EA_INFORMATION; one the file lacks with an empty value), else the
     * file's EAs from where this open's last query stopped (from the first with SL_RESTART_SCAN).
     * Only whole entries are returned, as many as OutputBufferLength holds (one with
     * SL_RETURN_SINGLE_ENTRY), and STATUS_BUFFER_OVERFLOW says more are left; STATUS_BUFFER_TOO_SMALL
     * when not even one fits, STATUS_NO_EAS_ON_FILE for a file without any, STATUS_NO_MORE_EAS past
     * the last.
     */
    private static ByteBuffer fullEa(Ctx c, Open o, Smb2QueryInfo.Request req, long max) throws SmbException, VfsException {
        if (o.pipe() != null) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "EAs of a pipe");
        }
        if (!o.can(Access.FILE_READ_EA)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "EA query without FILE_READ_EA");
        }
        List<FullEaInformation.Ea> eas;
        boolean named = req.input().hasRemaining();
        if (named) {
            eas = ExtendedAttributes.named(o.vfs(), c.session.caller(), o.handle(), ExtendedAttributes.askedNames(req.input()));
        } else {
            eas = ExtendedAttributes.all(o.vfs(), c.session.caller(), o.handle());
            if (eas.isEmpty()) {
                throw new SmbException(NtStatus.NO_EAS_ON_FILE, "no EAs");
            }
            if ((req.flags() & SL_RESTART_SCAN) != 0) {
                o.eaIndex = 0;
            }
            if (o.eaIndex >= eas.size()) {
                throw new SmbException(NtStatus.NO_MORE_EAS, "past the last EA");
            }
            eas = eas.subList(o.eaIndex, eas.size());
        }
        List<FullEaInformation.Ea> fit = new ArrayList<>();
        for (FullEaInformation.Ea ea : eas) {
            fit.add(ea);
            if (FullEaInformation.length(fit) > max) {
                fit.remove(fit.size() - 1);
                break;
            }
            if ((req.flags() & SL_RETURN_SINGLE_ENTRY) != 0) {
                break;
            }
        }
        if (fit.isEmpty()) {
            throw new SmbException(NtStatus.BUFFER_TOO_SMALL, "OutputBufferLength " + max + " holds no EA");
        }
        if (!named) {
            o.eaIndex += fit.size();
        }
        if (fit.size() < eas.size() && (req.flags() & SL_RETURN_SINGLE_ENTRY) == 0) {
            c.reply.status(NtStatus.BUFFER_OVERFLOW);
        }
        ByteBuffer d = ByteBuffer.allocate(FullEaInformation.length(fit)).order(ByteOrder.LITTLE_ENDIAN);
        FullEaInformation.encode(d, fit);
        return d;
    }

    private static void filesystem(Ctx c, Open o, int cls, ByteBuffer d, long max) throws SmbException, VfsException {
        if (o.pipe() != null) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "filesystem information of a pipe");
        }
        FsStat s = o.vfs().statfs(o.handle());
        int bs = Math.max(512, s.blockSize());
        int sectorsPerUnit = bs / 512;
        long unit = (long) sectorsPerUnit * 512;
        switch (cls) {
            case FileInformationClass.FS_VOLUME -> FileInfoEncoder.fsVolume(d, FileTime.fromUnixNanos(0), o.vfs().volumeId(),
                    o.tree().share().name());
            case FileInformationClass.FS_SIZE -> FileInfoEncoder.fsSize(d, s.totalBytes() / unit, s.availableBytes() / unit,
                    sectorsPerUnit, 512);
            case FileInformationClass.FS_FULL_SIZE -> FileInfoEncoder.fsFullSize(d, s.totalBytes() / unit,
                    s.availableBytes() / unit, s.freeBytes() / unit, sectorsPerUnit, 512);
            case FileInformationClass.FS_DEVICE -> FileInfoEncoder.fsDevice(d, o.tree().maximalAccess()
                    == io.rdmagate.smb.server.Access.READ_ONLY_MAXIMAL);
            case FileInformationClass.FS_ATTRIBUTE -> FileInfoEncoder.fsAttribute(d, FileInfoEncoder.FS_ATTRIBUTES,
                    s.maxNameBytes(), "NTFS");
            case FileInformationClass.FS_SECTOR_SIZE -> FileInfoEncoder.fsSectorSize(d, 512);
            case FileInformationClass.FS_OBJECT_ID -> FileInfoEncoder.fsObjectId(d, c.server.serverGuid());
            case FileInformationClass.FS_CONTROL -> d.put(new byte[48]); // MS-FSCC 2.5.2: no quotas tracked

            default -> throw new SmbException(NtStatus.INVALID_INFO_CLASS, "filesystem class " + cls);
        }
        // a class with a name needs room for the structure as Windows declares it: the name's first
        // character included, padded to 8 (MS-SMB2 3.3.5.20.2; what smbtorture's qfs_buffercheck expects)
        int fixed = cls == FileInformationClass.FS_VOLUME ? 24 : cls == FileInformationClass.FS_ATTRIBUTE ? 16 : d.position();
        if (max < fixed) {
            throw new SmbException(NtStatus.INFO_LENGTH_MISMATCH, "OutputBufferLength " + max + " for fs class " + cls);
        }
    }
}
