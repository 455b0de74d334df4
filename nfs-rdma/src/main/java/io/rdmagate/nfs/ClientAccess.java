package io.rdmagate.nfs;

import io.rdmagate.gateway.spi.config.ClientRule;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.vfs.Caller;

/**
 * What one call may do on one export: the {@link Caller} after the client rule's squashing
 * (exports(5) root_squash, all_squash, anonuid, anongid), and whether it may change anything.
 *
 * <p>AUTH_NONE acts as the anonymous ids. With root squash, uid 0 becomes anonUid and gid 0 (as
 * primary or supplementary group) becomes anonGid, as knfsd does; with all squash every caller is
 * anonUid/anonGid with no supplementary groups.
 */
public record ClientAccess(Caller caller, boolean writable) {

    public static ClientAccess of(ClientRule rule, boolean exportReadOnly, Credentials credentials) {
        boolean writable = !exportReadOnly && rule.access() == ClientRule.Access.RW;
        Caller anon = new Caller(rule.anonUid(), rule.anonGid(), new int[0]);
        if (!(credentials instanceof AuthSys sys) || rule.allSquash()) {
            return new ClientAccess(anon, writable);
        }
        if (!rule.rootSquash()) {
            return new ClientAccess(sys.toCaller(), writable);
        }
        int uid = sys.uid() == 0 ? rule.anonUid() : sys.uid();
        int gid = sys.gid() == 0 ? rule.anonGid() : sys.gid();
        int[] gids = sys.gids();
        for (int i = 0; i < gids.length; i++) {
            if (gids[i] == 0) {
                gids[i] = rule.anonGid();
            }
        }
        return new ClientAccess(new Caller(uid, gid, gids), writable);
    }
}
