package io.rdmagate.smb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msfscc.DirectoryInfoEncoder;
import io.rdmagate.smb.msfscc.FileInfo;
import io.rdmagate.smb.msfscc.FileInformationClass;
import io.rdmagate.smb.msfscc.SetInfoDecoder;
import io.rdmagate.smb.msfscc.Wildcard;
import io.rdmagate.smb.msdtyp.FileTime;
import io.rdmagate.smb.msdtyp.SecurityDescriptor;
import io.rdmagate.smb.msdtyp.Sid;
import io.rdmagate.smb.msspng.Spnego;
import io.rdmagate.smb.msspng.SpnegoException;
import io.rdmagate.smb.mssmb2.CreateContext;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.smb.mssmb2.NegotiateContext;
import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.mssmb2.Smb2Compound;
import io.rdmagate.smb.mssmb2.Smb2Create;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.Smb2Lock;
import io.rdmagate.smb.mssmb2.Smb2Negotiate;
import io.rdmagate.smb.mssmb2.Smb2OplockBreak;
import io.rdmagate.smb.mssmb2.Smb2Read;
import io.rdmagate.smb.mssmb2.Smb2TreeConnect;
import io.rdmagate.smb.mssmb2.Smb2Write;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class Smb2CodecTest {

    static ByteBuffer request(int command, int bodyCapacity) {
        ByteBuffer m = ByteBuffer.allocate(64 + bodyCapacity).order(ByteOrder.LITTLE_ENDIAN);
        Smb2Header.writeRequest(m, command, 1, 1, 0, 5, 3, 9);
        return m;
    }

    @Test
    void headerFieldsReadBackAsWritten() {
        ByteBuffer m = request(Smb2Command.CREATE, 0);
        assertTrue(Smb2Header.check(m));
        assertEquals(Smb2Command.CREATE, Smb2Header.command(m));
        assertEquals(5, Smb2Header.messageId(m));
        assertEquals(3, Smb2Header.treeId(m));
        assertEquals(9, Smb2Header.sessionId(m));
        assertFalse(Smb2Header.isAsync(m));
        m.putInt(0, 0x424D53FF);
        assertFalse(Smb2Header.check(m));
        assertFalse(Smb2Header.check(ByteBuffer.allocate(63).order(ByteOrder.LITTLE_ENDIAN)));
    }

    @Test
    void negotiateWithContextsRoundTrips() throws Exception {
        ByteBuffer m = request(Smb2Command.NEGOTIATE, 200);
        int b = 64;
        m.putShort(b, (short) 36).putShort(b + 2, (short) 3).putShort(b + 4, (short) 1).putInt(b + 8, 0x7f);
        m.putShort(b + 36, (short) 0x0210).putShort(b + 38, (short) 0x0300).putShort(b + 40, (short) 0x0311);
        int ctx = 112; // 8-aligned after the dialects (106)
        m.putInt(b + 28, ctx).putShort(b + 32, (short) 2);
        NegotiateContext.write(m, ctx, NegotiateContext.PREAUTH_INTEGRITY_CAPABILITIES, new byte[] {1, 0, 2, 0, 1, 0, 9, 9});
        NegotiateContext.write(m, 128, NegotiateContext.ENCRYPTION_CAPABILITIES, new byte[] {2, 0, 2, 0, 1, 0});
        m.limit(128 + 8 + 6);
        Smb2Negotiate.Request r = Smb2Negotiate.decode(m);
        assertEquals(List.of(0x0210, 0x0300, 0x0311), r.dialects());
        assertEquals(2, r.contexts().size());
        assertEquals(List.of(1), r.contexts().get(0).ids());
        assertEquals(List.of(2, 1), r.contexts().get(1).ids());

        ByteBuffer out = ByteBuffer.allocate(512).order(ByteOrder.LITTLE_ENDIAN);
        byte[] sec = Spnego.serverInit();
        int len = Smb2Negotiate.write(out, new Smb2Negotiate.Response(1, Smb2Dialect.SMB_3_1_1, new byte[16], 0, 1 << 20,
                1 << 20, 1 << 20, 0, sec, List.of(new Object[] {1, new byte[] {1, 0, 0, 0, 1, 0}},
                        new Object[] {2, new byte[] {1, 0, 2, 0}})));
        assertEquals(65, out.getShort(64));
        int ctxOff = out.getInt(64 + 60);
        assertEquals(0, ctxOff % 8);
        assertEquals(2, out.getShort(64 + 6));
        assertEquals(sec.length, out.getShort(64 + 58));
        assertEquals(1, out.getShort(ctxOff));
        assertEquals(2, out.getShort(Wire8(ctxOff + 8 + 6)));
        assertTrue(len > ctxOff - 64);
    }

    static int Wire8(int n) {
        return (n + 7) & ~7;
    }

    @Test
    void negotiateWithoutDialectsIsInvalid() {
        ByteBuffer m = request(Smb2Command.NEGOTIATE, 36);
        m.putShort(64, (short) 36);
        Smb2DecodeException e = assertThrows(Smb2DecodeException.class, () -> Smb2Negotiate.decode(m));
        assertEquals(NtStatus.INVALID_PARAMETER, e.status());
        m.putShort(64 + 2, (short) 20); // 20 dialects do not fit
        assertThrows(Smb2DecodeException.class, () -> Smb2Negotiate.decode(m));
    }

    @Test
    void compoundChainsSplitAndBadLinksAreRefused() {
        ByteBuffer f = ByteBuffer.allocate(64 + 8 + 64).order(ByteOrder.LITTLE_ENDIAN);
        Smb2Header.writeRequest(f, Smb2Command.CREATE, 1, 1, 0, 1, 1, 1);
        Smb2Header.setNextCommand(f, 72);
        ByteBuffer second = f.slice(72, 64).order(ByteOrder.LITTLE_ENDIAN);
        Smb2Header.writeRequest(second, Smb2Command.CLOSE, 1, 1, Smb2Header.FLAGS_RELATED_OPERATIONS, 2, 1, 1);
        List<ByteBuffer> parts = Smb2Compound.split(f, 16);
        assertEquals(2, parts.size());
        assertEquals(72, parts.get(0).limit());
        assertEquals(Smb2Command.CLOSE, Smb2Header.command(parts.get(1)));
        assertTrue(Smb2Header.isRelated(parts.get(1)));
        assertNull(Smb2Compound.split(f, 1));
        Smb2Header.setNextCommand(f, 70);
        assertNull(Smb2Compound.split(f, 16));
        Smb2Header.setNextCommand(f, 4096);
        assertNull(Smb2Compound.split(f, 16));
    }

    @Test
    void createWithContextsDecodes() throws Exception {
        ByteBuffer m = request(Smb2Command.CREATE, 300);
        int b = 64;
        byte[] name = "dir\\file.txt".getBytes(StandardCharsets.UTF_16LE);
        m.putShort(b, (short) 57).putInt(b + 4, 2).putInt(b + 24, 0x12019f).putInt(b + 32, 7)
                .putInt(b + 36, Smb2Create.FILE_OPEN_IF).putInt(b + 40, 0x40);
        m.putShort(b + 44, (short) 120).putShort(b + 46, (short) name.length);
        m.put(120, name);
        int ctx = Wire8(120 + name.length);
        ByteBuffer tmp = ByteBuffer.allocate(200).order(ByteOrder.LITTLE_ENDIAN);
        int end = CreateContext.writeList(tmp, 0, List.of(new CreateContext(CreateContext.MXAC, CreateContext.bytes(new byte[0])),
                new CreateContext(CreateContext.QFID, CreateContext.bytes(new byte[0]))));
        m.put(ctx, tmp.array(), 0, end);
        m.putInt(b + 48, ctx).putInt(b + 52, end);
        m.limit(ctx + end);
        Smb2Create.Request r = Smb2Create.decode(m);
        assertEquals("dir\\file.txt", r.name());
        assertEquals(Smb2Create.FILE_OPEN_IF, r.disposition());
        assertEquals(2, r.contexts().size());
        assertTrue(r.context(CreateContext.QFID) != null);
        m.putInt(b + 52, end + 100);
        assertThrows(Smb2DecodeException.class, () -> Smb2Create.decode(m));
        m.putInt(b + 52, end);
        m.putShort(b + 46, (short) 3);
        assertThrows(Smb2DecodeException.class, () -> Smb2Create.decode(m));
    }

    @Test
    void writeDataMustLieInTheMessage() throws Exception {
        ByteBuffer m = request(Smb2Command.WRITE, 48 + 10);
        m.putShort(64, (short) 49).putShort(66, (short) 112).putInt(68, 10).putLong(72, 4096);
        new FileId(1, 2).write(m, 80);
        Smb2Write.Request w = Smb2Write.decode(m);
        assertEquals(10, w.length());
        assertEquals(4096, w.offset());
        assertEquals(new FileId(1, 2), w.fileId());
        m.putInt(68, 11);
        assertThrows(Smb2DecodeException.class, () -> Smb2Write.decode(m));
        m.putInt(68, 10).putShort(66, (short) 64);
        assertThrows(Smb2DecodeException.class, () -> Smb2Write.decode(m));
        m.putInt(68, 0).putShort(66, (short) 112);
        assertEquals(0, Smb2Write.decode(m).length(), "a WRITE of nothing");
        m.putShort(66, (short) 60000); // found by the tree campaign: an empty slice past the message threw
        assertThrows(Smb2DecodeException.class, () -> Smb2Write.decode(m));
    }

    @Test
    void readLockAndTreeConnectDecode() throws Exception {
        ByteBuffer r = request(Smb2Command.READ, 49);
        r.putShort(64, (short) 49).putInt(68, 65536).putLong(72, 10);
        assertEquals(65536, Smb2Read.decode(r).length());
        r.putInt(64 + 36, 1);
        assertThrows(Smb2DecodeException.class, () -> Smb2Read.decode(r));

        ByteBuffer l = request(Smb2Command.LOCK, 48);
        l.putShort(64, (short) 48).putShort(66, (short) 1).putLong(88, 100).putLong(96, 10).putInt(104, Smb2Lock.EXCLUSIVE_LOCK);
        Smb2Lock.Request lr = Smb2Lock.decode(l);
        assertEquals(List.of(new Smb2Lock.Element(100, 10, Smb2Lock.EXCLUSIVE_LOCK)), lr.locks());
        l.putShort(66, (short) 0);
        assertThrows(Smb2DecodeException.class, () -> Smb2Lock.decode(l));
        l.putShort(66, (short) 2);
        assertThrows(Smb2DecodeException.class, () -> Smb2Lock.decode(l));

        byte[] path = "\\\\127.0.0.1\\data".getBytes(StandardCharsets.UTF_16LE);
        ByteBuffer t = request(Smb2Command.TREE_CONNECT, 8 + path.length);
        t.putShort(64, (short) 9).putShort(68, (short) 72).putShort(70, (short) path.length);
        t.put(72, path);
        assertEquals("data", Smb2TreeConnect.decode(t).shareName());
        t.putShort(70, (short) (path.length + 2));
        assertThrows(Smb2DecodeException.class, () -> Smb2TreeConnect.decode(t));
    }

    @Test
    void directoryEntriesAreAlignedAndChained() {
        ByteBuffer b = ByteBuffer.allocate(1024).order(ByteOrder.LITTLE_ENDIAN);
        FileInfo f = new FileInfo(1, 2, 3, 4, 4096, 10, 0x20, 77, 1, false, false);
        DirectoryInfoEncoder e = DirectoryInfoEncoder.begin(b, 8, 300, FileInformationClass.FILE_ID_BOTH_DIRECTORY);
        assertTrue(e.add("a.txt", f, 0));
        assertTrue(e.add("bb", f, 0));
        assertFalse(e.add("this name does not fit any more in the rest of it", f, 0));
        int len = e.finish();
        int next = b.getInt(8);
        assertEquals(0, next % 8);
        assertEquals(Wire8(104 + 10), next);
        assertEquals(0, b.getInt(8 + next));
        assertEquals(77, b.getLong(8 + 96));
        assertEquals(4, b.getInt(8 + next + 60));
        assertEquals(next + 104 + 4, len);
    }

    @Test
    void wildcardsFollowMsFsa() {
        assertTrue(Wildcard.matches("*", "anything"));
        assertTrue(Wildcard.matches("*.TXT", "notes.txt"));
        assertFalse(Wildcard.matches("*.txt", "notes.txt.bak"));
        assertTrue(Wildcard.matches("n?tes.*", "notes.md"));
        assertTrue(Wildcard.matches("<.txt", "a.b.txt"));
        assertTrue(Wildcard.matches("file\"", "file"));
        assertTrue(Wildcard.matches("f>>>", "f1"));
        assertFalse(Wildcard.matches("exact", "exactly"));
        assertFalse(Wildcard.isWild("plain.txt"));
    }

    @Test
    void setInfoDecodersCheckLengths() throws Exception {
        byte[] n = "new.txt".getBytes(StandardCharsets.UTF_16LE);
        ByteBuffer r = ByteBuffer.allocate(20 + n.length).order(ByteOrder.LITTLE_ENDIAN);
        r.put(0, (byte) 1).putInt(16, n.length).put(20, n);
        SetInfoDecoder.Rename rn = SetInfoDecoder.rename(r);
        assertTrue(rn.replaceIfExists());
        assertEquals("new.txt", rn.target());
        r.putInt(16, n.length + 2);
        assertThrows(Smb2DecodeException.class, () -> SetInfoDecoder.rename(r));
        Smb2DecodeException e = assertThrows(Smb2DecodeException.class,
                () -> SetInfoDecoder.basic(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)));
        assertEquals(NtStatus.INFO_LENGTH_MISMATCH, e.status());
    }

    @Test
    void spnegoWrapsAndUnwrapsNtlmssp() throws Exception {
        byte[] init = Spnego.serverInit();
        assertEquals(0x60, init[0] & 0xff);
        byte[] ntlm = "NTLMSSP\0\1\0\0\0".getBytes(StandardCharsets.ISO_8859_1);
        // what a client sends first: InitialContextToken with mechTypes and mechToken
        byte[] mechTypes = Hex.b("300c060a2b06010401823702020a");
        byte[] body = io.rdmagate.smb.msspng.Der.tlv(0x30, io.rdmagate.smb.msspng.Der.tlv(0xa0, mechTypes),
                io.rdmagate.smb.msspng.Der.tlv(0xa2, io.rdmagate.smb.msspng.Der.tlv(0x04, ntlm)));
        byte[] client = io.rdmagate.smb.msspng.Der.tlv(0x60, Hex.b("06062b0601050502"), io.rdmagate.smb.msspng.Der.tlv(0xa0, body));
        Spnego.ClientToken t = Spnego.parse(client);
        assertArrayEquals(ntlm, t.mechToken());
        assertArrayEquals(mechTypes, t.mechTypes());
        Spnego.ClientToken raw = Spnego.parse(ntlm);
        assertTrue(raw.raw());
        byte[] resp = Spnego.response(Spnego.ACCEPT_INCOMPLETE, true, ntlm, null);
        Spnego.ClientToken back = Spnego.parse(resp);
        assertArrayEquals(ntlm, back.mechToken());
        byte[] truncated = java.util.Arrays.copyOf(client, client.length - 3);
        assertThrows(SpnegoException.class, () -> Spnego.parse(truncated));
    }

    @Test
    void spnegoOffersKerberosFirstAndPicksTheClientsFirstSharedMechanism() throws Exception {
        // the NEGOTIATE blob: MS-KRB5, KRB5, NTLMSSP in that order, as Windows sends it
        byte[] init = Spnego.serverInit(true);
        String hex = java.util.HexFormat.of().formatHex(init);
        int ms = hex.indexOf("06092a864882f712010202");
        int krb5 = hex.indexOf("06092a864886f712010202");
        int ntlm = hex.indexOf("060a2b06010401823702020a");
        assertTrue(ms > 0 && krb5 > ms && ntlm > krb5, hex);
        assertTrue(!java.util.HexFormat.of().formatHex(Spnego.serverInit(false)).contains("06092a864886f712010202"));

        // smbclient --use-kerberos=required: MS-KRB5, KRB5 and an optimistic AP-REQ
        byte[] mechTypes = io.rdmagate.smb.msspng.Der.tlv(0x30, Spnego.MS_KRB5_OID, Spnego.KRB5_OID, Spnego.NTLMSSP_OID);
        byte[] apReq = {0x60, 0x01, 0x00};
        byte[] body = io.rdmagate.smb.msspng.Der.tlv(0x30, io.rdmagate.smb.msspng.Der.tlv(0xa0, mechTypes),
                io.rdmagate.smb.msspng.Der.tlv(0xa2, io.rdmagate.smb.msspng.Der.tlv(0x04, apReq)));
        Spnego.ClientToken t = Spnego.parse(io.rdmagate.smb.msspng.Der.tlv(0x60, Hex.b("06062b0601050502"),
                io.rdmagate.smb.msspng.Der.tlv(0xa0, body)));
        assertEquals(3, t.mechs().size());
        assertArrayEquals(Spnego.MS_KRB5_OID, Spnego.choose(t.mechs(), true));
        assertArrayEquals(Spnego.NTLMSSP_OID, Spnego.choose(t.mechs(), false), "without Kerberos, NTLMSSP from the list");
        assertEquals(null, Spnego.choose(java.util.List.of(Spnego.KRB5_OID), false), "nothing shared");
        // the answer names the mechanism as the client did
        byte[] resp = Spnego.response(Spnego.ACCEPT_COMPLETED, Spnego.MS_KRB5_OID, new byte[] {1, 2}, null);
        assertTrue(java.util.HexFormat.of().formatHex(resp).contains("a10b06092a864882f712010202"));
        byte[] notOids = io.rdmagate.smb.msspng.Der.tlv(0x30, io.rdmagate.smb.msspng.Der.tlv(0xa0,
                io.rdmagate.smb.msspng.Der.tlv(0x30, io.rdmagate.smb.msspng.Der.tlv(0x04, new byte[] {1}))));
        assertThrows(SpnegoException.class, () -> Spnego.parse(io.rdmagate.smb.msspng.Der.tlv(0x60,
                Hex.b("06062b0601050502"), io.rdmagate.smb.msspng.Der.tlv(0xa0, notOids))));
    }

    @Test
    void fileTimeAndSecurityDescriptor() {
        assertEquals(FileTime.EPOCH_DIFF, FileTime.fromUnixNanos(0));
        assertEquals(1_000_000_000L, FileTime.toUnixNanos(FileTime.fromUnixNanos(1_000_000_000L)));
        assertEquals("S-1-22-1-1000", Sid.unixUser(1000).toString());
        byte[] sd = SecurityDescriptor.fromMode(Sid.unixUser(1000), Sid.unixGroup(1000), 0644).encode();
        ByteBuffer b = ByteBuffer.wrap(sd).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(1, b.get(0));
        assertEquals(20, b.getInt(4));
        int dacl = b.getInt(16);
        assertEquals(3, b.getShort(dacl + 4));
        assertEquals(sd.length, dacl + (b.getShort(dacl + 2) & 0xffff));
    }

    @Test
    void oplockBreakNotificationAndAckFollowMsSmb2() throws Exception {
        ByteBuffer n = Smb2OplockBreak.notification(Smb2Create.OPLOCK_LEVEL_II, new FileId(7, 8));
        assertEquals(64 + 24, n.limit());
        assertTrue(Smb2Header.check(n));
        assertEquals(Smb2Command.OPLOCK_BREAK, Smb2Header.command(n));
        assertEquals(-1L, Smb2Header.messageId(n)); // MS-SMB2 2.2.23.1
        assertEquals(0L, Smb2Header.sessionId(n));
        assertEquals(Smb2Header.FLAGS_SERVER_TO_REDIR, Smb2Header.flags(n));
        assertEquals(24, n.getShort(64));
        assertEquals(Smb2Create.OPLOCK_LEVEL_II, n.get(66));
        assertEquals(new FileId(7, 8), FileId.read(n, 72));

        ByteBuffer ack = request(Smb2Command.OPLOCK_BREAK, 24);
        Smb2OplockBreak.write(ack, 0, new FileId(1, 2));
        Smb2OplockBreak.Ack a = Smb2OplockBreak.decode(ack);
        assertFalse(a.lease());
        assertEquals(0, a.oplockLevel());
        assertEquals(new FileId(1, 2), a.fileId());
        ByteBuffer bad = request(Smb2Command.OPLOCK_BREAK, 24);
        bad.putShort(64, (short) 25);
        assertThrows(Smb2DecodeException.class, () -> Smb2OplockBreak.decode(bad));
        ByteBuffer shortAck = request(Smb2Command.OPLOCK_BREAK, 24).limit(64 + 20);
        shortAck.putShort(64, (short) 24);
        assertThrows(Smb2DecodeException.class, () -> Smb2OplockBreak.decode(shortAck));
    }
}
