package io.rdmagate.smb.msfscc;

/** File information classes (MS-FSCC 2.4) and filesystem information classes (2.5). */
public final class FileInformationClass {
    public static final int FILE_DIRECTORY = 1;
    public static final int FILE_FULL_DIRECTORY = 2;
    public static final int FILE_BOTH_DIRECTORY = 3;
    public static final int FILE_BASIC = 4;
    public static final int FILE_STANDARD = 5;
    public static final int FILE_INTERNAL = 6;
    public static final int FILE_EA = 7;
    public static final int FILE_ACCESS = 8;
    public static final int FILE_NAME = 9;
    public static final int FILE_RENAME = 10;
    public static final int FILE_LINK = 11;
    public static final int FILE_NAMES = 12;
    public static final int FILE_DISPOSITION = 13;
    public static final int FILE_POSITION = 14;
    public static final int FILE_FULL_EA = 15;
    public static final int FILE_MODE = 16;
    public static final int FILE_ALIGNMENT = 17;
    public static final int FILE_ALL = 18;
    public static final int FILE_ALLOCATION = 19;
    public static final int FILE_END_OF_FILE = 20;
    public static final int FILE_ALTERNATE_NAME = 21;
    public static final int FILE_STREAM = 22;
    public static final int FILE_COMPRESSION = 28;
    public static final int FILE_NETWORK_OPEN = 34;
    public static final int FILE_ATTRIBUTE_TAG = 35;
    public static final int FILE_ID_BOTH_DIRECTORY = 37;
    public static final int FILE_ID_FULL_DIRECTORY = 38;
    public static final int FILE_NORMALIZED_NAME = 48;

    public static final int FS_VOLUME = 1;
    public static final int FS_SIZE = 3;
    public static final int FS_DEVICE = 4;
    public static final int FS_ATTRIBUTE = 5;
    public static final int FS_CONTROL = 6;
    public static final int FS_FULL_SIZE = 7;
    public static final int FS_OBJECT_ID = 8;
    public static final int FS_SECTOR_SIZE = 11;

    private FileInformationClass() {
    }
}
