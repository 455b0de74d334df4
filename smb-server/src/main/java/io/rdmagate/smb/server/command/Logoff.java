package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Simple;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;

/** LOGOFF (MS-SMB2 3.3.5.6): closes the session's opens and trees; the response is still signed. */
public final class Logoff implements Command {
    @Override
    public Needs needs() {
        return Needs.SESSION;
    }

    @Override
    public void handle(Ctx c) throws Smb2DecodeException {
        Smb2Simple.decode(c.msg, "LOGOFF");
        if (c.session.hasSigner() && (c.requestSigned() || c.session.signingRequired)) {
            c.reply.signWith = c.session;
        }
        c.conn.logoff(c.session);
        c.reply.length(Smb2Simple.write(c.reply.body(4)));
    }
}
