package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msfscc.FileInfo;
import io.rdmagate.smb.mssmb2.CreateContext;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.smb.mssmb2.Smb2Create;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Durable;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.Smb2Lease;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Files;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.Oplocks;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.smb.server.SmbUser;
import io.rdmagate.vfs.VfsException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Durable handles on CREATE (MS-SMB2 3.3.5.9.6 DHnQ, 3.3.5.9.7 DHnC, 3.3.5.9.10 DH2Q, 3.3.5.9.12
 * DH2C): which durability a request asks for, granting it once the oplock or lease is known, and
 * reconnecting a durable open that lost its connection.
 *
 * <p>Accepts: DHnQ, or DH2Q (3.x dialects) with a timeout the server bounds; a reconnect by DHnC
 * or DH2C naming a disconnected durable open of the same user, for DH2C with its CreateGuid, and
 * when it has a lease from the same client GUID with the same lease key. Refuses: DH2Q or DH2C beside a v1
 * context, malformed contexts (STATUS_INVALID_PARAMETER); a reconnect of an open that does not
 * exist, is still connected or does not match (STATUS_OBJECT_NAME_NOT_FOUND); of another user's
 * open (STATUS_ACCESS_DENIED); a second DH2Q with a CreateGuid in use that is not a replay
 * (STATUS_DUPLICATE_OBJECTID). Durability needs a batch oplock or a lease with handle caching;
 * persistent handles are never granted (no share is continuously available).
 */
final class DurableHandles {
    private DurableHandles() {
    }

    /** What a CREATE asks for: nothing, a new durable open (v1 or v2), or a reconnect. */
    record Ask(int version, Smb2Durable.V2Request v2, FileId reconnect, byte[] reconnectGuid) {
        static final Ask NONE = new Ask(0, null, null, null);

        boolean isReconnect() {
            return reconnect != null;
        }
    }

    /** Reads and checks the durable contexts of a CREATE (MS-SMB2 3.3.5.9). */
    static Ask ask(Ctx c, Smb2Create.Request req) throws SmbException {
        CreateContext dhnq = req.context(CreateContext.DHNQ);
        CreateContext dhnc = req.context(CreateContext.DHNC);
        CreateContext dh2q = req.context(CreateContext.DH2Q);
        CreateContext dh2c = req.context(CreateContext.DH2C);
        boolean v2Dialect = Smb2Dialect.is3(c.conn.dialect());
        try {
            if (v2Dialect && (dh2q != null || dh2c != null)) {
                if (dhnq != null || dhnc != null) {
                    throw new SmbException(NtStatus.INVALID_PARAMETER, "durable v2 and v1 contexts together");
                }
                if (dh2c != null) {
                    if (dh2q != null) {
                        throw new SmbException(NtStatus.INVALID_PARAMETER, "DH2C and DH2Q together"); // 3.3.5.9.12
                    }
                    Smb2Durable.V2Reconnect r = Smb2Durable.v2Reconnect(dh2c.data());
                    return new Ask(2, null, r.fileId(), r.createGuid());
                }
                return new Ask(2, Smb2Durable.v2Request(dh2q.data()), null, null);
            }
            if (dhnc != null) {
                return new Ask(1, null, Smb2Durable.v1Reconnect(dhnc.data()), null); // 3.3.5.9.6: DHnQ is then ignored
            }
            if (dhnq != null) {
                Smb2Durable.checkV1Request(dhnq.data());
                return new Ask(1, null, null, null);
            }
            return Ask.NONE;
        } catch (Smb2DecodeException e) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, e.getMessage());
        }
    }

    /**
     * MS-SMB2 3.3.5.9.10: a DH2Q whose CreateGuid names an open of this client already is a replay
     * (answered with that open) when the request says so, and refused otherwise. Returns the open
     * to answer with, or null to go on with a new open.
     */
    static Open replay(Ctx c, Ask a) throws SmbException {
        if (a.v2() == null) {
            return null;
        }
        Open o = c.server.opens().byCreateGuid(c.conn.clientGuid, a.v2().createGuid());
        if (o == null) {
            return null;
        }
        if ((Smb2Header.flags(c.msg) & Smb2Header.FLAGS_REPLAY_OPERATION) == 0 || o.session() != c.session) {
            throw new SmbException(NtStatus.DUPLICATE_OBJECTID, "CreateGuid in use");
        }
        return o;
    }

    /**
     * Grants what was asked if the open qualifies (MS-SMB2 3.3.5.9.6, 3.3.5.9.10: a batch oplock,
     * or a lease that caches handles) and returns the response context, or null.
     */
    static CreateContext grant(Ctx c, Ask a, Open o, Oplocks.Grant g) {
        if (a.version() == 0 || a.isReconnect() || o.directory() && a.version() == 1) {
            return null;
        }
        boolean qualifies = g.level() == Smb2Create.OPLOCK_LEVEL_BATCH
                || g.level() == Smb2Create.OPLOCK_LEVEL_LEASE && (g.leaseState() & Smb2Lease.HANDLE) != 0;
        if (!qualifies) {
            return null;
        }
        long dflt = c.server.config().durableTimeout().toMillis();
        long max = c.server.config().durableMaxTimeout().toMillis();
        if (a.version() == 1) {
            c.server.opens().makeDurable(o, 1, null, c.conn.clientGuid, (int) dflt);
            return new CreateContext(CreateContext.DHNQ, Smb2Durable.v1Response());
        }
        long asked = Integer.toUnsignedLong(a.v2().timeoutMillis());
        int timeout = (int) (asked == 0 ? dflt : Math.min(asked, max));
        c.server.opens().makeDurable(o, 2, a.v2().createGuid(), c.conn.clientGuid, timeout);
        return new CreateContext(CreateContext.DH2Q, Smb2Durable.v2Response(timeout, 0));
    }

    /**
     * MS-SMB2 3.3.5.9.7 and 3.3.5.9.12: finds the disconnected durable open the request names,
     * checks that this client and user may have it back, joins it to this connection, session and
     * tree, and answers the CREATE as the open now is. Nothing else of the request is used.
     */
    static void reconnect(Ctx c, Smb2Create.Request req, Ask a) throws SmbException, VfsException,
            Smb2DecodeException {
        Open o = c.server.opens().byPersistent(a.reconnect().persistent());
        if (o == null || !o.isDurable() || o.pipe() != null) {
            throw new SmbException(NtStatus.OBJECT_NAME_NOT_FOUND, "no durable open " + a.reconnect());
        }
        if (a.version() == 2 && !Arrays.equals(o.createGuid() == null ? new byte[16] : o.createGuid(),
                a.reconnectGuid())) {
            throw new SmbException(NtStatus.OBJECT_NAME_NOT_FOUND, "CreateGuid does not match");
        }
        byte[] key = o.leaseKey();
        if (key != null && !Arrays.equals(o.clientGuid(), c.conn.clientGuid)) {
            // a lease key is the client's own name (MS-SMB2 3.3.1.4); an oplock open may come back
            // from another client GUID (as Windows and Samba allow: smbtorture durable-v2-open.reopen1a)
            throw new SmbException(NtStatus.OBJECT_NAME_NOT_FOUND, "another client");
        }
        Smb2Lease.Request lease = null;
        CreateContext rq = req.context(CreateContext.RQLS);
        if (rq != null) {
            // the context counts, whatever OplockLevel says (3.3.5.9.7)
            lease = Smb2Lease.decode(rq.data(), Smb2Dialect.is3(c.conn.dialect()));
        }
        if (key != null && (lease == null || !Arrays.equals(key, lease.key())) || key == null && lease != null) {
            throw new SmbException(NtStatus.OBJECT_NAME_NOT_FOUND, "lease key does not match the durable open");
        }
        if (key != null && !Files.split(req.name()).equals(Files.split(o.path))) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "reconnect of a leased open under another name");
        }
        SmbUser owner = o.session().user();
        SmbUser now = c.session.user();
        if (owner == null || now == null || !owner.name().equalsIgnoreCase(now.name())) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "durable open of another user");
        }
        if (!awaitLoss(c, o) || !c.server.opens().reconnect(o, c.conn, c.session, c.tree)) {
            throw new SmbException(NtStatus.OBJECT_NAME_NOT_FOUND, "durable open " + a.reconnect() + " is in use");
        }
        c.setCompoundFileId(o.fileId());
        answer(c, o);
    }

    /** How long a reconnect waits for the open's old connection to be seen closed. */
    private static final java.time.Duration LOSS_GRACE = java.time.Duration.ofSeconds(2);

    private static boolean awaitLoss(Ctx c, Open o) throws SmbException {
        try {
            return c.server.awaitLoss(o, c.conn, LOSS_GRACE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SmbException(NtStatus.CANCELLED, "interrupted waiting for the old connection");
        }
    }

    /** The CREATE response for an open that already exists (a reconnect or a replay). */
    static void answer(Ctx c, Open o) throws VfsException {
        FileInfo f = Files.info(o.vfs().getattr(o.handle()), false);
        List<CreateContext> out = new ArrayList<>(1);
        java.nio.ByteBuffer lease = c.server.oplocks().leaseResponse(o);
        if (lease != null) {
            out.add(new CreateContext(CreateContext.RQLS, lease));
        }
        c.reply.length(Smb2Create.write(c.reply.body(89 + 7 + CreateContext.listLength(out)),
                new Smb2Create.Response(o.oplockLevel(), Smb2Create.FILE_OPENED, f.creation(), f.lastAccess(),
                        f.lastWrite(), f.change(), f.allocationSize(), f.endOfFile(), f.attributes(), o.fileId(), out)));
    }
}
