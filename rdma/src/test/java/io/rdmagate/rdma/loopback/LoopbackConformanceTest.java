package io.rdmagate.rdma.loopback;

import io.rdmagate.rdma.AbstractVerbsConformanceTest;
import io.rdmagate.rdma.RdmaDevice;
import java.net.InetAddress;
import java.net.InetSocketAddress;

class LoopbackConformanceTest extends AbstractVerbsConformanceTest {
    private final LoopbackFabric fabric = new LoopbackFabric();
    private final LoopbackDevice a = fabric.device("lo-a");
    private final LoopbackDevice b = fabric.device("lo-b");

    @Override
    protected RdmaDevice serverDevice() {
        return a;
    }

    @Override
    protected RdmaDevice clientDevice() {
        return b;
    }

    @Override
    protected InetSocketAddress listenAddress() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }
}
