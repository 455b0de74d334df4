package io.rdmagate.oncrpc.rpcbind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmagate.oncrpc.server.RpcLimits;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Debian's rpcinfo (package rpcbind) pings the embedded rpcbind on its non-privileged port. rpcinfo
 * reaches a port other than 111 only with {@code -a UADDR -T NETID} ({@code -n PORT} still asks
 * port 111 first), which calls NULL; without a version it first provokes PROG_MISMATCH to learn
 * the range, then pings each version. Its dump and lookup queries always go to port 111 and are
 * covered by {@link RpcbindTest} instead. Runs where rpcinfo is installed (/usr/sbin/rpcinfo, or
 * the path in $RPCINFO).
 */
class RpcinfoTest {

    private static Path rpcinfo() {
        String env = System.getenv("RPCINFO");
        Path p = Path.of(env != null ? env : "/usr/sbin/rpcinfo");
        return Files.isExecutable(p) ? p : null;
    }

    private static String run(Path rpcinfo, String... args) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(List.of(rpcinfo.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "rpcinfo finished");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void rpcinfoPingsEveryVersionOverTcpAndUdp() throws Exception {
        Path rpcinfo = rpcinfo();
        // CI installs rpcinfo (.ci/run); elsewhere the test runs where it is installed
        assertTrue(rpcinfo != null || System.getenv("CI") == null, "CI must provide rpcinfo ($RPCINFO)");
        assumeTrue(rpcinfo != null, "rpcinfo is not installed (Debian package rpcbind)");
        try (RpcbindServer s = RpcbindServer.start(InetAddress.getLoopbackAddress(), 0, new RpcbindRegistry(), null,
                RpcLimits.DEFAULT)) {
            String uaddr = UniversalAddress.format(s.tcpAddress().getAddress(), s.port());
            for (String netid : List.of("tcp", "udp")) {
                String out = run(rpcinfo, "-a", uaddr, "-T", netid, "100000");
                for (String v : List.of("2", "3", "4")) {
                    assertTrue(out.contains("program 100000 version " + v + " ready and waiting"), out);
                }
            }
        }
    }
}
