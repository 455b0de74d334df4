package io.rdmagate.rdma.rping;

import io.rdmagate.rdma.Access;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.RdmaException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * The client side of rping (rping -c -V): per ping, fill the start buffer with rping's pattern,
 * advertise it, then advertise the rdma buffer, and after the server's second answer compare the
 * two. Interoperates with Linux {@code rping -s} over siw.
 */
public final class RpingClient extends RpingEndpoint {
    private final MemoryRegion startBuf;

    public RpingClient(RdmaDevice device, int size) throws RdmaException {
        super(device, size);
        this.startBuf = pd.register(arena.allocate(size, 64), EnumSet.allOf(Access.class));
    }

    /** Connects, runs {@code count} verified pings, disconnects; returns the pings that matched. */
    public int run(InetSocketAddress server, int count) throws Exception {
        qp = device.connect(server, config(), new byte[0], this::postReceive).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        int start = 65;
        for (int ping = 0; ping < count; ping++) {
            fill(startBuf.segment(), ping, start);
            start = start == 122 ? 65 : start + 1;
            send(new RpingInfo(startBuf.address(), startBuf.rkey(), size));
            receive();
            send(new RpingInfo(rdmaBuf.address(), rdmaBuf.rkey(), size));
            receive();
            if (MemorySegment.mismatch(startBuf.segment(), 0, size, rdmaBuf.segment(), 0, size) != -1) {
                throw new IOException("ping " + ping + ": data mismatch");
            }
        }
        qp.disconnect();
        return count;
    }

    /** rping's pattern: "rdma-ping-N: " then ascending letters from {@code start}, wrapping 'z' to 'A', NUL last. */
    static void fill(MemorySegment buf, int ping, int start) {
        byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        int size = (int) buf.byteSize();
        MemorySegment.copy(head, 0, buf, ValueLayout.JAVA_BYTE, 0, Math.min(head.length, size));
        int c = start;
        for (int i = head.length; i < size; i++) {
            buf.set(ValueLayout.JAVA_BYTE, i, (byte) c);
            c = c == 122 ? 65 : c + 1;
        }
        buf.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
    }
}
