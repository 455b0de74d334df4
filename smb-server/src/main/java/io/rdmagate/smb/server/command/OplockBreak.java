package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2OplockBreak;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.SmbException;

/**
 * OPLOCK_BREAK acknowledgments (MS-SMB2 3.3.5.22). This server grants no oplocks and no leases
 * (CREATE answers SMB2_OPLOCK_LEVEL_NONE), so no break is ever outstanding: an oplock ack is
 * STATUS_INVALID_OPLOCK_PROTOCOL (3.3.5.22.1), a lease ack STATUS_OBJECT_NAME_NOT_FOUND (3.3.5.22.2).
 */
public final class OplockBreak implements Command {
    static final int INVALID_OPLOCK_PROTOCOL = 0xC00000E3;

    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException {
        Smb2OplockBreak.Ack ack = Smb2OplockBreak.decode(c.msg);
        if (ack.lease()) {
            throw new SmbException(NtStatus.OBJECT_NAME_NOT_FOUND, "no lease is breaking");
        }
        c.open(ack.fileId());
        throw new SmbException(INVALID_OPLOCK_PROTOCOL, "no oplock break is outstanding");
    }
}
