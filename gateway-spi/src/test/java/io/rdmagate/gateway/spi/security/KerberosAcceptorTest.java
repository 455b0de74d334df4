package io.rdmagate.gateway.spi.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.gateway.spi.config.KerberosConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the gateway checks at start about its keytab, against keytabs a real MIT KDC made, and
 * how client principals map to POSIX identities (the host's name service included).
 */
class KerberosAcceptorTest {
    @TempDir
    static Path tmp;
    static MitKdc kdc;
    static Path keytab;

    @BeforeAll
    static void start() throws Exception {
        kdc = MitKdc.start(Files.createDirectories(tmp.resolve("realm")));
        keytab = tmp.resolve("gateway.keytab");
        kdc.addService("cifs/gw.example.test", keytab);
    }

    @AfterAll
    static void stop() {
        if (kdc != null) {
            kdc.close();
        }
    }

    static KerberosConfig config(Path keytab) {
        return new KerberosConfig(keytab, MitKdc.REALM, kdc.krb5Conf(), null, null, Map.of());
    }

    @Test
    void theKeytabsPrincipalIsAccepted() throws Exception {
        KerberosAcceptor a = KerberosAcceptor.open(config(keytab), "cifs/gw.example.test");
        assertEquals("cifs/gw.example.test@" + MitKdc.REALM, a.principal(), "the realm is added");
        KerberosAcceptor.Exchange e = a.begin();
        KerberosException bad = assertThrows(KerberosException.class, () -> e.accept(new byte[] {0x60, 0x03, 0x06, 0x01, 0x00}));
        assertTrue(bad.getMessage() != null, "a token that is no AP-REQ is refused with a reason");
    }

    @Test
    void aMissingKeytabOrOneWithoutThePrincipalStopsTheStartWithTheFix() {
        KerberosException missing = assertThrows(KerberosException.class,
                () -> KerberosAcceptor.open(config(tmp.resolve("none.keytab")), "cifs/gw.example.test"));
        assertTrue(missing.getMessage().contains("does not exist") && missing.getMessage().contains("ktadd"),
                missing.getMessage());
        KerberosException other = assertThrows(KerberosException.class,
                () -> KerberosAcceptor.open(config(keytab), "cifs/other.example.test"));
        assertTrue(other.getMessage().contains("holds no key for cifs/other.example.test@" + MitKdc.REALM)
                && other.getMessage().contains("klist -k"), other.getMessage());
    }

    @Test
    void principalsMapThroughTheIdmapTheLocalUsersAndTheNameService() {
        KerberosConfig c = new KerberosConfig(keytab, MitKdc.REALM, kdc.krb5Conf(), null, null,
                Map.of("svc@OTHER.TEST", "10:20", "admin@" + MitKdc.REALM, "root"));
        KerberosIdentities ids = new KerberosIdentities(c, name -> name.equals("alice")
                ? Optional.of(new Passwd.Account("alice", 1500, 1600)) : Optional.empty());
        assertEquals(Optional.of(new Passwd.Account("alice", 1500, 1600)), ids.map("alice@" + MitKdc.REALM));
        assertEquals(Optional.of(new Passwd.Account("svc@OTHER.TEST", 10, 20)), ids.map("svc@OTHER.TEST"));
        assertEquals(Optional.of(new Passwd.Account("root", 0, 0)), ids.map("admin@" + MitKdc.REALM),
                "a name the local users lack comes from the host's name service");
        assertEquals(Optional.empty(), ids.map("alice@OTHER.TEST"), "another realm's alice is nobody here");
        assertEquals(Optional.empty(), ids.map("cifs/gw.example.test@" + MitKdc.REALM), "a service is no user");
        assertEquals(Optional.empty(), ids.map("no-such-user-here@" + MitKdc.REALM));
        assertTrue(KerberosIdentities.validIdmapValue("4294967295:0"));
        assertTrue(!KerberosIdentities.validIdmapValue("4294967296:0") && !KerberosIdentities.validIdmapValue("a b"));
    }
}
