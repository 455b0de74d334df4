package io.rdmagate.smb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.msfscc.SetInfoDecoder;
import io.rdmagate.smb.msnlmp.NtlmException;
import io.rdmagate.smb.msnlmp.NtlmServer;
import io.rdmagate.smb.msspng.Der;
import io.rdmagate.smb.msspng.Spnego;
import io.rdmagate.smb.msspng.SpnegoException;
import io.rdmagate.smb.mssmb2.CreateContext;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The parsers that read what an unauthenticated client sends, each driven on its own by a
 * fixed-seed, structure-aware mutation campaign: SPNEGO tokens (DER: tags, short and long-form
 * lengths, nesting), NTLMSSP NEGOTIATE and AUTHENTICATE (MS-NLMP 2.2.1: every security buffer's
 * length, maximum and offset), SMB2 create context lists (MS-SMB2 2.2.13.2: Next, name and data
 * offsets) and the SET_INFO buffers (MS-FSCC 2.4). Whatever the bytes, a parser returns a value
 * within the input or refuses with its own exception (the server turns it into a status); never
 * another exception, and never an allocation beyond the input. A mutated AUTHENTICATE never logs
 * on anyone but the user whose hash signed it, or the anonymous user.
 * {@code -Drdmagate.fuzz.rounds=N} sets the number of inputs per parser for a long run.
 */
class SecurityTokenFuzzTest {
    private static final int ROUNDS = Integer.getInteger("rdmagate.fuzz.rounds", 20_000);

    /** Outcomes per parser, printed for a long run's record. */
    private final Map<String, Integer> outcomes = new TreeMap<>();

    private void count(String what) {
        outcomes.merge(what, 1, Integer::sum);
    }

    @Test
    void mutatedSpnegoTokensAreParsedOrRefused() {
        byte[] ntlm = NtlmTest.negotiate();
        byte[] mechTypes = Der.tlv(0x30, Spnego.NTLMSSP_OID);
        byte[] init = Der.tlv(0x60, Hex.b("06062b0601050502"), Der.tlv(0xa0, Der.tlv(0x30, Der.tlv(0xa0, mechTypes),
                Der.tlv(0xa2, Der.tlv(0x04, ntlm)), Der.tlv(0xa3, Der.tlv(0x04, new byte[16])))));
        List<byte[]> seeds = List.of(init, Spnego.response(Spnego.ACCEPT_INCOMPLETE, true, ntlm, new byte[16]),
                Spnego.response(Spnego.ACCEPT_COMPLETED, false, null, null), Spnego.serverInit());
        Random rnd = new Random(0x5e9e60L);
        for (int i = 0; i < ROUNDS; i++) {
            byte[] b = Mutator.der(rnd, seeds.get(rnd.nextInt(seeds.size())));
            try {
                Spnego.ClientToken t = Spnego.parse(b);
                within(b, t.mechToken());
                within(b, t.mechTypes());
                within(b, t.mechListMic());
                count("spnego parsed");
            } catch (SpnegoException e) {
                count("spnego refused");
            }
        }
        assertTrue(outcomes.getOrDefault("spnego parsed", 0) > ROUNDS / 50, "mutations still reach the parser's end: " + outcomes);
        assertTrue(outcomes.getOrDefault("spnego refused", 0) > ROUNDS / 50, outcomes.toString());
        System.out.println("SPNEGO campaign: " + outcomes);
    }

    @Test
    void mutatedNtlmsspMessagesAreAnsweredOrRefusedAndLogOnNobodyElse() throws Exception {
        byte[] hash = NtlmTest.ntHash("secret");
        Random rnd = new Random(0x41c0deL);
        for (int i = 0; i < ROUNDS; i++) {
            NtlmServer s = new NtlmServer("RDMAGATE", "WORKGROUP", new SecureRandom(new byte[] {(byte) i}));
            byte[] neg = NtlmTest.negotiate();
            boolean mutateNegotiate = rnd.nextInt(4) == 0;
            byte[] ch;
            try {
                ch = s.challenge(mutateNegotiate ? Mutator.ntlm(rnd, neg) : neg);
            } catch (NtlmException e) {
                count("negotiate refused");
                continue;
            }
            byte[] auth = NtlmTest.authenticate(neg, ch, "alice", "WORKGROUP", "secret", new byte[16], rnd.nextBoolean());
            byte[] m = Mutator.ntlm(rnd, auth);
            try {
                NtlmServer.Result r = s.authenticate(m, u -> u.equalsIgnoreCase("alice") ? hash : null);
                assertTrue(r.anonymous() && r.user().isEmpty() || r.user().equalsIgnoreCase("alice"),
                        "a mutated AUTHENTICATE logged on " + r.user());
                assertEquals(16, r.sessionKey().length);
                count(r.anonymous() ? "authenticate anonymous" : "authenticate alice");
            } catch (NtlmException e) {
                count("authenticate refused");
            }
        }
        assertTrue(outcomes.getOrDefault("authenticate refused", 0) > ROUNDS / 10, outcomes.toString());
        System.out.println("NTLMSSP campaign: " + outcomes);
    }

    @Test
    void mutatedCreateContextListsAndSetInfoBuffersAreDecodedOrRefused() {
        List<CreateContext> contexts = List.of(new CreateContext(CreateContext.RQLS, CreateContext.bytes(new byte[52])),
                new CreateContext(CreateContext.DH2Q, CreateContext.bytes(new byte[32])),
                new CreateContext(CreateContext.MXAC, CreateContext.bytes(new byte[0])),
                new CreateContext(CreateContext.QFID, CreateContext.bytes(new byte[0])));
        ByteBuffer list = ByteBuffer.allocate(CreateContext.listLength(contexts)).order(ByteOrder.LITTLE_ENDIAN);
        CreateContext.writeList(list, 0, contexts);
        byte[] seed = list.array();
        byte[] name = "dir\\new name.txt".getBytes(StandardCharsets.UTF_16LE);
        ByteBuffer rename = ByteBuffer.allocate(20 + name.length).order(ByteOrder.LITTLE_ENDIAN);
        rename.put(0, (byte) 1).putInt(16, name.length).put(20, name);
        byte[] renameSeed = rename.array();
        byte[] basicSeed = new byte[40];
        Random rnd = new Random(0xcc0de7L);
        for (int i = 0; i < ROUNDS; i++) {
            byte[] b = Mutator.fields(rnd, seed, 4);
            try {
                for (CreateContext c : CreateContext.decodeList(ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN))) {
                    assertTrue(c.name().length() <= b.length && c.data().remaining() <= b.length);
                }
                count("create contexts decoded");
            } catch (Smb2DecodeException e) {
                count("create contexts refused");
            }
            byte[] r = Mutator.fields(rnd, rnd.nextBoolean() ? renameSeed : basicSeed, 4);
            try {
                ByteBuffer in = ByteBuffer.wrap(r).order(ByteOrder.LITTLE_ENDIAN);
                switch (rnd.nextInt(4)) {
                    case 0 -> assertTrue(SetInfoDecoder.rename(in).target().length() <= r.length);
                    case 1 -> SetInfoDecoder.link(in);
                    case 2 -> SetInfoDecoder.basic(in);
                    default -> SetInfoDecoder.disposition(in);
                }
                count("set info decoded");
            } catch (Smb2DecodeException e) {
                count("set info refused");
            }
        }
        assertTrue(outcomes.getOrDefault("create contexts decoded", 0) > ROUNDS / 50, outcomes.toString());
        assertTrue(outcomes.getOrDefault("create contexts refused", 0) > ROUNDS / 50, outcomes.toString());
        System.out.println("create context and SET_INFO campaign: " + outcomes);
    }

    /** What a parser returns lies within its input: it never makes bytes up or allocates past it. */
    private static void within(byte[] input, byte[] part) {
        assertTrue(part == null || part.length <= input.length, "a part longer than its input");
    }

    /** Structure-aware mutations, each a few at a time. */
    static final class Mutator {
        private static final int[] INTERESTING8 = {0x00, 0x01, 0x7f, 0x80, 0x81, 0x82, 0x83, 0x84, 0x88, 0xff};
        private static final long[] INTERESTING32 = {0, 1, 7, 8, 15, 16, 0x7f, 0x80, 0xff, 0xfff0, 0xffff, 0x10000,
                0x7fffffffL, 0x80000000L, 0xfffffff0L, 0xffffffffL};

        private Mutator() {
        }

        /** DER: length octets replaced (short form, long form up to 8 octets, indefinite), tags, cuts, splices. */
        static byte[] der(Random rnd, byte[] seed) {
            byte[] b = seed.clone();
            int n = 1 + rnd.nextInt(3);
            for (int k = 0; k < n && b.length > 0; k++) {
                int at = rnd.nextInt(b.length);
                switch (rnd.nextInt(6)) {
                    case 0 -> b[at] = (byte) INTERESTING8[rnd.nextInt(INTERESTING8.length)];
                    case 1 -> b[at] ^= (byte) (1 << rnd.nextInt(8));
                    case 2 -> b = longLength(rnd, b, at);
                    case 3 -> b = java.util.Arrays.copyOf(b, at);
                    case 4 -> b = splice(rnd, b, at);
                    default -> b[at] = (byte) new int[] {0x02, 0x04, 0x06, 0x30, 0x60, 0xa0, 0xa1, 0xa2, 0xa3}[rnd.nextInt(9)];
                }
            }
            return b;
        }

        /** NTLMSSP: a security buffer's length, maximum or offset (MS-NLMP 2.2.2.5) set to an edge, or bytes changed. */
        static byte[] ntlm(Random rnd, byte[] seed) {
            byte[] b = seed.clone();
            ByteBuffer m = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            int n = 1 + rnd.nextInt(3);
            for (int k = 0; k < n; k++) {
                int field = 12 + 8 * rnd.nextInt(6); // LM, NT, domain, user, workstation, key (or the NEGOTIATE's own)
                switch (rnd.nextInt(5)) {
                    case 0 -> put16(m, field, rnd);
                    case 1 -> put16(m, field + 2, rnd);
                    case 2 -> put32(m, field + 4, rnd);
                    case 3 -> {
                        if (b.length > 0) {
                            b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
                        }
                    }
                    default -> {
                        b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length + 1));
                        m = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
                    }
                }
            }
            return b;
        }

        /** Little-endian fields at every {@code stride}: edge values, flips, cuts. */
        static byte[] fields(Random rnd, byte[] seed, int stride) {
            byte[] b = seed.clone();
            ByteBuffer m = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            int n = 1 + rnd.nextInt(3);
            for (int k = 0; k < n && b.length >= stride; k++) {
                int at = stride * rnd.nextInt(b.length / stride);
                switch (rnd.nextInt(4)) {
                    case 0 -> put32(m, at, rnd);
                    case 1 -> put16(m, at, rnd);
                    case 2 -> b[at] ^= (byte) (1 << rnd.nextInt(8));
                    default -> {
                        b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length + 1));
                        m = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
                    }
                }
            }
            return b;
        }

        private static void put16(ByteBuffer m, int at, Random rnd) {
            if (at + 2 <= m.capacity()) {
                m.putShort(at, (short) INTERESTING32[rnd.nextInt(INTERESTING32.length)]);
            }
        }

        private static void put32(ByteBuffer m, int at, Random rnd) {
            if (at + 4 <= m.capacity()) {
                m.putInt(at, (int) INTERESTING32[rnd.nextInt(INTERESTING32.length)]);
            }
        }

        /** The length octet at {@code at} replaced by a long form of 1-8 octets with an edge value. */
        private static byte[] longLength(Random rnd, byte[] b, int at) {
            int octets = 1 + rnd.nextInt(8);
            List<Byte> out = new ArrayList<>(b.length + octets);
            for (int i = 0; i < at; i++) {
                out.add(b[i]);
            }
            out.add((byte) (0x80 | octets));
            long v = INTERESTING32[rnd.nextInt(INTERESTING32.length)];
            for (int i = octets - 1; i >= 0; i--) {
                out.add((byte) (i < 4 ? v >>> (8 * i) : 0));
            }
            for (int i = at + 1; i < b.length; i++) {
                out.add(b[i]);
            }
            byte[] r = new byte[out.size()];
            for (int i = 0; i < r.length; i++) {
                r[i] = out.get(i);
            }
            return r;
        }

        /** A slice of the input inserted at {@code at}: nested or repeated elements. */
        private static byte[] splice(Random rnd, byte[] b, int at) {
            int from = rnd.nextInt(b.length);
            int len = rnd.nextInt(Math.min(32, b.length - from) + 1);
            byte[] r = new byte[b.length + len];
            System.arraycopy(b, 0, r, 0, at);
            System.arraycopy(b, from, r, at, len);
            System.arraycopy(b, at, r, at + len, b.length - at);
            return r;
        }
    }
}
