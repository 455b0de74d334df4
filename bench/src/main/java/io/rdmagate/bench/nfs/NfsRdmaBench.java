package io.rdmagate.bench.nfs;

import io.rdmagate.bench.Figure;
import io.rdmagate.bench.Profiles;
import io.rdmagate.bench.Report;

import com.sun.management.OperatingSystemMXBean;
import io.rdmagate.rdma.softiwarp.SoftIwarpDevice;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * NFSv3 over RPC-over-RDMA against NFSv3 over TCP, to the same rdmagate, with the same load
 * generator and the same figures as {@link NfsBench}: the gateway (its real program, a child
 * process) listens on TCP and on its soft-iWARP device; the generator reaches it over loopback
 * TCP ({@link TcpLoadConnection}) or through a soft-iWARP device of its own
 * ({@link RdmaLoadConnection}: READ data RDMA-Written into the client's write chunk, WRITE data
 * RDMA-Read from its read chunk). Rounds alternate between the transports; the best round of each
 * figure is reported with the gateway's CPU per unit of work and the generator's. The MB/s rows
 * are also set beside the raw soft-iWARP RDMA Write bandwidth measured in the same run.
 */
public final class NfsRdmaBench {
    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private NfsRdmaBench() {
    }

    public static void run(long totalBytes, long seconds, int rounds, double rawWriteMBps) throws Exception {
        NfsBench bench = new NfsBench(totalBytes, seconds);
        Path work = Files.createTempDirectory("rdmagate-bench-nfs-rdma");
        Path export = Files.createDirectories(work.resolve("export"));
        System.out.printf(Locale.ROOT, "nfs over rdma benchmark: %d MiB per sequential figure (%d streams x %d in"
                + " flight), %d s per rate figure (queue depth %d), best of %d rounds, %d cores, %s; work in %s%n",
                totalBytes >> 20, NfsBench.STREAMS, NfsBench.STREAM_DEPTH, seconds, NfsBench.QUEUE_DEPTH, rounds,
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.version"), work);
        SoftIwarpDevice device = new SoftIwarpDevice("bench-client", SoftIwarpDevice.Options.DEFAULT);
        NfsBench.Dialer rdma = (server, depth) -> new RdmaLoadConnection(device, server.rdma(), depth);
        List<String> names = List.of("TCP", "RDMA");
        List<NfsBench.Dialer> dialers = List.of(NfsBench.TCP, rdma);
        List<Map<String, Figure>> best = new ArrayList<>();
        try (ServerProcess gateway = Servers.rdmagate(work, export)) {
            for (int i = 0; i < dialers.size(); i++) {
                best.add(new LinkedHashMap<>());
            }
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < dialers.size(); i++) {
                    long cpu0 = OS.getProcessCpuTime();
                    Profiles.context(names.get(i) + "-r" + (r + 1));
                    Map<String, Figure> round = bench.round(gateway, dialers.get(i));
                    double client = (OS.getProcessCpuTime() - cpu0) / 1e9;
                    System.out.printf(Locale.ROOT, "round %d %s: %s (generator CPU %.1f s)%n", r + 1, names.get(i),
                            round, client);
                    Map<String, Figure> b = best.get(i);
                    round.forEach((k, v) -> b.merge(k, v, (x, y) -> x.value() >= y.value() ? x : y));
                }
            }
        } finally {
            device.close();
        }
        print(best, rawWriteMBps);
    }

    private static void print(List<Map<String, Figure>> best, double rawWriteMBps) {
        System.out.println();
        System.out.println("| figure | TCP | RDMA | RDMA / TCP | gateway CPU, TCP | gateway CPU, RDMA | RDMA / raw soft-iWARP Write |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (String k : best.get(0).keySet()) {
            Figure t = best.get(0).get(k);
            Figure r = best.get(1).get(k);
            boolean mbps = k.contains("MB/s");
            String unit = mbps ? " s/GiB" : " µs/call";
            double scale = mbps ? 1 : 1e6;
            System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.2f | %.2f%s | %.2f%s | %s |%n", k, t.value(),
                    r.value(), r.value() / t.value(), t.cpuPerUnit() * scale, unit, r.cpuPerUnit() * scale, unit,
                    mbps ? String.format(Locale.ROOT, "%.2f", r.value() / rawWriteMBps) : "");
            Report.figure(k, Report.valueUnit(k), "RDMA / TCP", r.value() / t.value(),
                    new Report.Side("TCP", t.value(), t.cpuPerUnit() * scale, unit.strip()),
                    new Report.Side("RDMA", r.value(), r.cpuPerUnit() * scale, unit.strip()));
        }
        System.out.printf(Locale.ROOT, "%nraw soft-iWARP RDMA Write, 1 MiB messages, 16 in flight: %.0f MB/s%n",
                rawWriteMBps);
        Report.figure("raw soft-iWARP RDMA Write MB/s (1 MiB, 16 in flight)", "MB/s", "", 1,
                new Report.Side("soft iWARP", rawWriteMBps, null, null));
    }
}
