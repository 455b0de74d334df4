package io.rdmagate.smb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.msnlmp.NtlmCrypto;
import io.rdmagate.smb.msnlmp.NtlmException;
import io.rdmagate.smb.msnlmp.NtlmServer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import org.bouncycastle.crypto.digests.MD4Digest;
import org.junit.jupiter.api.Test;

/** MS-NLMP 4.2.4 (NTLMv2 authentication) worked example, and whole exchanges against NtlmServer. */
class NtlmTest {
    static final byte[] SERVER_CHALLENGE = Hex.b("0123456789abcdef");
    // MS-NLMP 4.2.4.2.2 temp: 0101 0000 0000 0000, time 0, client challenge aa*8, 0, AV pairs, 0
    static final byte[] TEMP = Hex.b("0101000000000000 0000000000000000 aaaaaaaaaaaaaaaa 00000000"
            + "02000c0044006f006d00610069006e00 01000c005300650072007600650072000000 0000 00000000");

    static byte[] ntHash(String password) {
        byte[] p = password.getBytes(StandardCharsets.UTF_16LE);
        MD4Digest d = new MD4Digest();
        d.update(p, 0, p.length);
        byte[] out = new byte[16];
        d.doFinal(out, 0);
        return out;
    }

    @Test
    void ntHashOfPassword() {
        // MS-NLMP 4.2.2.1.2
        assertEquals("a4f49c406510bdcab6824ee7c30fd852", Hex.s(ntHash("Password")));
    }

    @Test
    void ntowfV2FromTheStoredHash() {
        // MS-NLMP 4.2.4.1.1
        assertEquals("0c868a403bfd7a93a3001ef22ef02e3f", Hex.s(NtlmCrypto.ntowfV2(ntHash("Password"), "User", "Domain")));
    }

    @Test
    void ntProofStrAndSessionBaseKey() {
        byte[] key = NtlmCrypto.ntowfV2(ntHash("Password"), "User", "Domain");
        byte[] proof = NtlmCrypto.ntProofStr(key, SERVER_CHALLENGE, TEMP);
        // MS-NLMP 4.2.4.2.2 (first 16 bytes of the NTLMv2 response)
        assertEquals("68cd0ab851e51c96aabc927bebef6a1c", Hex.s(proof));
        // MS-NLMP 4.2.4.1.2
        assertEquals("8de40ccadbc14a82f15cb0ad0de95ca3", Hex.s(NtlmCrypto.sessionBaseKey(key, proof)));
    }

    @Test
    void keyExchangeUnwrapsTheRandomSessionKey() {
        // MS-NLMP 4.2.4.2.3: RC4(SessionBaseKey, 55*16) = c5dad2544fc9799094ce1ce90bc9d03e
        byte[] base = Hex.b("8de40ccadbc14a82f15cb0ad0de95ca3");
        assertEquals("c5dad2544fc9799094ce1ce90bc9d03e", Hex.s(NtlmCrypto.rc4(base, Hex.b("55555555555555555555555555555555"))));
        assertEquals("55555555555555555555555555555555", Hex.s(NtlmCrypto.rc4(base, Hex.b("c5dad2544fc9799094ce1ce90bc9d03e"))));
    }

    /** A minimal NTLMv2 client, written from MS-NLMP 3.1.5.1.2, to drive the server. */
    static byte[] authenticate(byte[] negotiate, byte[] challenge, String user, String domain, String password,
            byte[] randomSessionKey, boolean withMic) {
        ByteBuffer c = ByteBuffer.wrap(challenge).order(ByteOrder.LITTLE_ENDIAN);
        byte[] sc = java.util.Arrays.copyOfRange(challenge, 24, 32);
        int tiLen = c.getShort(40) & 0xffff;
        int tiOff = c.getInt(44);
        byte[] ti = java.util.Arrays.copyOfRange(challenge, tiOff, tiOff + tiLen - 4); // without EOL
        ByteBuffer temp = ByteBuffer.allocate(28 + ti.length + 8 + 4 + 4).order(ByteOrder.LITTLE_ENDIAN);
        temp.put((byte) 1).put((byte) 1).putShort((short) 0).putInt(0).putLong(0).put(Hex.b("aaaaaaaaaaaaaaaa")).putInt(0);
        temp.put(ti);
        if (withMic) {
            temp.putShort((short) 6).putShort((short) 4).putInt(2);
        }
        temp.putInt(0).putInt(0);
        byte[] t = java.util.Arrays.copyOf(temp.array(), temp.position());
        byte[] key = NtlmCrypto.ntowfV2(ntHash(password), user, domain);
        byte[] proof = NtlmCrypto.ntProofStr(key, sc, t);
        byte[] base = NtlmCrypto.sessionBaseKey(key, proof);
        byte[] nt = new byte[16 + t.length];
        System.arraycopy(proof, 0, nt, 0, 16);
        System.arraycopy(t, 0, nt, 16, t.length);
        byte[] d = domain.getBytes(StandardCharsets.UTF_16LE);
        byte[] u = user.getBytes(StandardCharsets.UTF_16LE);
        byte[] enc = NtlmCrypto.rc4(base, randomSessionKey);
        int off = 88;
        ByteBuffer m = ByteBuffer.allocate(off + 24 + nt.length + d.length + u.length + 16).order(ByteOrder.LITTLE_ENDIAN);
        m.put("NTLMSSP\0".getBytes(StandardCharsets.US_ASCII)).putInt(3);
        int p = off;
        m.putShort(12, (short) 24).putShort(14, (short) 24).putInt(16, p);
        p += 24;
        m.putShort(20, (short) nt.length).putShort(22, (short) nt.length).putInt(24, p);
        m.put(p, nt);
        p += nt.length;
        m.putShort(28, (short) d.length).putShort(30, (short) d.length).putInt(32, p);
        m.put(p, d);
        p += d.length;
        m.putShort(36, (short) u.length).putShort(38, (short) u.length).putInt(40, p);
        m.put(p, u);
        p += u.length;
        m.putShort(44, (short) 0).putShort(46, (short) 0).putInt(48, p);
        m.putShort(52, (short) 16).putShort(54, (short) 16).putInt(56, p);
        m.put(p, enc);
        m.putInt(60, NtlmServer.NEGOTIATE_KEY_EXCH | NtlmServer.NEGOTIATE_UNICODE | NtlmServer.NEGOTIATE_SIGN
                | NtlmServer.NEGOTIATE_EXTENDED_SESSIONSECURITY | NtlmServer.NEGOTIATE_128);
        byte[] msg = m.array();
        if (withMic) {
            byte[] mic = NtlmCrypto.hmacMd5(randomSessionKey, negotiate, challenge, msg);
            System.arraycopy(mic, 0, msg, 72, 16);
        }
        return msg;
    }

    static byte[] negotiate() {
        ByteBuffer n = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        n.put("NTLMSSP\0".getBytes(StandardCharsets.US_ASCII)).putInt(1)
                .putInt(NtlmServer.NEGOTIATE_KEY_EXCH | NtlmServer.NEGOTIATE_UNICODE | NtlmServer.NEGOTIATE_SIGN
                        | NtlmServer.NEGOTIATE_128 | NtlmServer.NEGOTIATE_EXTENDED_SESSIONSECURITY);
        return n.array();
    }

    @Test
    void rightPasswordYieldsTheClientsExportedKey() throws Exception {
        NtlmServer s = new NtlmServer("RDMAGATE", "WORKGROUP", new SecureRandom());
        byte[] neg = negotiate();
        byte[] ch = s.challenge(neg);
        byte[] rsk = Hex.b("00112233445566778899aabbccddeeff");
        byte[] auth = authenticate(neg, ch, "alice", "WORKGROUP", "secret", rsk, true);
        NtlmServer.Result r = s.authenticate(auth, u -> u.equalsIgnoreCase("ALICE") ? ntHash("secret") : null);
        assertEquals("alice", r.user());
        assertFalse(r.anonymous());
        assertArrayEquals(rsk, r.sessionKey());
        byte[] mechTypes = Hex.b("300c060a2b06010401823702020a");
        byte[] clientMic = NtlmCrypto.mac(rsk, true, 0, mechTypes, true);
        assertTrue(s.verifyMic(mechTypes, clientMic));
        assertFalse(s.verifyMic(Hex.b("3000"), clientMic));
    }

    @Test
    void wrongPasswordIsALogonFailure() throws Exception {
        NtlmServer s = new NtlmServer("RDMAGATE", "WORKGROUP", new SecureRandom());
        byte[] neg = negotiate();
        byte[] ch = s.challenge(neg);
        byte[] auth = authenticate(neg, ch, "alice", "WORKGROUP", "guess", new byte[16], false);
        NtlmException e = assertThrows(NtlmException.class, () -> s.authenticate(auth, u -> ntHash("secret")));
        assertFalse(e.malformed());
    }

    @Test
    void tamperedMicIsRefused() throws Exception {
        NtlmServer s = new NtlmServer("RDMAGATE", "WORKGROUP", new SecureRandom());
        byte[] neg = negotiate();
        byte[] ch = s.challenge(neg);
        byte[] auth = authenticate(neg, ch, "alice", "WORKGROUP", "secret", new byte[16], true);
        auth[80] ^= 1;
        assertThrows(NtlmException.class, () -> s.authenticate(auth, u -> ntHash("secret")));
    }

    @Test
    void fieldsOutsideTheMessageAreMalformed() throws Exception {
        NtlmServer s = new NtlmServer("RDMAGATE", "WORKGROUP", new SecureRandom());
        byte[] neg = negotiate();
        byte[] ch = s.challenge(neg);
        byte[] auth = authenticate(neg, ch, "alice", "WORKGROUP", "secret", new byte[16], false);
        ByteBuffer.wrap(auth).order(ByteOrder.LITTLE_ENDIAN).putInt(24, 60000);
        NtlmException e = assertThrows(NtlmException.class, () -> s.authenticate(auth, u -> ntHash("secret")));
        assertTrue(e.malformed());
        assertThrows(NtlmException.class, () -> new NtlmServer("a", "b", new SecureRandom()).challenge(new byte[8]));
    }
}
