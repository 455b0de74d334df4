package io.rdmagate.smb.server;

import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.vfs.VfsException;

/** A handler of one SMB2 command; one class per command in {@code io.rdmagate.smb.server.command}. */
public interface Command {
    /** Which of session and tree the dispatcher must have found before calling. */
    enum Needs { NOTHING, SESSION, TREE }

    Needs needs();

    void handle(Ctx c) throws SmbException, Smb2DecodeException, VfsException;
}
