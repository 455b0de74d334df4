package io.rdmagate.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * CPU profiles of the gateway, one per figure: {@code --profile DIR} on any harness that runs
 * rdmagate as a child process attaches async-profiler (from Maven Central's
 * {@code tools.profiler:async-profiler}, bundled with the harness) to that process through
 * {@code jcmd JVMTI.agent_load} when a figure's measurement starts and stops it when the
 * measurement ends, so a profile holds that figure's calls and nothing of the warm-up, the other
 * figures or the load generator. Each profile is written twice in DIR: collapsed stacks (one line
 * per stack and its sample count, for {@code grep}/{@code awk} and for diffing two runs) and an
 * HTML flame graph. Names say harness, server, transport and round: {@code nfs-rdma-rdmagate-RDMA-r3-4-KiB-random-read.collapsed}.
 *
 * <p>Only Java servers are profiled (ganesha, smbd and knfsd are not Java); the figures of a
 * profiled run carry the profiler's cost (a sample every {@link #INTERVAL_MICROS} µs of CPU), so
 * they are for finding where the time goes, not for the tables.
 */
public final class Profiles {
    /** CPU sampling interval. */
    static final int INTERVAL_MICROS = 1000;
    private static final String LIBRARY = "linux-x64/libasyncProfiler.so";
    private static Path dir;
    private static Path library;
    private static String context = "";
    private static String harness = "";

    private Profiles() {
    }

    /** Removes {@code --profile DIR} from the arguments and remembers DIR. */
    static String[] takeProfileOption(String[] args) throws IOException {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        int at = rest.indexOf("--profile");
        if (at >= 0) {
            if (at + 1 >= rest.size()) {
                throw new IllegalArgumentException("--profile needs a directory");
            }
            dir = Files.createDirectories(Path.of(rest.get(at + 1)));
            rest.remove(at + 1);
            rest.remove(at);
        }
        return rest.toArray(String[]::new);
    }

    static void begin(String name) {
        harness = name;
    }

    /** What the following figures run over, for the profiles' names ({@code "RDMA-r2"}). */
    public static void context(String c) {
        context = c;
    }

    /** A running profile; closing it writes the files. */
    public interface Session extends AutoCloseable {
        @Override
        void close() throws IOException, InterruptedException;
    }

    private static final Session NONE = () -> { };

    /**
     * Starts profiling {@code process} for the figure named {@code figure}; a no-op session when
     * no {@code --profile} was given or the process is not a JVM.
     */
    public static Session start(Process process, String server, String figure) throws IOException, InterruptedException {
        if (dir == null || !isJvm(process)) {
            return NONE;
        }
        String name = slug(String.join("-", harness, server, context, figure));
        long pid = process.pid();
        jcmd(pid, "start,event=cpu,interval=" + INTERVAL_MICROS + "us");
        return () -> {
            Path html = dir.resolve(name + ".html");
            Path collapsed = dir.resolve(name + ".collapsed");
            jcmd(pid, "dump,file=" + html);
            jcmd(pid, "stop,collapsed,file=" + collapsed);
            System.out.printf(Locale.ROOT, "profile of %s: %d samples, %s (and .html)%n", figure, samples(collapsed),
                    collapsed);
        };
    }

    private static boolean isJvm(Process process) {
        return process.info().command().map(c -> c.endsWith("/java")).orElse(false);
    }

    private static long samples(Path collapsed) throws IOException {
        long n = 0;
        for (String line : Files.readAllLines(collapsed, StandardCharsets.UTF_8)) {
            int sp = line.lastIndexOf(' ');
            if (sp > 0) {
                n += Long.parseLong(line.substring(sp + 1).strip());
            }
        }
        return n;
    }

    static String slug(String s) {
        return s.replaceAll("[^A-Za-z0-9.]+", "-").replaceAll("^-|-$", "");
    }

    /** Sends one async-profiler command to {@code pid} (the library is loaded on the first). */
    private static void jcmd(long pid, String command) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        // quoted: jcmd's argument parser would take the first '=' for a key=value of its own
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "JVMTI.agent_load", library().toString(),
                '"' + command + '"')
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || !out.contains("return code: 0")) {
            throw new IOException("jcmd " + pid + " JVMTI.agent_load ... " + command + ": " + out.strip());
        }
    }

    /** async-profiler's library, copied out of the harness's class path once. */
    private static synchronized Path library() throws IOException {
        if (library == null) {
            try (InputStream in = Profiles.class.getClassLoader().getResourceAsStream(LIBRARY)) {
                if (in == null) {
                    throw new IOException(LIBRARY + " is not on the class path (tools.profiler:async-profiler:linux-x64)");
                }
                Path lib = Files.createTempFile(dir, "libasyncProfiler", ".so");
                Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
                lib.toFile().deleteOnExit();
                library = lib;
            }
        }
        return library;
    }
}
