package io.rdmagate.vfs.support;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NamesTest {

    private static VfsError refusal(String name) {
        return assertThrows(VfsException.class, () -> Names.check(name), () -> "accepted " + name).error();
    }

    private static void accepted(String name) {
        assertDoesNotThrow(() -> Names.check(name), () -> "refused a name of "
                + name.getBytes(StandardCharsets.UTF_8).length + " bytes");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "/", "a/b", "/etc", "dir/", "a\0b", "\0"})
    void separatorsNulEmptyAndDotNamesAreInvalid(String name) {
        assertEquals(VfsError.INVALID, refusal(name));
    }

    @Test
    void nullIsInvalid() {
        assertEquals(VfsError.INVALID, refusal(null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"...", ".hidden", "..x", "a.", "a b", "back\\slash", "colon:star*?", "\u00e9", "\t"})
    void ordinaryNamesIncludingDotsAndPunctuationAreAccepted(String name) {
        accepted(name);
    }

    @Test
    void theLimitIs255BytesOfUtf8() {
        accepted("a".repeat(255));
        assertEquals(VfsError.NAME_TOO_LONG, refusal("a".repeat(256)));
    }

    @Test
    void multibyteCharactersCountByTheirUtf8Length() {
        accepted("\u20ac".repeat(85)); // 85 x 3 bytes = 255
        assertEquals(VfsError.NAME_TOO_LONG, refusal("\u20ac".repeat(85) + "a")); // 256
        accepted("\u00e9\u20ac".repeat(51)); // 51 x (2 + 3) = 255
        assertEquals(VfsError.NAME_TOO_LONG, refusal("\u00e9\u20ac".repeat(51) + "a")); // 256
        accepted("\u00e9".repeat(127) + "a"); // 255
        assertEquals(VfsError.NAME_TOO_LONG, refusal("\u00e9".repeat(128))); // 256
        // 85 characters of "é€" are 170 UTF-16 units but 425 bytes
        assertEquals(VfsError.NAME_TOO_LONG, refusal("\u00e9\u20ac".repeat(85)));
    }

    @Test
    void emojiOutsideTheBmpCountFourBytesNotTwoTimesThree() {
        String grin = "\uD83D\uDE00"; // U+1F600, one code point, two UTF-16 units, four bytes
        assertEquals(4, grin.getBytes(StandardCharsets.UTF_8).length);
        accepted(grin.repeat(63) + "abc"); // 252 + 3 = 255
        assertEquals(VfsError.NAME_TOO_LONG, refusal(grin.repeat(64))); // 256
        accepted(grin.repeat(42)); // 168 bytes, though 84 units x 3 would be 252 and still fit
    }

    @Test
    void unpairedSurrogatesAreInvalid() {
        assertEquals(VfsError.INVALID, refusal("a\uD83D")); // high at the end
        assertEquals(VfsError.INVALID, refusal("\uD83Dx")); // high followed by a non-surrogate
        assertEquals(VfsError.INVALID, refusal("\uDE00")); // lone low
        assertEquals(VfsError.INVALID, refusal("\uDE00\uD83D")); // reversed pair
        assertEquals(VfsError.INVALID, refusal("\uD83D\uD83D")); // two highs
    }

    @Test
    void theLengthCheckAgreesWithTheJdkEncoderOnRandomNames() {
        SplittableRandom rnd = new SplittableRandom(1);
        int[] pool = {'a', 'Z', '~', 0xe9, 0x7ff, 0x800, 0x4e2d, 0xffef, 0x1f600, 0x10ffff, 0x1d11e};
        for (int i = 0; i < 2000; i++) {
            StringBuilder b = new StringBuilder();
            int n = 1 + rnd.nextInt(140);
            for (int k = 0; k < n; k++) {
                b.appendCodePoint(pool[rnd.nextInt(pool.length)]);
            }
            String name = b.toString();
            int bytes = name.getBytes(StandardCharsets.UTF_8).length;
            if (bytes <= 255) {
                accepted(name);
            } else {
                assertEquals(VfsError.NAME_TOO_LONG, refusal(name), () -> bytes + " bytes");
            }
        }
    }

    @Test
    void utf8IsTheStandardEncoding() {
        assertArrayEquals(new byte[] {(byte) 0xc3, (byte) 0xa9, (byte) 0xe2, (byte) 0x82, (byte) 0xac},
                Names.utf8("\u00e9\u20ac"));
    }
}
