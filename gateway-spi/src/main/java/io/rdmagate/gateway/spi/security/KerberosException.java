package io.rdmagate.gateway.spi.security;

/** Kerberos could not be set up (at start) or a client's token was refused (per exchange). */
public final class KerberosException extends Exception {
    public KerberosException(String message) {
        super(message);
    }

    public KerberosException(String message, Throwable cause) {
        super(message, cause);
    }
}
