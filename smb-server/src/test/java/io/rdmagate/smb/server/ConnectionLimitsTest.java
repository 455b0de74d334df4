package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Create;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a flood of connections can take from an SMB server: connections that never authenticate
 * are closed at the handshake deadline (silent ones and ones that trickle a byte at a time), and at
 * the connection bound a new client closes the quietest connection instead of being locked out;
 * an authenticated connection with no open file that stays silent past smb.idleTimeout is closed.
 */
class ConnectionLimitsTest {
    @TempDir
    Path tmp;

    private TestServer server(int maxConnections, Duration handshake) throws Exception {
        return TestServer.limited(Files.createDirectories(tmp.resolve("export")), Files.createDirectories(tmp.resolve("state")),
                maxConnections, handshake);
    }

    /** Reads until the server closes the connection; true if it did within the socket's timeout. */
    private static boolean closedByServer(Socket s) throws IOException {
        s.setSoTimeout(20_000);
        InputStream in = s.getInputStream();
        try {
            return in.read() == -1;
        } catch (java.net.SocketException reset) {
            return true;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        }
    }

    @Test
    void connectionsThatNeverAuthenticateAreClosedAtTheDeadlineAndAuthenticatedOnesStay() throws Exception {
        try (TestServer t = server(64, Duration.ofSeconds(1))) {
            RawSmbClient user = new RawSmbClient(t.port()).logon();
            try (user; Socket silent = new Socket(InetAddress.getLoopbackAddress(), t.port());
                    Socket trickle = new Socket(InetAddress.getLoopbackAddress(), t.port())) {
                trickle.getOutputStream().write(0); // the first byte of a NetBIOS header, and never the rest
                assertTrue(closedByServer(silent), "a silent connection is closed");
                assertTrue(closedByServer(trickle), "a connection that never completes a frame is closed");
                assertTrue(t.server.handshakeTimeouts() >= 2);
                // the authenticated client connected before both and is past the deadline too, and served
                RawSmbClient.Created c = user.create("still-served.txt", Smb2Create.OPLOCK_LEVEL_NONE,
                        RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, Smb2Create.FILE_OPEN_IF);
                assertEquals(NtStatus.SUCCESS, c.status());
            }
        }
    }

    /**
     * Before a session is authenticated a message may be at most smb.maxHandshakeMessageSize (128 KiB):
     * a header announcing a WRITE-sized frame closes the connection at once, with nothing buffered,
     * long before the handshake deadline; after logon a 1 MiB WRITE goes through.
     */
    @Test
    void aLargeFrameBeforeLogonClosesTheConnectionAndAfterLogonIsServed() throws Exception {
        try (TestServer t = server(64, Duration.ofMinutes(5));
                Socket anonymous = new Socket(InetAddress.getLoopbackAddress(), t.port())) {
            int length = 1 << 20;
            anonymous.getOutputStream().write(new byte[] {0, (byte) (length >> 16), (byte) (length >> 8), (byte) length});
            assertTrue(closedByServer(anonymous), "a 1 MiB frame before any session is refused");
            assertEquals(0, t.server.handshakeTimeouts(), "by its size, not by the handshake deadline");
            try (RawSmbClient user = new RawSmbClient(t.port()).logon()) {
                RawSmbClient.Created c = user.create("large-after-logon.bin", Smb2Create.OPLOCK_LEVEL_NONE,
                        RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, Smb2Create.FILE_OPEN_IF);
                assertEquals(NtStatus.SUCCESS, c.status());
                assertEquals(NtStatus.SUCCESS, user.write(c.fileId(), 0, new byte[length]));
                assertEquals(length, Files.size(tmp.resolve("export").resolve("large-after-logon.bin")));
            }
        }
    }

    private static void eventually(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < end, "timed out waiting until " + what);
            Thread.sleep(20);
        }
    }

    @Test
    void anIdleConnectionIsClosedOnceItHasNoOpenFile() throws Exception {
        try (TestServer t = TestServer.limited(Files.createDirectories(tmp.resolve("export")),
                Files.createDirectories(tmp.resolve("state")), 64, Duration.ofSeconds(30), Duration.ofSeconds(1))) {
            RawSmbClient idle = new RawSmbClient(t.port()).logon();
            RawSmbClient holding = new RawSmbClient(t.port()).logon();
            try (idle; holding) {
                RawSmbClient.Created open = holding.create("held-open.txt", Smb2Create.OPLOCK_LEVEL_NONE,
                        RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, Smb2Create.FILE_OPEN_IF);
                assertEquals(NtStatus.SUCCESS, open.status());
                eventually(() -> t.server.idleClosed() == 1, "the connection with nothing open is closed");
                eventually(() -> t.server.openConnections() == 2 - 1, "the idle one's channel is closed");
                assertEquals(NtStatus.SUCCESS, holding.close(open.fileId()), "the one holding a file stays, and is served");
                eventually(() -> t.server.idleClosed() == 2, "once its file is closed, it goes too when idle");
            }
        }
    }

    /**
     * A client that sends READs and takes none of the responses: once its receive window and the
     * server's socket buffer are full, the responses (and the pool memory of their data) would wait
     * forever, and a connection with an open file is never idle. At the send deadline (limits.sendTimeout)
     * the connection is closed and the memory released; another client is served throughout.
     */
    @Test
    void aClientThatTakesNoneOfItsResponsesIsClosedAtTheSendTimeout() throws Exception {
        Path export = Files.createDirectories(tmp.resolve("export"));
        byte[] content = new byte[1 << 20];
        new java.util.Random(3).nextBytes(content);
        Files.write(export.resolve("big.bin"), content);
        try (TestServer t = TestServer.limited(export, Files.createDirectories(tmp.resolve("state")), 64,
                Duration.ofSeconds(30), Duration.ZERO, Duration.ofSeconds(1))) {
            RawSmbClient stalled = new RawSmbClient(t.port()).logon();
            RawSmbClient fine = new RawSmbClient(t.port()).logon();
            try (stalled; fine) {
                RawSmbClient.Created big = stalled.create("big.bin", Smb2Create.OPLOCK_LEVEL_NONE, RawSmbClient.READ_WRITE,
                        RawSmbClient.SHARE_ALL, Smb2Create.FILE_OPEN);
                assertEquals(NtStatus.SUCCESS, big.status());
                for (int i = 0; i < 16; i++) {
                    assertTrue(!stalled.closedByServer(20_000), "ECHOs gather credits for the READs");
                }
                stalled.stopReading();
                for (int i = 0; i < 200; i++) {
                    stalled.sendRead(big.fileId(), (i % 16) * 65536L, 65536);
                }
                eventually(() -> t.server.sendTimeouts() == 1, "the stalled connection is closed at the send deadline");
                eventually(() -> t.pool.leasedBytes() == 0, "what its responses held is released");
                assertEquals(NtStatus.SUCCESS, fine.create("served.txt", Smb2Create.OPLOCK_LEVEL_NONE,
                        RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, Smb2Create.FILE_OPEN_IF).status(),
                        "a client that reads stays served");
            }
        }
    }

    /** A compound of {@code count} ECHOs of {@code client}'s session, MessageIds from {@code firstMid}. */
    private static byte[] echoCompound(RawSmbClient client, int count, long firstMid) {
        int one = 72; // 64-byte header + 4-byte ECHO, padded to 8
        java.nio.ByteBuffer chain = java.nio.ByteBuffer.allocate(count * one).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            java.nio.ByteBuffer m = chain.slice(i * one, one).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            io.rdmagate.smb.mssmb2.Smb2Header.writeRequest(m, io.rdmagate.smb.mssmb2.Smb2Command.ECHO, 1, 1, 0,
                    firstMid + i, 0, client.sessionId());
            m.putShort(64, (short) 4);
            if (i < count - 1) {
                io.rdmagate.smb.mssmb2.Smb2Header.setNextCommand(m, one);
            }
        }
        return chain.array();
    }

    /**
     * A compound of 1,000 ECHOs (MS-SMB2 3.3.5.2.7 sets no bound; the server's is 64 commands)
     * ends its connection, while one of 64 is served, and the server goes on serving others.
     */
    @Test
    void aThousandCommandCompoundClosesItsConnectionAndOthersAreServed() throws Exception {
        try (TestServer t = server(64, Duration.ofSeconds(30))) {
            RawSmbClient user = new RawSmbClient(t.port()).logon();
            RawSmbClient abuser = new RawSmbClient(t.port()).logon();
            try (user; abuser) {
                for (int i = 0; i < 4; i++) {
                    abuser.call(io.rdmagate.smb.mssmb2.Smb2Command.ECHO, RawSmbClient.echo()); // credits for 64 requests at once
                }
                abuser.sendFrame(echoCompound(abuser, 64, abuser.takeMessageIds(64)));
                assertTrue(!abuser.closedByServer(20_000), "a compound of 64 is served");
                abuser.sendFrame(echoCompound(abuser, 1000, abuser.takeMessageIds(1000)));
                assertTrue(abuser.endsWithin(20_000), "the connection of the 1,000-command compound is closed");
                assertEquals(NtStatus.SUCCESS, user.create("after-the-compound.txt", Smb2Create.OPLOCK_LEVEL_NONE,
                        RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, Smb2Create.FILE_OPEN_IF).status());
                assertTrue(!user.closedByServer(20_000), "the other client's connection stays");
            }
        }
    }

    @Test
    void aFloodOfIdleConnectionsDoesNotLockAClientOut() throws Exception {
        try (TestServer t = server(8, Duration.ofSeconds(60))) {
            List<Socket> flood = new ArrayList<>();
            try {
                for (int i = 0; i < 32; i++) {
                    flood.add(new Socket(InetAddress.getLoopbackAddress(), t.port()));
                }
                try (RawSmbClient c = new RawSmbClient(t.port()).logon()) {
                    RawSmbClient.Created made = c.create("after-the-flood.txt", Smb2Create.OPLOCK_LEVEL_NONE,
                            RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, Smb2Create.FILE_OPEN_IF);
                    assertEquals(NtStatus.SUCCESS, made.status());
                }
                assertTrue(t.server.evictedConnections() >= 24, "the quietest made room: " + t.server.evictedConnections());
                assertTrue(t.server.openConnections() <= 9, "open: " + t.server.openConnections());
            } finally {
                for (Socket s : flood) {
                    s.close();
                }
            }
        }
    }
}
