package io.rdmagate.smb.server;

import io.rdmagate.vfs.VirtualFileSystem;

/**
 * A disk share: a directory ({@code path}, '/'-separated, "" for the root) of an export.
 *
 * @param encrypt require encryption on this share (MS-SMB2 3.3.1.6 Share.EncryptData)
 * @param ntlm    whether sessions that logged on with NTLMv2 (or as guests) may connect
 * @param krb5    whether sessions that logged on with Kerberos may connect
 */
public record SmbShare(String name, VirtualFileSystem vfs, String path, boolean readOnly, boolean guestOk,
        boolean encrypt, boolean ntlm, boolean krb5) {
    public SmbShare(String name, VirtualFileSystem vfs, String path, boolean readOnly, boolean guestOk, boolean encrypt) {
        this(name, vfs, path, readOnly, guestOk, encrypt, true, true);
    }
}
