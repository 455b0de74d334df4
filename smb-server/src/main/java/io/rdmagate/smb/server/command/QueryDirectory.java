package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msfscc.DirectoryInfoEncoder;
import io.rdmagate.smb.msfscc.FileInfo;
import io.rdmagate.smb.msfscc.Wildcard;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2QueryDirectory;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Files;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.DirectoryEntry;
import io.rdmagate.vfs.DirectoryPage;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * QUERY_DIRECTORY (MS-SMB2 3.3.5.18): the common directory information classes, search patterns
 * with the MS-FSA wildcards, RESTART_SCANS/REOPEN, RETURN_SINGLE_ENTRY. The listing of an open is
 * taken when a scan starts (with "." and "..") and handed out across calls.
 */
public final class QueryDirectory implements Command {
    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException, VfsException {
        Smb2QueryDirectory.Request req = Smb2QueryDirectory.decode(c.msg);
        Open o = c.open(req.fileId());
        if (o.pipe() != null || !o.directory()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "QUERY_DIRECTORY on a file");
        }
        if (!DirectoryInfoEncoder.supports(req.infoClass())) {
            throw new SmbException(NtStatus.INVALID_INFO_CLASS, "directory class " + req.infoClass());
        }
        long outLen = Integer.toUnsignedLong(req.outputLength());
        if (outLen == 0 || outLen > c.server.config().maxIo()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "OutputBufferLength " + outLen);
        }
        Read.checkCharge(c, outLen);
        String pattern = req.pattern().isEmpty() ? "*" : req.pattern();
        boolean first;
        synchronized (o) {
            if ((req.flags() & (Smb2QueryDirectory.RESTART_SCANS | Smb2QueryDirectory.REOPEN)) != 0 || o.listing == null) {
                o.listing = list(o, c.session.caller(), pattern);
                o.listingPos = 0;
                first = true;
            } else {
                first = false;
            }
            ByteBuffer b = c.reply.body(8 + (int) outLen);
            DirectoryInfoEncoder enc = DirectoryInfoEncoder.begin(b, Smb2QueryDirectory.OUTPUT_OFFSET, (int) outLen,
                    req.infoClass());
            while (o.listingPos < o.listing.size()) {
                Open.DirEntry e = o.listing.get(o.listingPos);
                if (!enc.add(e.name(), e.info(), 0)) {
                    break;
                }
                o.listingPos++;
                if ((req.flags() & Smb2QueryDirectory.RETURN_SINGLE_ENTRY) != 0) {
                    break;
                }
            }
            if (enc.count() == 0) {
                if (o.listingPos < o.listing.size()) {
                    throw new SmbException(NtStatus.INFO_LENGTH_MISMATCH, "OutputBufferLength below one entry");
                }
                throw new SmbException(first ? NtStatus.NO_SUCH_FILE : NtStatus.NO_MORE_FILES, "no more entries");
            }
            c.reply.length(Smb2QueryDirectory.write(b, enc.finish()));
        }
    }

    static List<Open.DirEntry> list(Open o, Caller caller, String pattern) throws VfsException, SmbException {
        VirtualFileSystem vfs = o.vfs();
        List<Open.DirEntry> out = new ArrayList<>();
        boolean wild = Wildcard.isWild(pattern);
        if (Wildcard.matches(pattern, ".")) {
            out.add(new Open.DirEntry(".", Files.info(vfs.getattr(o.handle()), false)));
        }
        if (Wildcard.matches(pattern, "..")) {
            out.add(new Open.DirEntry("..", Files.info(vfs.parent(caller, o.handle()).attributes(), false)));
        }
        if (!wild) {
            if (pattern.equals(".") || pattern.equals("..")) {
                return out;
            }
            io.rdmagate.vfs.Node n = Create.lookup(vfs, caller, o.handle(), pattern);
            if (n != null) {
                out.add(new Open.DirEntry(pattern, Files.info(n.attributes(), false)));
            }
            return out;
        }
        long cookie = 0;
        long verifier = 0;
        while (true) {
            DirectoryPage p = vfs.readdir(caller, o.handle(), cookie, verifier, 1024, true);
            for (DirectoryEntry e : p.entries()) {
                cookie = e.cookie();
                if (e.node() != null && Wildcard.matches(pattern, e.name())) {
                    FileInfo fi = Files.info(e.node().attributes(), false);
                    out.add(new Open.DirEntry(e.name(), fi));
                }
            }
            verifier = p.verifier();
            if (p.eof() || p.entries().isEmpty()) {
                return out;
            }
        }
    }
}
