package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msrpce.Ndr;
import io.rdmagate.smb.msrpce.RpcDecodeException;
import io.rdmagate.smb.msrpce.RpcPdu;
import io.rdmagate.smb.mssrvs.ShareInfo;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The srvsvc named pipe on IPC$: what a client writes is DCE/RPC (decoded by the codec's
 * {@code msrpce} package), what it reads back are the answers, queued until read. Share
 * enumeration itself is the codec's {@code mssrvs.ShareInfo}; this class holds the pipe's state
 * (bytes not yet read) and dispatches BIND, ALTER_CONTEXT and REQUEST.
 *
 * <p>Accepts: BIND/ALTER_CONTEXT offering srvsvc v3.0 with NDR 2.0 (other contexts get a provider
 * rejection, bind-time feature negotiation an empty acknowledgment), REQUEST for NetrShareEnum and
 * NetrShareGetInfo (other operations get a fault, nca_op_rng_error). A malformed PDU or stub is
 * STATUS_INVALID_PARAMETER on the WRITE or IOCTL that carried it.
 */
public final class SrvsvcPipe implements NamedPipe {
    private final List<ShareInfo.Entry> shares;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private byte[] pending = new byte[0];
    private int pendingPos;

    public SrvsvcPipe(List<ShareInfo.Entry> shares) {
        this.shares = List.copyOf(shares);
    }

    @Override
    public synchronized void write(ByteBuffer data) throws SmbException {
        ByteBuffer b = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        try {
            while (b.remaining() > 0) {
                int at = b.position();
                int len = RpcPdu.fragment(b);
                handle(b.slice(at, len).order(ByteOrder.LITTLE_ENDIAN));
                b.position(at + len);
            }
        } catch (RpcDecodeException e) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, e.getMessage());
        }
        byte[] rest = java.util.Arrays.copyOfRange(pending, pendingPos, pending.length);
        byte[] more = out.toByteArray();
        pending = java.util.Arrays.copyOf(rest, rest.length + more.length);
        System.arraycopy(more, 0, pending, rest.length, more.length);
        pendingPos = 0;
        out.reset();
    }

    @Override
    public synchronized byte[] read(int max) {
        int n = Math.min(max, pending.length - pendingPos);
        byte[] r = java.util.Arrays.copyOfRange(pending, pendingPos, pendingPos + n);
        pendingPos += n;
        return r;
    }

    @Override
    public synchronized boolean hasOutput() {
        return pendingPos < pending.length;
    }

    private void handle(ByteBuffer f) throws RpcDecodeException {
        int type = RpcPdu.type(f);
        int callId = RpcPdu.callId(f);
        switch (type) {
            case RpcPdu.BIND, RpcPdu.ALTER_CONTEXT -> {
                RpcPdu.Bind bind = RpcPdu.bind(f);
                List<RpcPdu.Result> results = new ArrayList<>(bind.contexts().size());
                for (RpcPdu.Context c : bind.contexts()) {
                    results.add(c.bindTimeFeatures() ? RpcPdu.Result.NEGOTIATE_ACK
                            : c.offersNdr20() && c.is(ShareInfo.SRVSVC_UUID, ShareInfo.SRVSVC_VERSION)
                                    ? RpcPdu.Result.ACCEPT : RpcPdu.Result.PROVIDER_REJECTION);
                }
                out.writeBytes(RpcPdu.bindAck(type, callId, bind, type == RpcPdu.BIND ? "\\PIPE\\srvsvc" : null,
                        results));
            }
            case RpcPdu.REQUEST -> {
                RpcPdu.Request req = RpcPdu.request(f);
                Ndr stub = new Ndr(req.stub());
                byte[] result = switch (req.opnum()) {
                    case ShareInfo.NET_SHARE_ENUM -> ShareInfo.enumerate(stub, shares);
                    case ShareInfo.NET_SHARE_GET_INFO -> ShareInfo.getInfo(stub, shares);
                    default -> null;
                };
                out.writeBytes(result == null ? RpcPdu.fault(callId, req.contextId(), RpcPdu.NCA_OP_RNG_ERROR)
                        : RpcPdu.response(callId, req.contextId(), result));
            }
            default -> throw new RpcDecodeException("DCE/RPC packet type " + type);
        }
    }
}
