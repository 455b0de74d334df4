package io.rdmagate.smb.msrpce;

/** A DCE/RPC PDU or NDR stub that breaks its rules: the pipe refuses the write that carried it. */
public final class RpcDecodeException extends Exception {
    public RpcDecodeException(String message) {
        super(message);
    }
}
