package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.fail;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The interop lab from JUnit: finds (or builds, once per JVM) the cached guest image, writes a
 * job script into a fresh directory that the guest sees by 9p, boots the guest through
 * {@code lab/lab.sh run}, and hands back what the job reported. Register it with
 * {@code @RegisterExtension}; when a test fails, every job directory it ran (guest console,
 * job output, dmesg, the host-side log) is kept under {@code target/lab-artifacts/<test>/}.
 * Passing tests leave nothing behind.
 */
public final class GuestLab implements BeforeTestExecutionCallback, AfterTestExecutionCallback {
    private static final Path LAB = Path.of(System.getProperty("rdmagate.interop.lab", "lab")).toAbsolutePath();
    private static final Path ARTIFACTS = Path.of(System.getProperty("rdmagate.interop.artifacts",
            "target/lab-artifacts")).toAbsolutePath();
    private static final Path WORK = Path.of(System.getProperty("rdmagate.interop.work", "target/lab-work"))
            .toAbsolutePath();
    private static Path image;

    private final List<Path> jobs = new ArrayList<>();
    private String testName = "unnamed";

    /**
     * The large file the kernel NFS client copies through rdmagate over RDMA
     * (-Drdmagate.interop.rdmaBigMiB): 1 GiB, as a user would copy one.
     */
    public static int rdmaBigMiB() {
        return Integer.getInteger("rdmagate.interop.rdmaBigMiB", 1024);
    }

    /** The large-file size the workloads use in this build (-Drdmagate.interop.bigMiB). */
    public static int bigMiB() {
        return Integer.getInteger("rdmagate.interop.bigMiB", 64);
    }

    /**
     * The image directory; builds it on first use (minutes when cold). Fails the test, with the
     * reason, when the lab cannot run here.
     */
    public static synchronized Path image() {
        if (image != null) {
            return image;
        }
        if (new UnixSystem().getUid() != 0) {
            fail("The interop lab needs root: it builds a Debian root file system with debootstrap and boots it"
                    + " under qemu. Run the build as root (CI runs .ci/run as root), e.g. sudo ./mvnw verify.");
        }
        try {
            Files.createDirectories(WORK);
            Path log = WORK.resolve("build-image.log");
            Process p = new ProcessBuilder(LAB.resolve("lab.sh").toString(), "build")
                    .redirectError(log.toFile()).redirectOutput(ProcessBuilder.Redirect.PIPE).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (!p.waitFor(45, TimeUnit.MINUTES) || p.exitValue() != 0) {
                p.destroyForcibly();
                fail("building the interop guest image failed (lab/lab.sh build); the host needs root and the"
                        + " packages .ci/run installs. Build log " + log + ":\n" + tail(log, 40));
            }
            Path dir = Path.of(out.lines().reduce((a, b) -> b).orElse(""));
            if (!Files.isRegularFile(dir.resolve("rootfs.ext4"))) {
                fail("lab/lab.sh build printed no image directory: " + out + "\n" + tail(log, 40));
            }
            image = dir;
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A new job for the current test: write its script, choose forwards, then {@link Job#run}. */
    public Job job(String name) {
        try {
            Files.createDirectories(WORK);
            Path dir = Files.createTempDirectory(WORK, testName + "-" + name + "-");
            jobs.add(dir);
            return new Job(name, dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void beforeTestExecution(ExtensionContext context) {
        testName = context.getRequiredTestClass().getSimpleName() + "." + context.getRequiredTestMethod().getName();
        jobs.clear();
    }

    @Override
    public void afterTestExecution(ExtensionContext context) throws IOException {
        if (context.getExecutionException().isPresent()) {
            Path keep = ARTIFACTS.resolve(testName);
            for (Path dir : jobs) {
                Path target = keep.resolve(dir.getFileName());
                copyTree(dir, target);
            }
            System.err.println("interop: artifacts of " + testName + " kept in " + keep);
        }
        for (Path dir : jobs) {
            deleteTree(dir);
        }
        jobs.clear();
    }

    /** One boot of the guest running one job script. */
    public final class Job {
        private final String name;
        private final Path dir;
        private final List<String> forwards = new ArrayList<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private String script = "";
        private Duration timeout = Duration.ofMinutes(10);
        private boolean gateway;
        private long diskMiB;
        private Path diskImage;

        Job(String name, Path dir) {
            this.name = name;
            this.dir = dir;
        }

        /** The bash script the guest runs as /job/job.sh; /job/lib.sh and /job/workloads/ are there. */
        public Job script(String bash) {
            this.script = bash;
            return this;
        }

        /** A lab job script, from lab/job/NAME. */
        public Job labScript(String file) {
            try {
                return script(Files.readString(LAB.resolve("job").resolve(file)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** A file the job sees as /job/NAME. */
        public Job file(String name, byte[] content) {
            try {
                Files.write(dir.resolve(name), content);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        /** A variable the job sees (written to /job/env, which the lab scripts source). */
        public Job env(String key, Object value) {
            env.put(key, String.valueOf(value));
            return this;
        }

        /** Makes 10.0.2.100:PORT in the guest reach 127.0.0.1:PORT on the host. */
        public Job forward(int port) {
            forwards.add(Integer.toString(port));
            return this;
        }

        /** Makes 10.0.2.100:GUESTPORT in the guest reach 127.0.0.1:HOSTPORT on the host. */
        public Job forward(int guestPort, int hostPort) {
            forwards.add(guestPort + ":" + hostPort);
            return this;
        }

        /**
         * Makes rdmagate runnable in the guest: this JVM's JDK is shared at /opt/jdk and its class
         * path copied to /job/cp, listed in /job/cp/classpath (lib.sh's start_rdmagate uses both).
         */
        public Job gatewayInGuest() {
            this.gateway = true;
            return this;
        }

        private void copyClassPath() throws IOException {
            if (Files.isRegularFile(dir.resolve("cp").resolve("classpath"))) {
                return; // copied for an earlier attempt
            }
            Path cp = Files.createDirectories(dir.resolve("cp"));
            List<String> entries = new ArrayList<>();
            int n = 0;
            for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
                Path from = Path.of(e);
                String name = (n++) + "-" + from.getFileName();
                if (Files.isDirectory(from)) {
                    copyTree(from, cp.resolve(name));
                } else if (Files.isRegularFile(from)) {
                    Files.copy(from, cp.resolve(name));
                } else {
                    continue;
                }
                entries.add("/job/cp/" + name);
            }
            Files.writeString(cp.resolve("classpath"), String.join(":", entries) + "\n");
        }

        /**
         * Gives the guest a disk of its own, {@code /dev/vdb}: a fresh ext4 filesystem of {@code mib}
         * MiB that the host makes before each attempt, kept as {@code disk.img} in the job directory
         * ({@link #disk(Path)}) for the test to read after the boot; the guest's writes reach it only
         * when the guest flushes them, as to a disk with a volatile write cache.
         */
        public Job disk(long mib) {
            this.diskMiB = mib;
            return this;
        }

        /**
         * Gives the guest, as {@code /dev/vdb}, a disk an earlier job left ({@link #disk()}): the
         * boot after a power loss. The guest writes it in place.
         */
        public Job disk(Path image) {
            this.diskImage = image;
            return this;
        }

        /** The disk of {@link #disk(long)} or {@link #disk(Path)}, as the guest left it. */
        public Path disk() {
            return diskImage != null ? diskImage : dir.resolve("disk.img");
        }

        private void makeDisk() throws IOException, InterruptedException {
            Path img = disk();
            Files.deleteIfExists(img);
            try (var f = new java.io.RandomAccessFile(img.toFile(), "rw")) {
                f.setLength(diskMiB << 20);
            }
            Process p = new ProcessBuilder(sbin("mkfs.ext4"), "-q", "-F", img.toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) {
                throw new IOException("mkfs.ext4 " + img + ": " + out);
            }
        }

        public Job timeout(Duration t) {
            this.timeout = t;
            return this;
        }

        /** Attempts a job whose gateway JVM the emulator crashed gets in all ({@link #run}). */
        static final int EMULATOR_CRASH_ATTEMPTS = 3;

        /**
         * Boots the guest and runs the job. A job whose gateway ran in the guest and whose JVM
         * crashed there in code of the JDK or the VM (qemu's TCG now and then faults JIT-compiled
         * code: a SIGSEGV at a different place each time, twice in a row in one CI run) runs again,
         * up to {@link #EMULATOR_CRASH_ATTEMPTS} attempts in all, each crashed attempt kept in
         * {@code crashed-N/} beside it; a crash in rdmagate's own code, or the last attempt's, stands.
         */
        public GuestRun run() {
            for (int attempt = 1; ; attempt++) {
                GuestRun run = runOnce();
                String crash = gateway && run.exitCode() != 0 ? emulatorCrash(dir) : null;
                if (crash == null || attempt == EMULATOR_CRASH_ATTEMPTS) {
                    return run;
                }
                System.out.printf("interop: %s/%s: the gateway's JVM crashed in the guest (%s); running the job again"
                        + " (attempt %d of %d)%n", testName, name, crash, attempt + 1, EMULATOR_CRASH_ATTEMPTS);
                try {
                    Path kept = Files.createDirectories(dir.resolve("crashed-" + attempt));
                    try (Stream<Path> s = Files.list(dir)) {
                        for (Path p : s.toList()) {
                            String f = p.getFileName().toString();
                            if (f.equals("output.log") || f.equals("console.log") || f.equals("host.log")
                                    || f.startsWith("hs_err_pid") || f.startsWith("rdmagate-")) {
                                Files.move(p, kept.resolve(f));
                            }
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }

        /**
         * The problematic frame of a JVM crash report in the job directory when it lies in the JDK or
         * the VM on an emulated CPU, else null (no crash, or one in rdmagate's own code).
         */
        static String emulatorCrash(Path dir) {
            try (Stream<Path> s = Files.list(dir)) {
                for (Path p : s.filter(f -> f.getFileName().toString().startsWith("hs_err_pid")).toList()) {
                    List<String> lines = Files.readAllLines(p, java.nio.charset.StandardCharsets.ISO_8859_1);
                    boolean emulated = lines.stream().anyMatch(l -> l.startsWith("Host: QEMU TCG"));
                    int at = lines.indexOf("# Problematic frame:");
                    String frame = at >= 0 && at + 1 < lines.size() ? lines.get(at + 1) : "";
                    if (emulated && !frame.isEmpty() && !frame.contains("io.rdmagate") && !frame.contains("io/rdmagate")) {
                        return frame.replaceFirst("^#\\s*", "");
                    }
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        }

        private GuestRun runOnce() {
            Path img = image();
            try {
                Files.writeString(dir.resolve("job.sh"), script);
                StringBuilder e = new StringBuilder();
                env.forEach((k, v) -> e.append(k).append("='").append(v.replace("'", "'\\''")).append("'\n"));
                Files.writeString(dir.resolve("env"), e);
                List<String> cmd = new ArrayList<>(List.of(LAB.resolve("lab.sh").toString(), "run", "--job",
                        dir.toString(), "--timeout", Long.toString(timeout.toSeconds())));
                for (String p : forwards) {
                    cmd.add("--forward");
                    cmd.add(p);
                }
                if (diskMiB > 0) {
                    makeDisk();
                }
                if (diskMiB > 0 || diskImage != null) {
                    cmd.add("--disk");
                    cmd.add(disk().toString());
                }
                if (gateway) {
                    copyClassPath();
                    cmd.add("--jdk");
                    cmd.add(System.getProperty("java.home"));
                }
                Path hostLog = dir.resolve("host.log");
                long t0 = System.nanoTime();
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(hostLog.toFile()).start();
                if (!p.waitFor(timeout.toSeconds() + 120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor();
                }
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                Path output = dir.resolve("output.log");
                String text = Files.isRegularFile(output) ? Files.readString(output) : "";
                int exit = p.isAlive() ? -1 : p.exitValue();
                System.out.printf("interop: %s/%s (image %s) exit %d in %d s%n", testName, name,
                        img.getFileName(), exit, took.toSeconds());
                text.lines().filter(l -> l.startsWith("RESULT ")).forEach(l -> System.out.println("  " + l));
                return new GuestRun(name, dir, exit, text, took);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** A system tool by name, from /usr/sbin or /sbin when it is there (a root PATH may lack them). */
    static String sbin(String tool) {
        for (String d : List.of("/usr/sbin/", "/sbin/")) {
            if (Files.isExecutable(Path.of(d + tool))) {
                return d + tool;
            }
        }
        return tool;
    }

    static String tail(Path file, int lines) {
        try {
            if (!Files.isRegularFile(file)) {
                return "(no " + file.getFileName() + ")";
            }
            List<String> all = Files.readAllLines(file);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else if (Files.isRegularFile(p)) {
                    Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
