package io.rdmagate.vfs;

/** A file's handle with its attributes, as lookup and create return them. */
public record Node(FileHandle handle, FileAttributes attributes) {
}
