package io.rdmagate.bench.nfs;

import io.rdmagate.gateway.spi.security.MitKdc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import javax.security.auth.login.LoginException;

/**
 * The realm of the benchmark's Kerberos figures: a throwaway MIT KDC on 127.0.0.1 (the
 * harness's network namespace), one keytab with the key of {@code nfs/gw.example.test} that
 * both servers accept with, and the client principal {@code root@EXAMPLE.TEST} (root on both
 * servers: rdmagate maps it through the host's accounts, ganesha through libnfsidmap) logged in
 * from its own keytab. The KDC's programs come from {@code $KRB5_SBIN} as in the tests.
 */
final class Kerberos implements AutoCloseable {
    static final String HOST = "gw.example.test";
    static final String SERVICE = "nfs/" + HOST + "@" + MitKdc.REALM;

    private final MitKdc kdc;
    private final Path keytab;
    private final RpcSecGssClient client;

    private Kerberos(MitKdc kdc, Path keytab, RpcSecGssClient client) {
        this.kdc = kdc;
        this.keytab = keytab;
        this.client = client;
    }

    static Kerberos start(Path work) throws IOException, InterruptedException {
        MitKdc kdc = MitKdc.start(Files.createDirectories(work.resolve("realm")));
        try {
            Path keytab = work.resolve("realm/nfs.keytab");
            kdc.addService("nfs/" + HOST, keytab);
            Path clientKeytab = work.resolve("realm/root.keytab");
            kdc.addService("root", clientKeytab);
            System.setProperty("java.security.krb5.conf", kdc.krb5Conf().toString());
            return new Kerberos(kdc, keytab, new RpcSecGssClient(MitKdc.login("root@" + MitKdc.REALM, clientKeytab),
                    SERVICE));
        } catch (IOException | InterruptedException | RuntimeException e) {
            kdc.close();
            throw e;
        } catch (LoginException e) {
            kdc.close();
            throw new IOException("root@" + MitKdc.REALM + " cannot log in: " + e.getMessage(), e);
        }
    }

    /** Connections whose calls use {@code flavor} (krb5, krb5i, krb5p), each with a context of its own. */
    NfsBench.Dialer dialer(String flavor) {
        RpcSecGssClient.Service service = RpcSecGssClient.Service.valueOf(flavor.toUpperCase(Locale.ROOT));
        return (server, depth) -> new GssLoadConnection(server.nfs(), client, service);
    }

    Path keytab() {
        return keytab;
    }

    Path krb5Conf() {
        return kdc.krb5Conf();
    }

    @Override
    public void close() {
        kdc.close();
    }
}
