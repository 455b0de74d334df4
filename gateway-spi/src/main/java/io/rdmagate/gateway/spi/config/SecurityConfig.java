package io.rdmagate.gateway.spi.config;

/**
 * How clients prove who they are ({@code security}); {@code kerberos} is null when the gateway
 * has no keytab, and then NFS trusts AUTH_SYS and SMB authenticates with NTLMv2 alone.
 */
public record SecurityConfig(KerberosConfig kerberos) {
    public static final SecurityConfig DEFAULT = new SecurityConfig(null);
}
