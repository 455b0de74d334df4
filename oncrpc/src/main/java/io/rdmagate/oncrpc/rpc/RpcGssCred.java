package io.rdmagate.oncrpc.rpc;

/**
 * An RPCSEC_GSS credential as the client sent it (RFC 2203 §5, rpc_gss_cred_vers_1_t), with what
 * checking it needs: the header bytes from the xid through the credential, which the call's
 * verifier is a MIC of (§5.3.1), and that verifier's body (empty for INIT and CONTINUE_INIT).
 */
public record RpcGssCred(int gssProc, int seqNum, int service, byte[] handle, byte[] signedHeader, byte[] verifier)
        implements Credentials {
    public static final int VERSION_1 = 1;
    public static final int DATA = 0;
    public static final int INIT = 1;
    public static final int CONTINUE_INIT = 2;
    public static final int DESTROY = 3;
    public static final int SERVICE_NONE = 1;
    public static final int SERVICE_INTEGRITY = 2;
    public static final int SERVICE_PRIVACY = 3;
    /** §5.3.3.1: a context whose sequence numbers reach this is used up. */
    public static final long MAXSEQ = 0x80000000L;
    /** §5.1: the handle is the server's; this one's are at most this long. */
    public static final int MAX_HANDLE = 64;

    @Override
    public int flavor() {
        return AuthFlavor.RPCSEC_GSS;
    }
}
