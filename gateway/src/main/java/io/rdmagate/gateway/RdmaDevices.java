package io.rdmagate.gateway;

import io.rdmagate.gateway.spi.config.RdmaConfig;
import io.rdmagate.rdma.RdmaResources;
import io.rdmagate.rdma.softiwarp.SoftIwarpDevice;

/**
 * Opens the one RDMA device of the process, as {@code rdma.provider} says, with its protection
 * domain. {@code auto} picks the best device the host has; this build has one provider, the
 * built-in software iWARP, which needs no NIC and no kernel module (Linux clients reach it with
 * siw over any IP network).
 */
final class RdmaDevices {
    /** The soft-iWARP device's name in logs and metrics. */
    static final String SOFT_IWARP = "siw0";

    private RdmaDevices() {
    }

    /** With {@code sendTimeout} (limits.sendTimeout): a peer that takes no data that long is disconnected. */
    static RdmaResources open(RdmaConfig c, java.time.Duration sendTimeout) {
        return switch (c.provider()) {
            case AUTO, SOFT -> RdmaResources.open(new SoftIwarpDevice(SOFT_IWARP, new SoftIwarpDevice.Options(
                    SoftIwarpDevice.Options.DEFAULT.maxFpduPayload(), false, c.handshakeTimeout(),
                    c.maxPendingHandshakes(), sendTimeout)));
        };
    }
}
