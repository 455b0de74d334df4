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
    /** Ports handed out, from 40000 up and round again, as an OS reuses its ephemeral range. */
    private static final int FIRST_PORT = 40000;
    private final AtomicInteger nextPort = new AtomicInteger();

    public LoopbackDevice device(String name) {
        return new LoopbackDevice(name, this, DEFAULT_LIMITS);
    }

    public LoopbackDevice device(String name, DeviceLimits limits) {
        return new LoopbackDevice(name, this, limits);
    }

    InetSocketAddress bind(InetSocketAddress requested, LoopbackListener l) {
        InetSocketAddress a = requested.getPort() == 0
                ? new InetSocketAddress(requested.getAddress(), nextPort()) : requested;
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
        return new InetSocketAddress(near.getAddress(), nextPort());
    }

    private int nextPort() {
        return FIRST_PORT + Math.floorMod(nextPort.getAndIncrement(), 65536 - FIRST_PORT);
    }
}
