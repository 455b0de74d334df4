package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Ioctl;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.SmbConnection;
import io.rdmagate.smb.server.SmbException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * IOCTL (MS-SMB2 3.3.5.15): FSCTL_VALIDATE_NEGOTIATE_INFO (3.3.5.15.12),
 * FSCTL_QUERY_NETWORK_INTERFACE_INFO (3.3.5.15.11), FSCTL_PIPE_TRANSCEIVE (3.3.5.15.1) on the srvsvc
 * pipe; the sparse file controls ({@link SparseFiles}) and server-side copy and cloning
 * ({@link ServerSideCopy}). DFS referrals are STATUS_FS_DRIVER_REQUIRED (no DFS); other controls
 * STATUS_INVALID_DEVICE_REQUEST.
 */
public final class Ioctl implements Command {
    static final int FSCTL_GET_COMPRESSION = 0x0009003C;
    static final int FSCTL_SET_COMPRESSION = 0x0009C040;

    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException, io.rdmagate.vfs.VfsException {
        Smb2Ioctl.Request req = Smb2Ioctl.decode(c.msg);
        if (req.flags() != Smb2Ioctl.IS_FSCTL) {
            throw new SmbException(NtStatus.NOT_SUPPORTED, "IOCTL without SMB2_0_IOCTL_IS_FSCTL");
        }
        if (Integer.toUnsignedLong(req.maxOutputResponse()) > c.server.config().maxIo()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "MaxOutputResponse " + req.maxOutputResponse());
        }
        Read.checkCharge(c, Math.max(req.input().limit(), Integer.toUnsignedLong(req.maxOutputResponse())));
        byte[] out;
        FileId fid = req.fileId();
        switch (req.ctlCode()) {
            case Smb2Ioctl.FSCTL_VALIDATE_NEGOTIATE_INFO -> {
                out = validateNegotiate(c, req.input());
                if (out == null) {
                    c.reply.disconnect = true;
                    return;
                }
            }
            case Smb2Ioctl.FSCTL_QUERY_NETWORK_INTERFACE_INFO -> {
                if (!fid.isCompound()) {
                    throw new SmbException(NtStatus.INVALID_PARAMETER, "FileId must be all ones"); // 3.3.5.15.11
                }
                out = interfaces(c);
            }
            case Smb2Ioctl.FSCTL_PIPE_TRANSCEIVE -> {
                Open o = c.open(fid);
                if (o.pipe() == null) {
                    throw new SmbException(NtStatus.INVALID_DEVICE_REQUEST, "transceive on a file");
                }
                o.pipe().write(req.input());
                out = o.pipe().read(req.maxOutputResponse());
                fid = o.fileId();
                if (o.pipe().hasOutput()) {
                    c.reply.status(NtStatus.BUFFER_OVERFLOW);
                }
            }
            case Smb2Ioctl.FSCTL_DFS_GET_REFERRALS -> throw new SmbException(NtStatus.FS_DRIVER_REQUIRED, "no DFS");
            case FSCTL_GET_COMPRESSION -> {
                c.open(fid);
                out = new byte[2]; // MS-FSCC 2.3.12: COMPRESSION_FORMAT_NONE
            }
            case FSCTL_SET_COMPRESSION -> {
                c.open(fid);
                if (req.input().limit() < 2) {
                    throw new SmbException(NtStatus.INVALID_PARAMETER, "COMPRESSION_STATE of " + req.input().limit() + " bytes");
                }
                if ((req.input().get(0) | req.input().get(1)) != 0) { // MS-FSCC 2.3.67: only FORMAT_NONE is what files are
                    throw new SmbException(NtStatus.NOT_SUPPORTED, "files are not compressed");
                }
                out = new byte[0];
            }
            case SparseFiles.FSCTL_SET_SPARSE -> out = SparseFiles.setSparse(c, c.open(fid), req.input());
            case SparseFiles.FSCTL_SET_ZERO_DATA -> out = SparseFiles.setZeroData(c, c.open(fid), req.input());
            case SparseFiles.FSCTL_QUERY_ALLOCATED_RANGES ->
                    out = SparseFiles.queryAllocatedRanges(c, c.open(fid), req.input(), req.maxOutputResponse());
            case Smb2Ioctl.FSCTL_SRV_REQUEST_RESUME_KEY -> out = ServerSideCopy.resumeKey(c.open(fid));
            case ServerSideCopy.FSCTL_SRV_COPYCHUNK, ServerSideCopy.FSCTL_SRV_COPYCHUNK_WRITE ->
                    out = ServerSideCopy.copyChunk(c, c.open(fid), req.input(), req.ctlCode(), req.maxOutputResponse());
            case ServerSideCopy.FSCTL_DUPLICATE_EXTENTS_TO_FILE ->
                    out = ServerSideCopy.duplicateExtents(c, c.open(fid), req.input());
            default -> throw new SmbException(NtStatus.INVALID_DEVICE_REQUEST,
                    "FSCTL 0x" + Integer.toHexString(req.ctlCode()));
        }
        if (out.length > Integer.toUnsignedLong(req.maxOutputResponse())) {
            throw new SmbException(NtStatus.BUFFER_TOO_SMALL, "output of " + out.length + " bytes");
        }
        c.reply.length(Smb2Ioctl.write(c.reply.body(48 + out.length), req.ctlCode(), fid, out));
    }

    /** MS-SMB2 3.3.5.15.12: null when the connection must be terminated. */
    static byte[] validateNegotiate(Ctx c, ByteBuffer in) {
        SmbConnection conn = c.conn;
        if (conn.dialect() == Smb2Dialect.SMB_3_1_1 || in.limit() < 24) {
            return null;
        }
        int n = in.getShort(22) & 0xffff;
        if (in.limit() < 24 + 2 * n) {
            return null;
        }
        byte[] guid = new byte[16];
        in.get(4, guid);
        List<Integer> dialects = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            dialects.add(in.getShort(24 + 2 * i) & 0xffff);
        }
        if (in.getInt(0) != conn.clientCapabilities || !java.util.Arrays.equals(guid, conn.clientGuid)
                || (in.getShort(20) & 0xffff) != conn.clientSecurityMode || !dialects.equals(conn.clientDialects)) {
            return null;
        }
        ByteBuffer o = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        o.putInt(conn.serverCapabilities).put(c.server.serverGuid()).putShort((short) conn.serverSecurityMode)
                .putShort((short) conn.dialect());
        return o.array();
    }

    /** MS-SMB2 2.2.32.5 NETWORK_INTERFACE_INFO capability flags. */
    static final int RSS_CAPABLE = 0x1;
    static final int RDMA_CAPABLE = 0x2;
    private static final int ENTRY = 152;

    /**
     * MS-SMB2 3.3.5.15.11: the configured interfaces ({@code smb.interfaces}), else the address this
     * connection arrived on. Each is RSS-capable (the server takes several connections on one
     * address, so a client opens more channels to it), and RDMA-capable where SMB Direct listens
     * (configured, or by default when the listener takes every address or this one).
     */
    static byte[] interfaces(Ctx c) {
        List<io.rdmagate.gateway.spi.config.SmbConfig.Interface> configured = c.server.config().multichannel().interfaces();
        List<io.rdmagate.gateway.spi.config.SmbConfig.Interface> list = configured;
        if (list.isEmpty()) {
            InetAddress a = c.conn.local().getAddress();
            var direct = c.server.smbDirect();
            boolean rdma = direct != null && (direct.localAddress().getAddress().isAnyLocalAddress()
                    || direct.localAddress().getAddress().equals(a));
            list = List.of(new io.rdmagate.gateway.spi.config.SmbConfig.Interface(a, 10_000_000_000L, rdma));
        }
        ByteBuffer o = ByteBuffer.allocate(ENTRY * list.size()).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < list.size(); i++) {
            var f = list.get(i);
            int at = i * ENTRY;
            o.putInt(at, i == list.size() - 1 ? 0 : ENTRY).putInt(at + 4, i + 1)
                    .putInt(at + 8, RSS_CAPABLE | (f.rdma() ? RDMA_CAPABLE : 0)).putInt(at + 12, 0)
                    .putLong(at + 16, f.linkSpeed());
            InetAddress a = f.address();
            if (a instanceof Inet4Address) {
                o.putShort(at + 24, (short) 2).putShort(at + 26, (short) 0).put(at + 28, a.getAddress());
            } else if (a instanceof Inet6Address v6) {
                o.putShort(at + 24, (short) 0x17).putShort(at + 26, (short) 0).putInt(at + 28, 0)
                        .put(at + 32, a.getAddress()).putInt(at + 48, v6.getScopeId());
            }
        }
        return o.array();
    }
}
