package io.rdmagate.rdma;

/**
 * A completion queue (ibv_cq). Threading: its {@link CompletionHandler} is called one completion
 * at a time, in the order the device produced them, never concurrently. A provider may call it
 * on its own transmit or receive thread (soft iWARP does, for successes, to save a thread hop) or
 * on a delivery thread; never on the thread that is posting a work request. Handlers therefore
 * never block: they hand waiting work to a worker.
 */
public interface CompletionQueue extends AutoCloseable {
    int capacity();

    /** Completions produced and not yet delivered. */
    int pending();

    /** Stops delivery; queue pairs using it go to error. */
    @Override
    void close();
}
