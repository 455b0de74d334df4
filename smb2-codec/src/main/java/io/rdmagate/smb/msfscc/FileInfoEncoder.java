package io.rdmagate.smb.msfscc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Encoders of the file information classes QUERY_INFO answers (MS-FSCC 2.4) and of the
 * filesystem information classes (2.5). Each writes at the buffer's position and advances it;
 * the buffer is little-endian and large enough (the caller checks OutputBufferLength).
 */
public final class FileInfoEncoder {
    public static final int FILE_DEVICE_DISK = 7;
    /**
     * FILE_CASE_SENSITIVE_SEARCH | FILE_CASE_PRESERVED_NAMES | FILE_UNICODE_ON_DISK | FILE_PERSISTENT_ACLS |
     * FILE_SUPPORTS_SPARSE_FILES | FILE_SUPPORTS_EXTENDED_ATTRIBUTES (MS-FSCC 2.5.1)
     */
    public static final int FS_ATTRIBUTES = 0x1 | 0x2 | 0x4 | 0x8 | 0x40 | 0x00800000;

    private FileInfoEncoder() {
    }

    /** The size of a fixed-size class, or -1 if it depends on a name or is unknown. */
    public static int fixedSize(int infoClass) {
        return switch (infoClass) {
            case FileInformationClass.FILE_BASIC -> 40;
            case FileInformationClass.FILE_STANDARD -> 24;
            case FileInformationClass.FILE_INTERNAL, FileInformationClass.FILE_POSITION,
                 FileInformationClass.FILE_ATTRIBUTE_TAG -> 8;
            case FileInformationClass.FILE_EA, FileInformationClass.FILE_ACCESS, FileInformationClass.FILE_MODE,
                 FileInformationClass.FILE_ALIGNMENT -> 4;
            case FileInformationClass.FILE_NETWORK_OPEN -> 56;
            case FileInformationClass.FILE_COMPRESSION -> 16;
            default -> -1;
        };
    }

    // MS-FSCC 2.4.7
    public static void basic(ByteBuffer b, FileInfo f) {
        b.putLong(f.creation()).putLong(f.lastAccess()).putLong(f.lastWrite()).putLong(f.change())
                .putInt(f.attributes()).putInt(0);
    }

    // MS-FSCC 2.4.41
    public static void standard(ByteBuffer b, FileInfo f) {
        b.putLong(f.allocationSize()).putLong(f.endOfFile()).putInt(f.links()).put((byte) (f.deletePending() ? 1 : 0))
                .put((byte) (f.directory() ? 1 : 0)).putShort((short) 0);
    }

    // MS-FSCC 2.4.22
    public static void internal(ByteBuffer b, FileInfo f) {
        b.putLong(f.fileId());
    }

    // MS-FSCC 2.4.29
    public static void networkOpen(ByteBuffer b, FileInfo f) {
        b.putLong(f.creation()).putLong(f.lastAccess()).putLong(f.lastWrite()).putLong(f.change())
                .putLong(f.allocationSize()).putLong(f.endOfFile()).putInt(f.attributes()).putInt(0);
    }

    // MS-FSCC 2.4.2: Basic, Standard, Internal, EA (its EaSize), Access, Position, Mode, Alignment, Name.
    public static void all(ByteBuffer b, FileInfo f, int eaSize, int accessFlags, long position, int mode, String name) {
        basic(b, f);
        standard(b, f);
        internal(b, f);
        b.putInt(eaSize).putInt(accessFlags).putLong(position).putInt(mode).putInt(0);
        name(b, name);
    }

    // MS-FSCC 2.4.27
    public static void name(ByteBuffer b, String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_16LE);
        b.putInt(n.length).put(n);
    }

    // MS-FSCC 2.4.6
    public static void attributeTag(ByteBuffer b, FileInfo f) {
        b.putInt(f.attributes()).putInt(0);
    }

    // MS-FSCC 2.4.9
    public static void compression(ByteBuffer b, FileInfo f) {
        b.putLong(f.endOfFile()).putShort((short) 0).put((byte) 0).put((byte) 0).put((byte) 0).put((byte) 0)
                .putShort((short) 0);
    }

    // MS-FSCC 2.4.43: one unnamed data stream for files, none for directories.
    public static void stream(ByteBuffer b, FileInfo f) {
        if (f.directory()) {
            return;
        }
        byte[] n = "::$DATA".getBytes(StandardCharsets.UTF_16LE);
        b.putInt(0).putInt(n.length).putLong(f.endOfFile()).putLong(f.allocationSize()).put(n);
    }

    // MS-FSCC 2.5.9
    public static void fsVolume(ByteBuffer b, long creation, int serial, String label) {
        byte[] n = label.getBytes(StandardCharsets.UTF_16LE);
        b.putLong(creation).putInt(serial).putInt(n.length).put((byte) 0).put((byte) 0).put(n);
    }

    // MS-FSCC 2.5.8
    public static void fsSize(ByteBuffer b, long totalUnits, long availableUnits, int sectorsPerUnit, int bytesPerSector) {
        b.putLong(totalUnits).putLong(availableUnits).putInt(sectorsPerUnit).putInt(bytesPerSector);
    }

    // MS-FSCC 2.5.4
    public static void fsFullSize(ByteBuffer b, long totalUnits, long callerAvailable, long actualAvailable,
            int sectorsPerUnit, int bytesPerSector) {
        b.putLong(totalUnits).putLong(callerAvailable).putLong(actualAvailable).putInt(sectorsPerUnit)
                .putInt(bytesPerSector);
    }

    // MS-FSCC 2.5.10
    public static void fsDevice(ByteBuffer b, boolean readOnly) {
        // Characteristics: FILE_DEVICE_IS_MOUNTED (0x20), FILE_READ_ONLY_DEVICE (0x2)
        b.putInt(FILE_DEVICE_DISK).putInt(readOnly ? 0x22 : 0x20);
    }

    // MS-FSCC 2.5.1
    public static void fsAttribute(ByteBuffer b, int attributes, int maxNameLength, String fsName) {
        byte[] n = fsName.getBytes(StandardCharsets.UTF_16LE);
        b.putInt(attributes).putInt(maxNameLength).putInt(n.length).put(n);
    }

    // MS-FSCC 2.5.7
    public static void fsSectorSize(ByteBuffer b, int sector) {
        b.putInt(sector).putInt(sector).putInt(sector).putInt(sector).putInt(0x3).putInt(0).putInt(0);
    }

    // MS-FSCC 2.5.6
    public static void fsObjectId(ByteBuffer b, byte[] objectId16) {
        b.put(objectId16).put(new byte[48]);
    }
}
