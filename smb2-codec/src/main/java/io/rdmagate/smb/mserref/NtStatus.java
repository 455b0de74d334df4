package io.rdmagate.smb.mserref;

/** The NTSTATUS values this server sends or checks (MS-ERREF 2.3.1). */
public final class NtStatus {
    public static final int SUCCESS = 0x00000000;
    public static final int PENDING = 0x00000103;
    public static final int NOTIFY_ENUM_DIR = 0x0000010C;
    public static final int BUFFER_OVERFLOW = 0x80000005;
    public static final int NO_MORE_EAS = 0x80000012;
    public static final int INVALID_EA_NAME = 0x80000013;
    public static final int EA_LIST_INCONSISTENT = 0x80000014;
    public static final int NO_MORE_FILES = 0x80000006;
    public static final int UNSUCCESSFUL = 0xC0000001;
    public static final int NOT_IMPLEMENTED = 0xC0000002;
    public static final int INVALID_INFO_CLASS = 0xC0000003;
    public static final int INFO_LENGTH_MISMATCH = 0xC0000004;
    public static final int INVALID_HANDLE = 0xC0000008;
    public static final int INVALID_PARAMETER = 0xC000000D;
    public static final int NO_SUCH_FILE = 0xC000000F;
    public static final int INVALID_DEVICE_REQUEST = 0xC0000010;
    public static final int END_OF_FILE = 0xC0000011;
    public static final int MORE_PROCESSING_REQUIRED = 0xC0000016;
    public static final int INVALID_VIEW_SIZE = 0xC000001F;
    public static final int NO_MEMORY = 0xC0000017;
    public static final int ACCESS_DENIED = 0xC0000022;
    public static final int BUFFER_TOO_SMALL = 0xC0000023;
    public static final int OBJECT_NAME_INVALID = 0xC0000033;
    public static final int OBJECT_NAME_NOT_FOUND = 0xC0000034;
    public static final int OBJECT_NAME_COLLISION = 0xC0000035;
    public static final int OBJECT_PATH_INVALID = 0xC0000039;
    public static final int OBJECT_PATH_NOT_FOUND = 0xC000003A;
    public static final int OBJECT_PATH_SYNTAX_BAD = 0xC000003B;
    public static final int SHARING_VIOLATION = 0xC0000043;
    public static final int EAS_NOT_SUPPORTED = 0xC000004F;
    public static final int EA_TOO_LARGE = 0xC0000050;
    public static final int FILE_LOCK_CONFLICT = 0xC0000054;
    public static final int LOCK_NOT_GRANTED = 0xC0000055;
    public static final int DELETE_PENDING = 0xC0000056;
    public static final int INVALID_OWNER = 0xC000005A;
    public static final int INVALID_PRIMARY_GROUP = 0xC000005B;
    public static final int PRIVILEGE_NOT_HELD = 0xC0000061;
    public static final int LOGON_FAILURE = 0xC000006D;
    public static final int INVALID_ACL = 0xC0000077;
    public static final int INVALID_SID = 0xC0000078;
    public static final int INVALID_SECURITY_DESCR = 0xC0000079;
    public static final int RANGE_NOT_LOCKED = 0xC000007E;
    public static final int DISK_FULL = 0xC000007F;
    public static final int INSUFFICIENT_RESOURCES = 0xC000009A;
    public static final int FILE_IS_A_DIRECTORY = 0xC00000BA;
    public static final int NOT_SUPPORTED = 0xC00000BB;
    public static final int NETWORK_NAME_DELETED = 0xC00000C9;
    public static final int BAD_NETWORK_NAME = 0xC00000CC;
    public static final int REQUEST_NOT_ACCEPTED = 0xC00000D0;
    public static final int INVALID_OPLOCK_PROTOCOL = 0xC00000E3;
    public static final int INTERNAL_ERROR = 0xC00000E5;
    public static final int INVALID_DEVICE_STATE = 0xC0000184;
    public static final int DIRECTORY_NOT_EMPTY = 0xC0000101;
    public static final int NOT_A_DIRECTORY = 0xC0000103;
    public static final int CANCELLED = 0xC0000120;
    public static final int FILE_CLOSED = 0xC0000128;
    public static final int FILE_TOO_LARGE = 0xC0000904;
    public static final int USER_SESSION_DELETED = 0xC0000203;
    /** A DH2Q CreateGuid already names an open (MS-SMB2 3.3.5.9.10). */
    public static final int DUPLICATE_OBJECTID = 0xC000022A;
    public static final int NOT_FOUND = 0xC0000225;
    public static final int STOPPED_ON_SYMLINK = 0x8000002D;
    public static final int INVALID_LOCK_RANGE = 0xC00001A1;
    public static final int NETWORK_SESSION_EXPIRED = 0xC000035C;
    /** MS-SMB2 3.3.5.5: a binding whose signing algorithm the session's does not allow. */
    public static final int REQUEST_OUT_OF_SEQUENCE = 0xC000042A;
    public static final int FS_DRIVER_REQUIRED = 0xC000019C;
    public static final int ACCESS_VIOLATION = 0xC0000005;
    public static final int MEDIA_WRITE_PROTECTED = 0xC00000A2;
    public static final int TOO_MANY_LINKS = 0xC0000265;
    public static final int NOT_SAME_DEVICE = 0xC00000D4;
    public static final int STACK_OVERFLOW_READ = 0xC0000228;
    public static final int REPARSE_POINT_NOT_RESOLVED = 0xC0000280;
    public static final int QUOTA_EXCEEDED = 0xC0000044;
    public static final int IO_DEVICE_ERROR = 0xC0000185;
    public static final int NO_EAS_ON_FILE = 0xC0000052;
    public static final int INVALID_NETWORK_RESPONSE = 0xC00000C3;
    public static final int FILE_NOT_AVAILABLE = 0xC0000467;
    public static final int NO_SUCH_USER = 0xC0000064;

    private NtStatus() {
    }

    /** Whether the value is an error (severity 3), not success, information or warning. */
    public static boolean isError(int status) {
        return (status >>> 30) == 3;
    }

    public static String hex(int status) {
        return String.format("0x%08X", status);
    }
}
