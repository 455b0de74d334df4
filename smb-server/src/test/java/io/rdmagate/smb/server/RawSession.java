package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msnlmp.NtlmCrypto;
import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Header;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A hand-made SMB 2.1 client on a socket for what smbj cannot send: related compounds and
 * several multi-credit requests in flight. Logs on with NTLMv2 (unsigned: the test server does
 * not require signing) and connects one tree. Messages are built with explicit offsets
 * (MS-SMB2 2.2.x); every helper returns the full request message.
 */
final class RawSession implements AutoCloseable {
    final Socket socket;
    final DataInputStream in;
    final OutputStream out;
    long sessionId;
    int treeId;
    long nextMid;

    RawSession(int port, String share) throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(30_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        send(RawProtocolTest.negotiate(Smb2Dialect.SMB_2_1));
        expect(receive(), NtStatus.SUCCESS);
        nextMid = 1;
        logon();
        ByteBuffer r = request(treeConnect("\\\\127.0.0.1\\" + share));
        expect(r, NtStatus.SUCCESS);
        treeId = r.getInt(36);
    }

    static void expect(ByteBuffer r, int status) {
        if (Smb2Header.status(r) != status) {
            throw new AssertionError("status 0x" + Integer.toHexString(Smb2Header.status(r)) + ", expected 0x"
                    + Integer.toHexString(status) + " for " + Smb2Command.name(Smb2Header.command(r)));
        }
    }

    private void logon() throws IOException {
        // MS-NLMP 2.2.1.1 NEGOTIATE_MESSAGE: UNICODE | REQUEST_TARGET | NTLM | EXTENDED_SESSIONSECURITY
        ByteBuffer neg = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        neg.put("NTLMSSP\0".getBytes(StandardCharsets.US_ASCII)).putInt(1).putInt(0x00080205);
        ByteBuffer r = request(sessionSetup(neg.array()));
        expect(r, NtStatus.MORE_PROCESSING_REQUIRED);
        sessionId = r.getLong(40);
        int off = r.getShort(64 + 4) & 0xffff;
        int len = r.getShort(64 + 6) & 0xffff;
        ByteBuffer ch = r.slice(off, len).order(ByteOrder.LITTLE_ENDIAN);
        byte[] serverChallenge = new byte[8];
        ch.get(24, serverChallenge);
        byte[] info = new byte[ch.getShort(40) & 0xffff];
        ch.get(ch.getInt(44), info);
        // MS-NLMP 3.3.2: temp = 1, 1, Z(6), time, client challenge, Z(4), AV pairs, Z(4)
        ByteBuffer temp = ByteBuffer.allocate(28 + info.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        temp.put((byte) 1).put((byte) 1).putShort((short) 0).putInt(0)
                .putLong((System.currentTimeMillis() + 11644473600000L) * 10000).putLong(0x1122334455667788L).putInt(0)
                .put(info).putInt(0);
        byte[] key = NtlmCrypto.ntowfV2(TestServer.ntHash(TestServer.PASSWORD), TestServer.USER, "WORKGROUP");
        byte[] proof = NtlmCrypto.ntProofStr(key, serverChallenge, temp.array());
        byte[] nt = new byte[16 + temp.capacity()];
        System.arraycopy(proof, 0, nt, 0, 16);
        System.arraycopy(temp.array(), 0, nt, 16, temp.capacity());
        byte[] domain = "WORKGROUP".getBytes(StandardCharsets.UTF_16LE);
        byte[] user = TestServer.USER.getBytes(StandardCharsets.UTF_16LE);
        // MS-NLMP 2.2.1.3 AUTHENTICATE_MESSAGE, 64 bytes of fields, then the payload
        ByteBuffer a = ByteBuffer.allocate(64 + nt.length + domain.length + user.length).order(ByteOrder.LITTLE_ENDIAN);
        a.put("NTLMSSP\0".getBytes(StandardCharsets.US_ASCII)).putInt(3);
        int at = 64;
        at = field(a, 12, at, new byte[0]);
        at = field(a, 20, at, nt);
        at = field(a, 28, at, domain);
        at = field(a, 36, at, user);
        at = field(a, 44, at, new byte[0]);
        field(a, 52, at, new byte[0]);
        a.putInt(60, 0x00080205);
        r = request(sessionSetup(a.array()));
        expect(r, NtStatus.SUCCESS);
    }

    private static int field(ByteBuffer m, int at, int payloadAt, byte[] v) {
        m.putShort(at, (short) v.length).putShort(at + 2, (short) v.length).putInt(at + 4, payloadAt);
        m.put(payloadAt, v);
        return payloadAt + v.length;
    }

    private ByteBuffer header(int size, int command, int charge) {
        ByteBuffer m = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        Smb2Header.writeRequest(m, command, charge, 64, 0, nextMid, treeId, sessionId);
        nextMid += Math.max(charge, 1);
        return m;
    }

    // MS-SMB2 2.2.5
    ByteBuffer sessionSetup(byte[] token) {
        ByteBuffer m = header(64 + 24 + token.length, Smb2Command.SESSION_SETUP, 1);
        m.putShort(64, (short) 25).putShort(64 + 12, (short) 88).putShort(64 + 14, (short) token.length).put(88, token);
        return m;
    }

    // MS-SMB2 2.2.9
    ByteBuffer treeConnect(String path) {
        byte[] p = path.getBytes(StandardCharsets.UTF_16LE);
        ByteBuffer m = header(64 + 8 + p.length, Smb2Command.TREE_CONNECT, 1);
        m.putShort(64, (short) 9).putShort(64 + 4, (short) 72).putShort(64 + 6, (short) p.length).put(72, p);
        return m;
    }

    // MS-SMB2 2.2.13
    ByteBuffer create(String name, int access, int disposition, int options) {
        byte[] n = name.getBytes(StandardCharsets.UTF_16LE);
        ByteBuffer m = header(64 + 56 + Math.max(n.length, 1), Smb2Command.CREATE, 1);
        int b = 64;
        m.putShort(b, (short) 57).putInt(b + 4, 2).putInt(b + 24, access).putInt(b + 28, 0).putInt(b + 32, 7)
                .putInt(b + 36, disposition).putInt(b + 40, options).putShort(b + 44, (short) 120)
                .putShort(b + 46, (short) n.length).put(120, n);
        return m;
    }

    /** As {@link #create}, with one create context (MS-SMB2 2.2.13.2) named {@code context} carrying {@code data}. */
    ByteBuffer create(String name, int access, int disposition, int options, String context, byte[] data) {
        byte[] n = name.getBytes(StandardCharsets.UTF_16LE);
        int at = (120 + Math.max(n.length, 1) + 7) & ~7;
        ByteBuffer m = header(at + 24 + data.length, Smb2Command.CREATE, 1);
        int b = 64;
        m.putShort(b, (short) 57).putInt(b + 4, 2).putInt(b + 24, access).putInt(b + 28, 0).putInt(b + 32, 7)
                .putInt(b + 36, disposition).putInt(b + 40, options).putShort(b + 44, (short) 120)
                .putShort(b + 46, (short) n.length).putInt(b + 48, at).putInt(b + 52, 24 + data.length).put(120, n);
        m.putInt(at, 0).putShort(at + 4, (short) 16).putShort(at + 6, (short) 4).putShort(at + 10, (short) 24)
                .putInt(at + 12, data.length).put(at + 16, context.getBytes(StandardCharsets.US_ASCII)).put(at + 24, data);
        return m;
    }

    // MS-SMB2 2.2.37
    ByteBuffer queryInfo(long persistent, long volatileId, int infoType, int infoClass, int outputLength, int flags,
            byte[] input) {
        ByteBuffer m = header(64 + 40 + Math.max(input.length, 1), Smb2Command.QUERY_INFO, 1);
        int b = 64;
        m.putShort(b, (short) 41).put(b + 2, (byte) infoType).put(b + 3, (byte) infoClass).putInt(b + 4, outputLength)
                .putShort(b + 8, (short) (input.length == 0 ? 0 : 104)).putInt(b + 12, input.length).putInt(b + 20, flags)
                .putLong(b + 24, persistent).putLong(b + 32, volatileId).put(104, input);
        return m;
    }

    // MS-SMB2 2.2.39
    ByteBuffer setInfo(long persistent, long volatileId, int infoClass, byte[] buffer) {
        ByteBuffer m = header(64 + 32 + buffer.length, Smb2Command.SET_INFO, 1);
        int b = 64;
        m.putShort(b, (short) 33).put(b + 2, (byte) 1).put(b + 3, (byte) infoClass).putInt(b + 4, buffer.length)
                .putShort(b + 8, (short) 96).putLong(b + 16, persistent).putLong(b + 24, volatileId).put(96, buffer);
        return m;
    }

    // MS-SMB2 2.2.15
    ByteBuffer close(long persistent, long volatileId) {
        ByteBuffer m = header(64 + 24, Smb2Command.CLOSE, 1);
        m.putShort(64, (short) 24).putLong(64 + 8, persistent).putLong(64 + 16, volatileId);
        return m;
    }

    // MS-SMB2 2.2.19: CreditCharge as 3.2.4.1.5 asks, one credit per 64 KiB
    ByteBuffer read(long persistent, long volatileId, long offset, int length) {
        ByteBuffer m = header(64 + 49, Smb2Command.READ, (length + 65535) / 65536);
        int b = 64;
        m.putShort(b, (short) 49).put(b + 2, (byte) 80).putInt(b + 4, length).putLong(b + 8, offset)
                .putLong(b + 16, persistent).putLong(b + 24, volatileId);
        return m;
    }

    /** FileId of a CREATE response (MS-SMB2 2.2.14): persistent at body + 64, volatile at + 72. */
    static long[] fileId(ByteBuffer createResponse) {
        return new long[] {createResponse.getLong(64 + 64), createResponse.getLong(64 + 72)};
    }

    /** Sends the messages as one related compound (MS-SMB2 3.2.4.1.4), each 8-byte aligned. */
    void sendRelated(ByteBuffer... msgs) throws IOException {
        int total = 0;
        for (int i = 0; i < msgs.length; i++) {
            total += i == msgs.length - 1 ? msgs[i].capacity() : (msgs[i].capacity() + 7) & ~7;
        }
        ByteBuffer all = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < msgs.length; i++) {
            ByteBuffer m = msgs[i];
            boolean last = i == msgs.length - 1;
            int len = last ? m.capacity() : (m.capacity() + 7) & ~7;
            if (!last) {
                Smb2Header.setNextCommand(m, len);
            }
            if (i > 0) {
                Smb2Header.setFlags(m, Smb2Header.FLAGS_RELATED_OPERATIONS);
            }
            all.put(all.position(), m.array(), 0, m.capacity());
            all.position(all.position() + len);
        }
        all.flip();
        send(all);
    }

    /** The responses of one compound, split at NextCommand. */
    List<ByteBuffer> receiveCompound() throws IOException {
        ByteBuffer f = receive();
        List<ByteBuffer> out = new ArrayList<>();
        int at = 0;
        while (true) {
            int next = f.getInt(at + 20);
            int end = next == 0 ? f.limit() : at + next;
            out.add(f.slice(at, end - at).order(ByteOrder.LITTLE_ENDIAN));
            if (next == 0) {
                return out;
            }
            at = end;
        }
    }

    ByteBuffer request(ByteBuffer m) throws IOException {
        send(m);
        return receive();
    }

    void send(ByteBuffer msg) throws IOException {
        int n = msg.limit();
        byte[] frame = new byte[4 + n];
        frame[1] = (byte) (n >> 16);
        frame[2] = (byte) (n >> 8);
        frame[3] = (byte) n;
        System.arraycopy(msg.array(), 0, frame, 4, n);
        out.write(frame);
        out.flush();
    }

    ByteBuffer receive() throws IOException {
        int h = in.readInt();
        byte[] b = new byte[h & 0xffffff];
        in.readFully(b);
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
