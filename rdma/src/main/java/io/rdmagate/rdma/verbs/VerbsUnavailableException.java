package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.RdmaException;

/**
 * The verbs provider cannot run on this host: no {@code libibverbs.so.1}, a platform whose
 * structure layout this build does not know, or a kernel without RDMA support. The message says
 * which and what to install or load.
 */
public final class VerbsUnavailableException extends RdmaException {
    public VerbsUnavailableException(String message) {
        super(message);
    }
}
