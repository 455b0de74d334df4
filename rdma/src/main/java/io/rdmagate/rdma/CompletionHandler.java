package io.rdmagate.rdma;

/**
 * Receives the completions of one completion queue, in order, one at a time, possibly on the
 * provider's own transmit or receive thread: it must never block (no waiting for locks held
 * across I/O, for queue space, or for another completion).
 */
@FunctionalInterface
public interface CompletionHandler {
    void onCompletion(WorkCompletion wc);
}
