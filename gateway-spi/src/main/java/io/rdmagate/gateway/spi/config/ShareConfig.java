package io.rdmagate.gateway.spi.config;

/**
 * One SMB share: a directory inside an export.
 *
 * @param export the name of the export it lies in
 * @param path   the directory inside that export, '/'-separated, "" for its root
 */
public record ShareConfig(String name, String export, String path, boolean readOnly, boolean guestOk,
        boolean encrypt) {
}
