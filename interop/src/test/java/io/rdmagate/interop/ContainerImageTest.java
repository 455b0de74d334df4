package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image as a user runs it (docs/deploy.md): {@code deploy/build-image.sh
 * --local-base} builds it with podman on bases assembled from Debian and the local JDK (cached
 * after the first build), then the image runs with its ports published on 127.0.0.1 (free high
 * host ports; the container keeps the default ports), the documented four capabilities only,
 * and two host directories as {@code /data} and {@code /var/lib/rdmagate}. Real clients check
 * it: libnfs {@code nfs-cp} copies 32 MiB in and out, smbclient round-trips a file with the
 * credentials file the gateway writes into the state directory on its first start, and
 * {@code /health} answers "up" from outside the container, as does the image's HEALTHCHECK.
 *
 * <p>The second test is the interop lab's guest (docs/interop.md): its Linux kernel NFS client
 * mounts the containerised gateway through the lab's forwards as a user would, {@code mount -o
 * vers=3} with no ports (rpcbind in the container finds MOUNT and NLM), and runs the lab's NFS
 * workload, locks through the container's NLM included.
 *
 * <p>Needs root, podman (with runc, iptables and debootstrap), libnfs-utils and smbclient, and
 * for the lab test what the lab needs; it fails, naming what is missing, when they are not there.
 */
@Tag("container")
class ContainerImageTest {
    private static final Path REPO = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent();
    private static final Path ENGINE = REPO.resolve("deploy/engine.sh");
    private static final String IMAGE = "rdmagate:interop-test";
    private static final List<String> CAPS = List.of("NET_BIND_SERVICE", "CHOWN", "FOWNER", "DAC_OVERRIDE");
    private static final Pattern USERNAME = Pattern.compile("(?m)^username\\s*=\\s*(\\S+)\\s*$");

    private static boolean built;

    @RegisterExtension
    final GuestLab lab = new GuestLab();

    @TempDir
    Path dir;

    private Path data;
    private Path state;

    @Test
    void imageServesNfsSmbAndHealthOnPublishedPortsWithHostDirectories() throws Exception {
        int nfsPort = HostGateway.freePort();
        int mountPort = HostGateway.freePort();
        int smbPort = HostGateway.freePort();
        int httpPort = HostGateway.freePort();
        String name = "rdmagate-it-" + ProcessHandle.current().pid();
        try {
            start(name, Map.of(2049, nfsPort, 20048, mountPort, 445, smbPort, 9049, httpPort));
            String health = awaitHealthUp(name, httpPort, Duration.ofSeconds(90));
            assertTrue(health.contains("\"path\":\"/data\""), health);

            // the image's own HEALTHCHECK (bash /dev/tcp, no curl in the base) says healthy
            Result hc = run(Duration.ofSeconds(30), dir.resolve("healthcheck.log"),
                    ENGINE.toString(), "--engine", "podman", "healthcheck", "run", name);
            assertEquals(0, hc.status, "podman healthcheck run: " + hc.tail(20) + "\n" + logs(name));
            // and the program's own probe, through the image's launcher
            Result probe = run(Duration.ofSeconds(60), dir.resolve("health.log"),
                    ENGINE.toString(), "--engine", "podman", "exec", name, "rdmagate", "health");
            assertEquals(0, probe.status, "rdmagate health in the container: " + probe.tail(20));
            assertTrue(probe.output.contains("\"status\":\"up\""), probe.output);

            // NFSv3 through the published NFS and MOUNT ports: 32 MiB in, out, intact
            Path in = dir.resolve("in.bin");
            Files.write(in, randomBytes(32 << 20, 1));
            String url = "nfs://127.0.0.1/data/big.bin?version=3&nfsport=" + nfsPort + "&mountport=" + mountPort;
            run(Duration.ofMinutes(2), dir.resolve("nfs-cp-in.log"), "nfs-cp", in.toString(), url).check();
            Path out = dir.resolve("out.bin");
            run(Duration.ofMinutes(2), dir.resolve("nfs-cp-out.log"), "nfs-cp", url, out.toString()).check();
            assertEquals(-1L, Files.mismatch(in, out), "the 32 MiB file read back over NFS differs");
            assertEquals(-1L, Files.mismatch(in, data.resolve("big.bin")), "the file on the host's /data differs");

            // SMB with the credentials file the first start wrote into the state directory
            Path creds = state.resolve("smb-credentials");
            awaitFile(name, creds, Duration.ofSeconds(30));
            assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
                    Files.getPosixFilePermissions(creds), "smb-credentials must be mode 0600");
            Matcher user = USERNAME.matcher(Files.readString(creds));
            assertTrue(user.find(), "no username= line in " + creds);
            assertTrue(logs(name).contains(user.group(1)), "the generated SMB user is not named in the log");
            Path small = dir.resolve("small.bin");
            Files.write(small, randomBytes(8 << 20, 2));
            Result smb = run(Duration.ofMinutes(2), dir.resolve("smbclient.log"), "smbclient", "//127.0.0.1/data",
                    "-p", String.valueOf(smbPort), "-A", creds.toString(), "-c",
                    "lcd " + dir + "; put small.bin smb.bin; get smb.bin smb-back.bin");
            assertEquals(0, smb.status, "smbclient put/get failed:\n" + smb.tail(30) + "\n" + logs(name));
            assertEquals(-1L, Files.mismatch(small, dir.resolve("smb-back.bin")), "the file read back over SMB differs");
            assertEquals(-1L, Files.mismatch(small, data.resolve("smb.bin")), "the SMB file on the host's /data differs");
        } catch (AssertionError | Exception e) {
            System.out.println("ContainerImageTest: container log:\n" + logs(name));
            throw e;
        } finally {
            remove(name);
        }
    }

    /**
     * The lab guest's kernel NFS client against the container: every NFS port the container
     * has (rpcbind 111, NFS, MOUNT, NLM, NSM) is published on a free host port and forwarded to
     * the guest under its own number, so the guest mounts with no ports, as a user would.
     */
    @Test
    @Tag("interop")
    void labKernelClientMountsTheContainerOverTcpAndRunsTheWorkload() throws Exception {
        Map<Integer, Integer> ports = new java.util.LinkedHashMap<>();
        for (int p : List.of(111, 2049, 20048, 32803, 32765, 9049)) {
            ports.put(p, HostGateway.freePort());
        }
        String name = "rdmagate-lab-" + ProcessHandle.current().pid();
        try {
            start(name, ports);
            awaitHealthUp(name, ports.get(9049), Duration.ofSeconds(90));
            List<String> expected = new ArrayList<>(List.of("nic-up", "statd"));
            for (String c : List.of("mount", "small-tree", "large-file", "namespace", "symlink", "hardlink",
                    "attributes", "flock", "fcntl-lock", "concurrent-writers", "unmount")) {
                expected.add("container-v3-tcp/" + c);
            }
            expected.add("kernel-clean");
            GuestLab.Job job = lab.job("container-nfs").labScript("container-nfs.sh")
                    .env("WORKLOAD_BIG_MIB", GuestLab.bigMiB())
                    .timeout(Duration.ofMinutes(20));
            for (int p : List.of(111, 2049, 20048, 32803, 32765)) {
                job.forward(p, ports.get(p));
            }
            GuestRun run = job.run();
            run.assertPassed(expected);
        } catch (AssertionError | Exception e) {
            System.out.println("ContainerImageTest: container log:\n" + logs(name));
            throw e;
        } finally {
            remove(name);
        }
    }


    /**
     * Builds the image once per JVM with {@code deploy/build-image.sh --local-base}, then runs it
     * with the documented capabilities, {@code ports} (container port to 127.0.0.1 host port)
     * published, and fresh host directories as /data (mode 1777: the publisher's clients are not
     * loopback, so root is squashed, docs/deploy.md) and /var/lib/rdmagate.
     */
    private void start(String name, Map<Integer, Integer> ports) throws Exception {
        requireHost();
        synchronized (ContainerImageTest.class) {
            if (!built) {
                long t0 = System.nanoTime();
                Result build = run(Duration.ofMinutes(30), dir.resolve("build-image.log"),
                        REPO.resolve("deploy/build-image.sh").toString(), "--local-base", "--engine", "podman",
                        "--tag", IMAGE);
                assertEquals(0, build.status, "deploy/build-image.sh --local-base failed:\n" + build.tail(60));
                System.out.printf("ContainerImageTest: image built in %d s%n",
                        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0));
                built = true;
            }
        }
        data = Files.createDirectories(dir.resolve("data"));
        run(Duration.ofSeconds(10), dir.resolve("chmod.log"), "chmod", "1777", data.toString()).check();
        state = Files.createDirectories(dir.resolve("state"));
        List<String> cmd = new ArrayList<>(List.of(ENGINE.toString(), "--engine", "podman", "run", "-d",
                "--name", name, "--cap-drop=all"));
        CAPS.forEach(c -> cmd.add("--cap-add=" + c));
        ports.forEach((inside, outside) -> cmd.addAll(List.of("-p", "127.0.0.1:" + outside + ":" + inside)));
        cmd.addAll(List.of("-v", data + ":/data", "-v", state + ":/var/lib/rdmagate", IMAGE));
        run(Duration.ofMinutes(2), dir.resolve("podman-run.log"), cmd.toArray(String[]::new)).check();
    }

    private void remove(String name) throws Exception {
        run(Duration.ofMinutes(1), dir.resolve("podman-rm.log"),
                ENGINE.toString(), "--engine", "podman", "rm", "-f", "-t", "5", name);
    }

    private static void requireHost() {
        if (new UnixSystem().getUid() != 0) {
            fail("ContainerImageTest needs root: rootful podman and debootstrap build and run the image"
                    + " (CI runs as root; run the build as root)");
        }
        List<String> missing = Map.of("podman", "podman", "runc", "runc", "debootstrap", "debootstrap",
                        "iptables", "iptables", "nfs-cp", "libnfs-utils", "smbclient", "smbclient")
                .entrySet().stream().filter(e -> !onPath(e.getKey())).map(Map.Entry::getValue).sorted().toList();
        if (!missing.isEmpty()) {
            fail("ContainerImageTest needs these Debian packages: " + String.join(" ", missing)
                    + " (apt-get install -y " + String.join(" ", missing) + ")");
        }
    }

    private static boolean onPath(String tool) {
        return List.of("/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin", "/usr/local/sbin").stream()
                .anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
    }

    /** Polls GET /health from the host until it reports "up"; fails early if the container stops. */
    private String awaitHealthUp(String name, int port, Duration limit) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                .timeout(Duration.ofSeconds(5)).GET().build();
        long deadline = System.nanoTime() + limit.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
                last = r.statusCode() + " " + r.body();
                if (r.statusCode() == 200 && r.body().contains("\"status\":\"up\"")) {
                    return r.body();
                }
            } catch (IOException e) {
                last = e.toString();
            }
            assertRunning(name);
            Thread.sleep(200);
        }
        fail("GET /health on 127.0.0.1:" + port + " did not report up within " + limit + " (last: " + last + ")\n"
                + logs(name));
        return null;
    }

    private void awaitFile(String name, Path file, Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!Files.isRegularFile(file)) {
            if (System.nanoTime() > deadline) {
                fail("the gateway wrote no " + file.getFileName() + " into the state directory within " + limit + "\n"
                        + logs(name));
            }
            assertRunning(name);
            Thread.sleep(200);
        }
    }

    private void assertRunning(String name) throws Exception {
        Result r = run(Duration.ofSeconds(30), dir.resolve("podman-inspect.log"), ENGINE.toString(), "--engine",
                "podman", "inspect", "--format", "{{.State.Running}}", name);
        if (r.status != 0 || !r.output.strip().equals("true")) {
            fail("the container " + name + " is not running: " + r.output.strip() + "\n" + logs(name));
        }
    }

    private String logs(String name) {
        try {
            return run(Duration.ofSeconds(30), dir.resolve("podman-logs.log"), ENGINE.toString(), "--engine",
                    "podman", "logs", name).output;
        } catch (Exception e) {
            return "(no container log: " + e + ")";
        }
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }


    private record Result(int status, String output, String command) {
        String tail(int lines) {
            List<String> all = output.lines().toList();
            return command + " exited " + status + ":\n"
                    + all.subList(Math.max(0, all.size() - lines), all.size()).stream().collect(Collectors.joining("\n"));
        }

        Result check() {
            assertEquals(0, status, tail(30));
            return this;
        }
    }

    /** Runs a command to completion (stdout and stderr into {@code log}), killing it past {@code limit}. */
    private static Result run(Duration limit, Path log, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        String command = String.join(" ", cmd);
        if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
            fail(command + " did not finish within " + limit + ":\n" + Files.readString(log));
        }
        return new Result(p.exitValue(), Files.readString(log), command);
    }
}
