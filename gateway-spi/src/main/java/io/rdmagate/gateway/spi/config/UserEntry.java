package io.rdmagate.gateway.spi.config;

/**
 * An SMB user: its POSIX identity and the NT hash of its password (32 hex digits, upper case).
 * The password itself is never stored.
 */
public record UserEntry(String name, int uid, int gid, String ntHash) {
}
