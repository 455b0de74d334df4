package io.rdmagate.bench;

/**
 * One measured figure of one server in one round.
 *
 * @param value            MB/s for throughput figures, operations per second for rates
 * @param serverCpuSeconds CPU time the server's process used meanwhile
 * @param work             GiB moved (throughput) or operations done (rates)
 */
public record Figure(double value, double serverCpuSeconds, double work) {
    /** Server CPU per unit of work: s/GiB for throughput, s per call for rates. */
    public double cpuPerUnit() {
        return serverCpuSeconds / work;
    }

    /** Whether {@code name} is a throughput figure (MB/s) rather than a rate. */
    public static boolean isThroughput(String name) {
        return name.contains("MB/s");
    }
}
