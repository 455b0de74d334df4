package io.rdmagate.bench.nfs;

import io.rdmagate.nfs.v3.Nfs3;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One TCP connection of the NFSv3 load generator under RPCSEC_GSS (sec=krb5, krb5i or krb5p):
 * each call is encoded as {@link NfsCalls} encodes it, then given its context's credential,
 * verifier and protection by {@link RpcSecGssClient.Context}. The client's own cost (a copy of
 * each call's arguments and data, the checksums and the encryption) is the same against every
 * server.
 *
 * <p>A server may drop an RPCSEC_GSS call unanswered (RFC 2203 §5.3.3.1: a sequence number it
 * takes for a replay or for one below its window), and a client then sends the call again with
 * a new sequence number, as the Linux client does after its timeout. Here the timeout is
 * {@link #RETRANSMIT_MILLIS}: every call still unanswered then goes again, a reply is checked
 * against each sequence number its call was sent with, and a second reply to a call is ignored.
 * {@link #RETRANSMITTED} counts the calls sent again, which the benchmark reports, and
 * {@link #ANSWERED_LATE} those of them whose first transmission was answered after all (the
 * server was slow, not dropping). {@code -Dbench.gss.trace=true} (through {@code JAVA_TOOL_OPTIONS})
 * prints each call sent again: xid, procedure and sequence numbers.
 */
final class GssLoadConnection implements LoadConnection {
    static final int RETRANSMIT_MILLIS = 2000;
    /** Calls sent again, over every connection since the start. */
    static final AtomicLong RETRANSMITTED = new AtomicLong();
    /** Calls sent again whose reply answered an earlier transmission. */
    static final AtomicLong ANSWERED_LATE = new AtomicLong();

    /** A call not yet answered: what to send again, and the sequence numbers it went with. */
    private record Pending(byte[] call, byte[] data, int count, List<Integer> seqs) {
    }

    private final RecordStream stream;
    private final RpcSecGssClient.Context context;
    private final ByteBuffer call = ByteBuffer.allocate(1024);
    private final ByteBuffer record = ByteBuffer.allocate(RecordStream.MAX_REPLY + 4096);
    private final byte[] scratch = new byte[RecordStream.MAX_REPLY];
    private final Map<Integer, Pending> pending = new HashMap<>();
    private ByteBuffer resendRecord;
    private byte[] resendScratch;
    private int lastLength;

    GssLoadConnection(InetSocketAddress server, RpcSecGssClient client, RpcSecGssClient.Service service)
            throws IOException {
        stream = new RecordStream(server);
        try {
            context = client.establish(stream, Nfs3.PROGRAM, Nfs3.VERSION, service);
            stream.timeout(RETRANSMIT_MILLIS);
        } catch (IOException e) {
            stream.close();
            throw e;
        }
    }

    private void send(byte[] data, int count) throws IOException {
        int xid = call.getInt(0);
        byte[] copy = java.util.Arrays.copyOf(call.array(), call.position());
        Pending p = new Pending(copy, data, count, new ArrayList<>(2));
        synchronized (stream) {
            int seq = context.encode(record, call, data, count, scratch);
            synchronized (pending) {
                p.seqs().add(seq);
                pending.put(xid, p);
            }
            stream.send(record, null, 0);
        }
    }

    /** Sends every unanswered call again, each with a new sequence number. */
    private void retransmit() throws IOException {
        if (resendRecord == null) {
            resendRecord = ByteBuffer.allocate(record.capacity());
            resendScratch = new byte[scratch.length];
        }
        synchronized (stream) {
            List<Pending> all;
            synchronized (pending) {
                all = List.copyOf(pending.values());
            }
            for (Pending p : all) {
                ByteBuffer c = ByteBuffer.wrap(p.call().clone()).position(p.call().length);
                int seq = context.encode(resendRecord, c, p.data(), p.count(), resendScratch);
                synchronized (pending) {
                    p.seqs().add(seq);
                }
                stream.send(resendRecord, null, 0);
                RETRANSMITTED.incrementAndGet();
                if (Boolean.getBoolean("bench.gss.trace")) {
                    System.err.println("sent again: xid " + ByteBuffer.wrap(p.call()).getInt(0) + " procedure "
                            + ByteBuffer.wrap(p.call()).getInt(20) + " seqs " + p.seqs() + " data " + p.count());
                }
            }
            stream.flush();
        }
    }

    @Override
    public void sendGetattr(int xid, byte[] fh) throws IOException {
        NfsCalls.getattr(call, xid, fh);
        send(null, 0);
    }

    @Override
    public void sendRead(int xid, byte[] fh, long offset, int count) throws IOException {
        NfsCalls.read(call, xid, fh, offset, count);
        send(null, 0);
    }

    @Override
    public void sendWrite(int xid, byte[] fh, long offset, byte[] data, int count, int stable) throws IOException {
        NfsCalls.write(call, xid, fh, offset, count, stable);
        send(data, count);
    }

    @Override
    public void sendCommit(int xid, byte[] fh) throws IOException {
        NfsCalls.commit(call, xid, fh);
        send(null, 0);
    }

    @Override
    public void flush() throws IOException {
        synchronized (stream) {
            stream.flush();
        }
    }

    @Override
    public int receive() throws IOException {
        while (true) {
            try {
                lastLength = stream.receive();
            } catch (SocketTimeoutException e) {
                retransmit();
                continue;
            }
            ByteBuffer reply = stream.reply();
            int xid = reply.getInt(0);
            Pending p;
            List<Integer> seqs;
            synchronized (pending) {
                p = pending.get(xid);
                seqs = p == null ? List.of() : List.copyOf(p.seqs());
            }
            if (p == null) {
                continue; // a second reply to a call sent twice
            }
            ByteBuffer results = null;
            IOException failure = null;
            for (int i = 0; i < seqs.size(); i++) { // the reply answers one of the sequence numbers the call went with
                try {
                    results = context.results(reply, lastLength, seqs.get(i));
                    if (i < seqs.size() - 1) {
                        ANSWERED_LATE.incrementAndGet();
                    }
                    break;
                } catch (IOException e) {
                    failure = e;
                }
            }
            if (results == null) {
                throw failure;
            }
            synchronized (pending) {
                pending.remove(xid);
            }
            int status = results.getInt(0);
            if (status != 0) {
                throw new IOException("xid " + xid + ": nfsstat3 " + status);
            }
            return xid;
        }
    }

    @Override
    public int lastLength() {
        return lastLength;
    }

    @Override
    public void close() throws IOException {
        stream.close();
    }
}
