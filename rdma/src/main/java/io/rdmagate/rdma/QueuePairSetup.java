package io.rdmagate.rdma;

/**
 * Runs on a new queue pair before its connection carries data, as a verbs user posts receives
 * between creating a queue pair and rdma_accept/rdma_connect completing: whatever the peer sends
 * first finds them.
 */
@FunctionalInterface
public interface QueuePairSetup {
    QueuePairSetup NONE = qp -> { };

    void setup(QueuePair qp) throws RdmaException;
}
