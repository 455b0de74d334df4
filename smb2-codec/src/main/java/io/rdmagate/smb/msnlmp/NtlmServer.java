package io.rdmagate.smb.msnlmp;

import io.rdmagate.smb.msdtyp.FileTime;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.function.Function;

/**
 * The server side of one NTLMSSP exchange (MS-NLMP 3.2.5): NEGOTIATE → CHALLENGE → AUTHENTICATE,
 * NTLMv2 only, with session key exchange and the MIC.
 *
 * <p>Accepts: messages with the "NTLMSSP\0" signature and the right type; AUTHENTICATE whose
 * fields lie inside the message, an NTLMv2 response (at least 16 + 28 bytes), or an empty response
 * with an empty user name (anonymous). Refuses (malformed): anything truncated or out of bounds.
 * Refuses (logon failure): NTLMv1 responses, unknown users, a wrong NTProofStr, a wrong MIC.
 */
public final class NtlmServer {
    public static final int NEGOTIATE_UNICODE = 0x1;
    public static final int REQUEST_TARGET = 0x4;
    public static final int NEGOTIATE_SIGN = 0x10;
    public static final int NEGOTIATE_SEAL = 0x20;
    public static final int NEGOTIATE_NTLM = 0x200;
    public static final int NEGOTIATE_ANONYMOUS = 0x800;
    public static final int NEGOTIATE_ALWAYS_SIGN = 0x8000;
    public static final int TARGET_TYPE_SERVER = 0x20000;
    public static final int NEGOTIATE_EXTENDED_SESSIONSECURITY = 0x80000;
    public static final int NEGOTIATE_TARGET_INFO = 0x800000;
    public static final int NEGOTIATE_VERSION = 0x2000000;
    public static final int NEGOTIATE_128 = 0x20000000;
    public static final int NEGOTIATE_KEY_EXCH = 0x40000000;
    public static final int NEGOTIATE_56 = 0x80000000;

    private static final byte[] SIGNATURE = {'N', 'T', 'L', 'M', 'S', 'S', 'P', 0};

    private final String computerName;
    private final String domainName;
    private final SecureRandom random;
    private byte[] negotiateMessage;
    private byte[] challengeMessage;
    private byte[] serverChallenge;
    private int flags;
    private byte[] exportedSessionKey;

    private volatile String attemptedUser;
    private volatile String attemptedDomain;

    public NtlmServer(String computerName, String domainName, SecureRandom random) {
        this.computerName = computerName;
        this.domainName = domainName;
        this.random = random;
    }

    /** The outcome of a successful AUTHENTICATE. */
    public record Result(String user, String domain, boolean anonymous, byte[] sessionKey) {
    }

    static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static void checkHeader(byte[] m, int type, int minLength) throws NtlmException {
        if (m == null || m.length < minLength || !java.util.Arrays.equals(m, 0, 8, SIGNATURE, 0, 8)) {
            throw new NtlmException("not an NTLMSSP message", true);
        }
        int t = le(m).getInt(8);
        if (t != type) {
            throw new NtlmException("NTLMSSP message type " + t + ", expected " + type, true);
        }
    }

    /** MS-NLMP 3.2.5.1.1: answers NEGOTIATE with a CHALLENGE (2.2.1.2). */
    public byte[] challenge(byte[] negotiate) throws NtlmException {
        checkHeader(negotiate, 1, 16);
        negotiateMessage = negotiate.clone();
        int clientFlags = le(negotiate).getInt(12);
        flags = NEGOTIATE_UNICODE | REQUEST_TARGET | NEGOTIATE_NTLM | NEGOTIATE_ALWAYS_SIGN | TARGET_TYPE_SERVER
                | NEGOTIATE_EXTENDED_SESSIONSECURITY | NEGOTIATE_TARGET_INFO | NEGOTIATE_VERSION
                | (clientFlags & (NEGOTIATE_SIGN | NEGOTIATE_SEAL | NEGOTIATE_128 | NEGOTIATE_56 | NEGOTIATE_KEY_EXCH));
        serverChallenge = new byte[8];
        random.nextBytes(serverChallenge);
        byte[] target = domainName.getBytes(StandardCharsets.UTF_16LE);
        byte[] info = targetInfo();
        int payload = 56;
        ByteBuffer b = ByteBuffer.allocate(payload + target.length + info.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(SIGNATURE).putInt(2);
        b.putShort((short) target.length).putShort((short) target.length).putInt(payload);
        b.putInt(flags).put(serverChallenge).putLong(0);
        b.putShort((short) info.length).putShort((short) info.length).putInt(payload + target.length);
        // Version: 10.0 build 20348, NTLMSSP revision 15
        b.put((byte) 10).put((byte) 0).putShort((short) 20348).put(new byte[] {0, 0, 0, 15});
        b.put(target).put(info);
        challengeMessage = b.array();
        return challengeMessage.clone();
    }

    private byte[] targetInfo() {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        avPair(o, 2, domainName.getBytes(StandardCharsets.UTF_16LE));
        avPair(o, 1, computerName.getBytes(StandardCharsets.UTF_16LE));
        avPair(o, 4, domainName.toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.UTF_16LE));
        avPair(o, 3, computerName.toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.UTF_16LE));
        byte[] ts = new byte[8];
        le(ts).putLong(FileTime.fromUnixNanos(System.currentTimeMillis() * 1_000_000L));
        avPair(o, 7, ts);
        avPair(o, 0, new byte[0]);
        return o.toByteArray();
    }

    private static void avPair(ByteArrayOutputStream o, int id, byte[] value) {
        o.write(id);
        o.write(id >> 8);
        o.write(value.length);
        o.write(value.length >> 8);
        o.writeBytes(value);
    }

    /** For tests: the challenge this exchange uses. */
    public byte[] serverChallenge() {
        return serverChallenge.clone();
    }

    private static byte[] field(byte[] m, int at) throws NtlmException {
        ByteBuffer b = le(m);
        int len = b.getShort(at) & 0xffff;
        long off = b.getInt(at + 4) & 0xffffffffL;
        if (len == 0) {
            return new byte[0];
        }
        if (off + len > m.length || off < 64) {
            throw new NtlmException("AUTHENTICATE field at " + off + " of " + len + " bytes leaves the message", true);
        }
        return java.util.Arrays.copyOfRange(m, (int) off, (int) off + len);
    }

    /** The user name the last AUTHENTICATE named (for the log of a failed logon), or null before one. */
    public String attemptedUser() {
        return attemptedUser;
    }

    /** The domain the last AUTHENTICATE named, or null before one. */
    public String attemptedDomain() {
        return attemptedDomain;
    }

    /**
     * MS-NLMP 3.2.5.1.2: checks AUTHENTICATE (2.2.1.3). {@code ntHashOf} gives a user's stored NT
     * hash (case-insensitive user name), or null for an unknown user.
     */
    public Result authenticate(byte[] m, Function<String, byte[]> ntHashOf) throws NtlmException {
        if (challengeMessage == null) {
            throw new NtlmException("AUTHENTICATE before CHALLENGE", true);
        }
        checkHeader(m, 3, 64);
        byte[] lm = field(m, 12);
        byte[] nt = field(m, 20);
        String domain = new String(field(m, 28), StandardCharsets.UTF_16LE);
        String user = new String(field(m, 36), StandardCharsets.UTF_16LE);
        attemptedDomain = domain;
        attemptedUser = user;
        byte[] encryptedKey = field(m, 52);
        int authFlags = le(m).getInt(60);
        if (nt.length == 0 && user.isEmpty()) {
            exportedSessionKey = new byte[16];
            return new Result("", domain, true, exportedSessionKey.clone());
        }
        if (nt.length <= 24) {
            throw new NtlmException("NTLMv1 response from " + user + " refused", false);
        }
        if (nt.length < 16 + 28) {
            throw new NtlmException("NTLMv2 response of " + nt.length + " bytes", true);
        }
        byte[] ntHash = ntHashOf.apply(user);
        byte[] hash = ntHash != null ? ntHash : new byte[16];
        byte[] proof = java.util.Arrays.copyOf(nt, 16);
        byte[] temp = java.util.Arrays.copyOfRange(nt, 16, nt.length);
        byte[] key = NtlmCrypto.ntowfV2(hash, user, domain);
        byte[] expect = NtlmCrypto.ntProofStr(key, serverChallenge, temp);
        boolean ok = MessageDigest.isEqual(expect, proof);
        if (!ok) {
            // some clients compute NTOWFv2 with an empty domain
            key = NtlmCrypto.ntowfV2(hash, user, "");
            ok = MessageDigest.isEqual(NtlmCrypto.ntProofStr(key, serverChallenge, temp), proof);
        }
        if (!ok || ntHash == null) {
            throw new NtlmException("wrong password or unknown user " + user, false);
        }
        byte[] base = NtlmCrypto.sessionBaseKey(key, proof);
        if ((authFlags & NEGOTIATE_KEY_EXCH) != 0 && (flags & NEGOTIATE_KEY_EXCH) != 0 && encryptedKey.length == 16) {
            exportedSessionKey = NtlmCrypto.rc4(base, encryptedKey);
        } else {
            exportedSessionKey = base;
        }
        flags = (flags & ~NEGOTIATE_KEY_EXCH) | (authFlags & NEGOTIATE_KEY_EXCH);
        if (micPresent(temp)) {
            if (m.length < 88) {
                throw new NtlmException("AUTHENTICATE too short for its MIC", true);
            }
            byte[] mic = java.util.Arrays.copyOfRange(m, 72, 88);
            byte[] zeroed = m.clone();
            java.util.Arrays.fill(zeroed, 72, 88, (byte) 0);
            byte[] want = NtlmCrypto.hmacMd5(exportedSessionKey, negotiateMessage, challengeMessage, zeroed);
            if (!MessageDigest.isEqual(mic, want)) {
                throw new NtlmException("AUTHENTICATE MIC does not verify for " + user, false);
            }
        }
        java.util.Arrays.fill(lm, (byte) 0);
        return new Result(user, domain, false, exportedSessionKey.clone());
    }

    /** Whether the client's blob carries MsvAvFlags with bit 0x2 (a MIC is present). */
    static boolean micPresent(byte[] temp) {
        ByteBuffer b = le(temp);
        int at = 28;
        while (at + 4 <= temp.length) {
            int id = b.getShort(at) & 0xffff;
            int len = b.getShort(at + 2) & 0xffff;
            if (id == 0 || at + 4 + len > temp.length) {
                return false;
            }
            if (id == 6 && len == 4) {
                return (b.getInt(at + 4) & 0x2) != 0;
            }
            at += 4 + len;
        }
        return false;
    }

    public boolean keyExchange() {
        return (flags & NEGOTIATE_KEY_EXCH) != 0;
    }

    /** Verifies the client's SPNEGO mechListMIC (sequence 0, client-to-server keys). */
    public boolean verifyMic(byte[] message, byte[] mic) {
        return MessageDigest.isEqual(NtlmCrypto.mac(exportedSessionKey, true, 0, message, keyExchange()), mic);
    }

    /** The server's mechListMIC (sequence 0, server-to-client keys). */
    public byte[] mic(byte[] message) {
        return NtlmCrypto.mac(exportedSessionKey, false, 0, message, keyExchange());
    }
}
