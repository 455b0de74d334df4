package io.rdmagate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * {@code bench/run seeds [DIR [smb|nfs]]}: records what real clients send to rdmagate, for the fuzz
 * campaigns' seed corpora under {@code DIR} (the repository; default the current directory):
 * smbclient's SMB2 requests into {@code smb-server/src/test/resources/seeds/smbclient}
 * ({@link io.rdmagate.bench.smb.SmbSeeds}), libnfs's MOUNT and NFSv3 calls into
 * {@code nfs-rdma/src/test/resources/seeds/libnfs} and its NFSv4.0 COMPOUNDs into
 * {@code seeds/libnfs-nfs4} beside it ({@link io.rdmagate.bench.nfs.NfsSeeds}); {@code smb} or
 * {@code nfs} records only that one. Each
 * message is a file of its own, named by its order and what it is, beside an {@code index.txt}
 * listing them; the directories are replaced.
 */
public final class Seeds {
    private Seeds() {
    }

    public static void main(String[] args) throws Exception {
        Path repo = Path.of(args.length > 0 ? args[0] : "").toAbsolutePath().normalize();
        Path work = Files.createTempDirectory("rdmagate-seeds");
        String only = args.length > 1 ? args[1] : "";
        try {
            if (!only.equals("nfs")) {
                io.rdmagate.bench.smb.SmbSeeds.record(Files.createDirectories(work.resolve("smb")),
                        repo.resolve("smb-server/src/test/resources/seeds/smbclient"));
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
