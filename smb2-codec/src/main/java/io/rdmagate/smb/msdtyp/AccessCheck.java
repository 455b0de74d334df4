package io.rdmagate.smb.msdtyp;

import java.util.Set;

/**
 * Which rights a descriptor grants a token (MS-DTYP 2.5.3.2, the MAXIMUM_ALLOWED pass): the owner
 * holds READ_CONTROL and WRITE_DAC unless the DACL names OWNER RIGHTS; then, in ACL order, an
 * allowed ACE of one of the token's SIDs grants the bits not denied yet, and a denied ACE denies
 * the bits not granted yet. A NULL DACL grants everything.
 */
public final class AccessCheck {
    /** Who asks: the user's SID and every SID the user counts as (groups, Everyone, ...). */
    public record Token(Sid user, Set<Sid> sids) {
        public Token {
            sids = Set.copyOf(sids);
        }

        boolean has(Sid s, Sid owner) {
            return sids.contains(s) || s.equals(Sid.OWNER_RIGHTS) && owner != null && sids.contains(owner);
        }
    }

    private AccessCheck() {
    }

    /** Every right {@code sd} grants {@code token}, generic bits mapped to file rights. */
    public static int granted(SecurityDescriptor sd, Token token) {
        if (sd.nullDacl()) {
            return AccessMask.FILE_ALL_ACCESS;
        }
        int granted = 0;
        int denied = 0;
        boolean isOwner = sd.owner() != null && token.sids().contains(sd.owner());
        if (isOwner && !namesOwnerRights(sd.dacl())) {
            granted = AccessMask.READ_CONTROL | AccessMask.WRITE_DAC;
        }
        if (sd.dacl() == null) {
            return granted;
        }
        for (Ace a : sd.dacl().aces()) {
            if (!a.effective() || !token.has(a.sid(), sd.owner())) {
                continue;
            }
            int m = AccessMask.mapGeneric(a.mask());
            if (a.type() == Ace.ACCESS_ALLOWED) {
                granted |= m & ~denied;
            } else if (a.type() == Ace.ACCESS_DENIED) {
                denied |= m & ~granted;
            }
        }
        return granted;
    }

    private static boolean namesOwnerRights(Acl dacl) {
        if (dacl == null) {
            return false;
        }
        for (Ace a : dacl.aces()) {
            if (a.effective() && a.sid().equals(Sid.OWNER_RIGHTS)) {
                return true;
            }
        }
        return false;
    }
}
