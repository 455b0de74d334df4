package io.rdmagate.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The rdma benchmark: soft-iWARP RDMA Write and RDMA Read bandwidth and Send/Recv round trips
 * between two endpoints over loopback TCP, beside the raw bandwidth of a plain Java socket pair
 * moving the same bytes in the same message sizes, in one run. Prints a table.
 *
 * <p>Usage: {@code bench/run rdma [totalMiB] [rounds]} (defaults 2048 MiB per figure, 3 rounds;
 * the best round of each figure is reported, as each run shares two cores with everything else).
 * Every harness also takes {@code --json FILE} ({@link Report}).
 */
public final class BenchMain {
    /** Both sides of every figure move data through regions of this size (cache effects alike). */
    static final int REGION = Integer.getInteger("bench.region", 1 << 20) ;

    private BenchMain() {
    }

    static String size(int bytes) {
        return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }

    /** Runs the harness named by the first argument; {@code --json FILE} anywhere also writes its figures there. */
    public static void main(String[] argv) throws Exception {
        if (argv.length > 0 && argv[0].equals("chart")) {
            Chart.main(java.util.Arrays.copyOfRange(argv, 1, argv.length));
            return;
        }
        String[] args = Profiles.takeProfileOption(Report.takeJsonOption(argv));
        String what = args.length > 0 ? args[0] : "rdma";
        Report.begin(what);
        Profiles.begin(what);
        run(what, args);
        Report.write();
    }

    private static void run(String what, String[] args) throws Exception {
        if (what.equals("nfs")) {
            io.rdmagate.bench.nfs.NfsBench.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (what.equals("nfs4")) {
            String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
            String[] v41 = new String[rest.length + 1];
            v41[0] = "--v4.1";
            System.arraycopy(rest, 0, v41, 1, rest.length);
            io.rdmagate.bench.nfs.NfsBench.main(v41);
            return;
        }
        if (what.equals("seeds")) {
            Seeds.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (what.equals("smb")) {
            io.rdmagate.bench.smb.SmbBench.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (what.equals("nfs-rdma")) {
            long total = (args.length > 1 ? Long.parseLong(args[1]) : 1024) << 20;
            long seconds = args.length > 2 ? Long.parseLong(args[2]) : 10;
            int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
            Measurement raw;
            try (SoftIwarpPair pair = new SoftIwarpPair(REGION)) {
                raw = best(rounds, () -> pair.transfer(true, 1 << 20, total));
            }
            io.rdmagate.bench.nfs.NfsRdmaBench.run(total, seconds, rounds, raw.megabytesPerSecond());
            return;
        }
        if (!what.equals("rdma")) {
            System.err.println("usage: bench/run rdma [totalMiB] [rounds] | bench/run nfs|nfs4 [--sec sys,krb5,krb5i,krb5p] [totalMiB]"
                    + " [seconds] [rounds] | bench/run nfs-rdma [totalMiB] [seconds] [rounds]"
                    + " | bench/run smb [--sec signed,encrypted] [totalMiB] [seconds] [rounds]"
                    + " (each also --json FILE, --profile DIR) | bench/run chart FIGURES.json OUT.svg [title]");
            System.exit(2);
        }
        long total = (args.length > 1 ? Long.parseLong(args[1]) : 2048) << 20;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        System.out.printf(Locale.ROOT, "rdma benchmark: %d MiB per figure, best of %d rounds, %d cores, %s%n",
                total >> 20, rounds, Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.version"));
        List<String[]> rows = new ArrayList<>();
        for (int msg : new int[] {1 << 20, 64 << 10}) {
            Measurement raw = best(rounds, () -> RawSocketPair.run(msg, total));
            Measurement w;
            Measurement r;
            try (SoftIwarpPair pair = new SoftIwarpPair(REGION)) {
                w = best(rounds, () -> pair.transfer(true, msg, total));
                r = best(rounds, () -> pair.transfer(false, msg, total));
            }
            for (Measurement m : new Measurement[] {raw, w, r}) {
                rows.add(new String[] {m.name(), fmt(m.megabytesPerSecond()), fmt2(m.cpuSecondsPerGib()),
                    m == raw ? "1.00" : fmt2(m.megabytesPerSecond() / raw.megabytesPerSecond())});
                if (m != raw) {
                    Report.figure(m.name() + " MB/s", "MB/s", "soft iWARP / raw socket",
                            m.megabytesPerSecond() / raw.megabytesPerSecond(),
                            new Report.Side("raw socket", raw.megabytesPerSecond(), raw.cpuSecondsPerGib(), "s/GiB"),
                            new Report.Side("soft iWARP", m.megabytesPerSecond(), m.cpuSecondsPerGib(), "s/GiB"));
                }
            }
        }
        System.out.println();
        System.out.println("| transfer | MB/s | CPU s/GiB | vs raw socket |");
        System.out.println("|---|---:|---:|---:|");
        for (String[] r : rows) {
            System.out.println("| " + String.join(" | ", r) + " |");
        }
        try (SoftIwarpPair pair = new SoftIwarpPair(1 << 20)) {
            pair.pingPong(2000);
            long[] rtt = pair.pingPong(20000);
            System.out.println();
            System.out.println("| Send/Recv ping-pong (32 B) | median µs | p99 µs |");
            System.out.println("|---|---:|---:|");
            System.out.printf(Locale.ROOT, "| soft iWARP, loopback TCP | %.1f | %.1f |%n", rtt[rtt.length / 2] / 1e3,
                    rtt[(int) (rtt.length * 0.99)] / 1e3);
            Report.figure("Send/Recv ping-pong (32 B) median µs", "µs", "", 1,
                    new Report.Side("soft iWARP", rtt[rtt.length / 2] / 1e3, null, null));
        }
    }

    private static Measurement best(int rounds, Task t) throws Exception {
        Measurement best = null;
        for (int i = 0; i < rounds; i++) {
            Measurement m = t.run();
            if (best == null || m.megabytesPerSecond() > best.megabytesPerSecond()) {
                best = m;
            }
        }
        return best;
    }

    private static String fmt(double d) {
        return String.format(Locale.ROOT, "%.0f", d);
    }

    private static String fmt2(double d) {
        return String.format(Locale.ROOT, "%.2f", d);
    }

    @FunctionalInterface
    private interface Task {
        Measurement run() throws Exception;
    }
}
