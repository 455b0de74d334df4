package io.rdmagate.gateway.spi.config;

/**
 * A TCP port of a listener, and whether the configuration named it ({@code explicit}) or it is
 * the default. {@code origin} says where it came from: {@code FILE:LINE}, or "default".
 */
public record Port(int number, boolean explicit, String origin) {
    public static Port defaulted(int number) {
        return new Port(number, false, "default");
    }
}
