package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Read;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.smb.server.transport.RdmaChannel;
import io.rdmagate.smbdirect.message.BufferDescriptor;
import java.util.List;

/**
 * The RDMA channel of a READ or WRITE (MS-SMB2 3.3.5.12, 3.3.5.13): which connections may use
 * it, and the buffer descriptors its channel info holds. What READ and WRITE share.
 */
final class RdmaChannelInfo {
    private RdmaChannelInfo() {
    }

    /** The connection's RDMA channel for a request that names one. */
    static RdmaChannel channel(Ctx c) throws SmbException {
        RdmaChannel rdma = c.conn.transport().rdma();
        if (rdma == null) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "RDMA channel on a connection without RDMA");
        }
        return rdma;
    }

    /**
     * The descriptors, checked: dialect 3.0 knows only RDMA_V1 (3.3.5.12), 2.x no RDMA at all; the
     * array decodes (16-byte entries, none empty or wrapping, at most the transport's count) and
     * holds {@code length} bytes. With RDMA_V1_INVALIDATE the response invalidates the first
     * descriptor's token — set before any other check, so an error response invalidates it too and
     * the client can register the buffer again.
     */
    static List<BufferDescriptor> descriptors(Ctx c, RdmaChannel rdma, int channel, int infoOffset, int infoLength,
            long length) throws SmbException {
        int dialect = c.conn.dialect();
        if (!Smb2Dialect.is3(dialect)
                || dialect == Smb2Dialect.SMB_3_0 && channel != Smb2Read.CHANNEL_RDMA_V1) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "Channel " + channel + " on dialect 0x"
                    + Integer.toHexString(dialect));
        }
        List<BufferDescriptor> d = BufferDescriptor.decodeAll(c.msg, infoOffset, infoLength, rdma.maxDescriptors());
        if (d == null) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "malformed buffer descriptors");
        }
        if (channel == Smb2Read.CHANNEL_RDMA_V1_INVALIDATE) {
            c.reply.invalidateToken = Integer.toUnsignedLong(d.get(0).token());
        }
        if (BufferDescriptor.total(d) < length) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "buffer descriptors of " + BufferDescriptor.total(d)
                    + " bytes for " + length);
        }
        return d;
    }
}
