package io.rdmagate.oncrpc.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.CallHeader;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.oncrpc.rpc.ReplyHeaders;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;

/**
 * One call handed to a program: the decoded header, the arguments (the record from just after
 * the header; valid until the handler returns — retain a slice to keep any of it), and where it
 * came from.
 */
public final class RpcCall {
    private final CallHeader header;
    private final ByteBuf args;
    private final Connection connection;
    private final ByteBufAllocator alloc;
    private final XdrDecoder decoder;
    private final byte[] replyVerifier;

    public RpcCall(CallHeader header, ByteBuf args, Connection connection, ByteBufAllocator alloc) {
        this(header, args, connection, alloc, null);
    }

    /** @param replyVerifier the RPCSEC_GSS verifier of the reply (RFC 2203 §5.3.3.2), null for AUTH_NONE */
    public RpcCall(CallHeader header, ByteBuf args, Connection connection, ByteBufAllocator alloc, byte[] replyVerifier) {
        this.replyVerifier = replyVerifier;
        this.header = header;
        this.args = args;
        this.connection = connection;
        this.alloc = alloc;
        this.decoder = new XdrDecoder(args);
    }

    public CallHeader header() {
        return header;
    }

    public int xid() {
        return header.xid();
    }

    public int version() {
        return header.version();
    }

    public int procedure() {
        return header.procedure();
    }

    public Credentials credentials() {
        return header.credentials();
    }

    /**
     * The AUTH_SYS credential, or the identity a verified RPCSEC_GSS principal maps to; null for
     * AUTH_NONE and for a principal that maps to no account.
     */
    public AuthSys authSys() {
        return switch (header.credentials()) {
            case AuthSys s -> s;
            case io.rdmagate.oncrpc.rpc.GssPrincipal g -> g.identity();
            default -> null;
        };
    }

    /** The arguments, reader index on the first byte after the call header. */
    public ByteBuf args() {
        return args;
    }

    /** A decoder over {@link #args()}. */
    public XdrDecoder decoder() {
        return decoder;
    }

    public Connection connection() {
        return connection;
    }

    public ByteBufAllocator alloc() {
        return alloc;
    }

    /** An encoder holding the MSG_ACCEPTED SUCCESS header of this call; write the results after it. */
    public XdrEncoder success() {
        return new XdrEncoder(alloc, ReplyHeaders.accepted(alloc.buffer(256), header.xid(), Rpc.SUCCESS, replyVerifier));
    }
}
