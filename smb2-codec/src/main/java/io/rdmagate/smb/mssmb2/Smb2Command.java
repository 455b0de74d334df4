package io.rdmagate.smb.mssmb2;

/** Command codes (MS-SMB2 2.2.1.2). */
public final class Smb2Command {
    public static final int NEGOTIATE = 0x0;
    public static final int SESSION_SETUP = 0x1;
    public static final int LOGOFF = 0x2;
    public static final int TREE_CONNECT = 0x3;
    public static final int TREE_DISCONNECT = 0x4;
    public static final int CREATE = 0x5;
    public static final int CLOSE = 0x6;
    public static final int FLUSH = 0x7;
    public static final int READ = 0x8;
    public static final int WRITE = 0x9;
    public static final int LOCK = 0xA;
    public static final int IOCTL = 0xB;
    public static final int CANCEL = 0xC;
    public static final int ECHO = 0xD;
    public static final int QUERY_DIRECTORY = 0xE;
    public static final int CHANGE_NOTIFY = 0xF;
    public static final int QUERY_INFO = 0x10;
    public static final int SET_INFO = 0x11;
    public static final int OPLOCK_BREAK = 0x12;
    public static final int COUNT = 0x13;

    private static final String[] NAMES = {"NEGOTIATE", "SESSION_SETUP", "LOGOFF", "TREE_CONNECT", "TREE_DISCONNECT",
        "CREATE", "CLOSE", "FLUSH", "READ", "WRITE", "LOCK", "IOCTL", "CANCEL", "ECHO", "QUERY_DIRECTORY",
        "CHANGE_NOTIFY", "QUERY_INFO", "SET_INFO", "OPLOCK_BREAK"};

    private Smb2Command() {
    }

    public static String name(int command) {
        return command >= 0 && command < COUNT ? NAMES[command] : "0x" + Integer.toHexString(command);
    }
}
