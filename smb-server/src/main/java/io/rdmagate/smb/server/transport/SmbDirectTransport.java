package io.rdmagate.smb.server.transport;

import io.rdmagate.smbdirect.SmbDirectConnection;
import io.rdmagate.smbdirect.SmbDirectUpper;
import io.rdmagate.smbdirect.message.BufferDescriptor;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * SMB Direct (MS-SMBD) under the request processor: each SMB2 message the connection reassembles
 * goes to the {@link Receiver}, each message sent goes out in Data Transfer Messages, and the RDMA
 * channel moves READ and WRITE data with RDMA Writes and Reads (MS-SMB2 3.3.5.12, 3.3.5.13).
 */
public final class SmbDirectTransport implements SmbTransport, RdmaChannel, SmbDirectUpper {
    private final SmbDirectConnection conn;
    private final TransportMeters meters;
    private final Receiver receiver;

    /** {@code receivers} builds the request processor of this transport. */
    public SmbDirectTransport(SmbDirectConnection conn, TransportMeters meters, Function<SmbTransport, Receiver> receivers) {
        this.conn = conn;
        this.meters = meters;
        this.receiver = receivers.apply(this);
    }

    @Override
    public String kind() {
        return "rdma";
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return conn.remoteAddress();
    }

    @Override
    public InetSocketAddress localAddress() {
        return conn.localAddress();
    }

    @Override
    public boolean isOpen() {
        return conn.isOpen();
    }

    @Override
    public void send(List<ByteBuffer> parts, IoMemory payload, long payloadInParts) {
        send(parts, payload, payloadInParts, -1);
    }

    @Override
    public void send(List<ByteBuffer> parts, IoMemory payload, long payloadInParts, long invalidateToken) {
        long n = payload == null ? 0 : payload.length();
        for (ByteBuffer p : parts) {
            n += p.remaining();
        }
        meters.sent(n);
        conn.send(parts, payload, invalidateToken);
    }

    @Override
    public void pauseReceiving(boolean pause) {
        conn.pauseReceiving(pause);
    }

    @Override
    public void disconnect() {
        conn.disconnect();
    }

    @Override
    public RdmaChannel rdma() {
        return this;
    }

    @Override
    public int maxReadWriteSize(int configured) {
        return configured;
    }

    // ---- RdmaChannel

    @Override
    public int maxDescriptors() {
        return conn.maxDescriptors();
    }

    @Override
    public void write(List<BufferDescriptor> into, IoMemory data) {
        conn.rdmaWrite(into, data);
    }

    @Override
    public CompletableFuture<IoMemory> read(List<BufferDescriptor> from, int length, IoMemoryPool.Account account) {
        return conn.rdmaRead(from, length, account);
    }

    // ---- SmbDirectUpper

    @Override
    public void opened(SmbDirectConnection c) {
        meters.opened();
        receiver.opened();
    }

    @Override
    public void received(ByteBuffer message, Runnable release) {
        meters.received(message.remaining());
        receiver.received(message, release);
    }

    @Override
    public void closed() {
        receiver.closed();
        meters.closed();
    }
}
