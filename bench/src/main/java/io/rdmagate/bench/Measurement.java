package io.rdmagate.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/** Wall time and process CPU time over a run that moved a number of bytes. */
record Measurement(String name, long bytes, long wallNanos, long cpuNanos) {
    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    static long cpuNow() {
        return OS.getProcessCpuTime();
    }

    double megabytesPerSecond() {
        return bytes / (wallNanos / 1e9) / 1e6;
    }

    double cpuSecondsPerGib() {
        return (cpuNanos / 1e9) / (bytes / (double) (1L << 30));
    }

    /** Measures {@code body}, which moves {@code bytes}. */
    static Measurement of(String name, long bytes, ThrowingRunnable body) throws Exception {
        long cpu0 = cpuNow();
        long t0 = System.nanoTime();
        body.run();
        long wall = System.nanoTime() - t0;
        return new Measurement(name, bytes, wall, cpuNow() - cpu0);
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
