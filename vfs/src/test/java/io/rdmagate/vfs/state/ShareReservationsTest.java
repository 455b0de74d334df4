package io.rdmagate.vfs.state;

import static io.rdmagate.vfs.state.ShareReservations.DELETE;
import static io.rdmagate.vfs.state.ShareReservations.READ;
import static io.rdmagate.vfs.state.ShareReservations.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import org.junit.jupiter.api.Test;

/** The opens of every protocol in one table: what one protocol's open refuses to another's. */
class ShareReservationsTest {
    static final class Holder implements CacheHolder {
        private final String protocol;

        Holder(String protocol) {
            this.protocol = protocol;
        }

        @Override
        public String protocol() {
            return protocol;
        }

        @Override
        public boolean holdsAnything() {
            return false;
        }

        @Override
        public Recall recall(int volumeId, long fileId, long generation, Conflict conflict, Object breaker) {
            return null;
        }
    }

    final ShareReservations shares = new ShareReservations();
    final Holder smb = new Holder("smb");
    final Holder nfs4 = new Holder("nfs4");

    private VfsError refused(ThrowingReserve r) {
        return assertThrows(VfsException.class, r::run).error();
    }

    interface ThrowingReserve {
        void run() throws VfsException;
    }

    @Test
    void anOpenOfOneProtocolRefusesWhatItDeniesToTheOtherAndWhatTheOtherDeniesItUses() throws Exception {
        var writer = shares.reserve(1, 1, READ | WRITE, 0, smb, "smb session");
        assertEquals(VfsError.SHARING_VIOLATION, refused(() -> shares.reserve(1, 1, READ, WRITE, nfs4, "client")),
                "denying writing to a file open for writing");
        shares.reserve(1, 1, READ, 0, nfs4, "client").release(); // reading beside it is fine
        shares.reserve(2, 1, READ, WRITE, nfs4, "client").release(); // another file is another matter
        writer.release();

        var denyRead = shares.reserve(1, 1, WRITE, READ | DELETE, nfs4, "client");
        assertEquals(VfsError.SHARING_VIOLATION, refused(() -> shares.reserve(1, 1, READ, 0, smb, "s")));
        assertEquals(VfsError.SHARING_VIOLATION, refused(() -> shares.reserve(1, 1, DELETE, 0, smb, "s")));
        shares.reserve(1, 1, 0, 0, smb, "s").release(); // an open that uses nothing the other denies
        shares.reserve(1, 1, WRITE, 0, smb, "s").release();
        denyRead.release();
        shares.reserve(1, 1, READ | WRITE | DELETE, READ | WRITE | DELETE, smb, "s").release();
        assertEquals(0, shares.size());
    }

    @Test
    void opensOfOneHolderAreLeftToItsOwnRules() throws Exception {
        var a = shares.reserve(1, 1, READ, READ | WRITE | DELETE, smb, "s1");
        var b = shares.reserve(1, 1, READ | WRITE, READ | WRITE | DELETE, smb, "s2"); // the SMB server checked these itself
        assertEquals(VfsError.SHARING_VIOLATION, refused(() -> shares.reserve(1, 1, READ, 0, nfs4, "c")));
        a.release();
        b.release();
        b.release(); // twice is once
        assertEquals(0, shares.size());
        assertEquals(0, shares.denying());
    }

    @Test
    void aChangeIsCheckedAndARefusedChangeLeavesTheOpenAsItWas() throws Exception {
        var reader = shares.reserve(1, 1, READ, 0, smb, "s");
        var nfsOpen = shares.reserve(1, 1, READ, 0, nfs4, "c");
        assertEquals(VfsError.SHARING_VIOLATION, refused(() -> nfsOpen.change(READ, READ)),
                "an NFSv4 OPEN upgrade to DENY_READ beside a reader of the other protocol");
        assertFalse(shares.denies(1, 1, READ, null), "still denying nothing");
        reader.release();
        nfsOpen.change(READ | WRITE, READ);
        assertTrue(shares.denies(1, 1, READ, null));
        assertEquals(VfsError.SHARING_VIOLATION, refused(() -> shares.reserve(1, 1, READ, 0, smb, "s")));
        nfsOpen.change(READ, 0); // OPEN_DOWNGRADE
        shares.reserve(1, 1, READ, 0, smb, "s").release();
        nfsOpen.release();
        assertEquals(0, shares.denying());
    }

    @Test
    void anOperationWithoutAnOpenIsDeniedByEveryoneButItsOwnHolderOrOwner() throws Exception {
        String client = "client-1";
        var r = shares.reserve(7, 1, READ, WRITE, nfs4, client);
        assertTrue(shares.denies(7, 1, WRITE, null), "an NFSv3 WRITE");
        assertTrue(shares.denies(7, 1, WRITE, smb), "an SMB operation");
        assertFalse(shares.denies(7, 1, WRITE, client), "the client's own write");
        assertFalse(shares.denies(7, 1, WRITE, nfs4), "its own holder");
        assertFalse(shares.denies(7, 1, DELETE, null), "removal is not denied");
        assertFalse(shares.denies(8, 1, WRITE, null), "nor another file");
        r.release();
        assertFalse(shares.denies(7, 1, WRITE, null));
    }

    @Test
    void openedTellsAHolderWhetherAnotherHasTheFileOpenOrOpenForWriting() throws Exception {
        assertFalse(shares.opened(1, 1, smb, false));
        var reader = shares.reserve(1, 1, READ, 0, nfs4, "c");
        assertTrue(shares.opened(1, 1, smb, false));
        assertFalse(shares.opened(1, 1, smb, true));
        assertFalse(shares.opened(1, 1, nfs4, false), "its own opens do not count");
        reader.change(READ | WRITE, 0);
        assertTrue(shares.opened(1, 1, smb, true));
        reader.release();
        assertFalse(shares.opened(1, 1, smb, false));
    }

    @Test
    void badBitsAreRefusedBeforeAnythingIsHeld() {
        assertThrows(IllegalArgumentException.class, () -> shares.reserve(1, 1, 8, 0, smb, "s"));
        assertThrows(IllegalArgumentException.class, () -> shares.reserve(1, 1, READ, -1, smb, "s"));
        assertEquals(0, shares.size());
    }

    @Test
    void anOpenOfARemovedFileLeavesTheNextFileWithItsInodeNumberAlone() throws Exception {
        // an SMB open with FILE_SHARE_DELETE of generation 1, removed over NFS while open
        var old = shares.reserve(5, 1, READ | WRITE | DELETE, WRITE, smb, "s");
        assertFalse(shares.denies(5, 2, WRITE, null), "an NFSv3 WRITE of the new file");
        shares.reserve(5, 2, READ, WRITE, nfs4, "c").release();
        assertFalse(shares.opened(5, 2, nfs4, false));
        assertTrue(shares.denies(5, 1, WRITE, null), "the old file's own");
        assertTrue(shares.denies(5, 0, WRITE, null), "and where the generation is not known");
        old.release();
    }
}
