package io.rdmagate.gateway.spi.config;

/**
 * Who may mount an export and how (the options of one line of Linux exports(5)).
 *
 * @param rootSquash map uid 0 to the anonymous ids
 * @param allSquash  map every uid to the anonymous ids
 */
public record ClientRule(AddressMatch match, Access access, boolean rootSquash, boolean allSquash, int anonUid,
        int anonGid) {
    public enum Access { RW, RO }

    public static ClientRule everyone() {
        return new ClientRule(AddressMatch.ANY, Access.RW, true, false, 65534, 65534);
    }
}
