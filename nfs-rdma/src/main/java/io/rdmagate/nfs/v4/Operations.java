package io.rdmagate.nfs.v4;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.op.*;

/**
 * The operation classes by number (RFC 8881 §18). A number outside the protocol's is ILLEGAL
 * (§18.54); an operation of the protocol this server does not perform is NFS4ERR_NOTSUPP, among
 * them those NFSv4.1 forbids (the NFSv4.0 client-id and open-confirm operations, §18.35-ff.) and
 * pNFS's (no layouts are offered), and of NFSv4.2 inter-server copy (COPY_NOTIFY), WRITE_SAME and the
 * layout reports (LAYOUTERROR, LAYOUTSTATS). NFSv4.0's COMPOUNDs have its own client-id and
 * open-confirm operations instead of the session's.
 */
final class Operations {
    private final Nfs4Op[] byNumber = new Nfs4Op[OP_REMOVEXATTR + 1];
    private final Nfs4Op illegal = new OpIllegal();
    /** NFSv4.0's own operations (RFC 7530 §16), which NFSv4.1 must not perform. */
    private final Nfs4Op[] only40 = new Nfs4Op[OP_RELEASE_LOCKOWNER + 1];

    Operations() {
        for (Nfs4Op op : new Nfs4Op[] {
            new OpAccess(), new OpClose(), new OpGetattr(), new OpGetfh(), new OpLookup(), new OpLookupp(),
            new OpOpen(), new OpPutfh(), new OpPutpubfh(), new OpPutrootfh(), new OpRead(), new OpReaddir(),
            new OpReadlink(), new OpRestorefh(), new OpSavefh(), new OpSecinfo(), new OpSecinfoNoName(),
            new OpExchangeId(), new OpCreateSession(), new OpDestroySession(), new OpDestroyClientid(),
            new OpSequence(), new OpReclaimComplete(), new OpTestStateid(), new OpFreeStateid(),
            new OpWrite(), new OpCommit(), new OpSetattr(), new OpCreate(), new OpRemove(), new OpRename(), new OpLink(),
            new OpOpenDowngrade(), new OpLock(), new OpLockt(), new OpLocku(), new OpBindConnToSession(),
            new OpBackchannelCtl(), OpVerify.verify(), OpVerify.nverify(), new OpDelegreturn(),
            // NFSv4.2
            new OpSeek(), OpAllocate.allocate(), OpAllocate.deallocate(), new OpReadPlus(), new OpCopy(), new OpClone(),
            OpOffload.status(), OpOffload.cancel(), new OpIoAdvise(), new OpGetxattr(), new OpSetxattr(),
            new OpListxattrs(), new OpRemovexattr(),
        }) {
            if (byNumber[op.number()] != null) {
                throw new IllegalStateException("two classes for operation " + op.number());
            }
            byNumber[op.number()] = op;
        }
        for (Nfs4Op op : new Nfs4Op[] {
            new OpSetClientId(), new OpSetClientIdConfirm(), new OpRenew(), new OpOpenConfirm(), new OpReleaseLockowner(),
        }) {
            only40[op.number()] = op;
        }
        for (int n = OP_ACCESS; n < byNumber.length; n++) {
            if (byNumber[n] == null) {
                byNumber[n] = new OpNotSupported(n);
            }
        }
    }

    /**
     * The class of operation {@code number} in a COMPOUND of {@code minor}: NFSv4.2's are ILLEGAL in
     * NFSv4.1, NFSv4.1's in NFSv4.0 (RFC 7530 §16: its last is RELEASE_LOCKOWNER).
     */
    Nfs4Op get(int number, int minor) {
        if (minor == MINOR_VERSION_0 && number >= OP_ACCESS && number <= OP_RELEASE_LOCKOWNER) {
            return only40[number] != null ? only40[number] : byNumber[number];
        }
        if (minor == MINOR_VERSION_0) {
            return illegal;
        }
        if (number < OP_ACCESS || number >= byNumber.length || (number > OP_RECLAIM_COMPLETE && minor < MINOR_VERSION_2)) {
            return illegal;
        }
        return byNumber[number];
    }
}
