package io.rdmagate.smb.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Command;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The SMB server's meters:
 * <ul>
 * <li>{@code rdmagate_smb_requests_total{command,status}}: responses by command and NTSTATUS name
 * ("STATUS_SUCCESS", "STATUS_ACCESS_DENIED", ...: the statuses {@link NtStatus} names, any other
 * value counted as "other"); an operation answered asynchronously is counted once, with its final
 * status;
 * <li>{@code rdmagate_smb_request_seconds{command}}: a histogram of the time from taking the request
 * to its response being built (the final one for asynchronous operations), buckets {@link io.rdmagate.gateway.spi.RequestLatency#buckets()};
 * <li>{@code rdmagate_smb_bytes_received_total{transport}}, {@code rdmagate_smb_bytes_sent_total{transport}}:
 * bytes of the transport stream (NetBIOS headers, SMB2 messages, payloads);
 * <li>{@code rdmagate_smb_connections{transport}} (open now), {@code rdmagate_smb_connections_accepted_total{transport}},
 * {@code rdmagate_smb_connections_closed_total{transport,reason}}: closed by the server to make room for a new
 * client at the connection bound ({@code reason="evicted"}), for not authenticating in time ({@code "handshake"}) for staying idle with no open file ({@code "idle"}), or for taking none of its responses for smb.sendTimeout ({@code "send"});
 * <li>{@code rdmagate_smb_sessions}: sessions authenticated now (MS-SMB2 3.3.1.5 GlobalSessionTable, state VALID);
 * <li>{@code rdmagate_smb_breaks_sent_total{kind}}: oplock and lease break notifications sent.
 * </ul>
 *
 * <p>Hot path: the command is an array index and the status is found by binary search in a sorted
 * int array; a counter or timer is built and registered the first time its combination is seen,
 * then found by index. Nothing is allocated per request.
 */
public final class SmbMetrics {

    private static final int[] STATUS_VALUES;
    private static final String[] STATUS_NAMES;

    static {
        TreeMap<Integer, String> byValue = new TreeMap<>();
        for (Field f : NtStatus.class.getFields()) {
            if (f.getType() == int.class && Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers())) {
                try {
                    byValue.putIfAbsent(f.getInt(null), "STATUS_" + f.getName());
                } catch (IllegalAccessException e) {
                    throw new ExceptionInInitializerError(e);
                }
            }
        }
        STATUS_VALUES = byValue.keySet().stream().mapToInt(Integer::intValue).toArray();
        STATUS_NAMES = new String[STATUS_VALUES.length + 1];
        int i = 0;
        for (String n : byValue.values()) {
            STATUS_NAMES[i++] = n;
        }
        STATUS_NAMES[i] = "other";
    }

    private static final int COMMANDS = Smb2Command.COUNT + 1; // the last: a command number the server does not know

    private final MeterRegistry registry;
    private final AtomicReferenceArray<Counter> requests = new AtomicReferenceArray<>(COMMANDS * STATUS_NAMES.length);
    private final AtomicReferenceArray<Timer> timers = new AtomicReferenceArray<>(COMMANDS);
    private final io.rdmagate.smb.server.transport.TransportMeters tcp;
    private final io.rdmagate.smb.server.transport.TransportMeters rdma;
    private final Counter oplockBreaks;
    private final Counter leaseBreaks;

    SmbMetrics(MeterRegistry registry, SmbServer server) {
        this.registry = registry;
        tcp = new io.rdmagate.smb.server.transport.TransportMeters(registry, "tcp");
        rdma = new io.rdmagate.smb.server.transport.TransportMeters(registry, "rdma");
        closedBy(registry, server, "evicted", SmbServer::evictedConnections);
        closedBy(registry, server, "handshake", SmbServer::handshakeTimeouts);
        closedBy(registry, server, "idle", SmbServer::idleClosed);
        io.micrometer.core.instrument.FunctionCounter.builder("rdmagate.smb.server.side.copy.bytes", server,
                x -> x.serverSideCopyBytes().sum())
                .description("bytes FSCTL_SRV_COPYCHUNK had the backend copy: payload that never crossed the wire")
                .register(registry);
        closedBy(registry, server, "send", SmbServer::sendTimeouts);
        for (String direction : new String[] {"read", "write"}) {
            io.micrometer.core.instrument.FunctionCounter.builder("rdmagate.smb.rdma.bytes", server, x -> {
                var d = x.smbDirect();
                return d == null ? 0 : (direction.equals("read") ? d.rdmaReadBytes() : d.rdmaWriteBytes()).sum();
            }).description("bytes SMB Direct's RDMA channel moved: read from clients (WRITE data), written to them (READ data)")
                    .tag("direction", direction).register(registry);
        }
        Gauge.builder("rdmagate.smb.sessions", server, SmbServer::validSessions)
                .description("SMB sessions authenticated now").register(registry);
        oplockBreaks = Counter.builder("rdmagate.smb.breaks.sent").description("oplock and lease breaks sent")
                .tag("kind", "oplock").register(registry);
        leaseBreaks = Counter.builder("rdmagate.smb.breaks.sent").description("oplock and lease breaks sent")
                .tag("kind", "lease").register(registry);
    }

    static int statusIndex(int status) {
        int i = Arrays.binarySearch(STATUS_VALUES, status);
        return i >= 0 ? i : STATUS_VALUES.length;
    }

    static String statusName(int status) {
        return STATUS_NAMES[statusIndex(status)];
    }

    /** One response: {@code command} answered {@code status}, the request taken at {@code startNanos}. */
    void request(int command, int status, long startNanos) {
        long nanos = System.nanoTime() - startNanos;
        int c = command >= 0 && command < Smb2Command.COUNT ? command : Smb2Command.COUNT;
        String name = c < Smb2Command.COUNT ? Smb2Command.name(c) : "OTHER";
        Timer t = timers.get(c);
        if (t == null) {
            t = Timer.builder("rdmagate.smb.request").description("time to answer an SMB request").tag("command", name)
                    .serviceLevelObjectives(io.rdmagate.gateway.spi.RequestLatency.buckets()).register(registry);
            timers.set(c, t);
        }
        t.record(nanos, TimeUnit.NANOSECONDS);
        int s = statusIndex(status);
        int i = c * STATUS_NAMES.length + s;
        Counter counter = requests.get(i);
        if (counter == null) {
            counter = Counter.builder("rdmagate.smb.requests").description("SMB responses by command and status")
                    .tag("command", name).tag("status", STATUS_NAMES[s]).register(registry);
            requests.set(i, counter);
        }
        counter.increment();
    }

    /** The meters of transport {@code kind}: "tcp" or "rdma". */
    public io.rdmagate.smb.server.transport.TransportMeters transport(String kind) {
        return "rdma".equals(kind) ? rdma : tcp;
    }

    void oplockBreak() {
        oplockBreaks.increment();
    }

    void leaseBreak() {
        leaseBreaks.increment();
    }

    /** {@code rdmagate_smb_connections_closed_total{transport="tcp",reason}}, read from the server's count. */
    private static void closedBy(MeterRegistry registry, SmbServer server, String reason,
            java.util.function.ToDoubleFunction<SmbServer> count) {
        io.micrometer.core.instrument.FunctionCounter.builder("rdmagate.smb.connections.closed", server, count)
                .description("SMB connections the server closed").tag("transport", "tcp").tag("reason", reason)
                .register(registry);
    }
}
