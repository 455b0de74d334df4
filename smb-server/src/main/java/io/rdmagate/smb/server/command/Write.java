package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Create;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Write;
import io.rdmagate.smb.server.Access;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.vfs.Stability;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.WriteResult;
import io.rdmagate.vfs.memory.IoMemory;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * WRITE (MS-SMB2 3.3.5.13). The data is lent to the vfs where it lies in the receive buffer (a
 * direct buffer), so pwrite reads it from there. Copies, each counted in {@code PayloadCopies} under
 * "tcp": a frame that spanned socket reads was gathered by {@code NetBiosFrameDecoder} (counted
 * there); data that arrived encrypted was copied twice by decryption, and the plaintext, on the
 * heap, once more into pool memory.
 */
public final class Write implements Command {
    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    /**
     * 3.3.5.13: the data is RDMA-Read from the client's buffers into pool memory (registered), and
     * written to the file from there. A Read the client's buffers refuse ends the connection (the
     * RDMA fault already did on iWARP).
     */
    private static IoMemory rdmaRead(Ctx c, io.rdmagate.smb.server.transport.RdmaChannel rdma,
            java.util.List<io.rdmagate.smbdirect.message.BufferDescriptor> from, int length) throws SmbException {
        if (length == 0) {
            return IoMemory.lend(MemorySegment.NULL);
        }
        try {
            return rdma.read(from, length, c.conn.memory()).join();
        } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
            c.reply.disconnect = true;
            throw new SmbException(NtStatus.INVALID_PARAMETER, "RDMA Read of the WRITE's data failed: " + e.getCause());
        }
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException, VfsException {
        Smb2Write.Request req = Smb2Write.decode(c.msg);
        Open o = c.open(req.fileId());
        io.rdmagate.smb.server.transport.RdmaChannel rdma = null;
        java.util.List<io.rdmagate.smbdirect.message.BufferDescriptor> from = null;
        if (req.rdma()) {
            rdma = RdmaChannelInfo.channel(c);
            from = RdmaChannelInfo.descriptors(c, rdma, req.channel(), req.channelInfoOffset(), req.channelInfoLength(),
                    req.length());
            if (o.pipe() != null) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "WRITE to a pipe over an RDMA channel");
            }
        }
        ByteBuffer data = rdma != null ? null : c.msg.slice(req.dataOffset(), req.length());
        if (o.pipe() != null) {
            o.pipe().write(data);
            c.reply.length(Smb2Write.write(c.reply.body(16), req.length()));
            return;
        }
        if (req.length() > c.server.config().maxIo()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "WRITE of " + req.length() + " bytes");
        }
        Read.checkCharge(c, req.length());
        if (o.directory()) {
            throw new SmbException(NtStatus.INVALID_DEVICE_REQUEST, "WRITE to a directory");
        }
        if (!o.can(Access.FILE_WRITE_DATA | Access.FILE_APPEND_DATA)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "open lacks write access");
        }
        long offset = req.offset();
        if (offset == -1L) {
            offset = o.vfs().getattr(o.handle()).size(); // 2.2.21: all ones means end of file
        } else if (offset < 0) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "WRITE offset " + Long.toUnsignedString(offset));
        }
        if (req.length() > 0
                && o.vfs().locks().ioConflicts(o.handle().fileId(), o.lockOwner(), offset, req.length(), true)) {
            throw new SmbException(NtStatus.FILE_LOCK_CONFLICT, "range is locked");
        }
        c.server.oplocks().breakLevelII(o); // MS-FSA 2.1.5.4: a write breaks Level II oplocks to none
        IoMemory mem;
        if (rdma != null) {
            mem = rdmaRead(c, rdma, from, req.length());
        } else if (data.isDirect()) {
            mem = IoMemory.lend(MemorySegment.ofBuffer(data));
        } else {
            mem = c.conn.memory().lease(Math.max(1, req.length()));
            mem.shrink(req.length());
            MemorySegment.copy(MemorySegment.ofBuffer(data), 0, mem.segment(), 0, req.length());
            c.server.config().copies().add(c.conn.transport().kind(), req.length());
        }
        if (c.encrypted() && rdma == null) {
            // Smb2Cipher.decrypt copied the ciphertext into an array and decrypted it into another
            c.server.config().copies().add(c.conn.transport().kind(), 2L * req.length());
        }
        WriteResult r;
        try {
            // MS-FSA 2.1.5.3: written through when the request or the open asks (FILE_WRITE_THROUGH
            // in the CREATE's options or a later FileModeInformation): on disk before the reply
            boolean through = (req.flags() & Smb2Write.FLAG_WRITE_THROUGH) != 0
                    || (o.mode & Smb2Create.FILE_WRITE_THROUGH) != 0;
            r = o.vfs().write(c.session.caller(), o.handle(), offset, mem, through ? Stability.FILE_SYNC : Stability.UNSTABLE);
        } finally {
            mem.release();
        }
        if (o.userSetTimes.any()) {
            o.userSetTimes.restore(o.vfs(), c.session.caller(), o.handle());
        }
        o.position = offset + r.count(); // MS-FSA 2.1.5.3: CurrentByteOffset follows the write
        c.reply.length(Smb2Write.write(c.reply.body(16), r.count()));
    }
}
