package io.rdmagate.smb.msfscc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Directory information classes (MS-FSCC 2.4.10, 2.4.14, 2.4.8, 2.4.17, 2.4.18, 2.4.28): entries
 * 8-byte aligned, each NextEntryOffset pointing at the next, the last one 0.
 *
 * <p>Use: {@link #begin}, then {@link #add} until it returns false (the entry did not fit), then
 * {@link #finish}, which returns the bytes written.
 */
public final class DirectoryInfoEncoder {
    private final ByteBuffer b;
    private final int start;
    private final int limit;
    private final int infoClass;
    private int lastEntry = -1;
    private int end;
    private int count;

    private DirectoryInfoEncoder(ByteBuffer b, int start, int limit, int infoClass) {
        this.b = b;
        this.start = start;
        this.limit = limit;
        this.infoClass = infoClass;
        this.end = start;
    }

    public static boolean supports(int infoClass) {
        return headerSize(infoClass) > 0;
    }

    static int headerSize(int infoClass) {
        return switch (infoClass) {
            case FileInformationClass.FILE_DIRECTORY -> 64;
            case FileInformationClass.FILE_FULL_DIRECTORY -> 68;
            case FileInformationClass.FILE_ID_FULL_DIRECTORY -> 80;
            case FileInformationClass.FILE_BOTH_DIRECTORY -> 94;
            case FileInformationClass.FILE_ID_BOTH_DIRECTORY -> 104;
            case FileInformationClass.FILE_NAMES -> 12;
            default -> -1;
        };
    }

    /** Entries go to [start, start+maxBytes) of {@code b}. */
    public static DirectoryInfoEncoder begin(ByteBuffer b, int start, int maxBytes, int infoClass) {
        if (!supports(infoClass)) {
            throw new IllegalArgumentException("directory information class " + infoClass);
        }
        return new DirectoryInfoEncoder(b, start, Math.min(b.capacity(), start + maxBytes), infoClass);
    }

    /** Whether one entry with this name fits in {@code maxBytes} at all. */
    public static boolean fitsAlone(int infoClass, String name, int maxBytes) {
        return headerSize(infoClass) + name.length() * 2 <= maxBytes;
    }

    public boolean add(String name, FileInfo f, int fileIndex) {
        byte[] n = name.getBytes(StandardCharsets.UTF_16LE);
        int at = lastEntry < 0 ? start : Wire8.align(end);
        int h = headerSize(infoClass);
        if (at + h + n.length > limit) {
            return false;
        }
        for (int p = end; p < at; p++) {
            b.put(p, (byte) 0);
        }
        if (lastEntry >= 0) {
            b.putInt(lastEntry, at - lastEntry);
        }
        b.putInt(at, 0).putInt(at + 4, fileIndex);
        if (infoClass == FileInformationClass.FILE_NAMES) {
            b.putInt(at + 8, n.length);
        } else {
            b.putLong(at + 8, f.creation()).putLong(at + 16, f.lastAccess()).putLong(at + 24, f.lastWrite())
                    .putLong(at + 32, f.change()).putLong(at + 40, f.endOfFile()).putLong(at + 48, f.allocationSize())
                    .putInt(at + 56, f.attributes()).putInt(at + 60, n.length);
            if (infoClass != FileInformationClass.FILE_DIRECTORY) {
                b.putInt(at + 64, 0); // EaSize
            }
            switch (infoClass) {
                case FileInformationClass.FILE_ID_FULL_DIRECTORY -> b.putInt(at + 68, 0).putLong(at + 72, f.fileId());
                case FileInformationClass.FILE_BOTH_DIRECTORY -> shortName(at, name, 94);
                case FileInformationClass.FILE_ID_BOTH_DIRECTORY -> {
                    shortName(at, name, 96);
                    b.putLong(at + 96, f.fileId());
                }
                default -> {
                }
            }
        }
        b.put(at + h, n);
        lastEntry = at;
        end = at + h + n.length;
        count++;
        return true;
    }

    /**
     * ShortNameLength, Reserved and ShortName (24 bytes) of the Both classes, zero up to {@code to}:
     * the name's 8.3 name ({@link ShortNames}), none for a name that is one already and for "." and "..".
     */
    private void shortName(int at, String name, int to) {
        for (int i = 68; i < to; i++) {
            b.put(at + i, (byte) 0);
        }
        if (!name.equals(".") && !name.equals("..") && !ShortNames.isShort(name)) {
            byte[] s = ShortNames.of(name).getBytes(StandardCharsets.UTF_16LE);
            b.put(at + 68, (byte) s.length).put(at + 70, s);
        }
    }

    public int count() {
        return count;
    }

    public int finish() {
        return end - start;
    }

    static final class Wire8 {
        static int align(int n) {
            return (n + 7) & ~7;
        }
    }
}
