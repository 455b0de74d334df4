package io.rdmagate.smb.server;

import io.rdmagate.gateway.spi.BoundListener;
import io.rdmagate.gateway.spi.GatewayContext;
import io.rdmagate.gateway.spi.ListenerKind;
import io.rdmagate.gateway.spi.PlannedPort;
import io.rdmagate.gateway.spi.ProtocolService;
import io.rdmagate.gateway.spi.StartException;
import io.rdmagate.gateway.spi.config.KerberosConfig;
import io.rdmagate.gateway.spi.security.KerberosAcceptor;
import io.rdmagate.gateway.spi.security.KerberosException;
import io.rdmagate.gateway.spi.security.KerberosIdentities;
import io.rdmagate.gateway.spi.config.GatewayConfig;
import io.rdmagate.gateway.spi.config.ShareConfig;
import io.rdmagate.gateway.spi.config.UserEntry;
import io.rdmagate.vfs.VirtualFileSystem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * The gateway's SMB service: the configured shares and users over TCP on the planned SMB port,
 * and over SMB Direct on the planned SMB Direct port with the RDMA device the gateway opened.
 */
public final class SmbProtocolService implements ProtocolService {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SmbProtocolService.class);

    private SmbServer server;

    @Override
    public String name() {
        return "smb";
    }

    @Override
    public Set<ListenerKind> listeners() {
        return Set.of(ListenerKind.SMB, ListenerKind.SMB_DIRECT);
    }

    /** The server configuration the gateway's configuration describes. */
    public static SmbServerConfig config(GatewayContext context) throws StartException {
        GatewayConfig g = context.config();
        List<SmbShare> shares = new ArrayList<>();
        for (ShareConfig s : g.shares()) {
            VirtualFileSystem vfs = context.exports().get(s.export());
            if (vfs == null) {
                throw new IllegalArgumentException("share " + s.name() + " names export " + s.export() + ", which is not open");
            }
            shares.add(new SmbShare(s.name(), vfs, s.path(), s.readOnly(), s.guestOk(), s.encrypt(), s.ntlm(), s.krb5()));
        }
        List<SmbUser> users = new ArrayList<>();
        SmbUser guest = null;
        for (UserEntry u : g.users()) {
            SmbUser su = new SmbUser(u.name(), u.uid(), u.gid(), HexFormat.of().parseHex(u.ntHash()));
            users.add(su);
            if (u.name().equalsIgnoreCase(g.smb().guestAccount())) {
                guest = su;
            }
        }
        if (g.smb().guestAccount() != null && guest == null) {
            guest = new SmbUser(g.smb().guestAccount(), 65534, 65534, new byte[16]);
        }
        int maxIo = Math.clamp(Math.min(g.limits().maxIoSize(), context.pool().limits().maxBufferBytes()), 65536, 8 << 20);
        int maxMessage = Math.max(g.limits().maxRecordSize(), maxIo + 4096);
        return new SmbServerConfig("RDMAGATE", "WORKGROUP", shares, users, g.smb().signingRequired(), g.smb().encryptAll(),
                guest, maxMessage, maxIo, g.smb().maxCredits(), g.smb().maxInFlight(), Duration.ofMillis(500),
                context.pool(), context.payloadCopies(), g.smb().oplockBreakTimeout(), g.smb().durableTimeout(),
                g.smb().durableMaxTimeout(), g.limits().maxConnections(), g.limits().maxConnectionsPerAddress(),
                g.smb().handshakeTimeout(), g.smb().idleTimeout(),
                Math.min(g.smb().maxHandshakeMessageSize(), maxMessage), g.limits().sendTimeout(), g.smb().multichannel(),
                kerberos(g), g.smb().maxAsyncRequests());
    }

    /**
     * Kerberos logons when security.kerberos names an SMB principal: the keytab is checked now, so
     * a missing key stops the start with its fix rather than failing every client's logon.
     */
    private static SmbKerberos kerberos(GatewayConfig g) throws StartException {
        KerberosConfig k = g.security().kerberos();
        if (k == null) {
            return null;
        }
        try {
            KerberosAcceptor acceptor = KerberosAcceptor.forService(k, "cifs", k.smbPrincipal());
            LOG.info("SMB Kerberos: accepting tickets for {} with the keys of {}", acceptor.principal(), k.keytab());
            return new SmbKerberos(acceptor, KerberosIdentities.withUsers(k, g.users()));
        } catch (KerberosException e) {
            throw new StartException("SMB Kerberos: " + e.getMessage(), e);
        }
    }

    @Override
    public List<BoundListener> start(GatewayContext context) throws Exception {
        var planned = context.ports().port(ListenerKind.SMB);
        if (planned.isEmpty()) {
            return List.of(); // SMB disabled in the configuration
        }
        PlannedPort p = planned.get();
        server = SmbServer.start(config(context), context.bindAddress(ListenerKind.SMB), p.port(), context.metrics());
        List<BoundListener> bound = new ArrayList<>();
        bound.add(new BoundListener("smb", "tcp", server.localAddress()));
        var direct = context.ports().port(ListenerKind.SMB_DIRECT);
        if (direct.isPresent()) {
            var rdma = context.rdma().orElseThrow(() -> new IllegalStateException(
                    "SMB Direct is planned on port " + direct.get().port() + " but the gateway opened no RDMA device"));
            var d = context.config().transports().smb().direct();
            var defaults = io.rdmagate.smbdirect.SmbDirectOptions.defaults();
            var options = new io.rdmagate.smbdirect.SmbDirectOptions(d.receiveCredits(), d.sendCredits(),
                    defaults.maxSendSize(), defaults.maxReceiveSize(), d.maxFragmentedSize(), d.maxReadWriteSize(),
                    defaults.maxDescriptors(), context.config().rdma().maxConnections(), d.negotiateTimeout(),
                    d.keepaliveInterval());
            var s = server.listenSmbDirect(rdma, options, new java.net.InetSocketAddress(
                    context.bindAddress(ListenerKind.SMB_DIRECT), direct.get().port()));
            bound.add(new BoundListener("smb-direct", "rdma", s.localAddress()));
        }
        return bound;
    }

    @Override
    public void stop(Duration grace) {
        if (server != null) {
            server.close();
        }
    }
}
