package io.rdmagate.rdma;

/** Receives the completions of one completion queue, in order, on that queue's delivery thread. */
@FunctionalInterface
public interface CompletionHandler {
    void onCompletion(WorkCompletion wc);
}
