package io.rdmagate.vfs;

/** How create treats an existing name (RFC 1813 §3.3.8 createmode3). */
public enum CreateMode {
    /** Open the existing file (applying the size attribute, if given) or create it. */
    UNCHECKED,
    /** Fail with {@link VfsError#EXISTS} if the name exists. */
    GUARDED,
    /**
     * Create only if absent, remembering the caller's verifier; a retransmission with the same
     * verifier finds the file it created and succeeds.
     */
    EXCLUSIVE
}
