package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Header;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the Linux cifs client sends: related compounds CREATE + SET_INFO + CLOSE for path
 * operations (rmdir, ln, rename), and several 1 MiB multi-credit READs in flight.
 */
class RelatedCompoundTest {
    static final int DELETE = 0x00010000;
    static final int READ_ATTRIBUTES = 0x80;
    static final int GENERIC_READ = 0x80000000;
    static final int FILE_OPEN = 1;
    static final int DIRECTORY_FILE = 0x1;
    static final int NON_DIRECTORY_FILE = 0x40;
    static final int DELETE_ON_CLOSE = 0x1000;
    static final int FILE_DISPOSITION = 13;
    static final int FILE_LINK = 11;
    static final long COMPOUND = -1L;

    @TempDir
    static Path tmp;
    static TestServer server;
    static Path export;

    @BeforeAll
    static void start() throws Exception {
        export = Files.createDirectories(tmp.resolve("export"));
        server = new TestServer(export, Files.createDirectories(tmp.resolve("state")), false, false);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** cifs rmdir: CREATE (DELETE) + SET_INFO FileDispositionInformation + CLOSE, related. */
    static List<ByteBuffer> rmdir(RawSession s, String name) throws Exception {
        s.sendRelated(s.create(name, DELETE | READ_ATTRIBUTES, FILE_OPEN, DIRECTORY_FILE),
                s.setInfo(COMPOUND, COMPOUND, FILE_DISPOSITION, new byte[] {1}),
                s.close(COMPOUND, COMPOUND));
        return s.receiveCompound();
    }

    /** cifs unlink: CREATE (DELETE, FILE_DELETE_ON_CLOSE) + CLOSE, related. */
    static List<ByteBuffer> unlink(RawSession s, String name) throws Exception {
        s.sendRelated(s.create(name, DELETE | READ_ATTRIBUTES, FILE_OPEN, NON_DIRECTORY_FILE | DELETE_ON_CLOSE),
                s.close(COMPOUND, COMPOUND));
        return s.receiveCompound();
    }

    @Test
    void aFailedSetInfoDoesNotFailTheCloseAfterIt() throws Exception {
        Files.createDirectories(export.resolve("c1"));
        Files.writeString(export.resolve("c1/keep"), "x");
        try (RawSession s = new RawSession(server.port(), "data")) {
            // rmdir of a non-empty directory: the SET_INFO fails, the CLOSE still closes
            List<ByteBuffer> r = rmdir(s, "c1");
            assertEquals(3, r.size());
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(r.get(0)));
            assertEquals(NtStatus.DIRECTORY_NOT_EMPTY, Smb2Header.status(r.get(1)));
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(r.get(2)));
            // so nothing keeps the directory once it is empty (rm -rf)
            r = unlink(s, "c1\\keep");
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(r.get(1)));
            r = rmdir(s, "c1");
            for (ByteBuffer m : r) {
                assertEquals(NtStatus.SUCCESS, Smb2Header.status(m));
            }
            assertFalse(Files.exists(export.resolve("c1")));
        }
    }

    @Test
    void aFailedLinkDoesNotKeepTheFileOpen() throws Exception {
        Files.createDirectories(export.resolve("c2"));
        Files.writeString(export.resolve("c2/target"), "t");
        Files.writeString(export.resolve("c2/other"), "o");
        byte[] name = "c2\\other".getBytes(java.nio.charset.StandardCharsets.UTF_16LE);
        // MS-FSCC 2.4.27.2: ReplaceIfExists 0, RootDirectory 0, FileNameLength, FileName
        ByteBuffer link = ByteBuffer.allocate(20 + name.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        link.putInt(16, name.length).put(20, name);
        try (RawSession s = new RawSession(server.port(), "data")) {
            s.sendRelated(s.create("c2\\target", READ_ATTRIBUTES, FILE_OPEN, 0),
                    s.setInfo(COMPOUND, COMPOUND, FILE_LINK, link.array()),
                    s.close(COMPOUND, COMPOUND));
            List<ByteBuffer> r = s.receiveCompound();
            assertEquals(NtStatus.OBJECT_NAME_COLLISION, Smb2Header.status(r.get(1)));
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(r.get(2)));
            unlink(s, "c2\\target");
            unlink(s, "c2\\other");
            r = rmdir(s, "c2");
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(r.get(1)));
            assertFalse(Files.exists(export.resolve("c2")));
        }
    }

    @Test
    void aFailedCreateFailsTheRestOfTheChainWithItsStatus() throws Exception {
        try (RawSession s = new RawSession(server.port(), "data")) {
            List<ByteBuffer> r = rmdir(s, "no-such-dir");
            assertEquals(3, r.size());
            for (ByteBuffer m : r) {
                assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, Smb2Header.status(m)); // MS-SMB2 3.3.5.2.7.2
            }
            assertEquals(0, server.server.opens().size());
        }
    }

    @Test
    void severalMultiCreditReadsInFlightAllArriveWithTheirData() throws Exception {
        int mib = 1 << 20;
        byte[] data = new byte[8 * mib + 12345];
        new Random(7).nextBytes(data);
        Files.write(export.resolve("big"), data);
        try (RawSession s = new RawSession(server.port(), "data")) {
            ByteBuffer c = s.request(s.create("big", GENERIC_READ, FILE_OPEN, 0));
            RawSession.expect(c, NtStatus.SUCCESS);
            long[] id = RawSession.fileId(c);
            // nine 1 MiB READs (CreditCharge 16) sent back to back, the last one past the end of file
            long[] mids = new long[9];
            for (int i = 0; i < mids.length; i++) {
                mids[i] = s.nextMid;
                s.send(s.read(id[0], id[1], (long) i * mib, mib));
            }
            int granted = 0;
            boolean[] seen = new boolean[mids.length];
            for (int n = 0; n < mids.length; n++) {
                ByteBuffer r = s.receive();
                int i = java.util.Arrays.binarySearch(mids, Smb2Header.messageId(r));
                assertTrue(i >= 0 && !seen[i], "unexpected MessageId " + Smb2Header.messageId(r));
                seen[i] = true;
                RawSession.expect(r, NtStatus.SUCCESS);
                assertEquals(16, r.getShort(6)); // MS-SMB2 3.3.4.1: CreditCharge echoed
                granted += Smb2Header.creditRequest(r);
                int off = r.get(64 + 2) & 0xff;
                int len = r.getInt(64 + 4);
                int want = Math.min(mib, data.length - i * mib);
                assertEquals(80, off);
                assertEquals(want, len);
                assertEquals(off + len, r.limit());
                byte[] got = new byte[len];
                r.get(off, got);
                assertArrayEquals(java.util.Arrays.copyOfRange(data, i * mib, i * mib + want), got, "READ " + i);
            }
            // MS-SMB2 3.3.1.2: the charges come back as credits, so the client can go on at this rate
            assertTrue(granted >= 16 * mids.length, "granted " + granted);
            ByteBuffer r = s.request(s.read(id[0], id[1], data.length, mib));
            RawSession.expect(r, NtStatus.END_OF_FILE);
            RawSession.expect(s.request(s.close(id[0], id[1])), NtStatus.SUCCESS);
        }
    }
}
