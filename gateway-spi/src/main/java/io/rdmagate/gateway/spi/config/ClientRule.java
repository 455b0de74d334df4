package io.rdmagate.gateway.spi.config;

/**
 * Who may mount an export and how (the options of one line of Linux exports(5)).
 *
 * @param rootSquash map uid 0 to the anonymous ids
 * @param allSquash  map every uid to the anonymous ids
 * @param secure     exports(5) {@code secure}, knfsd's default: a call whose credentials the
 *                   client merely states (AUTH_SYS, AUTH_NONE) must come from a source port
 *                   below 1024, which only root on the client can bind; otherwise any user of a
 *                   client host could claim any uid. Calls over RPC-over-RDMA count as secure,
 *                   as svcrdma counts them. {@code false} is exports(5) {@code insecure}.
 */
public record ClientRule(AddressMatch match, Access access, boolean rootSquash, boolean allSquash, int anonUid,
        int anonGid, boolean secure) {
    public enum Access { RW, RO }

    public static ClientRule everyone() {
        return new ClientRule(AddressMatch.ANY, Access.RW, true, false, 65534, 65534, true);
    }
}
