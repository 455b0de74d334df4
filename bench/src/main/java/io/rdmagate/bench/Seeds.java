package io.rdmagate.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * {@code bench/run seeds [DIR [smb|nfs]]}: records what real clients send to rdmagate, for the fuzz
 * campaigns' seed corpora under {@code DIR} (the repository; default the current directory):
 * smbclient's SMB2 requests into {@code smb-server/src/test/resources/seeds/smbclient}
 * ({@link io.rdmagate.bench.smb.SmbSeeds}), smbtorture's SMB2 groups' into {@code seeds/smbtorture}
 * beside it, libnfs's MOUNT and NFSv3 calls into
 * {@code nfs-rdma/src/test/resources/seeds/libnfs} and its NFSv4.0 COMPOUNDs into
 * {@code seeds/libnfs-nfs4} beside it ({@link io.rdmagate.bench.nfs.NfsSeeds}); {@code smb} or
 * {@code nfs} records only that one. Each
 * message is a file of its own, named by its order and what it is, beside an {@code index.txt}
 * listing them; the directories are replaced.
 *
 * <p>{@code Seeds proxy rpc|smb DIR PORT:TARGET_PORT...} records what clients send to 127.0.0.1's
 * {@code PORT}s while passing it on to their {@code TARGET_PORT}s, until its standard input ends, then
 * writes a bounded selection into {@code DIR} ({@link #select}): how the interop lab records the
 * Linux kernel's NFSv4 and cifs clients ({@code interop/lab/lab.sh seeds}).
 */
public final class Seeds {
    private Seeds() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("proxy")) {
            proxy(args);
            return;
        }
        Path repo = Path.of(args.length > 0 ? args[0] : "").toAbsolutePath().normalize();
        Path work = Files.createTempDirectory("rdmagate-seeds");
        String only = args.length > 1 ? args[1] : "";
        try {
            if (!only.equals("nfs")) {
                io.rdmagate.bench.smb.SmbSeeds.record(Files.createDirectories(work.resolve("smb")),
                        repo.resolve("smb-server/src/test/resources/seeds/smbclient"));
                io.rdmagate.bench.smb.SmbSeeds.recordSmbtorture(Files.createDirectories(work.resolve("smbtorture")),
                        repo.resolve("smb-server/src/test/resources/seeds/smbtorture"));
            }
            if (!only.equals("smb")) {
                io.rdmagate.bench.nfs.NfsSeeds.record(Files.createDirectories(work.resolve("nfs")),
                        repo.resolve("nfs-rdma/src/test/resources/seeds/libnfs"),
                        repo.resolve("nfs-rdma/src/test/resources/seeds/libnfs-nfs4"));
            }
        } finally {
            try (var files = Files.walk(work)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** At most this many messages of one name are kept by {@link #select}. */
    public static final int PER_NAME = 6;
    /** Messages larger than this are left out by {@link #select}: the corpus stays small. */
    public static final int MAX_BYTES = 16 << 10;

    private static void proxy(String[] args) throws Exception {
        if (args.length < 4 || !(args[1].equals("rpc") || args[1].equals("smb"))) {
            throw new IllegalArgumentException("usage: Seeds proxy rpc|smb DIR PORT:TARGET_PORT...");
        }
        boolean rpc = args[1].equals("rpc");
        List<RecordingProxy> proxies = new ArrayList<>();
        try {
            for (int i = 3; i < args.length; i++) {
                String[] ports = args[i].split(":");
                InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(ports[1]));
                proxies.add(new RecordingProxy(Integer.parseInt(ports[0]), target,
                        rpc ? RecordingProxy.Framing.RPC_RECORD_MARKING : RecordingProxy.Framing.SMB_DIRECT_TCP));
                System.out.println("recording on " + ports[0] + " for " + ports[1]);
            }
            System.in.transferTo(OutputStream.nullOutputStream());
            Function<byte[], String> name = rpc ? io.rdmagate.bench.nfs.NfsSeeds::name : io.rdmagate.bench.smb.SmbSeeds::name;
            List<RecordingProxy.Message> all = new ArrayList<>();
            for (RecordingProxy p : proxies) {
                all.addAll(p.messages());
            }
            write(Path.of(args[2]), select(all, name), name);
        } finally {
            for (RecordingProxy p : proxies) {
                p.close();
            }
        }
    }

    /**
     * The messages worth keeping as seeds, in their order: at most {@link #PER_NAME} of each name
     * and none over {@link #MAX_BYTES} bytes, so a long client session (thousands of READs and
     * WRITEs) leaves a corpus of every kind of message it sent rather than many of a few kinds.
     */
    public static List<RecordingProxy.Message> select(List<RecordingProxy.Message> messages, Function<byte[], String> name) {
        Map<String, Integer> kept = new HashMap<>();
        List<RecordingProxy.Message> out = new ArrayList<>();
        for (RecordingProxy.Message m : messages) {
            if (m.bytes().length <= MAX_BYTES && kept.merge(name.apply(m.bytes()), 1, Integer::sum) <= PER_NAME) {
                out.add(m);
            }
        }
        return out;
    }

    /** Runs a client command to its end (2 minutes at most); its output goes to {@code log}. */
    public static void run(Path log, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + ": still running after 2 minutes; see " + log);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + ": exit " + p.exitValue() + "; see " + log);
        }
    }

    /**
     * Replaces {@code dir} with one file per message, {@code NNN-NAME.bin}, NAME from
     * {@code name}, and an {@code index.txt} of the file names in order.
     */
    public static void write(Path dir, List<RecordingProxy.Message> messages, Function<byte[], String> name)
            throws IOException {
        if (Files.isDirectory(dir)) {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
        }
        Files.createDirectories(dir);
        StringBuilder index = new StringBuilder();
        int n = 0;
        for (RecordingProxy.Message m : messages) {
            String file = String.format(java.util.Locale.ROOT, "%03d-%s.bin", n++, name.apply(m.bytes()));
            Files.write(dir.resolve(file), m.bytes());
            index.append(file).append('\n');
        }
        Files.writeString(dir.resolve("index.txt"), index);
        System.out.printf("%s: %d messages%n", dir, messages.size());
    }
}
