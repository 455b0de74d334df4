package io.rdmagate.smb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.msfscc.FullEaInformation;
import io.rdmagate.smb.msfscc.FullEaInformation.Ea;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The EA lists a client sends (FILE_FULL_EA_INFORMATION in SET_INFO and a CREATE's EA buffer,
 * FILE_GET_EA_INFORMATION in QUERY_INFO; MS-FSCC 2.4.15), driven by a fixed-seed mutation campaign
 * over the fields of valid lists: whatever the bytes, the parser returns entries that lie inside the
 * buffer with valid names, or refuses them as Windows does (EA_LIST_INCONSISTENT, INVALID_EA_NAME),
 * never another exception; and what it returns encodes to the same entries again.
 * {@code -Drdmagate.fuzz.rounds=N} sets the number of inputs.
 */
class EaListFuzzTest {
    private static final int ROUNDS = Integer.getInteger("rdmagate.fuzz.rounds", 20_000);

    static byte[] encoded(List<Ea> eas) {
        ByteBuffer b = ByteBuffer.allocate(FullEaInformation.length(eas)).order(ByteOrder.LITTLE_ENDIAN);
        FullEaInformation.encode(b, eas);
        return b.array();
    }

    @Test
    void entriesAreAlignedAndReadBackAsWritten() throws Exception {
        List<Ea> eas = List.of(new Ea("Color", "blue".getBytes(), 0), new Ea("A", new byte[0], 0),
                new Ea("Big", new byte[70], FullEaInformation.FILE_NEED_EA));
        byte[] b = encoded(eas);
        ByteBuffer w = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(20, w.getInt(0), "8 + 5 + 1 + 4 bytes, padded to 20");
        assertEquals(12, w.getInt(20), "8 + 1 + 1, padded to 12");
        assertEquals(0, w.getInt(32), "the last entry");
        assertEquals(32 + 8 + 3 + 1 + 70, b.length, "the last entry is not padded");
        List<Ea> back = FullEaInformation.decode(ByteBuffer.wrap(b));
        assertEquals(3, back.size());
        for (int i = 0; i < 3; i++) {
            assertEquals(eas.get(i).name(), back.get(i).name());
            assertArrayEquals(eas.get(i).value(), back.get(i).value());
            assertEquals(eas.get(i).flags(), back.get(i).flags());
        }
        for (String bad : new String[] {"", "a*b", "x:y", "sp\u00e9cial", "tab\t", "a".repeat(256)}) {
            assertTrue(!FullEaInformation.validName(bad), bad);
        }
        assertTrue(FullEaInformation.validName("user.Color-1_(x) ~!@#$%^&'`{}."));
    }

    @Test
    void mutatedListsAreReadOrRefusedAndWhatIsReadEncodesTheSame() {
        List<byte[]> seeds = List.of(
                encoded(List.of(new Ea("Color", "blue".getBytes(), 0), new Ea("Shape", "round".getBytes(), 0))),
                encoded(List.of(new Ea("DOSATTRIB", new byte[24], FullEaInformation.FILE_NEED_EA))),
                names("Color", "Shape", "x"));
        Map<String, Integer> outcomes = new TreeMap<>();
        Random rnd = new Random(0xea11);
        for (int i = 0; i < ROUNDS; i++) {
            int seed = rnd.nextInt(seeds.size());
            byte[] b = SecurityTokenFuzzTest.Mutator.fields(rnd, seeds.get(seed), rnd.nextBoolean() ? 4 : 1);
            try {
                if (seed == 2) {
                    List<String> got = FullEaInformation.decodeNames(ByteBuffer.wrap(b));
                    got.forEach(n -> assertTrue(FullEaInformation.validName(n), n));
                    outcomes.merge("names read", 1, Integer::sum);
                } else {
                    List<Ea> got = FullEaInformation.decode(ByteBuffer.wrap(b));
                    List<Ea> again = FullEaInformation.decode(ByteBuffer.wrap(encoded(got)));
                    assertEquals(got.size(), again.size());
                    for (int k = 0; k < got.size(); k++) {
                        assertEquals(got.get(k).name(), again.get(k).name());
                        assertArrayEquals(got.get(k).value(), again.get(k).value());
                    }
                    outcomes.merge("list read", 1, Integer::sum);
                }
            } catch (FullEaInformation.Invalid e) {
                outcomes.merge(e.nameInvalid() ? "INVALID_EA_NAME" : "EA_LIST_INCONSISTENT", 1, Integer::sum);
            }
        }
        System.out.println("EaListFuzzTest: " + ROUNDS + " mutated EA lists: " + outcomes);
        assertTrue(outcomes.getOrDefault("list read", 0) > ROUNDS / 50, outcomes.toString());
        assertTrue(outcomes.getOrDefault("EA_LIST_INCONSISTENT", 0) > ROUNDS / 50, outcomes.toString());
        assertTrue(outcomes.getOrDefault("INVALID_EA_NAME", 0) > 0, outcomes.toString());
    }

    /** FILE_GET_EA_INFORMATION of {@code names}. */
    private static byte[] names(String... names) {
        ByteBuffer b = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < names.length; i++) {
            int at = b.position();
            int size = 5 + names[i].length() + 1;
            int padded = (size + 3) & ~3;
            b.putInt(i + 1 < names.length ? padded : 0).put((byte) names[i].length()).put(names[i].getBytes()).put((byte) 0);
            if (i + 1 < names.length) {
                b.position(at + padded);
            }
        }
        byte[] out = new byte[b.position()];
        b.get(0, out);
        return out;
    }
}
