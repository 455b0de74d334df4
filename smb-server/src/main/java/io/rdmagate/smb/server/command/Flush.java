package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Close;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Simple;
import io.rdmagate.smb.server.Access;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.vfs.VfsException;

/** FLUSH (MS-SMB2 3.3.5.11): commits the file's data and metadata to stable storage. */
public final class Flush implements Command {
    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException, VfsException {
        Open o = c.open(Smb2Close.decodeFlush(c.msg));
        if (o.pipe() == null) {
            if (!o.can(Access.FILE_WRITE_DATA | Access.FILE_APPEND_DATA)) {
                throw new SmbException(NtStatus.ACCESS_DENIED, "flush without write access");
            }
            o.vfs().commit(o.handle());
        }
        c.reply.length(Smb2Simple.write(c.reply.body(4)));
    }
}
