package io.rdmagate.bench.smb;

import io.rdmagate.bench.Figure;
import io.rdmagate.bench.Report;

import com.hierynomus.msdtyp.AccessMask;
import com.hierynomus.mssmb2.SMB2CreateDisposition;
import com.hierynomus.mssmb2.SMB2Dialect;
import com.hierynomus.mssmb2.SMB2ShareAccess;
import com.hierynomus.smbj.SMBClient;
import com.hierynomus.smbj.SmbConfig;
import com.hierynomus.smbj.auth.AuthenticationContext;
import com.hierynomus.smbj.connection.Connection;
import com.hierynomus.smbj.session.Session;
import com.hierynomus.smbj.share.DiskShare;
import com.hierynomus.smbj.share.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The SMB benchmark: one client (smbj, SMB 3.1.1, one connection and session) against rdmagate
 * and against Samba's smbd, both serving one directory on 127.0.0.1, in one run. Figures: 1 MiB
 * sequential write and read MB/s over {@link #STREAMS} files with {@link #STREAM_DEPTH} requests
 * in flight each; 4 KiB random read IOPS with {@link #QUEUE_DEPTH} requests in flight; and each
 * server's CPU time (smbd's per-client process included) per unit of work. Rounds alternate
 * between the servers; the best round of each figure is reported.
 *
 * <p>With {@code --sec signed,encrypted} the figures are taken once per setting: signed (smbj
 * signs every request and both servers sign every response, the default) and encrypted (the
 * same directory through a share that requires SMB 3 encryption, AES-128-GCM as both servers
 * choose from smbj's offer), the SMB counterparts of NFS's krb5i and krb5p.
 *
 * <p>Usage (as root, for smbd): {@code bench/run smb [--sec signed,encrypted] [totalMiB] [seconds] [rounds]}.
 */
public final class SmbBench {
    static final int STREAMS = 4;
    static final int STREAM_DEPTH = 4;
    static final int QUEUE_DEPTH = 16;
    static final int IO = 1 << 20;
    static final int SMALL = 4096;
    private static final String PASSWORD = "Bench-2049";

    private final long fileBytes;
    private final long seconds;
    private final byte[] data = new byte[IO];

    SmbBench(long totalBytes, long seconds) {
        this.fileBytes = Math.max(IO, totalBytes / STREAMS / IO * IO);
        this.seconds = seconds;
        new SplittableRandom(445).nextBytes(data);
    }

    public static void main(String[] args) throws Exception {
        List<String> settings = List.of("signed");
        if (args.length > 1 && args[0].equals("--sec")) {
            settings = List.of(args[1].split(","));
            args = Arrays.copyOfRange(args, 2, args.length);
            for (String setting : settings) {
                if (!setting.equals("signed") && !setting.equals("encrypted")) {
                    System.err.println("--sec takes signed and encrypted: " + setting);
                    System.exit(2);
                }
            }
        }
        long total = (args.length > 0 ? Long.parseLong(args[0]) : 1024) << 20;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 10;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        SmbBench bench = new SmbBench(total, seconds);
        Path work = Files.createTempDirectory("rdmagate-bench-smb");
        Path export = Files.createDirectories(work.resolve("export"));
        System.out.printf(Locale.ROOT, "smb benchmark: smbj SMB 3.1.1, %d MiB per sequential figure (%d files x %d in"
                + " flight), %d s of 4 KiB random reads (%d in flight), best of %d rounds, %d cores, %s; work in %s%n",
                STREAMS * bench.fileBytes >> 20, STREAMS, STREAM_DEPTH, seconds, QUEUE_DEPTH, rounds,
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.version"), work);
        List<Map<String, Figure>> best = new ArrayList<>();
        try (SmbServerProcess rdmagate = SmbServers.rdmagate(work, export, PASSWORD);
                SmbServerProcess smbd = SmbServers.smbd(work, export, PASSWORD)) {
            List<SmbServerProcess> servers = List.of(rdmagate, smbd);
            for (int i = 0; i < servers.size(); i++) {
                best.add(new LinkedHashMap<>());
            }
            for (int r = 0; r < rounds; r++) {
                for (String setting : settings) {
                    boolean encrypted = setting.equals("encrypted");
                    String suffix = encrypted ? " (encrypted)" : "";
                    for (int i = 0; i < servers.size(); i++) {
                        SmbServerProcess server = servers.get(i);
                        Map<String, Figure> round = bench.round(server,
                                encrypted ? SmbServers.ENCRYPTED_SHARE : server.share());
                        System.out.printf(Locale.ROOT, "round %d %s%s: %s%n", r + 1, server.name(), suffix, round);
                        Map<String, Figure> b = best.get(i);
                        round.forEach((k, v) -> b.merge(k + suffix, v, (x, y) -> x.value() >= y.value() ? x : y));
                    }
                }
            }
            print(best); // before the servers stop: smbd may take its time
        }
    }

    private static void print(List<Map<String, Figure>> best) {
        Report.versus("rdmagate", "smbd", best);
    }

    /** smbj offers SMB 3 ciphers (and then encrypts) only when told to. */
    private static SMBClient client(boolean encrypt) {
        return new SMBClient(SmbConfig.builder().withDialects(SMB2Dialect.SMB_3_1_1).withReadBufferSize(IO)
                .withWriteBufferSize(IO).withTransactBufferSize(IO).withTimeout(120, TimeUnit.SECONDS)
                .withEncryptData(encrypt).build());
    }

    /** Every figure once against {@code server}'s {@code shareName}, through one connection and session. */
    Map<String, Figure> round(SmbServerProcess server, String shareName) throws Exception {
        Map<String, Figure> out = new LinkedHashMap<>();
        try (SMBClient client = client(shareName.equals(SmbServers.ENCRYPTED_SHARE));
                Connection conn = client.connect("127.0.0.1", server.port());
                Session session = conn.authenticate(new AuthenticationContext(server.user(), PASSWORD.toCharArray(), ""));
                DiskShare share = (DiskShare) session.connectShare(shareName)) {
            File[] files = new File[STREAMS];
            try {
                for (int s = 0; s < STREAMS; s++) {
                    files[s] = share.openFile(server.name() + "-" + s,
                            EnumSet.of(AccessMask.GENERIC_READ, AccessMask.GENERIC_WRITE), null, SMB2ShareAccess.ALL,
                            SMB2CreateDisposition.FILE_OVERWRITE_IF, null);
                }
                long chunks = fileBytes / IO;
                double gib = STREAMS * fileBytes / (double) (1L << 30);
                double cpu0 = server.cpuSeconds();
                long t0 = System.nanoTime();
                streams(files, chunks, (f, i, scratch) -> f.write(data, i * IO));
                long t1 = System.nanoTime();
                out.put("1 MiB seq write MB/s", new Figure(mbps(t1 - t0), server.cpuSeconds() - cpu0, gib));
                cpu0 = server.cpuSeconds();
                t0 = System.nanoTime();
                streams(files, chunks, (f, i, scratch) -> {
                    if (f.read(scratch, i * IO) != IO) {
                        throw new IOException("short read at " + i * IO);
                    }
                });
                t1 = System.nanoTime();
                out.put("1 MiB seq read MB/s", new Figure(mbps(t1 - t0), server.cpuSeconds() - cpu0, gib));
                verify(server, files);
                out.put("4 KiB random read IOPS (QD 16)", randomReads(server, files));
            } finally {
                for (File f : files) {
                    if (f != null) {
                        f.close();
                    }
                }
            }
        }
        return out;
    }

    private double mbps(long nanos) {
        return STREAMS * fileBytes / (nanos / 1e9) / 1e6;
    }

    @FunctionalInterface
    private interface ChunkIo {
        void run(File f, long chunk, byte[] scratch) throws Exception;
    }

    /** {@link #STREAM_DEPTH} threads per file, each taking the file's next chunk in order. */
    private static void streams(File[] files, long chunks, ChunkIo io) throws Exception {
        List<Thread> threads = new ArrayList<>();
        Exception[] failure = new Exception[1];
        for (File f : files) {
            AtomicLong next = new AtomicLong();
            for (int d = 0; d < STREAM_DEPTH; d++) {
                threads.add(Thread.ofPlatform().name("smb-load").start(() -> {
                    byte[] scratch = new byte[IO];
                    try {
                        for (long i = next.getAndIncrement(); i < chunks; i = next.getAndIncrement()) {
                            io.run(f, i, scratch);
                        }
                    } catch (Exception e) {
                        synchronized (failure) {
                            failure[0] = e;
                        }
                    }
                }));
            }
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure[0] != null) {
            throw failure[0];
        }
    }

    /** 4 KiB reads at random offsets over all files, {@link #QUEUE_DEPTH} threads, after a warm-up. */
    private Figure randomReads(SmbServerProcess server, File[] files) throws Exception {
        long blocks = fileBytes / SMALL;
        AtomicLong done = new AtomicLong();
        Exception[] failure = new Exception[1];
        List<Thread> threads = new ArrayList<>();
        long warmUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        long end = warmUntil + TimeUnit.SECONDS.toNanos(seconds);
        for (int q = 0; q < QUEUE_DEPTH; q++) {
            SplittableRandom random = new SplittableRandom(4096 + q);
            threads.add(Thread.ofPlatform().name("smb-rand-" + q).start(() -> {
                byte[] b = new byte[SMALL];
                try {
                    for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
                        long k = random.nextLong(blocks * STREAMS);
                        if (files[(int) (k % STREAMS)].read(b, (k / STREAMS) * SMALL) != SMALL) {
                            throw new IOException("short 4 KiB read");
                        }
                        if (now >= warmUntil) {
                            done.incrementAndGet();
                        }
                    }
                } catch (Exception e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                }
            }));
        }
        while (System.nanoTime() < warmUntil) {
            Thread.sleep(10);
        }
        double cpu0 = server.cpuSeconds();
        long t0 = System.nanoTime();
        for (Thread t : threads) {
            t.join();
        }
        long t1 = System.nanoTime();
        if (failure[0] != null) {
            throw failure[0];
        }
        long n = done.get();
        return new Figure(n / ((t1 - t0) / 1e9), server.cpuSeconds() - cpu0, n);
    }

    /** The first and the last MiB of every file read back equal what was written, and the size is right. */
    private void verify(SmbServerProcess server, File[] files) throws IOException {
        byte[] back = new byte[IO];
        for (File f : files) {
            for (long off : new long[] {0, fileBytes - IO}) {
                if (f.read(back, off) != IO || !Arrays.equals(back, data)) {
                    throw new IOException(server.name() + ": data read back at " + off + " differs");
                }
            }
            long size = f.getFileInformation().getStandardInformation().getEndOfFile();
            if (size != fileBytes) {
                throw new IOException(server.name() + ": size " + size + ", wrote " + fileBytes);
            }
        }
    }
}
