package io.rdmagate.rdma;

import java.net.InetSocketAddress;

/** A bound listening endpoint (rdma_listen). */
public interface RdmaListener extends AutoCloseable {
    InetSocketAddress localAddress();

    @Override
    void close();
}
