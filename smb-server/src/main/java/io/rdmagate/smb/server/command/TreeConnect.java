package io.rdmagate.smb.server.command;

import io.rdmagate.gateway.spi.log.RateLimitedLog;
import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2TreeConnect;
import io.rdmagate.smb.server.Access;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.smb.server.SmbShare;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.VfsException;

/** TREE_CONNECT (MS-SMB2 3.3.5.7): a configured disk share, or IPC$ for the srvsvc pipe. */
public final class TreeConnect implements Command {
    @Override
    public Needs needs() {
        return Needs.SESSION;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException, VfsException {
        Smb2TreeConnect.Request req = Smb2TreeConnect.decode(c.msg);
        String name = req.shareName();
        io.rdmagate.smb.server.TreeConnect tree;
        int type;
        int flags = 0;
        if (name.equalsIgnoreCase("IPC$")) {
            tree = c.session.addTree(null, null, true, Access.FILE_ALL_ACCESS);
            type = Smb2TreeConnect.SHARE_TYPE_PIPE;
        } else {
            SmbShare share = c.server.config().share(name);
            if (share == null) {
                throw new SmbException(NtStatus.BAD_NETWORK_NAME, "no share " + name);
            }
            if (c.session.isGuest() && !share.guestOk()) {
                throw denied(c, name, "the share refuses guests");
            }
            if (c.session.kerberosLogon ? !share.krb5() : !share.ntlm()) {
                throw denied(c, name, "the share refuses " + (c.session.kerberosLogon ? "Kerberos" : "NTLM") + " logons");
            }
            if (share.encrypt() && c.session.encryptor == null) {
                throw denied(c, name, "the share needs encryption the client lacks");
            }
            FileHandle root = share.path().isEmpty() ? share.vfs().root()
                    : share.vfs().resolve(Caller.ROOT, share.vfs().root(), share.path(), true).handle();
            int maximal = share.readOnly() || share.vfs().options().readOnly() ? Access.READ_ONLY_MAXIMAL : Access.FILE_ALL_ACCESS;
            tree = c.session.addTree(share, root, false, maximal);
            type = Smb2TreeConnect.SHARE_TYPE_DISK;
            if (share.encrypt()) {
                flags |= Smb2TreeConnect.SHAREFLAG_ENCRYPT_DATA;
            }
        }
        c.reply.treeIdOverride(tree.id());
        c.reply.length(Smb2TreeConnect.write(c.reply.body(16), type, flags, 0, tree.maximalAccess()));
    }

    /** A refused tree connect is logged with the share, user and client address, rate-limited per address. */
    private static SmbException denied(Ctx c, String share, String why) {
        String client = c.conn.client().getHostAddress();
        String user = c.session.user() == null ? "(anonymous)" : c.session.user().name();
        c.server.denials().log(RateLimitedLog.Level.WARN, client, "SMB tree connect to {} by {} from {} refused: {}",
                share, user, client, why);
        return new SmbException(NtStatus.ACCESS_DENIED, "share " + share + ": " + why);
    }
}
