package io.rdmagate.bench.nfs;

import io.rdmagate.bench.Figure;
import io.rdmagate.bench.Profiles;
import io.rdmagate.bench.Report;

import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.v3.Nfs3;
import io.rdmagate.oncrpc.rpc.AuthSys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The NFS benchmark: the same load generator against rdmagate and against nfs-ganesha, both
 * exporting one directory on 127.0.0.1, in one run, over NFSv3 or over NFSv4.1 (each call one
 * COMPOUND of SEQUENCE, PUTFH and the operation, {@link Nfs4LoadConnection}). Figures: 1 MiB sequential write (UNSTABLE,
 * then COMMIT) and read MB/s over {@link #STREAMS} connections with {@link #STREAM_DEPTH} calls
 * in flight each; 4 KiB random read IOPS at queue depth 16 on one connection; GETATTR calls/s
 * at queue depth 16 on one connection; and each server's CPU time per unit of work. Rounds
 * alternate between the servers; the best round of each figure is reported.
 *
 * <p>With {@code --sec sys,krb5i,krb5p} (NFSv3) every figure is taken once per flavor: AUTH_SYS,
 * and RPCSEC_GSS with Kerberos ({@link Kerberos}: a throwaway MIT realm, one keytab both servers
 * accept with) through {@link GssLoadConnection}, a figure's name followed by its flavor.
 *
 * <p>Usage (as root, through {@code bench/run nfs [totalMiB] [seconds] [rounds]} or {@code bench/run
 * nfs4 ...}, which give it a network namespace of its own with an rpcbind for ganesha).
 */
public final class NfsBench {
    static final int STREAMS = 4;
    static final int STREAM_DEPTH = 4;
    static final int QUEUE_DEPTH = 16;
    static final int IO = 1 << 20;
    static final int SMALL = 4096;
    private static final AuthSys ROOT = new AuthSys(0, "bench", 0, 0, new int[0]);

    private final long fileBytes;
    private final long seconds;
    private final byte[] data = new byte[IO];

    /** Opens a load connection to a server with {@code depth} calls in flight at most. */
    @FunctionalInterface
    interface Dialer {
        LoadConnection open(ServerProcess server, int depth) throws IOException;
    }

    static final Dialer TCP = (server, depth) -> new TcpLoadConnection(server.nfs());
    static final Dialer NFS41 = (server, depth) -> new Nfs4LoadConnection(server.nfs(), depth);

    /** How the files of a round are made and read back: through NFSv3 (MOUNT, CREATE, READ) or NFSv4.1. */
    interface FileSetup {
        byte[] create(ServerProcess server, String name) throws IOException;

        byte[] read(ServerProcess server, byte[] fh, long offset, int count) throws IOException;
    }

    static final FileSetup V3_FILES = new FileSetup() {
        @Override
        public byte[] create(ServerProcess server, String name) throws IOException {
            byte[] root = Nfs3Client.mount(server.mount(), server.mountPath(), ROOT);
            try (Nfs3Client setup = Nfs3Client.connect(server.nfs(), ROOT)) {
                return setup.create(root, name, 0644);
            }
        }

        @Override
        public byte[] read(ServerProcess server, byte[] fh, long offset, int count) throws IOException {
            try (Nfs3Client c = Nfs3Client.connect(server.nfs(), ROOT)) {
                return c.read(fh, offset, count).data();
            }
        }
    };

    static final FileSetup V41_FILES = new FileSetup() {
        @Override
        public byte[] create(ServerProcess server, String name) throws IOException {
            try (Nfs4LoadConnection c = new Nfs4LoadConnection(server.nfs(), 1)) {
                return c.create(server.mountPath(), name);
            }
        }

        @Override
        public byte[] read(ServerProcess server, byte[] fh, long offset, int count) throws IOException {
            try (Nfs4LoadConnection c = new Nfs4LoadConnection(server.nfs(), 1)) {
                return c.read(fh, offset, count);
            }
        }
    };

    NfsBench(long totalBytes, long seconds) {
        this.fileBytes = totalBytes / STREAMS / IO * IO;
        this.seconds = seconds;
        new SplittableRandom(2049).nextBytes(data);
    }

    public static void main(String[] args) throws Exception {
        if (System.getenv("RDMAGATE_BENCH_NETNS") == null) {
            System.err.println("run the NFS benchmark through bench/run nfs (as root): it needs a network namespace");
            System.exit(2);
        }
        boolean v41 = args.length > 0 && args[0].equals("--v4.1");
        if (v41) {
            args = java.util.Arrays.copyOfRange(args, 1, args.length);
        }
        List<String> flavors = List.of("sys");
        if (args.length > 1 && args[0].equals("--sec")) {
            flavors = List.of(args[1].split(","));
            args = java.util.Arrays.copyOfRange(args, 2, args.length);
            for (String f : flavors) {
                if (!f.equals("sys") && (v41 || !List.of("krb5", "krb5i", "krb5p").contains(f))) {
                    System.err.println("--sec takes sys, krb5, krb5i and krb5p, the Kerberos ones over NFSv3 only: " + f);
                    System.exit(2);
                }
            }
        }
        long total = (args.length > 0 ? Long.parseLong(args[0]) : 1024) << 20;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 10;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        NfsBench bench = new NfsBench(total, seconds);
        Dialer dialer = v41 ? NFS41 : TCP;
        FileSetup files = v41 ? V41_FILES : V3_FILES;
        Path work = Files.createTempDirectory("rdmagate-bench-nfs");
        Path export = Files.createDirectories(work.resolve("export"));
        System.out.printf(Locale.ROOT, "nfs benchmark (%s): %d MiB per sequential figure (%d streams x %d in flight),"
                + " %d s per rate figure (queue depth %d), best of %d rounds, %d cores, %s; work in %s%n",
                v41 ? "NFSv4.1" : "NFSv3", total >> 20, STREAMS, STREAM_DEPTH, seconds, QUEUE_DEPTH, rounds,
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.version"), work);
        Process rpcbind = Servers.rpcbind(work);
        Kerberos kerberos = flavors.equals(List.of("sys")) ? null : Kerberos.start(work);
        List<Map<String, Figure>> best = new ArrayList<>();
        Map<String, Long> retransmitted = new LinkedHashMap<>();
        try (ServerProcess rdmagate = Servers.rdmagate(work, export, kerberos);
                ServerProcess ganesha = Servers.ganesha(work, export, v41, kerberos)) {
            List<ServerProcess> servers = List.of(rdmagate, ganesha);
            for (int i = 0; i < servers.size(); i++) {
                best.add(new LinkedHashMap<>());
            }
            for (int r = 0; r < rounds; r++) {
                for (String flavor : flavors) {
                    Dialer d = flavor.equals("sys") ? dialer : kerberos.dialer(flavor);
                    String suffix = flavor.equals("sys") ? "" : " (" + flavor + ")";
                    for (int i = 0; i < servers.size(); i++) {
                        long sentAgain = GssLoadConnection.RETRANSMITTED.get();
                        Profiles.context("r" + (r + 1) + suffix);
                        Map<String, Figure> round = bench.round(servers.get(i), d, files);
                        if (d == TCP) {
                            round.putAll(bench.namespace(servers.get(i)));
                        }
                        sentAgain = GssLoadConnection.RETRANSMITTED.get() - sentAgain;
                        retransmitted.merge(servers.get(i).name() + suffix, sentAgain, Long::sum);
                        System.out.printf(Locale.ROOT, "round %d %s%s: %s%n", r + 1, servers.get(i).name(), suffix, round);
                        Map<String, Figure> b = best.get(i);
                        round.forEach((k, v) -> b.merge(k + suffix, v, (x, y) -> x.value() >= y.value() ? x : y));
                    }
                }
            }
            print(servers, best);
            if (kerberos != null) {
                // a call a server dropped unanswered (RFC 2203 5.3.3.1) went again after a timeout
                System.out.println("RPCSEC_GSS calls sent again after " + GssLoadConnection.RETRANSMIT_MILLIS
                        + " ms without a reply, all rounds: " + retransmitted + "; of them answered late (not dropped): "
                        + GssLoadConnection.ANSWERED_LATE.get());
            }
        } finally {
            if (kerberos != null) {
                kerberos.close();
            }
            rpcbind.destroy();
            rpcbind.waitFor();
        }
    }

    private static void print(List<ServerProcess> servers, List<Map<String, Figure>> best) {
        Report.versus("rdmagate", "ganesha", best);
        System.out.println();
        System.out.println("servers: " + servers.stream().map(s -> s.name() + " pid " + s.process().pid()).toList());
    }

    /** Every figure once against {@code server} over NFSv3, as {@link NfsRdmaBench} runs it. */
    Map<String, Figure> round(ServerProcess server, Dialer dialer) throws Exception {
        return round(server, dialer, V3_FILES);
    }

    /** Every figure once against {@code server}, each connection opened by {@code dialer}. */
    Map<String, Figure> round(ServerProcess server, Dialer dialer, FileSetup setup) throws Exception {
        byte[][] files = new byte[STREAMS][];
        for (int s = 0; s < STREAMS; s++) {
            files[s] = setup.create(server, server.name() + "-" + s);
        }
        Map<String, Figure> out = new LinkedHashMap<>();
        long calls = fileBytes / IO;
        double gib = STREAMS * fileBytes / (double) (1L << 30);
        // 1 MiB sequential write, UNSTABLE, each stream its own file; then COMMIT of every file
        double cpu0;
        long t0;
        long t1;
        long t2;
        double cpu1;
        try (Profiles.Session p = Profiles.start(server.process(), server.name(), "1 MiB seq write")) {
            cpu0 = server.cpuSeconds();
            t0 = System.nanoTime();
            streams(server, dialer, files, calls, 0,
                    (c, s, xid, i) -> c.sendWrite(xid, files[s], i * IO, data, IO, Nfs3.UNSTABLE));
            t1 = System.nanoTime();
            streams(server, dialer, files, 1, 0, (c, s, xid, i) -> c.sendCommit(xid, files[s]));
            t2 = System.nanoTime();
            cpu1 = server.cpuSeconds();
        }
        out.put("1 MiB seq write MB/s", new Figure(mbps(t1 - t0), cpu1 - cpu0, gib));
        out.put("1 MiB seq write + COMMIT MB/s", new Figure(mbps(t2 - t0), cpu1 - cpu0, gib));
        // 1 MiB sequential read of the same files (in the page cache: the server's own cost)
        try (Profiles.Session p = Profiles.start(server.process(), server.name(), "1 MiB seq read")) {
            cpu0 = server.cpuSeconds();
            t0 = System.nanoTime();
            streams(server, dialer, files, calls, IO, (c, s, xid, i) -> c.sendRead(xid, files[s], i * IO, IO));
            t1 = System.nanoTime();
            out.put("1 MiB seq read MB/s", new Figure(mbps(t1 - t0), server.cpuSeconds() - cpu0, gib));
        }
        verify(server, files, setup);
        // 4 KiB random reads over all files, queue depth 16 on one connection
        long blocks = fileBytes / SMALL;
        SplittableRandom random = new SplittableRandom(4096);
        out.put("4 KiB random read IOPS (QD 16)", rate(server, dialer, "4 KiB random read", SMALL, (c, xid, i) -> {
            long b = random.nextLong(blocks * STREAMS);
            c.sendRead(xid, files[(int) (b % STREAMS)], (b / STREAMS) * SMALL, SMALL);
        }));
        out.put("GETATTR calls/s (QD 16)", rate(server, dialer, "GETATTR", 0, (c, xid, i) -> c.sendGetattr(xid, files[0])));
        if (setup == V41_FILES) {
            out.put("OPEN+CLOSE pairs/s (QD 16)", rate(server, dialer, "OPEN+CLOSE", 0, (c, xid, i) -> c.sendOpenClose(xid, files[0])));
        }
        return out;
    }

    /**
     * NFSv3 namespace changes over TCP: {@link #NAMESPACE_CALLS} CREATEs of new files in the
     * export's root, then their REMOVEs. Each reply waits for the change to be stable where the
     * server promises that (rdmagate's {@code sync} export, the default; knfsd's {@code sync}).
     */
    Map<String, Figure> namespace(ServerProcess server) throws Exception {
        Map<String, Figure> out = new LinkedHashMap<>();
        byte[] dir = Nfs3Client.mount(server.mount(), server.mountPath(), ROOT);
        String prefix = server.name() + "-new-";
        out.put("CREATE files/s (QD 16)", count(server, TCP, "CREATE", NAMESPACE_CALLS,
                (c, xid, i) -> c.sendCreate(xid, dir, prefix + i)));
        out.put("REMOVE files/s (QD 16)", count(server, TCP, "REMOVE", NAMESPACE_CALLS,
                (c, xid, i) -> c.sendRemove(xid, dir, prefix + i)));
        return out;
    }

    /** Files made and removed per round by the namespace figures. */
    private static final long NAMESPACE_CALLS = 4000;

    /** Calls per second of exactly {@code calls} calls on one connection at {@link #QUEUE_DEPTH}. */
    private Figure count(ServerProcess server, Dialer dialer, String figure, long calls, Pipeline.CallSource source)
            throws Exception {
        try (LoadConnection c = dialer.open(server, QUEUE_DEPTH);
                Profiles.Session p = Profiles.start(server.process(), server.name(), figure)) {
            double cpu0 = server.cpuSeconds();
            long t0 = System.nanoTime();
            long n = Pipeline.run(c, QUEUE_DEPTH, calls, Long.MAX_VALUE, 0, source);
            long t1 = System.nanoTime();
            if (n != calls) {
                throw new IOException(server.name() + ": " + n + " of " + calls + " calls completed");
            }
            return new Figure(n / ((t1 - t0) / 1e9), server.cpuSeconds() - cpu0, n);
        }
    }

    private double mbps(long nanos) {
        return STREAMS * fileBytes / (nanos / 1e9) / 1e6;
    }

    @FunctionalInterface
    private interface StreamSource {
        void send(LoadConnection c, int stream, int xid, long i) throws IOException;
    }

    /** One connection per stream, {@code calls} calls each, {@link #STREAM_DEPTH} in flight. */
    private static void streams(ServerProcess server, Dialer dialer, byte[][] files, long calls, int minReply,
            StreamSource source) throws Exception {
        Thread[] threads = new Thread[files.length];
        Exception[] failures = new Exception[files.length];
        for (int s = 0; s < files.length; s++) {
            int stream = s;
            threads[s] = Thread.ofPlatform().name("nfs-load-" + s).start(() -> {
                try (LoadConnection c = dialer.open(server, STREAM_DEPTH)) {
                    long n = Pipeline.run(c, STREAM_DEPTH, calls, Long.MAX_VALUE, minReply,
                            (conn, xid, i) -> source.send(conn, stream, xid, i));
                    if (n != calls) {
                        throw new IOException(n + " of " + calls + " calls completed");
                    }
                } catch (Exception e) {
                    failures[stream] = e;
                }
            });
        }
        for (Thread t : threads) {
            t.join();
        }
        for (Exception e : failures) {
            if (e != null) {
                throw new IOException(server.name() + ": " + e.getMessage(), e);
            }
        }
    }

    /** Calls per second on one connection at {@link #QUEUE_DEPTH} for {@link #seconds}. */
    private Figure rate(ServerProcess server, Dialer dialer, String figure, int minReply, Pipeline.CallSource source)
            throws Exception {
        try (LoadConnection c = dialer.open(server, QUEUE_DEPTH)) {
            Pipeline.run(c, QUEUE_DEPTH, 2000, Long.MAX_VALUE, minReply, source); // warm-up
            try (Profiles.Session p = Profiles.start(server.process(), server.name(), figure)) {
                double cpu0 = server.cpuSeconds();
                long t0 = System.nanoTime();
                long n = Pipeline.run(c, QUEUE_DEPTH, Long.MAX_VALUE, t0 + seconds * 1_000_000_000L, minReply, source);
                long t1 = System.nanoTime();
                return new Figure(n / ((t1 - t0) / 1e9), server.cpuSeconds() - cpu0, n);
            }
        }
    }

    /** The first and the last block of every file read back equal what was written, and nothing more. */
    private void verify(ServerProcess server, byte[][] files, FileSetup setup) throws IOException {
        for (byte[] fh : files) {
            for (long off : new long[] {0, fileBytes - IO}) {
                if (!Arrays.equals(setup.read(server, fh, off, IO), data)) {
                    throw new IOException(server.name() + ": data read back at " + off + " differs");
                }
            }
            if (setup.read(server, fh, fileBytes, IO).length != 0) {
                throw new IOException(server.name() + ": the file is longer than the " + fileBytes + " bytes written");
            }
        }
    }
}
