package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.Smb2Read;
import io.rdmagate.smb.server.Access;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.VfsException;
import java.nio.ByteBuffer;

/**
 * READ (MS-SMB2 3.3.5.12). The data is I/O memory from the vfs (a mapped region, or a pool buffer
 * the file was read into) and goes to the socket as its own buffer, or, on SMB Direct with an RDMA
 * channel, is RDMA-Written from there into the client's buffers: no copy on the server.
 */
public final class Read implements Command {
    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    /** MS-SMB2 3.3.5.2.5: a multi-credit request must be charged for its size. */
    static void checkCharge(Ctx c, long bytes) throws SmbException {
        int charge = Smb2Header.creditCharge(c.msg);
        if (c.conn.dialect() != io.rdmagate.smb.mssmb2.Smb2Dialect.SMB_2_0_2
                && Math.max(charge, 1) < (bytes + 65535) / 65536) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "CreditCharge " + charge + " for " + bytes + " bytes");
        }
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException, VfsException {
        Smb2Read.Request req = Smb2Read.decode(c.msg);
        Open o = c.open(req.fileId());
        long len = Integer.toUnsignedLong(req.length());
        if (len > c.server.config().maxIo()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "READ of " + len + " bytes");
        }
        checkCharge(c, len);
        if (o.pipe() != null) {
            byte[] data = o.pipe().read((int) len);
            ByteBuffer b = c.reply.body(16 + data.length);
            Smb2Read.write(b, data.length);
            b.put(Smb2Read.DATA_OFFSET, data);
            c.reply.length(16 + data.length);
            return;
        }
        io.rdmagate.smb.server.transport.RdmaChannel rdma = null;
        java.util.List<io.rdmagate.smbdirect.message.BufferDescriptor> into = null;
        if (req.channel() != Smb2Read.CHANNEL_NONE) {
            rdma = RdmaChannelInfo.channel(c);
            into = RdmaChannelInfo.descriptors(c, rdma, req.channel(), req.channelInfoOffset(),
                    req.channelInfoLength(), len);
        }
        if (o.directory()) {
            throw new SmbException(NtStatus.INVALID_DEVICE_REQUEST, "READ of a directory");
        }
        if (!o.can(Access.FILE_READ_DATA | Access.FILE_EXECUTE)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "open lacks read access");
        }
        if (req.offset() < 0) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "READ offset " + Long.toUnsignedString(req.offset()));
        }
        if (len > 0 && o.vfs().locks().ioConflicts(o.handle().fileId(), o.lockOwner(), req.offset(), len, false)) {
            throw new SmbException(NtStatus.FILE_LOCK_CONFLICT, "range is locked");
        }
        if (len == 0) {
            // 3.3.5.12: a 0-byte read succeeds unless the client asked for a minimum it cannot get
            if (req.minimumCount() != 0) {
                throw new SmbException(NtStatus.END_OF_FILE, "READ at " + req.offset());
            }
            c.reply.length(Smb2Read.write(c.reply.body(16), 0));
            return;
        }
        IoMemory m = o.vfs().map(c.session.caller(), o.handle(), req.offset(), (int) len);
        if (m == null) {
            m = o.vfs().read(c.session.caller(), o.handle(), req.offset(), (int) len, c.conn.memory());
        }
        if (m.length() == 0 || m.length() < Integer.toUnsignedLong(req.minimumCount())) {
            m.release();
            throw new SmbException(NtStatus.END_OF_FILE, "READ at " + req.offset());
        }
        o.position = req.offset() + m.length(); // MS-FSA 2.1.5.2: CurrentByteOffset follows the read
        if (rdma != null) {
            // 3.3.5.12: the data is RDMA-Written into the client's buffers ahead of the response
            int n = (int) m.length();
            rdma.write(into, m);
            c.reply.length(Smb2Read.writeRdma(c.reply.body(16), n));
            return;
        }
        c.reply.length(Smb2Read.write(c.reply.body(16), (int) m.length()));
        c.reply.payload(m);
    }
}
