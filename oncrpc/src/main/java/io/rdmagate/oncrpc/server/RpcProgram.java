package io.rdmagate.oncrpc.server;

import io.rdmagate.oncrpc.rpc.RpcRejectedException;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/**
 * An RPC program served by an {@link RpcDispatcher}: one program number, a contiguous range of
 * versions, and the procedures of each.
 *
 * <p>{@link #handle} runs on a virtual thread and may block. It returns the whole reply (start it
 * with {@link RpcCall#success()}), or null to send none, or throws: {@link XdrException} while
 * decoding arguments (GARBAGE_ARGS), {@link RpcErrorException} (its accept_stat),
 * {@link RpcRejectedException} (MSG_DENIED, e.g. AUTH_TOOWEAK); any other exception becomes
 * SYSTEM_ERR.
 */
public interface RpcProgram {
    int program();

    /** For logs, e.g. "nfs". */
    String name();

    int lowVersion();

    int highVersion();

    /** Called only for a version in [{@link #lowVersion()}, {@link #highVersion()}]. */
    XdrMessage handle(RpcCall call) throws XdrException, RpcErrorException, RpcRejectedException;

    /**
     * Whether a procedure changes state so that running it twice differs from running it once
     * (NFSv3 CREATE, REMOVE, RENAME...). Its replies go through the duplicate request cache.
     */
    default boolean isNonIdempotent(int version, int procedure) {
        return false;
    }

    /**
     * A connection of a transport that feeds this program's dispatcher was established (TCP
     * accepted, RPC-over-RDMA connected); its calls follow. Not called for UDP.
     */
    default void connectionOpened(Connection connection) {
    }

    /**
     * That connection ended: release what was kept for it. Calls of it may still be running (they
     * finish; their replies are dropped); none starts after this.
     */
    default void connectionClosed(Connection connection) {
    }
}
