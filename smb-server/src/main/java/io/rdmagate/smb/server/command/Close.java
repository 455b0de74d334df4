package io.rdmagate.smb.server.command;

import io.rdmagate.smb.msfscc.FileInfo;
import io.rdmagate.smb.mssmb2.Smb2Close;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Files;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.smb.server.SmbServer;
import io.rdmagate.vfs.VfsException;

/**
 * CLOSE (MS-SMB2 3.3.5.10): releases the open's byte-range locks and pending notifications, and
 * deletes the file when this was its last open and a delete is pending (MS-FSA 2.1.5.4).
 */
public final class Close implements Command {
    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException, VfsException {
        Smb2Close.Request req = Smb2Close.decode(c.msg);
        Open o = c.open(req.fileId());
        FileInfo f = null;
        if ((req.flags() & Smb2Close.POSTQUERY_ATTRIB) != 0 && o.pipe() == null) {
            try {
                f = Files.info(o.vfs().getattr(o.handle()), false);
            } catch (VfsException gone) {
                // the file went behind the open's back (the host, another protocol): the open closes
                // all the same, and the reply carries no attributes (flags 0), as Samba answers
                f = null;
            }
        }
        closeOpen(c.server, o);
        if (f == null) {
            c.reply.length(Smb2Close.write(c.reply.body(60), 0, 0, 0, 0, 0, 0, 0, 0));
        } else {
            c.reply.length(Smb2Close.write(c.reply.body(60), Smb2Close.POSTQUERY_ATTRIB, f.creation(), f.lastAccess(),
                    f.lastWrite(), f.change(), f.allocationSize(), f.endOfFile(), f.attributes()));
        }
    }

    /** Closes an open for CLOSE, TREE_DISCONNECT, LOGOFF and lost connections. */
    public static void closeOpen(SmbServer server, Open o) {
        if (o.pipe() == null) {
            o.vfs().locks().releaseAll(owner -> owner.equals(o.lockOwner()));
            o.closing = true; // before the feed ends: a CHANGE_NOTIFY racing the CLOSE sees one or the other
            server.watchers().closed(o);
        }
        server.opens().close(o, server);
        if (o.deleteOnClose && o.directory()) {
            server.watchers().deletePending(server.opens().deletePendingOpens(o)); // others still hold it open
        }
    }
}
