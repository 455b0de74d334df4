package io.rdmagate.oncrpc.gss;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rdmagate.gateway.spi.config.KerberosConfig;
import io.rdmagate.gateway.spi.security.KerberosAcceptor;
import io.rdmagate.gateway.spi.security.KerberosIdentities;
import io.rdmagate.gateway.spi.security.MitKdc;
import io.rdmagate.oncrpc.rpc.AuthFlavor;
import io.rdmagate.oncrpc.rpc.AuthStat;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.GssPrincipal;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.oncrpc.server.RpcProgram;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import javax.security.auth.Subject;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.MessageProp;
import org.ietf.jgss.Oid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RPCSEC_GSS (RFC 2203) with Kerberos through the dispatcher, against a real MIT KDC: a client
 * principal logs in with its keytab (the JDK's Krb5LoginModule), gets a ticket for
 * nfs/gw.example.test from the KDC and creates a context with the JDK's GSS-API initiator, as the
 * Linux gssd would with MIT's; then calls run as the principal's mapped identity, with the reply
 * verifiers the RFC gives; replays, forged headers, unknown and destroyed contexts are refused.
 */
class RpcSecGssTest {
    static final int PROGRAM = 100003;
    static final Oid KRB5 = KerberosAcceptor.KRB5_MECH;

    @TempDir
    static Path tmp;
    static MitKdc kdc;
    static RpcSecGss gss;
    static Subject client;

    /** Procedure 1 answers the uid and gid the call runs as (-1 for none). */
    static final RpcProgram WHOAMI = new RpcProgram() {
        public int program() {
            return PROGRAM;
        }

        public String name() {
            return "whoami";
        }

        public int lowVersion() {
            return 3;
        }

        public int highVersion() {
            return 3;
        }

        @Override
        public boolean isNonIdempotent(int version, int procedure) {
            return procedure == 2; // its replies go through the duplicate request cache
        }

        public XdrMessage handle(RpcCall call) throws io.rdmagate.oncrpc.xdr.XdrException {
            XdrEncoder e = call.success();
            AuthSys a = call.authSys();
            if (call.procedure() == 2) {
                int n = call.decoder().readInt(); // echoes its argument, with the uid
                e.writeInt(n);
                e.writeInt(a == null ? -1 : a.uid());
                return e.finish();
            }
            if (call.procedure() == 1) {
                e.writeInt(a == null ? -1 : a.uid());
                e.writeInt(a == null ? -1 : a.gid());
                e.writeInt(call.credentials() instanceof GssPrincipal g ? g.principal().length() : 0);
            }
            return e.finish();
        }
    };

    @BeforeAll
    static void start() throws Exception {
        kdc = MitKdc.start(Files.createDirectories(tmp.resolve("realm")));
        Path keytab = tmp.resolve("nfs.keytab");
        kdc.addService("nfs/gw.example.test", keytab);
        Path clientKeytab = tmp.resolve("alice.keytab");
        kdc.addService("alice", clientKeytab); // a user with a keytab, so the test needs no password prompt
        KerberosConfig config = new KerberosConfig(keytab, MitKdc.REALM, kdc.krb5Conf(), null, null,
                Map.of("alice@" + MitKdc.REALM, "1234:1235"));
        gss = new RpcSecGss(KerberosAcceptor.open(config, "nfs/gw.example.test"),
                new KerberosIdentities(config, name -> Optional.empty()), 8, Duration.ofMinutes(5));
        client = MitKdc.login("alice@" + MitKdc.REALM, clientKeytab);
    }

    @AfterAll
    static void stop() {
        if (kdc != null) {
            kdc.close();
        }
    }

    /** The client side of a context: the initiator's token exchange, done through the dispatcher. */
    static GSSContext initiator(Subject who) throws Exception {
        return initiator(who, "nfs/gw.example.test");
    }

    /** The client side of a context with the service {@code service} (a principal name without realm). */
    static GSSContext initiator(Subject who, String service) throws Exception {
        GSSManager m = GSSManager.getInstance();
        return Subject.callAs(who, () -> {
            GSSCredential cred = m.createCredential(null, GSSCredential.DEFAULT_LIFETIME, KRB5, GSSCredential.INITIATE_ONLY);
            GSSContext ctx = m.createContext(m.createName(service + "@" + MitKdc.REALM,
                    new Oid("1.2.840.113554.1.2.2.1")), KRB5, cred, GSSContext.DEFAULT_LIFETIME);
            ctx.requestMutualAuth(true);
            ctx.requestInteg(true);
            return ctx;
        });
    }

    static RpcDispatcher dispatcher(RpcSecGss sec) {
        return new RpcDispatcher(null, ByteBufAllocator.DEFAULT).register(WHOAMI).gss(sec);
    }

    static final Connection CONN = new Connection(1, new InetSocketAddress("127.0.0.1", 40000),
            new InetSocketAddress("127.0.0.1", 2049), "tcp");

    /** A call header through the RPCSEC_GSS credential (what the verifier's MIC covers). */
    static ByteBuf header(int xid, int proc, int gssProc, int seq, int service, byte[] handle) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(xid).writeInt(Rpc.CALL).writeInt(2).writeInt(PROGRAM).writeInt(3).writeInt(proc);
        ByteBuf cred = Unpooled.buffer();
        cred.writeInt(1).writeInt(gssProc).writeInt(seq).writeInt(service);
        opaque(cred, handle);
        b.writeInt(AuthFlavor.RPCSEC_GSS).writeInt(cred.readableBytes()).writeBytes(cred);
        return b;
    }

    static void opaque(ByteBuf b, byte[] v) {
        b.writeInt(v.length).writeBytes(v).writeZero(-v.length & 3);
    }

    static byte[] bytes(ByteBuf b) {
        byte[] a = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), a);
        return a;
    }

    record Context(GSSContext client, byte[] handle) {
    }

    static ByteBuffer reply(RpcDispatcher d, ByteBuf call) {
        XdrMessage m = d.dispatch(call, CONN);
        return m == null ? null : ByteBuffer.wrap(m.toBytes());
    }

    /** INIT through the dispatcher; checks rpc_gss_init_res and its verifier, the MIC of the window. */
    static Context establish(RpcDispatcher d) throws Exception {
        return establish(d, client);
    }

    static Context establish(RpcDispatcher d, Subject who) throws Exception {
        GSSContext ctx = initiator(who);
        byte[] token = Subject.callAs(who, () -> ctx.initSecContext(new byte[0], 0, 0));
        ByteBuf call = header(7, 0, 1, 0, 1, new byte[0]);
        call.writeInt(AuthFlavor.AUTH_NONE).writeInt(0);
        opaque(call, token);
        ByteBuffer r = reply(d, call);
        assertEquals(7, r.getInt());
        assertEquals(Rpc.REPLY, r.getInt());
        assertEquals(Rpc.MSG_ACCEPTED, r.getInt());
        assertEquals(AuthFlavor.RPCSEC_GSS, r.getInt(), "an established context's reply carries the MIC of the window");
        byte[] verifier = opaque(r);
        assertEquals(Rpc.SUCCESS, r.getInt());
        byte[] handle = opaque(r);
        assertEquals(0, r.getInt(), "gss_major GSS_S_COMPLETE");
        r.getInt();
        int window = r.getInt();
        assertEquals(RpcSecGss.SEQ_WINDOW, window);
        byte[] apRep = opaque(r);
        Subject.callAs(who, () -> ctx.initSecContext(apRep, 0, apRep.length));
        assertTrue(ctx.isEstablished(), "the AP-REP completes mutual authentication");
        ctx.verifyMIC(verifier, 0, verifier.length, new byte[] {0, 0, 0, (byte) window}, 0, 4, new MessageProp(0, false));
        return new Context(ctx, handle);
    }

    static byte[] opaque(ByteBuffer r) {
        byte[] v = new byte[r.getInt()];
        r.get(v);
        r.position(r.position() + (-v.length & 3));
        return v;
    }

    /** A DATA call of procedure {@code proc} signed by the client's context. */
    static ByteBuf data(Context c, int xid, int proc, int gssProc, int seq, int service) throws Exception {
        ByteBuf call = header(xid, proc, gssProc, seq, service, c.handle());
        byte[] signed = bytes(call);
        byte[] mic = c.client().getMIC(signed, 0, signed.length, new MessageProp(0, false));
        call.writeInt(AuthFlavor.RPCSEC_GSS);
        opaque(call, mic);
        return call;
    }

    static int acceptStat(ByteBuffer r) {
        r.position(12);
        r.getInt();
        opaque(r);
        return r.getInt();
    }

    static int authError(ByteBuffer r) {
        r.getInt();
        r.getInt();
        assertEquals(Rpc.MSG_DENIED, r.getInt());
        assertEquals(Rpc.AUTH_ERROR, r.getInt());
        return r.getInt();
    }

    @Test
    void aCallRunsAsThePrincipalsIdentityAndItsReplyIsSigned() throws Exception {
        RpcDispatcher d = dispatcher(gss);
        Context c = establish(d);
        ByteBuffer r = reply(d, data(c, 8, 1, 0, 1, 1));
        assertEquals(8, r.getInt());
        r.getInt();
        assertEquals(Rpc.MSG_ACCEPTED, r.getInt());
        assertEquals(AuthFlavor.RPCSEC_GSS, r.getInt());
        byte[] mic = opaque(r);
        c.client().verifyMIC(mic, 0, mic.length, new byte[] {0, 0, 0, 1}, 0, 4, new MessageProp(0, false));
        assertEquals(Rpc.SUCCESS, r.getInt());
        assertEquals(1234, r.getInt(), "alice@EXAMPLE.TEST is idmapped to uid 1234");
        assertEquals(1235, r.getInt());
        assertEquals(("alice@" + MitKdc.REALM).length(), r.getInt());

        assertNull(reply(d, data(c, 9, 1, 0, 1, 1)), "a sequence number seen before is dropped (RFC 2203 5.3.3.1)");
        assertEquals(Rpc.SUCCESS, acceptStat(reply(d, data(c, 10, 1, 0, 2000, 1))));
        assertNull(reply(d, data(c, 11, 1, 0, 50, 1)), "below the 1024 numbers remembered under 2000");
        assertEquals(Rpc.SUCCESS, acceptStat(reply(d, data(c, 12, 1, 0, 1500, 1))),
                "an older number the context remembers is taken once");
        assertNull(reply(d, data(c, 13, 1, 0, 1500, 1)), "and only once");
    }

    /** A DATA call of procedure 2 with its argument {@code n} under integrity (2) or privacy (3). */
    static ByteBuf protectedCall(Context c, int xid, int seq, int service, int n, boolean tamper) throws Exception {
        ByteBuf call = data(c, xid, 2, 0, seq, service);
        byte[] body = ByteBuffer.allocate(8).putInt(seq).putInt(n).array();
        if (service == 2) {
            byte[] mic = c.client().getMIC(body, 0, body.length, new MessageProp(0, false));
            if (tamper) {
                body[7] ^= 1; // the argument changed after its checksum was made
            }
            opaque(call, body);
            opaque(call, mic);
        } else {
            opaque(call, c.client().wrap(body, 0, body.length, new MessageProp(0, true)));
        }
        return call;
    }

    @Test
    void integrityAndPrivacyProtectArgumentsAndResults() throws Exception {
        RpcDispatcher d = dispatcher(gss);
        Context c = establish(d);
        for (int service : new int[] {2, 3}) {
            int seq = 10 + service;
            ByteBuffer r = reply(d, protectedCall(c, 40 + service, seq, service, 4242, false));
            assertEquals(Rpc.SUCCESS, acceptStat(r), "service " + service);
            byte[] body;
            if (service == 2) {
                body = opaque(r);
                byte[] mic = opaque(r);
                c.client().verifyMIC(mic, 0, mic.length, body, 0, body.length, new MessageProp(0, false));
            } else {
                byte[] wrapped = opaque(r);
                MessageProp prop = new MessageProp(0, true);
                body = c.client().unwrap(wrapped, 0, wrapped.length, prop);
                assertTrue(prop.getPrivacy(), "the results were encrypted");
                assertTrue(!java.util.HexFormat.of().formatHex(wrapped).contains(java.util.HexFormat.of().formatHex(body)),
                        "the results do not travel in clear");
            }
            ByteBuffer results = ByteBuffer.wrap(body);
            assertEquals(seq, results.getInt(), "the results begin with the call's sequence number");
            assertEquals(4242, results.getInt(), "the argument came through unwrapped");
            assertEquals(1234, results.getInt());
        }
        ByteBuffer tampered = reply(d, protectedCall(c, 50, 20, 2, 7, true));
        assertEquals(Rpc.GARBAGE_ARGS, acceptStat(tampered), "a checksum that does not verify is GARBAGE_ARGS");
        ByteBuf wrongSeq = data(c, 51, 2, 0, 21, 2);
        byte[] body = ByteBuffer.allocate(8).putInt(99).putInt(7).array();
        opaque(wrongSeq, body);
        opaque(wrongSeq, c.client().getMIC(body, 0, body.length, new MessageProp(0, false)));
        assertEquals(Rpc.GARBAGE_ARGS, acceptStat(reply(d, wrongSeq)), "a body of another sequence number");
    }

    @Test
    void aRetransmissionAnsweredFromTheCacheIsSignedForItsOwnSequenceNumber() throws Exception {
        RpcDispatcher d = new RpcDispatcher(new io.rdmagate.oncrpc.server.DuplicateRequestCache(64, Duration.ofMinutes(1),
                256, new io.rdmagate.vfs.memory.PayloadCopies()), ByteBufAllocator.DEFAULT).register(WHOAMI).gss(gss);
        Context c = establish(d);
        for (int seq : new int[] {60, 61}) { // the client resends xid 70 with a new sequence number
            ByteBuf call = data(c, 70, 2, 0, seq, 1);
            call.writeInt(5);
            ByteBuffer r = reply(d, call);
            r.position(16);
            byte[] mic = opaque(r);
            c.client().verifyMIC(mic, 0, mic.length, ByteBuffer.allocate(4).putInt(seq).array(), 0, 4,
                    new MessageProp(0, false));
            assertEquals(Rpc.SUCCESS, r.getInt());
            assertEquals(5, r.getInt(), "the same result, from the cache the second time");
        }
    }

    @Test
    void forgedHeadersUnknownAndDestroyedContextsAreRefused() throws Exception {
        RpcDispatcher d = dispatcher(gss);
        Context c = establish(d);
        ByteBuf forged = data(c, 20, 1, 0, 1, 1);
        forged.setInt(20, 0); // the procedure, after the MIC was made
        assertEquals(AuthStat.RPCSEC_GSS_CREDPROBLEM, authError(reply(d, forged)));

        Context stranger = new Context(c.client(), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        assertEquals(AuthStat.RPCSEC_GSS_CTXPROBLEM, authError(reply(d, data(stranger, 21, 1, 0, 2, 1))));

        ByteBuffer destroyed = reply(d, data(c, 23, 0, 3, 4, 1));
        destroyed.position(12);
        assertEquals(AuthFlavor.RPCSEC_GSS, destroyed.getInt(), "DESTROY is answered with a verifier");
        assertEquals(AuthStat.RPCSEC_GSS_CTXPROBLEM, authError(reply(d, data(c, 24, 1, 0, 5, 1))),
                "a destroyed context is gone");

        RpcDispatcher none = new RpcDispatcher(null, ByteBufAllocator.DEFAULT).register(WHOAMI);
        assertEquals(AuthStat.AUTH_REJECTEDCRED, authError(reply(none, data(c, 25, 1, 0, 6, 1))),
                "without Kerberos configured RPCSEC_GSS is refused");
    }

    /**
     * A ticket for another service (one whose key the gateway does not hold) is refused at context
     * creation with a GSS major status, and another client's context cannot be used by naming its
     * handle: the MIC made with the wrong key is RPCSEC_GSS_CREDPROBLEM. The dispatcher goes on
     * serving the rightful contexts.
     */
    @Test
    void aTicketForAnotherServiceAndAnotherClientsHandleAreRefused() throws Exception {
        RpcDispatcher d = dispatcher(gss);
        kdc.addService("nfs/other.example.test", tmp.resolve("other.keytab"));
        GSSContext wrong = initiator(client, "nfs/other.example.test");
        byte[] token = Subject.callAs(client, () -> wrong.initSecContext(new byte[0], 0, 0));
        ByteBuf init = header(90, 0, 1, 0, 1, new byte[0]);
        init.writeInt(AuthFlavor.AUTH_NONE).writeInt(0);
        opaque(init, token);
        ByteBuffer refused = reply(d, init);
        assertEquals(Rpc.SUCCESS, acceptStat(refused), "rpc_gss_init_res carries the refusal (RFC 2203 5.2.3.1)");
        assertEquals(0, opaque(refused).length, "no handle for a refused context");
        assertTrue(refused.getInt() != 0, "gss_major is not GSS_S_COMPLETE for a ticket to nfs/other.example.test");

        Path keytab = tmp.resolve("carol.keytab");
        kdc.addService("carol", keytab);
        Context alice = establish(d);
        Context carol = establish(d, MitKdc.login("carol@" + MitKdc.REALM, keytab));
        Context impostor = new Context(carol.client(), alice.handle());
        assertEquals(AuthStat.RPCSEC_GSS_CREDPROBLEM, authError(reply(d, data(impostor, 91, 1, 0, 1, 1))),
                "carol signs with her own key, not alice's");
        ByteBuffer r = reply(d, data(alice, 92, 1, 0, 1, 1));
        assertEquals(Rpc.SUCCESS, acceptStat(r), "alice's context still serves her");
        assertEquals(1234, r.getInt());
        assertEquals(Rpc.SUCCESS, acceptStat(reply(d, data(carol, 93, 1, 0, 1, 1))), "and carol's her");
    }

    /**
     * A context lasts as long as the ticket it was made with (RFC 2203 5.3.3.3): after the ticket's
     * end its calls are refused with RPCSEC_GSS_CTXPROBLEM, which tells the client to make a new
     * context; one made with a new ticket serves again.
     */
    @Test
    void aContextEndsWithItsTicket() throws Exception {
        Path keytab = tmp.resolve("bob.keytab");
        kdc.addService("bob", keytab);
        kdc.modify("bob", "-maxlife \"3 seconds\"");
        RpcDispatcher d = dispatcher(gss);
        Subject bob = MitKdc.login("bob@" + MitKdc.REALM, keytab);
        Context c = establish(d, bob);
        assertEquals(Rpc.SUCCESS, acceptStat(reply(d, data(c, 80, 1, 0, 1, 1))));
        // the service ticket ends no later than the ticket-granting ticket it was got with
        Instant end = bob.getPrivateCredentials(javax.security.auth.kerberos.KerberosTicket.class).stream()
                .filter(t -> t.getServer().getName().startsWith("krbtgt/")).findFirst().orElseThrow()
                .getEndTime().toInstant();
        assertTrue(end.isBefore(Instant.now().plusSeconds(5)), "the KDC gave bob his maxlife of 3 s: " + end);
        for (Instant now = Instant.now(); now.isBefore(end); now = Instant.now()) {
            Thread.sleep(Duration.between(now, end).toMillis() + 1);
        }
        assertEquals(AuthStat.RPCSEC_GSS_CTXPROBLEM, authError(reply(d, data(c, 81, 1, 0, 2, 1))),
                "the ticket has ended, and its context with it");
        Context renewed = establish(d, MitKdc.login("bob@" + MitKdc.REALM, keytab));
        assertEquals(Rpc.SUCCESS, acceptStat(reply(d, data(renewed, 82, 1, 0, 1, 1))), "a new ticket, a new context");
    }

    /**
     * A client keeps 16 calls of one context in flight on one connection, numbered in the order it
     * sends them, and the server runs them concurrently, as the TCP transport does (a virtual
     * thread per call). However the server's threads interleave, no call is dropped as below the
     * window: the reordering is the server's own, not a replay.
     */
    @Test
    void callsRunConcurrentlyAreNeverDroppedByTheirOwnReordering() throws Exception {
        RpcDispatcher d = dispatcher(gss);
        Context c = establish(d);
        int calls = 20_000;
        java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(16);
        java.util.concurrent.atomic.AtomicInteger dropped = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger answered = new java.util.concurrent.atomic.AtomicInteger();
        try (var executor = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int seq = 1; seq <= calls; seq++) {
                inFlight.acquire();
                ByteBuf call = protectedCall(c, 1000 + seq, seq, 3, seq, false);
                executor.execute(() -> {
                    try {
                        XdrMessage m = d.dispatch(call, CONN);
                        if (m == null) {
                            dropped.incrementAndGet();
                        } else if (acceptStat(ByteBuffer.wrap(m.toBytes())) == Rpc.SUCCESS) {
                            answered.incrementAndGet();
                        }
                    } finally {
                        call.release();
                        inFlight.release();
                    }
                });
            }
        }
        assertEquals(0, dropped.get(), "calls dropped unanswered");
        assertEquals(calls, answered.get());
    }

    @Test
    void contextsAreBoundedAndTheLeastRecentlyUsedGoesFirst() throws Exception {
        RpcSecGss small = new RpcSecGss(gssAcceptorOf(gss), new KerberosIdentities(new KerberosConfig(tmp.resolve("nfs.keytab"),
                MitKdc.REALM, kdc.krb5Conf(), null, null, Map.of()), name -> Optional.empty()), 2, Duration.ofMinutes(5));
        RpcDispatcher d = dispatcher(small);
        Context first = establish(d);
        establish(d);
        establish(d);
        assertEquals(2, small.contexts());
        assertEquals(AuthStat.RPCSEC_GSS_CTXPROBLEM, authError(reply(d, data(first, 30, 1, 0, 1, 1))),
                "the first context made room for the third");
    }

    static KerberosAcceptor gssAcceptorOf(RpcSecGss s) throws Exception {
        return KerberosAcceptor.open(new KerberosConfig(tmp.resolve("nfs.keytab"), MitKdc.REALM, kdc.krb5Conf(), null, null,
                Map.of()), s.principal());
    }
}
