package io.rdmagate.gateway.spi;

import io.rdmagate.gateway.spi.config.Port;

/**
 * The port one listener will use.
 *
 * @param requested what the configuration said (or its default)
 * @param note      why the port differs from the requested one; null when it does not
 */
public record PlannedPort(ListenerKind kind, int port, Port requested, String note) {
    public boolean movedFromDefault() {
        return port != requested.number();
    }
}
