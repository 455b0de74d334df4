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
 * @param sec        exports(5) {@code sec=}: the security flavors the clients may use, in the
 *                   order MOUNT and SECINFO offer them: {@code sys} (AUTH_SYS, and AUTH_NONE),
 *                   {@code krb5} (RPCSEC_GSS with Kerberos: authentication), {@code krb5i}
 *                   (and integrity) and {@code krb5p} (and privacy); [sys] by default
 */
public record ClientRule(AddressMatch match, Access access, boolean rootSquash, boolean allSquash, int anonUid,
        int anonGid, boolean secure, java.util.List<Sec> sec) {
    public enum Access { RW, RO }

    /** A security flavor of exports(5) sec=, with its RPC auth flavor number (RFC 2623 2.2.1). */
    public enum Sec {
        SYS(1), KRB5(390003), KRB5I(390004), KRB5P(390005);

        /** Whether this is one of the Kerberos flavors (RPCSEC_GSS). */
        public boolean kerberos() {
            return this != SYS;
        }

        public final int pseudoFlavor;

        Sec(int pseudoFlavor) {
            this.pseudoFlavor = pseudoFlavor;
        }
    }

    public ClientRule {
        sec = java.util.List.copyOf(sec);
        if (sec.isEmpty()) {
            throw new IllegalArgumentException("a client rule needs a security flavor");
        }
    }

    public ClientRule(AddressMatch match, Access access, boolean rootSquash, boolean allSquash, int anonUid,
            int anonGid, boolean secure) {
        this(match, access, rootSquash, allSquash, anonUid, anonGid, secure, java.util.List.of(Sec.SYS));
    }

    public static ClientRule everyone() {
        return new ClientRule(AddressMatch.ANY, Access.RW, true, false, 65534, 65534, true);
    }
}
