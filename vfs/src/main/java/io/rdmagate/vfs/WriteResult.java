package io.rdmagate.vfs;

/** What a write did: bytes written, the stability reached, and the attributes afterwards. */
public record WriteResult(int count, Stability committed, FileAttributes after) {
}
