package io.rdmagate.rdma.softiwarp;

import io.rdmagate.rdma.AbstractVerbsConformanceTest;
import io.rdmagate.rdma.RdmaDevice;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/** The verbs conformance suite over real TCP on loopback, both ends soft iWARP. */
class SoftIwarpConformanceTest extends AbstractVerbsConformanceTest {
    private final SoftIwarpDevice a = new SoftIwarpDevice("siw-a", SoftIwarpDevice.Options.DEFAULT);
    private final SoftIwarpDevice b = new SoftIwarpDevice("siw-b", SoftIwarpDevice.Options.DEFAULT);

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

    @Override
    protected boolean remoteErrorsCompleteTheRequest() {
        return false;
    }

    @Override
    protected boolean doorbellTransmitsOnTheCaller() {
        return true;
    }
}
