package io.rdmagate.rpcrdma.server;

import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.softiwarp.SoftIwarpDevice;

/** The same over soft-iWARP on loopback TCP, where Sends and Writes complete when handed to TCP. */
class SoftIwarpRpcRdmaTest extends AbstractRpcRdmaTest {
    @Override
    RdmaDevice newDevice(String name) {
        return new SoftIwarpDevice(name, SoftIwarpDevice.Options.DEFAULT);
    }
}
