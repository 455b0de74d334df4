package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Simple;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;

/** ECHO (MS-SMB2 3.3.5.17): answers at once. */
public final class Echo implements Command {
    @Override
    public Needs needs() {
        return Needs.NOTHING;
    }

    @Override
    public void handle(Ctx c) throws Smb2DecodeException {
        Smb2Simple.decode(c.msg, "ECHO");
        c.reply.length(Smb2Simple.write(c.reply.body(4)));
    }
}
