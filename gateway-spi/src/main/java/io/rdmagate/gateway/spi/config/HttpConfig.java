package io.rdmagate.gateway.spi.config;

import java.net.InetAddress;
import java.time.Duration;

/**
 * Where the health and metrics endpoint listens (port 0 takes any free port), how many
 * connections it keeps at once (a newcomer at the bound closes the quietest), and how long one
 * exchange may take: a connection that has not sent a whole request and taken its response within
 * {@code requestTimeout} of connecting, or of its previous response, is closed.
 */
public record HttpConfig(InetAddress address, int port, int maxConnections, Duration requestTimeout) {
    public static final int DEFAULT_PORT = 9049;
    public static final int DEFAULT_MAX_CONNECTIONS = 64;
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    public HttpConfig {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("http.maxConnections " + maxConnections);
        }
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("http.requestTimeout " + requestTimeout);
        }
    }

    /** The default bounds. */
    public HttpConfig(InetAddress address, int port) {
        this(address, port, DEFAULT_MAX_CONNECTIONS, DEFAULT_REQUEST_TIMEOUT);
    }

    /** The same bounds at another address. */
    public HttpConfig at(InetAddress address, int port) {
        return new HttpConfig(address, port, maxConnections, requestTimeout);
    }
}
