package io.rdmagate.rpcrdma.server;

import io.rdmagate.rpcrdma.header.RpcRdmaLimits;
import java.time.Duration;

/**
 * What an RPC-over-RDMA server grants and accepts; defaults like Linux svcrdma.
 *
 * @param credits            requests a client may have outstanding (RFC 8166 §3.3.1); svcrdma grants 64
 * @param inlineReceive      largest inline call the server receives, advertised in its private data
 *                           (RFC 8797 §3.1); svcrdma's 4 KiB
 * @param inlineSend         largest inline reply the server sends, further bounded by what the client
 *                           advertises it can receive (1024 bytes when it advertises nothing)
 * @param limits             chunk list limits every call header is checked against
 * @param backchannelCredits reverse-direction calls (RFC 8167) the server may have outstanding on one
 *                           connection, each with a receive posted for its reply; svcrdma's 2; 0 offers
 *                           no backchannel
 * @param backchannelTimeout how long a reverse-direction call waits for a credit, and again for its reply
 * @param maxConnections     connections open at once; a connect beyond them is rejected before any
 *                           buffer is allocated for it
 */
public record RpcRdmaOptions(int credits, int inlineReceive, int inlineSend, RpcRdmaLimits limits,
        int backchannelCredits, Duration backchannelTimeout, int maxConnections) {
    /** Connections open at once unless configured: each holds receive and send buffers and a queue pair. */
    public static final int DEFAULT_MAX_CONNECTIONS = 256;

    public static final RpcRdmaOptions DEFAULT = new RpcRdmaOptions(64, 4096, 4096, RpcRdmaLimits.DEFAULT);

    public RpcRdmaOptions {
        if (credits < 1 || credits > 4096) {
            throw new IllegalArgumentException("credits " + credits + " outside 1..4096");
        }
        if (inlineReceive < 1024 || inlineReceive > 256 << 10 || (inlineReceive & 1023) != 0
                || inlineSend < 1024 || inlineSend > 256 << 10 || (inlineSend & 1023) != 0) {
            throw new IllegalArgumentException("inline sizes must be multiples of 1 KiB in [1 KiB, 256 KiB]");
        }
        if (backchannelCredits < 0 || backchannelCredits > 64) {
            throw new IllegalArgumentException("backchannel credits " + backchannelCredits + " outside 0..64");
        }
        if (backchannelTimeout.isNegative() || backchannelTimeout.isZero()) {
            throw new IllegalArgumentException("backchannel timeout must be positive");
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("max connections " + maxConnections + " must be positive");
        }
    }

    public RpcRdmaOptions withMaxConnections(int max) {
        return new RpcRdmaOptions(credits, inlineReceive, inlineSend, limits, backchannelCredits, backchannelTimeout,
                max);
    }

    /** With svcrdma's backchannel: 2 reverse-direction calls, 60 s. */
    public RpcRdmaOptions(int credits, int inlineReceive, int inlineSend, RpcRdmaLimits limits) {
        this(credits, inlineReceive, inlineSend, limits, 2, Duration.ofSeconds(60), DEFAULT_MAX_CONNECTIONS);
    }
}
