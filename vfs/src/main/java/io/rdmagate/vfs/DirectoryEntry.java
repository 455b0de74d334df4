package io.rdmagate.vfs;

/**
 * One entry of a directory listing.
 *
 * @param cookie where a listing resumes after this entry; stable across changes to the
 *               directory and across restarts
 * @param node   handle and attributes, when the listing was asked for them (else null)
 */
public record DirectoryEntry(String name, long fileId, long cookie, Node node) {
}
