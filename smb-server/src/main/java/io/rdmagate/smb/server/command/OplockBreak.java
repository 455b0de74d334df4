package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Lease;
import io.rdmagate.smb.mssmb2.Smb2OplockBreak;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.SmbException;

/**
 * OPLOCK_BREAK acknowledgments (MS-SMB2 3.3.5.22). An oplock ack names an open of the session
 * (else STATUS_FILE_CLOSED) that holds an oplock (else STATUS_INVALID_OPLOCK_PROTOCOL, as Windows and
 * Samba answer) with a break outstanding (else STATUS_INVALID_DEVICE_STATE)
 * and acknowledge Level II or none (else STATUS_INVALID_OPLOCK_PROTOCOL, 3.3.5.22.1); the response
 * carries the level the open keeps. A lease ack names a lease of the connection's client GUID
 * (else STATUS_OBJECT_NAME_NOT_FOUND) that is breaking (else STATUS_UNSUCCESSFUL) and a state within
 * the break (else STATUS_REQUEST_NOT_ACCEPTED, 3.3.5.22.2).
 */
public final class OplockBreak implements Command {
    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException {
        Smb2OplockBreak.Ack ack = Smb2OplockBreak.decode(c.msg);
        if (ack.lease()) {
            if (c.conn.dialect() == Smb2Dialect.SMB_2_0_2) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "lease acknowledgment on SMB 2.0.2");
            }
            int state = c.server.oplocks().acknowledgeLease(c.conn.clientGuid, ack.leaseKey(), ack.leaseState());
            c.reply.length(Smb2Lease.writeBreakResponse(c.reply.body(36), ack.leaseKey(), state));
            return;
        }
        Open o = c.open(ack.fileId());
        int level = c.server.oplocks().acknowledge(o, ack.oplockLevel());
        c.reply.length(Smb2OplockBreak.write(c.reply.body(Smb2OplockBreak.BODY_SIZE), level, o.fileId()));
    }
}
