package io.rdmagate.gateway.spi.security;

import java.nio.file.Path;

/**
 * The Kerberos configuration file the JDK reads ({@code java.security.krb5.conf}): one per
 * process, so every acceptor must name the same one.
 */
final class Krb5Conf {
    private static Path chosen;

    private Krb5Conf() {
    }

    static synchronized void use(Path krb5Conf) throws KerberosException {
        Path p = (krb5Conf == null ? Path.of("/etc/krb5.conf") : krb5Conf).toAbsolutePath().normalize();
        if (chosen != null && !chosen.equals(p)) {
            throw new KerberosException("krb5.conf " + p + " differs from " + chosen + ", which this process already uses");
        }
        if (!java.nio.file.Files.isReadable(p)) {
            throw new KerberosException("security.kerberos.krb5Conf " + p + " does not exist or is not readable");
        }
        System.setProperty("java.security.krb5.conf", p.toString());
        chosen = p;
    }
}
