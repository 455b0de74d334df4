package io.rdmagate.smb.msfscc;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Extended attributes on the wire: FILE_FULL_EA_INFORMATION (MS-FSCC 2.4.15), the list QUERY_INFO
 * answers and SET_INFO and a CREATE's SMB2_CREATE_EA_BUFFER carry, and FILE_GET_EA_INFORMATION
 * (2.4.15.1), the names a QUERY_INFO may ask for.
 *
 * <p>Accepts: entries that lie inside the buffer, each at a 4-byte aligned NextEntryOffset past its
 * own end (0 on the last), a name NUL-terminated at EaNameLength and valid as an EA name (printable
 * ASCII, none of {@code " * + , / : ; < = > ? [ \ ] |}). Refuses anything else with {@link Invalid}:
 * STATUS_EA_LIST_INCONSISTENT for the structure, STATUS_INVALID_EA_NAME for a name. A list of more
 * than {@link #MAX_ENTRIES} entries is inconsistent too.
 */
public final class FullEaInformation {
    /** Flags: the file cannot be understood without this EA (FILE_NEED_EA). */
    public static final int FILE_NEED_EA = 0x80;
    /** Entries one list may hold (every entry takes at least 12 bytes of a request). */
    public static final int MAX_ENTRIES = 4096;
    private static final String BAD_NAME_CHARS = "\"*+,/:;<=>?[\\]|";

    private FullEaInformation() {
    }

    /** One extended attribute: its name (ASCII), its value, its flags. */
    public record Ea(String name, byte[] value, int flags) {
    }

    /** A list that is not what MS-FSCC 2.4.15 allows: {@link #nameInvalid} tells which status. */
    public static final class Invalid extends Exception {
        private final boolean nameInvalid;

        Invalid(String message, boolean nameInvalid) {
            super(message);
            this.nameInvalid = nameInvalid;
        }

        /** True: STATUS_INVALID_EA_NAME; false: STATUS_EA_LIST_INCONSISTENT. */
        public boolean nameInvalid() {
            return nameInvalid;
        }
    }

    /** FILE_FULL_EA_INFORMATION entries, from the buffer's position to its limit. */
    public static List<Ea> decode(ByteBuffer buffer) throws Invalid {
        return entries(buffer, 8, (b, at) -> {
            int flags = b.get(at + 4) & 0xff;
            int nameLength = b.get(at + 5) & 0xff;
            int valueLength = b.getShort(at + 6) & 0xffff;
            int end = within(b, at, 8 + nameLength + 1 + valueLength);
            byte[] value = new byte[valueLength];
            b.get(at + 8 + nameLength + 1, value);
            return new Read<>(new Ea(name(b, at + 8, nameLength), value, flags), end);
        });
    }

    /** FILE_GET_EA_INFORMATION entries: the names asked for. */
    public static List<String> decodeNames(ByteBuffer buffer) throws Invalid {
        return entries(buffer, 5, (b, at) -> {
            int nameLength = b.get(at + 4) & 0xff;
            int end = within(b, at, 5 + nameLength + 1);
            return new Read<>(name(b, at + 5, nameLength), end);
        });
    }

    /** One entry read at an offset, and where it ends. */
    private record Read<T>(T value, int end) {
    }

    @FunctionalInterface
    private interface EntryReader<T> {
        Read<T> read(ByteBuffer b, int at) throws Invalid;
    }

    /**
     * The entries of a list: each read at its offset (its fixed {@code header} bytes there), the
     * next at the NextEntryOffset its first 4 bytes give, 4-byte aligned and past its end.
     */
    private static <T> List<T> entries(ByteBuffer buffer, int header, EntryReader<T> reader) throws Invalid {
        ByteBuffer b = buffer.slice().order(ByteOrder.LITTLE_ENDIAN);
        List<T> out = new ArrayList<>();
        int at = 0;
        while (true) {
            if (b.limit() - at < header) {
                throw new Invalid("an EA entry at " + at + " beyond the buffer", false);
            }
            Read<T> r = reader.read(b, at);
            out.add(r.value());
            int next = b.getInt(at);
            if (next == 0) {
                return out;
            }
            if (next < 0 || (next & 3) != 0 || at + (long) next < r.end() || at + (long) next >= b.limit()) {
                throw new Invalid("NextEntryOffset " + Integer.toUnsignedString(next) + " of the entry at " + at, false);
            }
            if (out.size() >= MAX_ENTRIES) {
                throw new Invalid("more than " + MAX_ENTRIES + " EA entries", false);
            }
            at += next;
        }
    }

    /** The end of an entry of {@code size} bytes at {@code at}, which must lie inside the buffer. */
    private static int within(ByteBuffer b, int at, int size) throws Invalid {
        if (at + size > b.limit()) {
            throw new Invalid("EA entry at " + at + " runs past the buffer", false);
        }
        return at + size;
    }

    private static String name(ByteBuffer b, int at, int length) throws Invalid {
        if (b.get(at + length) != 0) {
            throw new Invalid("EA name at " + at + " is not NUL-terminated", false);
        }
        byte[] raw = new byte[length];
        b.get(at, raw);
        String name = new String(raw, StandardCharsets.ISO_8859_1);
        if (!validName(name)) {
            throw new Invalid("EA name '" + name + "'", true);
        }
        return name;
    }

    /** MS-FSCC 2.4.15: 1 to 255 printable ASCII characters, none of {@code " * + , / : ; < = > ? [ \ ] |}. */
    public static boolean validName(String name) {
        if (name.isEmpty() || name.length() > 255) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (ch < 0x20 || ch > 0x7e || BAD_NAME_CHARS.indexOf(ch) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** The bytes {@code ea} takes as an entry, before the padding that aligns the next one. */
    public static int entrySize(Ea ea) {
        return 8 + ea.name().length() + 1 + ea.value().length;
    }

    /**
     * Writes {@code eas} as FILE_FULL_EA_INFORMATION at the buffer's position (little-endian), each
     * entry after the first at a 4-byte boundary; the length written.
     */
    public static int encode(ByteBuffer out, List<Ea> eas) {
        int start = out.position();
        int entry = start;
        for (int i = 0; i < eas.size(); i++) {
            Ea ea = eas.get(i);
            int size = entrySize(ea);
            int padded = (size + 3) & ~3;
            out.position(entry);
            out.putInt(i == eas.size() - 1 ? 0 : padded).put((byte) ea.flags()).put((byte) ea.name().length())
                    .putShort((short) ea.value().length).put(ea.name().getBytes(StandardCharsets.ISO_8859_1))
                    .put((byte) 0).put(ea.value());
            if (i < eas.size() - 1) {
                for (int p = size; p < padded; p++) {
                    out.put((byte) 0);
                }
                entry += padded;
            } else {
                entry += size;
            }
        }
        out.position(entry);
        return entry - start;
    }

    /** The length {@link #encode} writes for {@code eas}. */
    public static int length(List<Ea> eas) {
        int n = 0;
        for (int i = 0; i < eas.size(); i++) {
            int size = entrySize(eas.get(i));
            n += i == eas.size() - 1 ? size : (size + 3) & ~3;
        }
        return n;
    }
}
