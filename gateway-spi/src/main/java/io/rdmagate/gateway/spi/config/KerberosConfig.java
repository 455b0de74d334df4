package io.rdmagate.gateway.spi.config;

import java.nio.file.Path;
import java.util.Map;

/**
 * Kerberos ({@code security.kerberos}): the keytab the gateway accepts tickets with, the service
 * principals, and how client principals map to POSIX identities.
 *
 * @param keytab       the keytab holding the service principals' keys
 * @param realm        the realm whose principals are local users ({@code user@REALM} is user)
 * @param krb5Conf     the Kerberos configuration the JDK reads (enctypes, realms), /etc/krb5.conf by default
 * @param smbPrincipal the principal SMB clients ask tickets for, cifs/HOST@REALM; null: SMB has no Kerberos
 * @param nfsPrincipal the principal NFS clients ask tickets for, nfs/HOST@REALM; null: NFS has no Kerberos
 * @param idmap        client principals mapped to a local user name or to {@code uid:gid}, before the
 *                     configured SMB users and the host's accounts (NSS) are asked
 * @param maxContexts  RPCSEC_GSS contexts kept at once; a new one beyond ends the least recently used
 * @param contextIdle  how long an unused RPCSEC_GSS context is kept (it also ends with its ticket)
 */
public record KerberosConfig(Path keytab, String realm, Path krb5Conf, String smbPrincipal, String nfsPrincipal,
        Map<String, String> idmap, int maxContexts, java.time.Duration contextIdle) {
    public static final int DEFAULT_MAX_CONTEXTS = 4096;
    public static final java.time.Duration DEFAULT_CONTEXT_IDLE = java.time.Duration.ofHours(1);

    public KerberosConfig {
        idmap = Map.copyOf(idmap);
        if (maxContexts < 1 || contextIdle == null || contextIdle.isNegative() || contextIdle.isZero()) {
            throw new IllegalArgumentException("maxContexts " + maxContexts + ", contextIdle " + contextIdle);
        }
    }

    public KerberosConfig(Path keytab, String realm, Path krb5Conf, String smbPrincipal, String nfsPrincipal,
            Map<String, String> idmap) {
        this(keytab, realm, krb5Conf, smbPrincipal, nfsPrincipal, idmap, DEFAULT_MAX_CONTEXTS, DEFAULT_CONTEXT_IDLE);
    }
}
