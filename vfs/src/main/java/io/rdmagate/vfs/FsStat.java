package io.rdmagate.vfs;

/** Capacity of the volume under an export (statvfs). */
public record FsStat(
        long totalBytes,
        long freeBytes,
        long availableBytes,
        long totalFiles,
        long freeFiles,
        long availableFiles,
        int blockSize,
        int maxNameBytes,
        long maxFileSize) {
}
