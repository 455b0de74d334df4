package io.rdmagate.oncrpc.rpc;

import io.netty.buffer.ByteBuf;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * Decodes an RFC 5531 §9 call header from the start of a record and leaves the buffer's reader
 * index on the procedure's arguments.
 *
 * <p>Accepts: msg_type CALL, rpcvers 2, opaque_auth bodies of at most 400 bytes (§8.2),
 * credentials AUTH_NONE (empty body), AUTH_SYS (Appendix A: machinename ≤ 255 bytes, ≤ 16
 * gids, the body consumed exactly) and RPCSEC_GSS version 1 (RFC 2203 §5: a known gss_proc and
 * service, a handle of at most 64 bytes, the body consumed exactly), a verifier AUTH_NONE with an
 * empty body, or RPCSEC_GSS after an RPCSEC_GSS credential (its MIC is checked by the caller).
 * <br>Refuses: a truncated header before the credential ({@link XdrException}: GARBAGE_ARGS);
 * rpcvers ≠ 2 (RPC_MISMATCH); a credential or verifier body over 400 bytes, truncated, or an
 * AUTH_SYS or RPCSEC_GSS body that is malformed or has bytes left over (AUTH_BADCRED); AUTH_SHORT,
 * AUTH_DH and other flavors (AUTH_REJECTEDCRED); any other verifier (AUTH_BADVERF). The caller has
 * already checked xid and msg_type.
 */
public final class CallHeaderDecoder {
    private final XdrDecoder xdr = new XdrDecoder();

    /** Decodes the header of {@code record}; not thread-safe (one per thread or per call). */
    public CallHeader decode(ByteBuf record) throws XdrException, RpcRejectedException {
        XdrDecoder x = xdr.wrap(record);
        int xid = x.readInt();
        int msgType = x.readInt();
        if (msgType != Rpc.CALL) {
            throw new XdrException("msg_type " + msgType + " is not CALL");
        }
        long rpcvers = x.readUnsignedInt();
        if (rpcvers != Rpc.VERSION) {
            throw RpcRejectedException.rpcMismatch(rpcvers); // §9: reply RPC_MISMATCH low=high=2
        }
        int prog = x.readInt();
        int vers = x.readInt();
        int proc = x.readInt();
        int start = record.readerIndex() - 24;
        Credentials cred = readCredential(x);
        if (cred instanceof RpcGssCred g) {
            byte[] signed = new byte[record.readerIndex() - start];
            record.getBytes(start, signed);
            byte[] verifier = readGssVerifier(x, g.gssProc());
            return new CallHeader(xid, prog, vers, proc, new RpcGssCred(g.gssProc(), g.seqNum(), g.service(), g.handle(),
                    signed, verifier), verifier.length == 0 ? AuthFlavor.AUTH_NONE : AuthFlavor.RPCSEC_GSS);
        }
        int verfFlavor = readVerifier(x);
        return new CallHeader(xid, prog, vers, proc, cred, verfFlavor);
    }

    /** RFC 2203 §5.2.2, §5.3.1: AUTH_NONE for INIT and CONTINUE_INIT, else an RPCSEC_GSS MIC. */
    private static byte[] readGssVerifier(XdrDecoder x, int gssProc) throws RpcRejectedException {
        try {
            int flavor = x.readInt();
            byte[] body = x.readOpaque(Rpc.MAX_AUTH_BYTES);
            boolean creating = gssProc == RpcGssCred.INIT || gssProc == RpcGssCred.CONTINUE_INIT;
            if (creating ? flavor != AuthFlavor.AUTH_NONE || body.length != 0
                    : flavor != AuthFlavor.RPCSEC_GSS || body.length == 0) {
                throw RpcRejectedException.authError(AuthStat.AUTH_BADVERF, "verifier flavor " + flavor + " of "
                        + body.length + " bytes for gss_proc " + gssProc);
            }
            return body;
        } catch (XdrException e) {
            throw RpcRejectedException.authError(AuthStat.AUTH_BADVERF, e.getMessage());
        }
    }

    private static Credentials readCredential(XdrDecoder x) throws XdrException, RpcRejectedException {
        int flavor = x.readInt();
        int len;
        try {
            len = x.readLength(Rpc.MAX_AUTH_BYTES);
            if (x.remaining() < len) {
                throw new XdrException("credential body runs past the record");
            }
        } catch (XdrException e) {
            throw RpcRejectedException.authError(AuthStat.AUTH_BADCRED, e.getMessage());
        }
        switch (flavor) {
            case AuthFlavor.AUTH_NONE -> {
                if (len != 0) {
                    throw RpcRejectedException.authError(AuthStat.AUTH_BADCRED, "AUTH_NONE with a body");
                }
                return Credentials.NONE;
            }
            case AuthFlavor.AUTH_SYS -> {
                return readAuthSys(x, len);
            }
            case AuthFlavor.RPCSEC_GSS -> {
                return readGss(x, len);
            }
            default -> throw RpcRejectedException.authError(AuthStat.AUTH_REJECTEDCRED, "auth flavor " + flavor);
        }
    }

    /** RFC 5531 Appendix A authsys_parms, inside a body of {@code len} bytes. */
    private static AuthSys readAuthSys(XdrDecoder x, int len) throws RpcRejectedException {
        int end = x.buffer().readerIndex() + len;
        int savedWriter = x.buffer().writerIndex();
        x.buffer().writerIndex(end); // the body's own fields may not read past the body
        try {
            AuthSys a = AuthSys.decode(x);
            if (x.hasRemaining()) {
                throw RpcRejectedException.authError(AuthStat.AUTH_BADCRED, "AUTH_SYS body has " + x.remaining()
                        + " bytes left over");
            }
            return a;
        } catch (XdrException e) {
            throw RpcRejectedException.authError(AuthStat.AUTH_BADCRED, "AUTH_SYS: " + e.getMessage());
        } finally {
            x.buffer().writerIndex(savedWriter);
            x.buffer().readerIndex(end);
        }
    }

    /** RFC 2203 §5 rpc_gss_cred_t, inside a body of {@code len} bytes. */
    private static RpcGssCred readGss(XdrDecoder x, int len) throws RpcRejectedException {
        int end = x.buffer().readerIndex() + len;
        int savedWriter = x.buffer().writerIndex();
        x.buffer().writerIndex(end);
        try {
            long version = x.readUnsignedInt();
            if (version != RpcGssCred.VERSION_1) {
                throw RpcRejectedException.authError(AuthStat.AUTH_BADCRED, "RPCSEC_GSS version " + version);
            }
            int proc = x.readInt();
            int seq = x.readInt();
            int service = x.readInt();
            byte[] handle = x.readOpaque(RpcGssCred.MAX_HANDLE);
            if (proc < RpcGssCred.DATA || proc > RpcGssCred.DESTROY
                    || service < RpcGssCred.SERVICE_NONE || service > RpcGssCred.SERVICE_PRIVACY || x.hasRemaining()) {
                throw RpcRejectedException.authError(AuthStat.AUTH_BADCRED, "RPCSEC_GSS gss_proc " + proc + ", service "
                        + service + ", " + x.remaining() + " bytes left over");
            }
            return new RpcGssCred(proc, seq, service, handle, null, null);
        } catch (XdrException e) {
            throw RpcRejectedException.authError(AuthStat.AUTH_BADCRED, "RPCSEC_GSS: " + e.getMessage());
        } finally {
            x.buffer().writerIndex(savedWriter);
            x.buffer().readerIndex(end);
        }
    }

    private static int readVerifier(XdrDecoder x) throws RpcRejectedException {
        try {
            int flavor = x.readInt();
            int len = x.readLength(Rpc.MAX_AUTH_BYTES);
            if (flavor != AuthFlavor.AUTH_NONE || len != 0) {
                throw RpcRejectedException.authError(AuthStat.AUTH_BADVERF, "verifier flavor " + flavor + " of " + len
                        + " bytes");
            }
            return flavor;
        } catch (XdrException e) {
            throw RpcRejectedException.authError(AuthStat.AUTH_BADVERF, e.getMessage());
        }
    }
}
