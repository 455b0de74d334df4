package io.rdmagate.rdma.loopback;

import io.rdmagate.rdma.DeviceLimits;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A wire with no sockets: devices made from one fabric reach each other's listeners by address,
 * in this JVM. Every protocol test above the rdma module runs on it.
 */
public final class LoopbackFabric {
    /** Limits like a small soft-RDMA device. */
    public static final DeviceLimits DEFAULT_LIMITS = new DeviceLimits(1024, 1024, 8, 16, 16, 1L << 30, 196);

    private final Map<InetSocketAddress, LoopbackListener> listeners = new ConcurrentHashMap<>();
    private final AtomicInteger nextPort = new AtomicInteger(40000);

    public LoopbackDevice device(String name) {
        return new LoopbackDevice(name, this, DEFAULT_LIMITS);
    }

    public LoopbackDevice device(String name, DeviceLimits limits) {
        return new LoopbackDevice(name, this, limits);
    }

    InetSocketAddress bind(InetSocketAddress requested, LoopbackListener l) {
        InetSocketAddress a = requested.getPort() == 0
                ? new InetSocketAddress(requested.getAddress(), nextPort.getAndIncrement()) : requested;
        if (listeners.putIfAbsent(a, l) != null) {
            return null;
        }
        return a;
    }

    void unbind(InetSocketAddress a, LoopbackListener l) {
        listeners.remove(a, l);
    }

    LoopbackListener find(InetSocketAddress a) {
        return listeners.get(a);
    }

    InetSocketAddress ephemeral(InetSocketAddress near) {
        return new InetSocketAddress(near.getAddress(), nextPort.getAndIncrement());
    }
}
