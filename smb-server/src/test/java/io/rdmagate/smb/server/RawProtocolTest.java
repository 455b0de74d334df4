package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Header;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hand-made messages on a socket: framing limits, the SMB1 upgrade, malformed requests. */
class RawProtocolTest {
    @TempDir
    static Path tmp;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(Files.createDirectories(tmp.resolve("export")), Files.createDirectories(tmp.resolve("state")),
                false, false);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static final class Client implements AutoCloseable {
        final Socket s;
        final DataInputStream in;
        final OutputStream out;

        Client() throws IOException {
            s = new Socket(InetAddress.getLoopbackAddress(), server.port());
            s.setSoTimeout(10_000);
            in = new DataInputStream(s.getInputStream());
            out = s.getOutputStream();
        }

        void send(ByteBuffer msg) throws IOException {
            int n = msg.limit();
            out.write(new byte[] {0, (byte) (n >> 16), (byte) (n >> 8), (byte) n});
            out.write(msg.array(), 0, n);
            out.flush();
        }

        /** The next message, or null when the server closed the connection. */
        ByteBuffer receive() throws IOException {
            try {
                int h = in.readInt();
                byte[] b = new byte[h & 0xffffff];
                in.readFully(b);
                return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            } catch (EOFException | SocketException e) {
                return null;
            }
        }

        @Override
        public void close() throws IOException {
            s.close();
        }
    }

    static ByteBuffer negotiate(int... dialects) {
        ByteBuffer m = ByteBuffer.allocate(64 + 36 + 2 * dialects.length).order(ByteOrder.LITTLE_ENDIAN);
        Smb2Header.writeRequest(m, Smb2Command.NEGOTIATE, 0, 1, 0, 0, 0, 0);
        m.putShort(64, (short) 36).putShort(66, (short) dialects.length).putShort(68, (short) 1);
        for (int i = 0; i < dialects.length; i++) {
            m.putShort(100 + 2 * i, (short) dialects[i]);
        }
        return m;
    }

    /** {@code m} with MessageId {@code mid}: each request takes the next one (MS-SMB2 3.3.5.2.3). */
    static ByteBuffer withMid(ByteBuffer m, long mid) {
        m.putLong(24, mid);
        return m;
    }

    static ByteBuffer simple(int command, long mid, long session) {
        ByteBuffer m = ByteBuffer.allocate(68).order(ByteOrder.LITTLE_ENDIAN);
        Smb2Header.writeRequest(m, command, 1, 1, 0, mid, 0, session);
        m.putShort(64, (short) 4);
        return m;
    }

    @Test
    void smb1NegotiateIsAnsweredWithTheSmb2Wildcard() throws Exception {
        byte[] dialects = "\2NT LM 0.12\0\2SMB 2.002\0\2SMB 2.???\0".getBytes(StandardCharsets.US_ASCII);
        ByteBuffer m = ByteBuffer.allocate(35 + dialects.length).order(ByteOrder.LITTLE_ENDIAN);
        m.putInt(0, 0x424D53FF).put(4, (byte) 0x72).put(32, (byte) 0).putShort(33, (short) dialects.length).put(35, dialects);
        try (Client c = new Client()) {
            c.send(m);
            ByteBuffer r = c.receive();
            assertEquals(Smb2Header.PROTOCOL_ID, r.getInt(0));
            assertEquals(Smb2Command.NEGOTIATE, Smb2Header.command(r));
            assertEquals(Smb2Dialect.SMB_2_WILDCARD, r.getShort(64 + 4) & 0xffff);
            c.send(withMid(negotiate(Smb2Dialect.SMB_2_1, Smb2Dialect.SMB_3_0), 1)); // the SMB1 NEGOTIATE took 0
            r = c.receive();
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(r));
            assertEquals(Smb2Dialect.SMB_3_0, r.getShort(64 + 4) & 0xffff);
        }
    }

    @Test
    void malformedNegotiateIsInvalidAndTheConnectionSurvives() throws Exception {
        try (Client c = new Client()) {
            c.send(negotiate());
            ByteBuffer r = c.receive();
            assertEquals(NtStatus.INVALID_PARAMETER, Smb2Header.status(r));
            c.send(withMid(negotiate(Smb2Dialect.SMB_2_0_2), 1));
            r = c.receive();
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(r));
            assertEquals(Smb2Dialect.SMB_2_0_2, r.getShort(64 + 4) & 0xffff);
            // a tree connect without a session
            c.send(simple(Smb2Command.TREE_DISCONNECT, 2, 12345));
            assertEquals(NtStatus.USER_SESSION_DELETED, Smb2Header.status(c.receive()));
            c.send(simple(Smb2Command.ECHO, 3, 0));
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(c.receive()));
            // a second NEGOTIATE ends the connection (MS-SMB2 3.3.5.3.1)
            c.send(withMid(negotiate(Smb2Dialect.SMB_2_0_2), 4));
            assertNull(c.receive());
        }
    }

    @Test
    void requestsBeforeNegotiateCloseTheConnection() throws Exception {
        try (Client c = new Client()) {
            c.send(simple(Smb2Command.ECHO, 0, 0));
            assertNull(c.receive());
        }
    }

    @Test
    void oversizedFramesAreRefusedOnTheirLength() throws Exception {
        try (Client c = new Client()) {
            c.out.write(new byte[] {0, (byte) 0xff, (byte) 0xff, (byte) 0xff});
            c.out.flush();
            assertNull(c.receive());
        }
    }

    @Test
    void brokenCompoundLinksCloseTheConnection() throws Exception {
        try (Client c = new Client()) {
            c.send(negotiate(Smb2Dialect.SMB_2_1));
            c.receive();
            ByteBuffer m = simple(Smb2Command.ECHO, 1, 0);
            Smb2Header.setNextCommand(m, 60);
            c.send(m);
            assertNull(c.receive());
        }
    }
}
