package io.rdmagate.rdma;

/**
 * A completion queue (ibv_cq). Threading: each queue has one delivery thread (a virtual thread
 * started when completions are pending) that calls its {@link CompletionHandler} one completion at
 * a time, in the order the device produced them. So handlers never run on a socket thread or on
 * the thread that posted the work request, and a slow handler delays only its own queue.
 */
public interface CompletionQueue extends AutoCloseable {
    int capacity();

    /** Completions produced and not yet delivered. */
    int pending();

    /** Stops delivery; queue pairs using it go to error. */
    @Override
    void close();
}
