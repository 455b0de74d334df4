package io.rdmagate.vfs;

import java.util.List;

/**
 * A page of a directory listing. Entries do not include "." and ".."; protocols that show them
 * add them with cookies below {@link VirtualFileSystem#FIRST_COOKIE}.
 *
 * @param verifier pass it back with the next page's cookie
 * @param eof      no entry follows the last one
 */
public record DirectoryPage(List<DirectoryEntry> entries, long verifier, boolean eof) {
}
