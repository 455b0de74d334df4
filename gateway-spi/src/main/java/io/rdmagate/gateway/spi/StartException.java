package io.rdmagate.gateway.spi;

/** The gateway could not start; the message says what to change. */
public final class StartException extends Exception {
    public StartException(String message) {
        super(message);
    }

    public StartException(String message, Throwable cause) {
        super(message, cause);
    }
}
