package io.rdmagate.vfs;

/**
 * How a backend presents its tree.
 *
 * @param readOnly        refuse every change with {@link VfsError#READ_ONLY}
 * @param caseInsensitive lookup falls back to a case-insensitive match (for SMB shares)
 * @param mapReadThreshold reads of at least this many bytes may be served from a mapped region
 *                         by {@link VirtualFileSystem#map}; 0 disables mapping
 */
public record ExportOptions(boolean readOnly, boolean caseInsensitive, int mapReadThreshold) {
    public static final ExportOptions DEFAULT = new ExportOptions(false, false, 0);
}
