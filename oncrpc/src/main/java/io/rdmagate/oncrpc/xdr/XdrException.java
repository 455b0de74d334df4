package io.rdmagate.oncrpc.xdr;

/**
 * Malformed XDR: a read past the end of the message, a length over its limit, a value outside
 * its enumeration. The RPC server answers GARBAGE_ARGS (RFC 5531 §9) when it meets one while
 * decoding a procedure's arguments.
 */
public final class XdrException extends Exception {
    public XdrException(String message) {
        super(message, null, false, false);
    }
}
