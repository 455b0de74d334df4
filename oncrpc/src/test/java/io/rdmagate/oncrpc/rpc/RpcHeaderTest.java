package io.rdmagate.oncrpc.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Call and reply headers against bytes laid out by hand from RFC 5531 §9 and Appendix A. */
class RpcHeaderTest {
    private static final HexFormat HEX = HexFormat.of();

    private static ByteBuf hex(String... parts) {
        return Unpooled.wrappedBuffer(HEX.parseHex(String.join("", parts).replace(" ", "")));
    }

    // xid 0x01020304, CALL, rpcvers 2, prog 100003, vers 3, proc 1
    private static final String CALL_START = "01020304 00000000 00000002 000186a3 00000003 00000001";
    private static final String VERF_NONE = "00000000 00000000";

    /** AUTH_SYS body: stamp 0x11, machinename "box" (3 bytes + 1 pad), uid 1000, gid 100, gids {100, 27}. */
    private static final String AUTH_SYS_BODY = "00000011 00000003 626f7800 000003e8 00000064 00000002 00000064 0000001b";

    @Test
    void decodesAnAuthSysCall() throws Exception {
        ByteBuf b = hex(CALL_START, "00000001 00000020", AUTH_SYS_BODY, VERF_NONE, "cafebabe");
        CallHeader h = new CallHeaderDecoder().decode(b);
        assertEquals(0x01020304, h.xid());
        assertEquals(100003, h.program());
        assertEquals(3, h.version());
        assertEquals(1, h.procedure());
        AuthSys s = assertInstanceOf(AuthSys.class, h.credentials());
        assertEquals(new AuthSys(0x11, "box", 1000, 100, new int[] {100, 27}), s);
        assertEquals(new Caller(1000, 100, new int[] {100, 27}), s.toCaller());
        assertEquals(0xcafebabe, b.readInt(), "the reader is left on the arguments");
    }

    @Test
    void decodesAnAuthNoneCall() throws Exception {
        CallHeader h = new CallHeaderDecoder().decode(hex(CALL_START, "00000000 00000000", VERF_NONE));
        assertEquals(Credentials.NONE, h.credentials());
    }

    @Test
    void callHeadersWeWriteDecode() throws Exception {
        AuthSys cred = new AuthSys(5, "client.example", 0, 0, new int[] {1, 2, 3});
        ByteBuf b = CallHeaders.write(Unpooled.buffer(), 9, 100005, 3, 1, cred);
        CallHeader h = new CallHeaderDecoder().decode(b);
        assertEquals(new CallHeader(9, 100005, 3, 1, cred, AuthFlavor.AUTH_NONE), h);
    }

    private static RpcRejectedException denied(ByteBuf b) {
        return assertThrows(RpcRejectedException.class, () -> new CallHeaderDecoder().decode(b));
    }

    @Test
    void rpcVersionOtherThanTwoIsRpcMismatch() {
        RpcRejectedException e = denied(hex("01020304 00000000 00000003 000186a3 00000003 00000001"));
        assertEquals(Rpc.RPC_MISMATCH, e.rejectStat());
    }

    @Test
    void credentialOver400BytesIsBadCred() {
        String body = "00".repeat(404);
        assertEquals(AuthStat.AUTH_BADCRED, denied(hex(CALL_START, "00000001 00000194", body, VERF_NONE)).authStat());
    }

    @Test
    void malformedAuthSysIsBadCred() {
        // machinename of 256 bytes
        String longName = "00000000 00000100" + "61".repeat(256) + "00000000 00000000 00000000";
        assertEquals(AuthStat.AUTH_BADCRED,
                denied(hex(CALL_START, "00000001", String.format("%08x", 4 + 4 + 256 + 12), longName, VERF_NONE))
                        .authStat());
        // 17 gids
        String gids = "00000000 00000000 00000000 00000000 00000011" + "00000001".repeat(17);
        assertEquals(AuthStat.AUTH_BADCRED,
                denied(hex(CALL_START, "00000001", String.format("%08x", 20 + 68), gids, VERF_NONE)).authStat());
        // body longer than its fields
        assertEquals(AuthStat.AUTH_BADCRED,
                denied(hex(CALL_START, "00000001 00000024", AUTH_SYS_BODY, "00000000", VERF_NONE)).authStat());
        // body shorter than its fields say
        assertEquals(AuthStat.AUTH_BADCRED,
                denied(hex(CALL_START, "00000001 0000001c", AUTH_SYS_BODY, VERF_NONE)).authStat());
        // body length past the end of the record
        assertEquals(AuthStat.AUTH_BADCRED, denied(hex(CALL_START, "00000001 00000100", "00000000")).authStat());
        // AUTH_NONE with a body
        assertEquals(AuthStat.AUTH_BADCRED, denied(hex(CALL_START, "00000000 00000004 00000000", VERF_NONE)).authStat());
    }

    @Test
    void unsupportedFlavorsAreRejected() {
        assertEquals(AuthStat.AUTH_REJECTEDCRED, denied(hex(CALL_START, "00000002 00000004 00000001", VERF_NONE)).authStat());
        assertEquals(AuthStat.AUTH_REJECTEDCRED, denied(hex(CALL_START, "00000003 00000004 00000001", VERF_NONE)).authStat());
    }

    @Test
    void rpcsecGssCredentialsAreDecodedWithTheHeaderTheirMicCovers() throws Exception {
        // RFC 2203 5: version 1, INIT, seq 0, service none, empty handle; INIT's verifier is AUTH_NONE
        String init = "00000006 00000014 00000001 00000001 00000000 00000001 00000000";
        CallHeader h = new CallHeaderDecoder().decode(hex(CALL_START, init, VERF_NONE));
        RpcGssCred g = (RpcGssCred) h.credentials();
        assertEquals(RpcGssCred.INIT, g.gssProc());
        assertEquals(RpcGssCred.SERVICE_NONE, g.service());
        assertEquals(24 + 8 + 20, g.signedHeader().length, "xid through the credential's body");
        // DATA with a handle and its MIC in the verifier
        CallHeader d = new CallHeaderDecoder().decode(hex(CALL_START,
                "00000006 00000018 00000001 00000000 00000007 00000001 00000004 0a0b0c0d", "00000006 00000004 01020304"));
        RpcGssCred dg = (RpcGssCred) d.credentials();
        assertEquals(7, dg.seqNum());
        assertArrayEquals(new byte[] {10, 11, 12, 13}, dg.handle());
        assertArrayEquals(new byte[] {1, 2, 3, 4}, dg.verifier());
        // malformed: a body of the version alone, version 2, an unknown gss_proc, a DATA call without a MIC
        assertEquals(AuthStat.AUTH_BADCRED, denied(hex(CALL_START, "00000006 00000004 00000001", VERF_NONE)).authStat());
        assertEquals(AuthStat.AUTH_BADCRED, denied(hex(CALL_START, init.replace("00000014 00000001", "00000014 00000002"),
                VERF_NONE)).authStat());
        assertEquals(AuthStat.AUTH_BADCRED, denied(hex(CALL_START, init.replace("00000001 00000001 00000000", "00000001 00000009 00000000"),
                VERF_NONE)).authStat());
        assertEquals(AuthStat.AUTH_BADVERF, denied(hex(CALL_START,
                "00000006 00000014 00000001 00000000 00000007 00000001 00000000", VERF_NONE)).authStat());
    }

    @Test
    void verifierMustBeEmptyAuthNone() {
        assertEquals(AuthStat.AUTH_BADVERF,
                denied(hex(CALL_START, "00000000 00000000", "00000001 00000004 00000000")).authStat());
        assertEquals(AuthStat.AUTH_BADVERF, denied(hex(CALL_START, "00000000 00000000", "00000000")).authStat());
    }

    @Test
    void truncatedHeaderIsXdrError() {
        assertThrows(XdrException.class, () -> new CallHeaderDecoder().decode(hex("01020304 00000000 00000002 000186a3")));
        assertThrows(XdrException.class, () -> new CallHeaderDecoder().decode(hex(CALL_START)));
        assertThrows(XdrException.class, () -> new CallHeaderDecoder().decode(hex("01020304 00000001")));
    }

    @Test
    void replyHeadersMatchTheRfcLayout() throws Exception {
        assertEquals("0000002a" + "00000001" + "00000000" + "00000000" + "00000000" + "00000000",
                ByteBufUtil.hexDump(ReplyHeaders.accepted(Unpooled.buffer(), 42, Rpc.SUCCESS)));
        assertEquals("0000002a 00000001 00000000 00000000 00000000 00000002 00000002 00000004".replace(" ", ""),
                ByteBufUtil.hexDump(ReplyHeaders.progMismatch(Unpooled.buffer(), 42, 2, 4)));
        assertEquals("0000002a 00000001 00000001 00000000 00000002 00000002".replace(" ", ""),
                ByteBufUtil.hexDump(ReplyHeaders.rpcMismatch(Unpooled.buffer(), 42)));
        assertEquals("0000002a 00000001 00000001 00000001 00000005".replace(" ", ""),
                ByteBufUtil.hexDump(ReplyHeaders.authError(Unpooled.buffer(), 42, AuthStat.AUTH_TOOWEAK)));

        ReplyHeader h = ReplyHeader.decode(new XdrDecoder(ReplyHeaders.progMismatch(Unpooled.buffer(), 7, 2, 4)));
        assertEquals(new ReplyHeader(7, Rpc.MSG_ACCEPTED, Rpc.PROG_MISMATCH, -1, -1, 2, 4), h);
        h = ReplyHeader.decode(new XdrDecoder(ReplyHeaders.authError(Unpooled.buffer(), 7, AuthStat.AUTH_BADCRED)));
        assertEquals(new ReplyHeader(7, Rpc.MSG_DENIED, -1, Rpc.AUTH_ERROR, AuthStat.AUTH_BADCRED, -1, -1), h);
    }

    @Test
    void callHeaderBytesMatchTheRfcLayout() {
        ByteBuf b = CallHeaders.write(Unpooled.buffer(), 0x01020304, 100003, 3, 1,
                new AuthSys(0x11, "box", 1000, 100, new int[] {100, 27}));
        assertArrayEquals(HEX.parseHex((CALL_START + "00000001 00000020" + AUTH_SYS_BODY + VERF_NONE).replace(" ", "")),
                ByteBufUtil.getBytes(b));
    }
}
