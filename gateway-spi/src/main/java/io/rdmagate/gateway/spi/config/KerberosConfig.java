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
 */
public record KerberosConfig(Path keytab, String realm, Path krb5Conf, String smbPrincipal, String nfsPrincipal,
        Map<String, String> idmap) {
    public KerberosConfig {
        idmap = Map.copyOf(idmap);
    }
}
