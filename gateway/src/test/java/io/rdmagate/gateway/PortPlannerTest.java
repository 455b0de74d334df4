package io.rdmagate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.gateway.config.ConfigParser;
import io.rdmagate.gateway.spi.ListenerKind;
import io.rdmagate.gateway.spi.ListenerPlan;
import io.rdmagate.gateway.spi.StartException;
import io.rdmagate.gateway.spi.config.GatewayConfig;
import io.rdmagate.gateway.spi.config.TransportsConfig.Rpcbind.Mode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PortPlannerTest {
    private static final Privileges UNPRIVILEGED = new Privileges(false, 1024);
    private static final Privileges ROOT = new Privileges(true, 1024);
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private static GatewayConfig config(String transports) throws Exception {
        return ConfigParser.parse("t.yaml", """
                exports:
                  - name: data
                    path: /srv/data
                    clients: [{match: "*"}]
                shares:
                  - {name: data, export: data}
                """ + transports);
    }

    private static ListenerPlan plan(Privileges p, boolean systemRpcbind, String transports) throws Exception {
        return new PortPlanner(p, () -> systemRpcbind).plan(config(transports).transports());
    }

    private static int port(ListenerPlan plan, ListenerKind kind) {
        return plan.port(kind).orElseThrow().port();
    }

    @Test
    void defaultedPrivilegedPortsMoveWhenUnprivileged() throws Exception {
        ListenerPlan p = plan(UNPRIVILEGED, false, "");
        assertEquals(Mode.EMBEDDED, p.rpcbind());
        assertEquals(10111, port(p, ListenerKind.RPCBIND));
        assertEquals(10445, port(p, ListenerKind.SMB));
        assertTrue(p.port(ListenerKind.SMB).orElseThrow().note().contains("CAP_NET_BIND_SERVICE"));
        assertEquals(2049, port(p, ListenerKind.NFS));
        assertEquals(20049, port(p, ListenerKind.NFS_RDMA));
        assertEquals(20048, port(p, ListenerKind.MOUNT));
        assertEquals(32803, port(p, ListenerKind.NLM));
        assertEquals(32765, port(p, ListenerKind.NSM));
        assertEquals(5445, port(p, ListenerKind.SMB_DIRECT));
        assertNull(p.port(ListenerKind.NFS).orElseThrow().note());
    }

    @Test
    void privilegedProcessKeepsTheStandardPorts() throws Exception {
        ListenerPlan p = plan(ROOT, false, "");
        assertEquals(111, port(p, ListenerKind.RPCBIND));
        assertEquals(445, port(p, ListenerKind.SMB));
        assertFalse(p.port(ListenerKind.SMB).orElseThrow().movedFromDefault());
    }

    @Test
    void aLoweredUnprivilegedPortStartNeedsNoFallback() throws Exception {
        ListenerPlan p = plan(new Privileges(false, 0), false, "");
        assertEquals(111, port(p, ListenerKind.RPCBIND));
        assertEquals(445, port(p, ListenerKind.SMB));
    }

    @Test
    void explicitPortsAreKeptEvenWhenUnprivileged() throws Exception {
        ListenerPlan p = plan(UNPRIVILEGED, false, """
                transports:
                  smb: {port: 445}
                  rpcbind: {port: 111, mode: embedded}
                """);
        assertEquals(445, port(p, ListenerKind.SMB));
        assertEquals(111, port(p, ListenerKind.RPCBIND));
        assertEquals("t.yaml:8", p.port(ListenerKind.SMB).orElseThrow().requested().origin());
    }

    @Test
    void rpcbindModes() throws Exception {
        assertEquals(Mode.SYSTEM, plan(UNPRIVILEGED, true, "").rpcbind());
        assertTrue(plan(UNPRIVILEGED, true, "").port(ListenerKind.RPCBIND).isEmpty());
        assertEquals(Mode.OFF, plan(ROOT, true, "transports: {rpcbind: {mode: off}}").rpcbind());
        assertEquals(Mode.EMBEDDED, plan(ROOT, true, "transports: {rpcbind: {mode: embedded}}").rpcbind());
        assertEquals(Mode.SYSTEM, plan(ROOT, false, "transports: {rpcbind: {mode: system}}").rpcbind());
    }

    @Test
    void disabledTransportsPlanNothing() throws Exception {
        ListenerPlan p = plan(ROOT, false, "transports: {nfs: {enabled: false}, smb: {enabled: false}}");
        assertTrue(p.ports().isEmpty());
        assertEquals(Mode.OFF, p.rpcbind());
    }

    @Test
    void twoListenersOnOnePortAreRefused() {
        StartException e = assertThrows(StartException.class,
                () -> plan(ROOT, false, "transports: {nfs: {port: 4000}, smb: {port: 4000}}"));
        assertTrue(e.getMessage().contains("port 4000 is planned for both nfs/tcp"), e.getMessage());
    }

    @Test
    void clientCommandsFollowThePlan() throws Exception {
        GatewayConfig c = config("");
        Set<ListenerKind> all = EnumSet.allOf(ListenerKind.class);
        var generated = java.util.Optional.of(java.nio.file.Path.of("state/smb-credentials"));
        List<String> unpriv = ClientCommands.of(c, new PortPlanner(UNPRIVILEGED, () -> false).plan(c.transports()), all,
                "HOST", generated);
        assertTrue(unpriv.contains("mount -t nfs -o vers=3,port=2049,mountport=20048 HOST:/data /mnt"), unpriv.toString());
        assertTrue(unpriv.contains("smbclient -p 10445 //HOST/data -A ./state/smb-credentials"), unpriv.toString());
        String abs = java.nio.file.Path.of("state/smb-credentials").toAbsolutePath().toString();
        assertTrue(unpriv.contains("mount -t cifs -o port=10445,credentials=" + abs + " //HOST/data /mnt"),
                unpriv.toString());
        GatewayConfig alice = config("users:\n  - {name: alice, uid: 1000, gid: 1000, ntHash: "
                + "8846F7EAEE8FB117AD06BDD830B7586C}\n");
        List<String> root = ClientCommands.of(alice, new PortPlanner(ROOT, () -> false).plan(alice.transports()), all,
                "HOST", java.util.Optional.empty());
        assertTrue(root.contains("smbclient //HOST/data -U alice"), root.toString());
        assertTrue(root.contains("mount -t cifs -o username=alice //HOST/data /mnt"), root.toString());
        List<String> nfsOnly = ClientCommands.of(c, new PortPlanner(ROOT, () -> false).plan(c.transports()),
                EnumSet.of(ListenerKind.NFS, ListenerKind.MOUNT), "HOST", generated);
        assertEquals(List.of("mount -t nfs -o vers=3,port=2049,mountport=20048 HOST:/data /mnt"), nfsOnly,
                "only what this build serves");
    }

    @Test
    void explicitPortInUseFailsNamingPortListenerAndReason() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(LOOPBACK, 0));
            int port = taken.getLocalPort();
            ListenerPlan p = plan(UNPRIVILEGED, false, "transports:\n  nfs: {port: " + port + "}\n  smb: {enabled: false}\n");
            StartException e = assertThrows(StartException.class,
                    () -> p.bindCheck(k -> LOOPBACK, EnumSet.of(ListenerKind.NFS)));
            assertTrue(e.getMessage().contains("port " + port), e.getMessage());
            assertTrue(e.getMessage().contains("nfs/tcp"), e.getMessage());
            assertTrue(e.getMessage().contains("set at t.yaml:8"), e.getMessage());
            assertTrue(e.getMessage().toLowerCase().contains("in use"), e.getMessage());
        }
    }

    @Test
    void freePortsPassTheBindCheckAndUnclaimedOnesAreNotChecked() throws Exception {
        int free;
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(LOOPBACK, 0));
            free = s.getLocalPort();
        }
        ListenerPlan p = plan(UNPRIVILEGED, false, "transports:\n  nfs: {port: " + free + "}\n  smb: {enabled: false}\n");
        p.bindCheck(k -> LOOPBACK, Set.of(ListenerKind.NFS));
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(LOOPBACK, free));
            p.bindCheck(k -> LOOPBACK, Set.of());
        }
    }

    @Test
    void privilegesFromProc() {
        String status = "Name:\tjava\nUid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000000000\n";
        assertEquals(new Privileges(false, 1024), Privileges.parse(status, "1024\n"));
        assertEquals(new Privileges(true, 1024), Privileges.parse(status.replace("1000\t1000\t1000\t1000", "0\t0\t0\t0"), null));
        assertEquals(new Privileges(true, 80), Privileges.parse(status.replace("0000000000000000", "0000000000000400"), "80"));
        assertEquals(new Privileges(false, 1024), Privileges.parse(status.replace("0000000000000000", "00000000000003ff"), "x"));
        assertTrue(new Privileges(false, 1024).mayBind(1024));
        assertFalse(new Privileges(false, 1024).mayBind(445));
    }
}
