package io.rdmagate.gateway.spi.config;

import java.net.InetAddress;

/** Where the health and metrics endpoint listens; port 0 takes any free port. */
public record HttpConfig(InetAddress address, int port) {
    public static final int DEFAULT_PORT = 9049;
}
