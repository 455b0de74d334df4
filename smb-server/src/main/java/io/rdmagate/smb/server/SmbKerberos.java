package io.rdmagate.smb.server;

import io.rdmagate.gateway.spi.security.KerberosAcceptor;
import io.rdmagate.gateway.spi.security.KerberosIdentities;

/**
 * Kerberos for SMB sessions (MS-SMB2 3.3.5.5.3 with MS-KILE through SPNEGO): the acceptor of the
 * cifs/HOST@REALM principal and the map from client principals to POSIX identities.
 */
public record SmbKerberos(KerberosAcceptor acceptor, KerberosIdentities identities) {
}
