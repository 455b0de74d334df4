package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Simple;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;

/**
 * CANCEL (MS-SMB2 3.3.5.16): completes the named pending request with STATUS_CANCELLED. CANCEL
 * itself gets no response.
 */
public final class Cancel implements Command {
    @Override
    public Needs needs() {
        return Needs.NOTHING;
    }

    @Override
    public void handle(Ctx c) throws Smb2DecodeException {
        c.reply.none = true;
        Smb2Simple.decode(c.msg, "CANCEL");
        c.conn.cancel(c.msg);
    }
}
