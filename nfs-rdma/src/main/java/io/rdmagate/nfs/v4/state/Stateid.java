package io.rdmagate.nfs.v4.state;

import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import java.util.Arrays;

/**
 * stateid4 (RFC 8881 §8.2): a seqid and 12 bytes naming the state. The special stateids of
 * §8.2.3: all zeros (anonymous), all ones (READ bypass), and seqid 1 with other all zeros (the
 * current stateid of the COMPOUND).
 */
public record Stateid(int seqid, byte[] other) {
    public static final Stateid ANONYMOUS = new Stateid(0, new byte[12]);
    public static final Stateid BYPASS = new Stateid(-1, filled((byte) 0xff));

    public Stateid {
        if (other.length != 12) {
            throw new IllegalArgumentException("stateid other of " + other.length + " bytes");
        }
    }

    public static Stateid read(XdrDecoder in) throws XdrException {
        int seqid = in.readInt();
        byte[] other = new byte[12];
        in.readFixedOpaque(other);
        return new Stateid(seqid, other);
    }

    public void write(XdrEncoder out) {
        out.writeInt(seqid);
        out.writeFixedOpaque(other);
    }

    /** All zeros or all ones: READ and WRITE without an open (§8.2.3). */
    public boolean isSpecial() {
        return (seqid == 0 && Arrays.equals(other, ANONYMOUS.other))
                || (seqid == -1 && Arrays.equals(other, BYPASS.other));
    }

    /** seqid 1, other zeros: the stateid the COMPOUND's last operation produced (§16.2.3.1.2). */
    public boolean isCurrent() {
        return seqid == 1 && Arrays.equals(other, ANONYMOUS.other);
    }

    private static byte[] filled(byte b) {
        byte[] o = new byte[12];
        Arrays.fill(o, b);
        return o;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Stateid s && s.seqid == seqid && Arrays.equals(s.other, other);
    }

    @Override
    public int hashCode() {
        return 31 * seqid + Arrays.hashCode(other);
    }

    @Override
    public String toString() {
        return seqid + ":" + java.util.HexFormat.of().formatHex(other);
    }
}
