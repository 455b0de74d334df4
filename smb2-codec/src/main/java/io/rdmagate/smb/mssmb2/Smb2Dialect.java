package io.rdmagate.smb.mssmb2;

/** Dialect revisions (MS-SMB2 2.2.3) and capability bits (2.2.4). */
public final class Smb2Dialect {
    public static final int SMB_2_0_2 = 0x0202;
    public static final int SMB_2_1 = 0x0210;
    public static final int SMB_3_0 = 0x0300;
    public static final int SMB_3_0_2 = 0x0302;
    public static final int SMB_3_1_1 = 0x0311;
    /** The wildcard revision answered to an SMB1 negotiate that offers "SMB 2.???" (3.3.5.3.1). */
    public static final int SMB_2_WILDCARD = 0x02FF;

    public static final int CAP_DFS = 0x1;
    public static final int CAP_LEASING = 0x2;
    public static final int CAP_LARGE_MTU = 0x4;
    public static final int CAP_MULTI_CHANNEL = 0x8;
    public static final int CAP_PERSISTENT_HANDLES = 0x10;
    public static final int CAP_DIRECTORY_LEASING = 0x20;
    public static final int CAP_ENCRYPTION = 0x40;

    public static final int SIGNING_ENABLED = 0x1;
    public static final int SIGNING_REQUIRED = 0x2;

    private Smb2Dialect() {
    }

    public static boolean is3(int dialect) {
        return dialect >= SMB_3_0 && dialect != SMB_2_WILDCARD;
    }

    public static String name(int dialect) {
        return switch (dialect) {
            case SMB_2_0_2 -> "2.0.2";
            case SMB_2_1 -> "2.1";
            case SMB_3_0 -> "3.0";
            case SMB_3_0_2 -> "3.0.2";
            case SMB_3_1_1 -> "3.1.1";
            case SMB_2_WILDCARD -> "2.???";
            default -> String.format("0x%04x", dialect);
        };
    }
}
