package io.rdmagate.rdma;

/**
 * A completion queue (ibv_cq). Threading: its {@link CompletionHandler} is called one completion
 * at a time, in the order the device produced them, never concurrently. A provider may call it
 * on its own transmit or receive thread (soft iWARP does, for successes, to save a thread hop), on
 * a worker that transmits in {@link QueuePair#doorbell}, or on a delivery thread; never inside
 * {@code postSend} or {@code postReceive}. Handlers therefore
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
