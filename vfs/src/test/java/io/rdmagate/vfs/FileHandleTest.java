package io.rdmagate.vfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class FileHandleTest {

    private static VfsError refusal(byte[] wire) {
        return assertThrows(VfsException.class, () -> FileHandle.decode(wire)).error();
    }

    private static byte[] valid() {
        return FileHandle.of(7, 1234, 5, FileType.REGULAR).toBytes();
    }

    @ParameterizedTest
    @EnumSource(FileType.class)
    void aHandleSurvivesTheWireForEveryType(FileType type) throws Exception {
        FileHandle h = FileHandle.of(0x01020304, 0x1122334455667788L, 0x99aabbccddeeff00L, type);
        byte[] wire = h.toBytes();
        assertEquals(FileHandle.LENGTH, wire.length);
        FileHandle back = FileHandle.decode(wire);
        assertEquals(h, back);
        assertEquals(h.hashCode(), back.hashCode());
        assertEquals(0x01020304, back.volumeId());
        assertEquals(0x1122334455667788L, back.fileId());
        assertEquals(0x99aabbccddeeff00L, back.generation());
        assertEquals(type, back.type());
        assertArrayEquals(wire, back.toBytes());
    }

    @Test
    void extremeIdsRoundTrip() throws Exception {
        for (long v : new long[] {0, -1L, Long.MIN_VALUE, Long.MAX_VALUE}) {
            FileHandle h = FileHandle.of((int) v, v, v, FileType.DIRECTORY);
            FileHandle back = FileHandle.decode(h.toBytes());
            assertEquals(v, back.fileId());
            assertEquals(v, back.generation());
            assertEquals((int) v, back.volumeId());
        }
    }

    @Test
    void theHandleIsImmutableAgainstTheArraysItWasMadeFromAndGivesOut() throws Exception {
        byte[] wire = valid();
        FileHandle h = FileHandle.decode(wire);
        wire[10] ^= 1;
        assertEquals(1234, h.fileId());
        byte[] out = h.toBytes();
        out[10] ^= 1;
        assertEquals(FileHandle.decode(valid()), h);
    }

    @Test
    void handlesDifferingInAnyFieldAreNotEqual() {
        FileHandle h = FileHandle.of(7, 1234, 5, FileType.REGULAR);
        assertNotEquals(h, FileHandle.of(8, 1234, 5, FileType.REGULAR));
        assertNotEquals(h, FileHandle.of(7, 1235, 5, FileType.REGULAR));
        assertNotEquals(h, FileHandle.of(7, 1234, 6, FileType.REGULAR), "a later file reusing the id");
        assertNotEquals(h, FileHandle.of(7, 1234, 5, FileType.SYMLINK));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 23, 25, 32, 64, 65})
    void anyOtherLengthIsABadHandle(int length) {
        byte[] wire = new byte[length];
        System.arraycopy(valid(), 0, wire, 0, Math.min(length, FileHandle.LENGTH));
        assertEquals(VfsError.BAD_HANDLE, refusal(wire));
    }

    @Test
    void nullIsABadHandle() {
        assertEquals(VfsError.BAD_HANDLE, refusal(null));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2, 0x7f, 0xff})
    void anotherVersionIsABadHandle(int version) {
        byte[] wire = valid();
        wire[0] = (byte) version;
        assertEquals(VfsError.BAD_HANDLE, refusal(wire));
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void aNonZeroReservedByteIsABadHandle(int index) {
        byte[] wire = valid();
        wire[index] = 1;
        assertEquals(VfsError.BAD_HANDLE, refusal(wire));
    }

    @ParameterizedTest
    @ValueSource(ints = {7, 8, 0x80, 0xff})
    void anUnknownTypeIsABadHandle(int type) {
        assertEquals(FileType.values().length, 7, "this test assumes seven file types");
        byte[] wire = valid();
        wire[1] = (byte) type;
        assertEquals(VfsError.BAD_HANDLE, refusal(wire));
    }
}
