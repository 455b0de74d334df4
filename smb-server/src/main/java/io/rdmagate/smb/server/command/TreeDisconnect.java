package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Simple;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;

/** TREE_DISCONNECT (MS-SMB2 3.3.5.8): closes the tree's opens. */
public final class TreeDisconnect implements Command {
    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws Smb2DecodeException {
        Smb2Simple.decode(c.msg, "TREE_DISCONNECT");
        c.server.closeOpens(c.session, c.tree);
        c.session.removeTree(c.tree);
        c.reply.length(Smb2Simple.write(c.reply.body(4)));
    }
}
