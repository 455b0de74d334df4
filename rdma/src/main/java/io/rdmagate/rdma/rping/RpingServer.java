package io.rdmagate.rdma.rping;

import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RdmaListener;
import io.rdmagate.rdma.SendWr;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The server side of rping (rping -s): per ping, RDMA-Read the client's start buffer, answer, then
 * RDMA-Write the data back into the client's rdma buffer and answer again, until the client
 * disconnects. Interoperates with Linux {@code rping -c} over siw.
 */
public final class RpingServer extends RpingEndpoint {
    private final RdmaListener listener;
    private final CompletableFuture<QueuePair> accepted = new CompletableFuture<>();

    public RpingServer(RdmaDevice device, InetSocketAddress address, int size) throws RdmaException {
        super(device, size);
        this.listener = device.listen(address, req -> {
            try {
                accepted.complete(req.accept(config(), new byte[0], this::postReceive));
            } catch (RdmaException e) {
                accepted.completeExceptionally(e);
            }
        });
    }

    public InetSocketAddress address() {
        return listener.localAddress();
    }

    /** Serves one client that connects within {@link #WAIT}; returns the pings served. */
    public int serveOne() throws Exception {
        return serveOne(WAIT);
    }

    /**
     * Serves one client that connects within {@code acceptWait}; returns the pings served. A server
     * that gives up (a message it does not expect, a completion that never comes) disconnects, so
     * the client sees the end instead of waiting for a reply.
     */
    public int serveOne(Duration acceptWait) throws Exception {
        qp = accepted.get(acceptWait.toMillis(), TimeUnit.MILLISECONDS);
        try {
            return serve();
        } catch (Exception e) {
            qp.disconnect();
            throw e;
        }
    }

    private int serve() throws Exception {
        int pings = 0;
        while (true) {
            RpingInfo source;
            try {
                source = receive();
            } catch (IOException e) {
                if (qp.state() != QueuePair.State.CONNECTED) {
                    return pings; // the client disconnected
                }
                throw e;
            }
            if (source.size() <= 0 || source.size() > size) {
                throw new IOException("client advertised " + source.size() + " bytes, this server's buffer is " + size);
            }
            rdma(SendWr.read(2, source.address(), source.rkey(), rdmaBuf.sge(0, source.size())));
            send(new RpingInfo(0, 0, 0));
            RpingInfo sink = receive();
            int len = Math.min(strlenPlusOne(source.size()), sink.size());
            rdma(SendWr.write(3, sink.address(), sink.rkey(), rdmaBuf.sge(0, len)));
            send(new RpingInfo(0, 0, 0));
            pings++;
        }
    }

    /** rping writes back the string it read, with its NUL. */
    private int strlenPlusOne(int limit) {
        for (int i = 0; i < limit; i++) {
            if (rdmaBuf.segment().get(ValueLayout.JAVA_BYTE, i) == 0) {
                return i + 1;
            }
        }
        return limit;
    }

    @Override
    public void close() {
        listener.close();
        super.close();
    }
}
