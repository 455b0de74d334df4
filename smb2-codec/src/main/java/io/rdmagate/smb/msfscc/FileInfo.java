package io.rdmagate.smb.msfscc;

/**
 * What the information classes report of one file. Times are FILETIMEs (MS-DTYP 2.3.3).
 *
 * @param fileId      the 64-bit file id (FileInternalInformation, directory Id classes)
 * @param attributes  FILE_ATTRIBUTE_* (MS-FSCC 2.6)
 */
public record FileInfo(long creation, long lastAccess, long lastWrite, long change, long allocationSize,
        long endOfFile, int attributes, long fileId, int links, boolean deletePending, boolean directory) {
}
