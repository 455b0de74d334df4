package io.rdmagate.vfs;

/** Whether setting an extended attribute may create it, replace it, or either (RFC 8276 setxattr_option4). */
public enum XattrMode {
    EITHER, CREATE, REPLACE
}
