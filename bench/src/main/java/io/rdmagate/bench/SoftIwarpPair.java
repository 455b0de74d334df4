package io.rdmagate.bench;

import io.rdmagate.rdma.Access;
import io.rdmagate.rdma.ConnectionEvents;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.ProtectionDomain;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaListener;
import io.rdmagate.rdma.RecvWr;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.WcStatus;
import io.rdmagate.rdma.WorkCompletion;
import io.rdmagate.rdma.softiwarp.SoftIwarpDevice;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Two soft-iWARP endpoints over loopback TCP, as a client and a server would be: the client
 * writes into and reads from a region the server registered, and sends to the server's receives.
 */
final class SoftIwarpPair implements AutoCloseable {
    static final int DEPTH = 16;
    private final Arena arena = Arena.ofShared();
    private final SoftIwarpDevice serverDev = new SoftIwarpDevice("bench-s", SoftIwarpDevice.Options.DEFAULT);
    private final SoftIwarpDevice clientDev = new SoftIwarpDevice("bench-c", SoftIwarpDevice.Options.DEFAULT);
    private final ProtectionDomain spd = serverDev.allocateProtectionDomain();
    private final ProtectionDomain cpd = clientDev.allocateProtectionDomain();
    final BlockingQueue<WorkCompletion> clientSends = new ArrayBlockingQueue<>(4096);
    final BlockingQueue<WorkCompletion> clientRecvs = new ArrayBlockingQueue<>(4096);
    final BlockingQueue<WorkCompletion> serverRecvs = new ArrayBlockingQueue<>(4096);
    final BlockingQueue<WorkCompletion> serverSends = new ArrayBlockingQueue<>(4096);
    final MemoryRegion remote;
    final MemoryRegion local;
    final MemoryRegion serverSmall;
    final MemoryRegion clientSmall;
    final QueuePair client;
    final QueuePair server;
    private final RdmaListener listener;

    SoftIwarpPair(int regionBytes) throws Exception {
        remote = spd.register(arena.allocate(regionBytes, 4096), EnumSet.allOf(Access.class));
        local = cpd.register(arena.allocate(regionBytes, 4096), EnumSet.of(Access.LOCAL_WRITE));
        serverSmall = spd.register(arena.allocate(4096, 64), EnumSet.of(Access.LOCAL_WRITE));
        clientSmall = cpd.register(arena.allocate(4096, 64), EnumSet.of(Access.LOCAL_WRITE));
        CompletableFuture<QueuePair> accepted = new CompletableFuture<>();
        QpConfig sc = new QpConfig(spd, serverDev.createCompletionQueue(4096, serverSends::add),
                serverDev.createCompletionQueue(4096, serverRecvs::add), 256, 256, 4, DEPTH, DEPTH, ConnectionEvents.NONE);
        listener = serverDev.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), req -> {
            try {
                accepted.complete(req.accept(sc, new byte[0], qp -> {
                    for (int i = 0; i < 64; i++) {
                        qp.postReceive(RecvWr.of(i, serverSmall.sge(0, 64)));
                    }
                }));
            } catch (Exception e) {
                accepted.completeExceptionally(e);
            }
        });
        QpConfig cc = new QpConfig(cpd, clientDev.createCompletionQueue(4096, clientSends::add),
                clientDev.createCompletionQueue(4096, clientRecvs::add), 256, 256, 4, DEPTH, DEPTH, ConnectionEvents.NONE);
        client = clientDev.connect(listener.localAddress(), cc, new byte[0], qp -> {
            for (int i = 0; i < 64; i++) {
                qp.postReceive(RecvWr.of(i, clientSmall.sge(0, 64)));
            }
        }).get(10, TimeUnit.SECONDS);
        server = accepted.get(10, TimeUnit.SECONDS);
    }

    /** RDMA Writes (or Reads) of {@code messageBytes}, {@link #DEPTH} in flight, then a fencing Send. */
    Measurement transfer(boolean write, int messageBytes, long totalBytes) throws Exception {
        String name = (write ? "RDMA Write " : "RDMA Read ") + BenchMain.size(messageBytes);
        long regionSlots = remote.length() / messageBytes;
        return Measurement.of(name, totalBytes, () -> {
            long posted = 0;
            long done = 0;
            long count = totalBytes / messageBytes;
            while (done < count) {
                while (posted < count && posted - done < DEPTH) {
                    long off = (posted % regionSlots) * messageBytes;
                    client.postSend(write
                            ? SendWr.write(posted, remote.address() + off, remote.rkey(), local.sge(off, messageBytes))
                            : SendWr.read(posted, remote.address() + off, remote.rkey(), local.sge(off, messageBytes)));
                    posted++;
                }
                expect(clientSends.poll(30, TimeUnit.SECONDS));
                done++;
            }
            if (write) {
                fence();
            }
        });
    }

    /** A Send after Writes is delivered once they are placed (RFC 5040 §5.5). */
    void fence() throws Exception {
        client.postSend(SendWr.send(-1, clientSmall.sge(0, 8)));
        expect(clientSends.poll(30, TimeUnit.SECONDS));
        WorkCompletion r = serverRecvs.poll(30, TimeUnit.SECONDS);
        expect(r);
        server.postReceive(RecvWr.of(r.wrId(), serverSmall.sge(0, 64)));
    }

    /** Round trips of a small Send each way; returns nanoseconds per round trip, sorted. */
    long[] pingPong(int iterations) throws Exception {
        long[] rtt = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            long t0 = System.nanoTime();
            client.postSend(SendWr.send(i, clientSmall.sge(0, 32)));
            WorkCompletion atServer = serverRecvs.poll(30, TimeUnit.SECONDS);
            expect(atServer);
            server.postReceive(RecvWr.of(atServer.wrId(), serverSmall.sge(0, 64)));
            server.postSend(SendWr.send(i, serverSmall.sge(0, 32)));
            WorkCompletion atClient = clientRecvs.poll(30, TimeUnit.SECONDS);
            expect(atClient);
            rtt[i] = System.nanoTime() - t0;
            client.postReceive(RecvWr.of(atClient.wrId(), clientSmall.sge(0, 64)));
            expect(clientSends.poll(30, TimeUnit.SECONDS));
            expect(serverSends.poll(30, TimeUnit.SECONDS));
        }
        java.util.Arrays.sort(rtt);
        return rtt;
    }

    private static void expect(WorkCompletion wc) {
        if (wc == null || wc.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("work request failed: " + wc);
        }
    }

    @Override
    public void close() {
        client.disconnect();
        server.disconnect();
        listener.close();
        spd.close();
        cpd.close();
        arena.close();
    }
}
