package io.rdmagate.gateway.cli;

import io.rdmagate.gateway.Main;
import io.rdmagate.rdma.rping.RpingClient;
import io.rdmagate.rdma.rping.RpingServer;
import io.rdmagate.rdma.verbs.VerbsDevice;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * rping (rdma-core's librdmacm/examples/rping.c protocol) over a hardware device through the verbs
 * provider: the path the gateway's RDMA listeners take, checked against Linux's {@code rping}
 * before they are pointed at a NIC. As server it serves one client; as client it pings a server
 * {@code --count} times, every ping's data checked. Exit 0 when every ping went through.
 */
@Command(name = "rping", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"rping over an RDMA device through libibverbs and librdmacm, against Linux's rping:"
                + " 'rping server DEVICE ADDRESS PORT' serves one client (rping -c -a ADDRESS -p PORT -S SIZE -V);"
                + " 'rping client DEVICE ADDRESS PORT' pings a server (rping -s -a ADDRESS -p PORT -S SIZE)."
                + " Exits 0 when every ping went through."})
public final class RdmaRpingCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "server|client", description = "Serve one client, or ping a server.")
    String role;

    @Parameters(index = "1", paramLabel = "DEVICE", description = "The RDMA device (rdmagate rdma devices lists them).")
    String device;

    @Parameters(index = "2", paramLabel = "ADDRESS", description = "The address to listen on or to reach.")
    String address;

    @Parameters(index = "3", paramLabel = "PORT", description = "The rdma_cm port.")
    int port;

    @Option(names = "--size", paramLabel = "BYTES", defaultValue = "4096",
            description = "Bytes per ping, 26..65535 (default 4096); the other side's -S must be the same.")
    int size;

    @Option(names = "--count", paramLabel = "N", defaultValue = "20", description = "Pings a client makes (default 20).")
    int count;

    @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "300",
            description = "How long a server waits for its client (default 300).")
    int waitSeconds;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (!role.equals("server") && !role.equals("client")) {
            throw new Main.CommandFailure("rping: the role is server or client, not " + role, Main.EXIT_CONFIG);
        }
        if (size < 26 || size > 65535 || count < 1 || port < 1 || port > 65535 || waitSeconds < 1) {
            throw new Main.CommandFailure("rping: --size 26..65535, --count >= 1, PORT 1..65535, --wait >= 1",
                    Main.EXIT_CONFIG);
        }
        InetSocketAddress at = new InetSocketAddress(InetAddress.getByName(address), port);
        try (VerbsDevice d = VerbsDevice.open(device)) {
            if (role.equals("server")) {
                try (RpingServer server = new RpingServer(d, at, size)) {
                    out.println("rping server on " + device + ", listening on " + server.address());
                    out.flush();
                    int pings = server.serveOne(Duration.ofSeconds(waitSeconds));
                    out.println("served " + pings + " pings of " + size + " bytes");
                    out.flush();
                    return pings > 0 ? 0 : Main.EXIT_FAILURE;
                }
            }
            try (RpingClient client = new RpingClient(d, size)) {
                int pings = client.run(at, count);
                out.println("verified " + pings + " of " + count + " pings of " + size + " bytes from " + at);
                out.flush();
                return pings == count ? 0 : Main.EXIT_FAILURE;
            }
        }
    }
}
