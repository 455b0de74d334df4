package io.rdmagate.nfs;

import static io.rdmagate.nfs.v4.Nfs4.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.Nfs4TestClient.Reply;
import io.rdmagate.nfs.v4.Nfs4Server;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.inmemory.InMemoryFileSystem;
import io.rdmagate.vfs.lock.ByteRangeLock;
import io.rdmagate.vfs.lock.LockConflictException;
import io.rdmagate.vfs.lock.LockOwner;
import io.rdmagate.vfs.lock.LockSemantics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * NFSv4.0 (RFC 7530) as a client without sessions speaks it: SETCLIENTID and its confirmation, opens
 * ordered by their owner's seqid and confirmed by OPEN_CONFIRM, retransmissions answered from the
 * owner's last reply, locks by lock-owners, RENEW, on the same state as NFSv4.1's clients.
 */
class Nfs40Test {
    private final InMemoryFileSystem data = InMemoryFileSystem.create(21, ExportOptions.DEFAULT);
    private NfsFixture fx;
    private Nfs4TestClient c;

    @BeforeEach
    void start() throws Exception {
        fx = new NfsFixture(List.of(NfsFixture.export(0, "data", data, NfsFixture.rule("127.0.0.0/8", Access.RW, false, false))),
                h -> null, new SimpleMeterRegistry(), Nfs4Server.Options.DEFAULT);
        c = Nfs4TestClient.connect(fx.nfs(), NfsFixture.ROOT);
        c.minor = MINOR_VERSION_0;
    }

    @AfterEach
    void stop() {
        c.close();
        fx.close();
    }

    // ---- what a client sends

    /** SETCLIENTID of {@code id} with {@code verifier}: its result decoder after the status. */
    private static Reply setClientId(Nfs4TestClient client, String id, long verifier) throws IOException {
        return client.compoundWithoutSession().op(OP_SETCLIENTID, e -> {
            e.writeHyper(verifier);
            e.writeOpaque(id.getBytes(StandardCharsets.UTF_8));
            e.writeInt(0x40000000); // cb_program
            e.writeString("tcp");
            e.writeString("127.0.0.1.3.1");
            e.writeInt(1); // callback_ident
        }).send();
    }

    /** SETCLIENTID and SETCLIENTID_CONFIRM, as a mount starts: the clientid. */
    private static long confirmedClient(Nfs4TestClient client, String id, long verifier) throws IOException {
        XdrDecoder d = setClientId(client, id, verifier).next(OP_SETCLIENTID, NFS4_OK);
        long clientId = Nfs4TestClient.read(d::readHyper);
        byte[] confirm = Nfs4TestClient.read(() -> d.readFixedOpaque(8));
        assertEquals(NFS4_OK, confirm(client, clientId, confirm).status);
        return clientId;
    }

    private static Reply confirm(Nfs4TestClient client, long clientId, byte[] confirm) throws IOException {
        return client.compoundWithoutSession().op(OP_SETCLIENTID_CONFIRM, e -> e.writeHyper(clientId).writeFixedOpaque(confirm))
                .send();
    }

    private static Reply renew(Nfs4TestClient client, long clientId) throws IOException {
        return client.compoundWithoutSession().op(OP_RENEW, e -> e.writeHyper(clientId)).send();
    }

    /** PUTROOTFH, LOOKUP data, OPEN (creating) {@code name} by {@code owner} with {@code seqid}, GETFH. */
    private Nfs4TestClient.Compound open(long clientId, String owner, int seqid, String name, int access) {
        return open(clientId, owner, seqid, name, access, true);
    }

    private Nfs4TestClient.Compound open(long clientId, String owner, int seqid, String name, int access,
            boolean create) {
        return c.compoundWithoutSession().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_OPEN, e -> {
                    e.writeInt(seqid).writeInt(access).writeInt(OPEN4_SHARE_DENY_NONE);
                    e.writeHyper(clientId).writeOpaque(owner.getBytes(StandardCharsets.UTF_8));
                    if (create) {
                        e.writeInt(OPEN4_CREATE).writeInt(0); // UNCHECKED4
                        e.writeInt(0).writeOpaque(new byte[0]); // no attributes
                    } else {
                        e.writeInt(OPEN4_NOCREATE);
                    }
                    e.writeInt(CLAIM_NULL);
                    Nfs4TestClient.name(e, name);
                }).op(OP_GETFH);
    }

    /** What an OPEN answered: its stateid, its rflags, the file's handle. */
    private record Opened(int seqid, byte[] other, int flags, byte[] fh) {
    }

    private static Opened opened(Reply r) throws IOException {
        r.next(OP_PUTROOTFH, NFS4_OK);
        r.next(OP_LOOKUP, NFS4_OK);
        XdrDecoder o = r.next(OP_OPEN, NFS4_OK);
        int seqid = Nfs4TestClient.read(o::readInt);
        byte[] other = Nfs4TestClient.read(() -> o.readFixedOpaque(12));
        Nfs4TestClient.skip(o, 4 + 8 + 8); // cinfo
        int flags = Nfs4TestClient.read(o::readInt);
        Nfs4TestClient.skip(o, 4 * Nfs4TestClient.read(o::readInt)); // attrset
        assertEquals(OPEN_DELEGATE_NONE, (int) Nfs4TestClient.read(o::readInt), "no delegation without callbacks");
        XdrDecoder g = r.next(OP_GETFH, NFS4_OK);
        return new Opened(seqid, other, flags, Nfs4TestClient.read(() -> g.readOpaque(NFS4_FHSIZE)));
    }

    private static XdrEncoder stateid(XdrEncoder e, int seqid, byte[] other) {
        return e.writeInt(seqid).writeFixedOpaque(other);
    }

    private Reply onFile(byte[] fh, int op, java.util.function.Consumer<XdrEncoder> args) throws IOException {
        Reply r = c.compoundWithoutSession().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(op, args).send();
        r.next(OP_PUTFH, NFS4_OK);
        return r;
    }

    /** OPEN_CONFIRM: the open's next stateid's seqid. */
    private int openConfirm(Opened o, int ownerSeqid) throws IOException {
        XdrDecoder d = onFile(o.fh(), OP_OPEN_CONFIRM, e -> stateid(e, o.seqid(), o.other()).writeInt(ownerSeqid))
                .next(OP_OPEN_CONFIRM, NFS4_OK);
        int seqid = Nfs4TestClient.read(d::readInt);
        assertArrayEquals(o.other(), Nfs4TestClient.read(() -> d.readFixedOpaque(12)));
        return seqid;
    }

    private Reply close(byte[] fh, int ownerSeqid, int seqid, byte[] other) throws IOException {
        return onFile(fh, OP_CLOSE, e -> stateid(e.writeInt(ownerSeqid), seqid, other));
    }

    // ---- tests

    @Test
    void aClientConfirmedBySetclientidOpensConfirmsWritesReadsLocksAndCloses() throws Exception {
        long clientId = confirmedClient(c, "linux-v40", 1);
        Opened o = opened(open(clientId, "open-owner", 0, "f40", OPEN4_SHARE_ACCESS_BOTH).send());
        assertTrue((o.flags() & OPEN4_RESULT_CONFIRM) != 0, "a new open-owner confirms its first open");
        assertEquals(NFS4ERR_BAD_STATEID, onFile(o.fh(), OP_WRITE, e -> stateid(e, o.seqid(), o.other()).writeHyper(0)
                .writeInt(2).writeOpaque(new byte[1])).status, "an open not confirmed yet is good for nothing");
        int seqid = openConfirm(o, 1);
        assertEquals(o.seqid() + 1, seqid, "OPEN_CONFIRM moves the stateid on");

        byte[] content = "written over NFSv4.0\n".getBytes(StandardCharsets.UTF_8);
        XdrDecoder w = onFile(o.fh(), OP_WRITE, e -> stateid(e, seqid, o.other()).writeHyper(0).writeInt(2)
                .writeOpaque(content)).next(OP_WRITE, NFS4_OK);
        assertEquals(content.length, (int) Nfs4TestClient.read(w::readInt));
        XdrDecoder r = onFile(o.fh(), OP_READ, e -> stateid(e, seqid, o.other()).writeHyper(0).writeInt(4096))
                .next(OP_READ, NFS4_OK);
        assertTrue(Nfs4TestClient.read(r::readBool), "eof");
        assertArrayEquals(content, Nfs4TestClient.read(() -> r.readOpaque(4096)));

        // a new lock-owner's LOCK is ordered by the open-owner (seqid 2), the lock-owner starts at 0
        XdrDecoder l = onFile(o.fh(), OP_LOCK, e -> {
            e.writeInt(2).writeBool(false).writeHyper(0).writeHyper(10).writeBool(true).writeInt(2);
            stateid(e, seqid, o.other()).writeInt(0).writeHyper(clientId).writeOpaque("lock-owner".getBytes(StandardCharsets.UTF_8));
        }).next(OP_LOCK, NFS4_OK);
        int lockSeqid = Nfs4TestClient.read(l::readInt);
        byte[] lockOther = Nfs4TestClient.read(() -> l.readFixedOpaque(12));
        long fileId = data.lookup(Caller.ROOT, data.root(), "f40").handle().fileId();
        LockOwner nlm = new LockOwner("nlm:other:1:01", "other", 1, new byte[] {1});
        org.junit.jupiter.api.Assertions.assertThrows(LockConflictException.class, () -> data.locks().lock(fileId,
                new ByteRangeLock(nlm, 5, 1, false, LockSemantics.POSIX)), "the NFSv4.0 lock is in the one lock table");
        assertEquals(NFS4ERR_LOCKS_HELD, releaseLockOwner(clientId, "lock-owner").status);
        onFile(o.fh(), OP_LOCKU, e -> stateid(e.writeInt(2).writeInt(1), lockSeqid, lockOther).writeHyper(0).writeHyper(10))
                .next(OP_LOCKU, NFS4_OK);
        assertEquals(NFS4ERR_BAD_SEQID, onFile(o.fh(), OP_LOCKU, e -> stateid(e.writeInt(2).writeInt(7), lockSeqid + 1,
                lockOther).writeHyper(0).writeHyper(10)).status, "the lock-owner's seqid is 1");
        assertEquals(NFS4_OK, releaseLockOwner(clientId, "lock-owner").status);
        assertEquals(NFS4ERR_BAD_STATEID, onFile(o.fh(), OP_LOCKU, e -> stateid(e.writeInt(2).writeInt(2), lockSeqid + 1,
                lockOther).writeHyper(0).writeHyper(10)).status, "its lock stateid went with it");

        assertEquals(NFS4_OK, close(o.fh(), 3, seqid, o.other()).status);
        assertEquals(0, fx.server.nfs4().state().openCount());
        assertEquals(NFS4_OK, renew(c, clientId).status);
    }

    private Reply releaseLockOwner(long clientId, String owner) throws IOException {
        return c.compoundWithoutSession().op(OP_RELEASE_LOCKOWNER,
                e -> e.writeHyper(clientId).writeOpaque(owner.getBytes(StandardCharsets.UTF_8))).send();
    }

    @Test
    void retransmissionsAreAnsweredFromTheOwnersLastReplyAndOtherSeqidsRefused() throws Exception {
        long clientId = confirmedClient(c, "linux-retry", 1);
        byte[] first = open(clientId, "owner", 0, "again", OPEN4_SHARE_ACCESS_READ).bytes();
        Opened o = opened(c.send(first));
        Opened retransmitted = opened(c.send(first));
        assertEquals(o.seqid(), retransmitted.seqid(), "the same OPEN result, not a second open");
        assertArrayEquals(o.other(), retransmitted.other());
        assertEquals(o.flags(), retransmitted.flags());
        assertArrayEquals(o.fh(), retransmitted.fh(), "the current filehandle the OPEN left");
        assertEquals(1, fx.server.nfs4().state().openCount());
        int seqid = openConfirm(o, 1);
        assertEquals(seqid, openConfirm(o, 1), "a retransmitted OPEN_CONFIRM gets its reply, not NFS4ERR_OLD_STATEID");

        assertEquals(NFS4ERR_BAD_SEQID, close(o.fh(), 5, seqid, o.other()).status, "seqid 5 after 1");
        byte[] unknown = o.other().clone();
        unknown[11] ^= 0x55;
        assertEquals(NFS4ERR_BAD_STATEID, close(o.fh(), 2, seqid, unknown).status);
        byte[] closing = c.compoundWithoutSession().op(OP_PUTFH, e -> e.writeOpaque(o.fh()))
                .op(OP_CLOSE, e -> stateid(e.writeInt(2), seqid, o.other())).bytes();
        Reply closed = c.send(closing);
        assertEquals(NFS4_OK, closed.status, "neither error moved the seqid on");
        assertEquals(0, fx.server.nfs4().state().openCount());
        Reply again = c.send(closing);
        assertEquals(NFS4_OK, again.status, "a retransmitted CLOSE gets its reply, though the open is gone");
        assertArrayEquals(closed.raw, again.raw);
        assertEquals(NFS4ERR_BAD_STATEID, close(o.fh(), 3, seqid, o.other()).status, "a new CLOSE of it is refused");

        // that error left the seqid at 2; another moves it on: an OPEN of a missing file takes 3
        assertEquals(NFS4ERR_NOENT, open(clientId, "owner", 3, "missing", OPEN4_SHARE_ACCESS_READ, false).send().status);
        Opened reopened = opened(open(clientId, "owner", 4, "again", OPEN4_SHARE_ACCESS_READ).send());
        assertEquals(0, reopened.flags() & OPEN4_RESULT_CONFIRM, "a confirmed owner's next open needs no confirmation");
    }

    @Test
    void setclientidCasesFollowRfc7530() throws Exception {
        long clientId = confirmedClient(c, "host-a", 1);
        Opened o = opened(open(clientId, "owner", 0, "held", OPEN4_SHARE_ACCESS_READ).send());
        openConfirm(o, 1);

        // the same client again (a new callback): the same clientid, confirmed with the new verifier
        XdrDecoder same = setClientId(c, "host-a", 1).next(OP_SETCLIENTID, NFS4_OK);
        assertEquals(clientId, (long) Nfs4TestClient.read(same::readHyper));
        byte[] callbackConfirm = Nfs4TestClient.read(() -> same.readFixedOpaque(8));
        assertEquals(NFS4ERR_STALE_CLIENTID, confirm(c, clientId, new byte[8]).status, "a verifier never given");
        assertEquals(NFS4_OK, confirm(c, clientId, callbackConfirm).status);
        assertEquals(NFS4_OK, confirm(c, clientId, callbackConfirm).status, "a retransmitted confirmation");
        assertEquals(1, fx.server.nfs4().state().openCount(), "the client kept its open");

        // another principal may not take the id while the lease holds
        AuthSys other = new AuthSys(1, "client", 1000, 1000, new int[0]);
        try (Nfs4TestClient thief = Nfs4TestClient.connect(fx.nfs(), other)) {
            thief.minor = MINOR_VERSION_0;
            Reply inUse = setClientId(thief, "host-a", 9);
            XdrDecoder d = inUse.next(OP_SETCLIENTID, NFS4ERR_CLID_INUSE);
            assertEquals("tcp", Nfs4TestClient.read(() -> d.readString(16)), "the holder's callback netid");
        }

        // the client restarted (another verifier): a new clientid, which replaces the old once confirmed
        long restarted = confirmedClient(c, "host-a", 2);
        assertNotEquals(clientId, restarted);
        assertEquals(NFS4ERR_STALE_CLIENTID, renew(c, clientId).status, "the old record went");
        assertEquals(0, fx.server.nfs4().state().openCount(), "with its opens");
        assertEquals(NFS4_OK, renew(c, restarted).status);
        assertEquals(NFS4ERR_STALE_CLIENTID, renew(c, 0x1234L).status);

        XdrDecoder unconfirmed = setClientId(c, "host-b", 1).next(OP_SETCLIENTID, NFS4_OK);
        long notYet = Nfs4TestClient.read(unconfirmed::readHyper);
        Reply early = open(notYet, "o", 0, "held", OPEN4_SHARE_ACCESS_READ, false).send();
        assertEquals(NFS4ERR_STALE_CLIENTID, early.status, "an unconfirmed client opens nothing");
    }

    @Test
    void nfs41OperationsAreIllegalInNfs40AndAServerMayRefuseNfs40() throws Exception {
        Reply sequence = c.compoundWithoutSession().op(OP_SEQUENCE, e -> Nfs4TestClient.sequenceArgs(e, new byte[16], 1, 0))
                .send();
        sequence.next(OP_ILLEGAL, NFS4ERR_OP_ILLEGAL);
        Reply exchange = c.compoundWithoutSession().op(OP_EXCHANGE_ID, e -> Nfs4TestClient.exchangeIdArgs(e, "x", 1)).send();
        exchange.next(OP_ILLEGAL, NFS4ERR_OP_ILLEGAL);
        Reply lookup = c.compoundWithoutSession().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_GETATTR, e -> Nfs4TestClient.bitmap(e, io.rdmagate.nfs.v4.Fattr4.SUPPORTED_ATTRS)).send();
        lookup.next(OP_PUTROOTFH, NFS4_OK);
        lookup.next(OP_LOOKUP, NFS4_OK);
        XdrDecoder a = Nfs4TestClient.fattr(lookup.next(OP_GETATTR, NFS4_OK), io.rdmagate.nfs.v4.Fattr4.SUPPORTED_ATTRS);
        int words = Nfs4TestClient.read(a::readInt);
        assertEquals(2, words, "NFSv4.0's attributes end at mounted_on_fileid (55): no suppattr_exclcreat");

        try (NfsFixture only41 = new NfsFixture(List.of(NfsFixture.export(0, "data", data,
                NfsFixture.rule("127.0.0.0/8", Access.RW, false, false))), h -> null, new SimpleMeterRegistry(),
                Nfs4Server.Options.DEFAULT.withMinMinorVersion(MINOR_VERSION));
                Nfs4TestClient v40 = Nfs4TestClient.connect(only41.nfs(), NfsFixture.ROOT)) {
            Reply r = v40.compound(MINOR_VERSION_0).op(OP_PUTROOTFH).send();
            assertEquals(NFS4ERR_MINOR_VERS_MISMATCH, r.status);
            assertEquals(0, r.count);
        }
    }
}
