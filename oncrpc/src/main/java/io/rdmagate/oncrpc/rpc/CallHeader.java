package io.rdmagate.oncrpc.rpc;

/**
 * A decoded RFC 5531 §9 call_body (with its xid).
 *
 * @param verifierFlavor the flavor of the call's verifier; its body (at most 400 bytes) is skipped
 */
public record CallHeader(int xid, int program, int version, int procedure, Credentials credentials,
        int verifierFlavor) {
}
