package io.rdmagate.bench.nfs;

import io.rdmagate.nfs.v4.Nfs4;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One TCP connection of the load generator speaking NFSv4.1 (RFC 8881): a client and a session of
 * its own with one slot per call in flight. Each call is one COMPOUND: SEQUENCE on a free slot,
 * PUTFH, then READ or WRITE (the anonymous stateid, as the NFSv3 figures have no open either),
 * GETATTR of what {@code stat} asks, or COMMIT. The same {@link RecordStream} as NFSv3, so the
 * client's own cost differs only by the COMPOUND's few words.
 */
final class Nfs4LoadConnection implements LoadConnection {
    private static final AtomicLong OWNERS = new AtomicLong();
    /** OPEN4_SHARE_ACCESS_WANT_NO_DELEG (RFC 8881 §18.16.3): the client has no back channel to take a recall on. */
    private static final int WANT_NO_DELEG = 0x0400;
    private static final int OPEN_DELEGATE_NONE_EXT = 3;
    private static final byte[] ANONYMOUS = new byte[16];
    /** What stat(2) asks: type, change, size, fsid, fileid; mode, numlinks, owner, group, space used, times. */
    private static final int[] STAT = {(1 << 1) | (1 << 3) | (1 << 4) | (1 << 8) | (1 << 20),
        (1 << (33 - 32)) | (1 << (35 - 32)) | (1 << (36 - 32)) | (1 << (37 - 32)) | (1 << (45 - 32))
            | (1 << (47 - 32)) | (1 << (52 - 32)) | (1 << (53 - 32))};

    private final RecordStream stream;
    private final ByteBuffer call = ByteBuffer.allocate(2048);
    private final long clientId;
    private final byte[] session;
    private final int[] slotSeq;
    private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();
    private final Map<Integer, Integer> slotOfXid = new HashMap<>();
    private int lastLength;
    private int xid = (int) (System.nanoTime() & 0x3fffffff) | 0x40000000;

    /** Connects and opens a session of {@code depth} slots. */
    Nfs4LoadConnection(InetSocketAddress server, int depth) throws IOException {
        stream = new RecordStream(server);
        slotSeq = new int[depth];
        for (int s = 0; s < depth; s++) {
            freeSlots.add(s);
        }
        byte[] owner = ("rdmagate-bench-" + ProcessHandle.current().pid() + "-" + OWNERS.incrementAndGet())
                .getBytes(StandardCharsets.US_ASCII);
        compound(++xid, 1);
        call.putInt(Nfs4.OP_EXCHANGE_ID).putLong(System.nanoTime());
        opaque(owner);
        call.putInt(0).putInt(Nfs4.SP4_NONE).putInt(0);
        ByteBuffer r = roundTrip(Nfs4.OP_EXCHANGE_ID);
        clientId = r.getLong();
        int sequence = r.getInt();
        compound(++xid, 1);
        call.putInt(Nfs4.OP_CREATE_SESSION).putLong(clientId).putInt(sequence).putInt(0);
        channel(depth);
        channel(1);
        call.putInt(0x40000000).putInt(1).putInt(Nfs4.AUTH_NONE);
        r = roundTrip(Nfs4.OP_CREATE_SESSION);
        session = new byte[16];
        r.get(session);
        int slot = takeSlot();
        sequence(++xid, 2, slot);
        call.putInt(Nfs4.OP_RECLAIM_COMPLETE).putInt(0);
        roundTrip(Nfs4.OP_SEQUENCE);
        releaseSlot(slot);
    }

    private void channel(int slots) {
        call.putInt(0).putInt((1 << 20) + 8192).putInt((1 << 20) + 8192).putInt(4096).putInt(8).putInt(slots).putInt(0);
    }

    private void compound(int x, int ops) {
        NfsCalls.header(call, x, Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND);
        call.putInt(0).putInt(Nfs4.MINOR_VERSION).putInt(ops);
    }

    private void opaque(byte[] b) {
        call.putInt(b.length).put(b).put(new byte[NfsCalls.pad(b.length) - b.length]);
    }

    private void sequence(int x, int ops, int slot) {
        compound(x, ops);
        call.putInt(Nfs4.OP_SEQUENCE).put(session).putInt(++slotSeq[slot]).putInt(slot).putInt(slotSeq.length - 1)
                .putInt(0);
    }

    private synchronized int takeSlot() throws IOException {
        Integer s = freeSlots.poll();
        if (s == null) {
            throw new IOException("more calls in flight than the session's " + slotSeq.length + " slots");
        }
        return s;
    }

    private synchronized void releaseSlot(int slot) {
        freeSlots.add(slot);
    }

    /** SEQUENCE on a free slot and PUTFH: the start of every load call; returns the slot. */
    private int begin(int x, byte[] fh, int ops) throws IOException {
        int slot = takeSlot();
        synchronized (this) {
            slotOfXid.put(x, slot);
        }
        sequence(x, ops, slot);
        call.putInt(Nfs4.OP_PUTFH);
        NfsCalls.handle(call, fh);
        return slot;
    }

    private void begin(int x, byte[] fh) throws IOException {
        begin(x, fh, 3);
    }

    /**
     * OPEN of the file for reading (CLAIM_FH) and CLOSE of that open (the current stateid), by an
     * open-owner of the slot's own, so no two calls in flight share an open.
     */
    @Override
    public void sendOpenClose(int x, byte[] fh) throws IOException {
        int slot = begin(x, fh, 4);
        call.putInt(Nfs4.OP_OPEN).putInt(0).putInt(Nfs4.OPEN4_SHARE_ACCESS_READ | WANT_NO_DELEG).putInt(0).putLong(clientId)
                .putInt(4).putInt(slot).putInt(Nfs4.OPEN4_NOCREATE).putInt(Nfs4.CLAIM_FH);
        call.putInt(Nfs4.OP_CLOSE).putInt(0).putInt(1).put(new byte[12]);
        stream.send(call, null, 0);
    }

    @Override
    public void sendGetattr(int x, byte[] fh) throws IOException {
        begin(x, fh);
        call.putInt(Nfs4.OP_GETATTR).putInt(STAT.length).putInt(STAT[0]).putInt(STAT[1]);
        stream.send(call, null, 0);
    }

    @Override
    public void sendRead(int x, byte[] fh, long offset, int count) throws IOException {
        begin(x, fh);
        call.putInt(Nfs4.OP_READ).put(ANONYMOUS).putLong(offset).putInt(count);
        stream.send(call, null, 0);
    }

    @Override
    public void sendWrite(int x, byte[] fh, long offset, byte[] data, int count, int stable) throws IOException {
        begin(x, fh);
        call.putInt(Nfs4.OP_WRITE).put(ANONYMOUS).putLong(offset).putInt(stable).putInt(count);
        stream.send(call, data, count);
    }

    @Override
    public void sendCommit(int x, byte[] fh) throws IOException {
        begin(x, fh);
        call.putInt(Nfs4.OP_COMMIT).putLong(0).putInt(0);
        stream.send(call, null, 0);
    }

    @Override
    public void flush() throws IOException {
        stream.flush();
    }

    @Override
    public int receive() throws IOException {
        lastLength = stream.receive();
        ByteBuffer r = stream.reply();
        int x = r.getInt(0);
        Integer slot;
        synchronized (this) {
            slot = slotOfXid.remove(x);
        }
        if (slot == null) {
            throw new IOException("reply to xid " + x + ", which is not in flight");
        }
        releaseSlot(slot);
        status(r, lastLength);
        return x;
    }

    @Override
    public int lastLength() {
        return lastLength;
    }

    /** Checks a COMPOUND reply: accepted, NFS4_OK; returns where its results start (after tag and count). */
    private static int status(ByteBuffer r, int length) throws IOException {
        int at = NfsCalls.results(r, length);
        int status = r.getInt(at);
        if (status != Nfs4.NFS4_OK) {
            throw new IOException("xid " + r.getInt(0) + ": COMPOUND status " + status);
        }
        return at + 4 + 4 + NfsCalls.pad(r.getInt(at + 4)) + 4;
    }

    /** Sends the built COMPOUND, waits for its reply, checks it, and returns it positioned at the first resok (of {@code op}). */
    private ByteBuffer roundTrip(int op) throws IOException {
        stream.send(call, null, 0);
        stream.flush();
        int len = stream.receive();
        ByteBuffer r = stream.reply();
        int at = status(r, len);
        if (r.getInt(at) != op || r.getInt(at + 4) != Nfs4.NFS4_OK) {
            throw new IOException("operation " + r.getInt(at) + " status " + r.getInt(at + 4));
        }
        return r.duplicate().position(at + 8);
    }

    /**
     * Creates (or opens) file {@code name} in directory {@code path} of the pseudo-filesystem and closes
     * it; returns its filehandle.
     */
    byte[] create(String path, String name) throws IOException {
        int slot = takeSlot();
        try {
            String[] parts = path.replaceAll("^/+", "").split("/");
            sequence(++xid, 6 + parts.length, slot);
            call.putInt(Nfs4.OP_PUTROOTFH);
            for (String p : parts) {
                call.putInt(Nfs4.OP_LOOKUP);
                opaque(p.getBytes(StandardCharsets.UTF_8));
            }
            call.putInt(Nfs4.OP_OPEN).putInt(0).putInt(Nfs4.OPEN4_SHARE_ACCESS_BOTH | WANT_NO_DELEG).putInt(0)
                    .putLong(clientId);
            opaque("bench".getBytes(StandardCharsets.US_ASCII));
            call.putInt(Nfs4.OPEN4_CREATE).putInt(0); // UNCHECKED4
            call.putInt(2).putInt(0).putInt(1 << (33 - 32)).putInt(4).putInt(0644); // mode
            call.putInt(Nfs4.CLAIM_NULL);
            opaque(name.getBytes(StandardCharsets.UTF_8));
            call.putInt(Nfs4.OP_GETFH);
            call.putInt(Nfs4.OP_CLOSE).putInt(0).putInt(1).put(new byte[12]); // the current stateid: the OPEN's
            call.putInt(Nfs4.OP_GETATTR).putInt(1).putInt(1 << 4); // size
            ByteBuffer r = roundTrip(Nfs4.OP_SEQUENCE);
            r.position(r.position() + 36); // SEQUENCE4resok
            skipOp(r, Nfs4.OP_PUTROOTFH);
            for (int i = 0; i < parts.length; i++) {
                skipOp(r, Nfs4.OP_LOOKUP);
            }
            skipOp(r, Nfs4.OP_OPEN);
            r.position(r.position() + 16 + 20 + 4); // stateid, change_info4, rflags
            int attrset = r.getInt();
            r.position(r.position() + 4 * attrset);
            int delegation = r.getInt();
            if (delegation == OPEN_DELEGATE_NONE_EXT) {
                int why = r.getInt();
                if (why == 1 || why == 2) { // WND4_CONTENTION, WND4_RESOURCE: a bool follows
                    r.getInt();
                }
            } else if (delegation != Nfs4.OPEN_DELEGATE_NONE) {
                throw new IOException("OPEN returned delegation type " + delegation + " though none was wanted");
            }
            skipOp(r, Nfs4.OP_GETFH);
            byte[] fh = new byte[r.getInt()];
            r.get(fh);
            return fh;
        } finally {
            releaseSlot(slot);
        }
    }

    /** Reads {@code count} bytes at {@code offset} of {@code fh} (for checking what was written). */
    byte[] read(byte[] fh, long offset, int count) throws IOException {
        int x = ++xid;
        sendRead(x, fh, offset, count);
        flush();
        receive();
        ByteBuffer r = stream.reply().duplicate();
        int at = status(r, lastLength);
        r.position(at + 8 + 36 + 8 + 8 + 4); // SEQUENCE, PUTFH, READ's op and status, eof
        byte[] data = new byte[r.getInt()];
        r.get(data);
        return data;
    }

    private static void skipOp(ByteBuffer r, int op) throws IOException {
        int got = r.getInt();
        int status = r.getInt();
        if (got != op || status != Nfs4.NFS4_OK) {
            throw new IOException("operation " + got + " status " + status + ", expected " + op);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            compound(++xid, 1);
            call.putInt(Nfs4.OP_DESTROY_SESSION).put(session);
            roundTrip(Nfs4.OP_DESTROY_SESSION);
            compound(++xid, 1);
            call.putInt(Nfs4.OP_DESTROY_CLIENTID).putLong(clientId);
            roundTrip(Nfs4.OP_DESTROY_CLIENTID);
        } finally {
            stream.close();
        }
    }
}
