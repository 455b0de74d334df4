package io.rdmagate.smb.server;

import io.rdmagate.vfs.VirtualFileSystem;

/**
 * A disk share: a directory ({@code path}, '/'-separated, "" for the root) of an export.
 *
 * @param encrypt require encryption on this share (MS-SMB2 3.3.1.6 Share.EncryptData)
 */
public record SmbShare(String name, VirtualFileSystem vfs, String path, boolean readOnly, boolean guestOk,
        boolean encrypt) {
}
