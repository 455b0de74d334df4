package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.mssmb2.Smb2Header;

/**
 * Which failures of a related compound's request fail the requests after it (MS-SMB2 3.3.5.2.7.2).
 *
 * <p>Only the failure of a request that generates what the chain goes on with (the FileId of a
 * CREATE, a session, a tree) is passed on, to every later request, as Windows and Samba do. A failed
 * SET_INFO, QUERY_INFO, READ ... does not fail the CLOSE after it: clients (the Linux cifs client
 * for every path operation: CREATE + SET_INFO + CLOSE) count on that CLOSE, and failing it would
 * leave the open behind, keeping its file from being deleted.
 */
final class RelatedFailure {
    private RelatedFailure() {
    }

    /** The status the request after {@code prev} fails with, or 0 when it runs. */
    static int of(Ctx prev) {
        if (prev.chainError != 0) {
            return prev.chainError;
        }
        if (!NtStatus.isError(prev.reply.status)) {
            return 0;
        }
        int cmd = Smb2Header.command(prev.msg);
        return cmd == Smb2Command.CREATE || cmd == Smb2Command.SESSION_SETUP || cmd == Smb2Command.TREE_CONNECT
                ? prev.reply.status : 0;
    }
}
