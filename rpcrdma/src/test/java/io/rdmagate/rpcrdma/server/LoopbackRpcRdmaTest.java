package io.rdmagate.rpcrdma.server;

import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.loopback.LoopbackFabric;

class LoopbackRpcRdmaTest extends AbstractRpcRdmaTest {
    private final LoopbackFabric fabric = new LoopbackFabric();

    @Override
    RdmaDevice newDevice(String name) {
        return fabric.device(name);
    }
}
