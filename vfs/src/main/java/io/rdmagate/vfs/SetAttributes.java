package io.rdmagate.vfs;

/**
 * The attributes a caller asks to change; a field left unset is not touched. Times are
 * nanoseconds since the epoch, or {@link #SERVER_TIME} for "now, by the server's clock".
 */
public final class SetAttributes {
    public static final long SERVER_TIME = Long.MIN_VALUE;
    public static final SetAttributes NONE = new SetAttributes();

    private Integer mode;
    private Integer uid;
    private Integer gid;
    private Long size;
    private Long atime;
    private Long mtime;
    private Long birthTime;
    private Long changeTime;
    private Integer dosAttributes;

    public static SetAttributes create() {
        return new SetAttributes();
    }

    public SetAttributes mode(int m) {
        if (m < 0 || m > 07777) {
            throw new IllegalArgumentException("mode " + Integer.toOctalString(m));
        }
        this.mode = m;
        return this;
    }

    public SetAttributes owner(int u) {
        this.uid = u;
        return this;
    }

    public SetAttributes group(int g) {
        this.gid = g;
        return this;
    }

    public SetAttributes size(long s) {
        this.size = s;
        return this;
    }

    public SetAttributes atime(long nanos) {
        this.atime = nanos;
        return this;
    }

    public SetAttributes mtime(long nanos) {
        this.mtime = nanos;
        return this;
    }

    public SetAttributes birthTime(long nanos) {
        this.birthTime = nanos;
        return this;
    }

    /**
     * A change time a client sets (SMB's ChangeTime, MS-FSCC 2.4.7): reported until the file next
     * changes, when the change time moves on by itself.
     */
    public SetAttributes changeTime(long nanos) {
        this.changeTime = nanos;
        return this;
    }

    public SetAttributes dosAttributes(int bits) {
        this.dosAttributes = bits;
        return this;
    }

    public Integer mode() {
        return mode;
    }

    public Integer uid() {
        return uid;
    }

    public Integer gid() {
        return gid;
    }

    public Long size() {
        return size;
    }

    public Long atime() {
        return atime;
    }

    public Long mtime() {
        return mtime;
    }

    public Long birthTime() {
        return birthTime;
    }

    public Long changeTime() {
        return changeTime;
    }

    public Integer dosAttributes() {
        return dosAttributes;
    }

    /**
     * The same changes less the mode: what remains to apply to an object just created with the
     * requested mode.
     */
    public SetAttributes withoutMode() {
        SetAttributes r = new SetAttributes();
        r.uid = uid;
        r.gid = gid;
        r.size = size;
        r.atime = atime;
        r.mtime = mtime;
        r.birthTime = birthTime;
        r.changeTime = changeTime;
        r.dosAttributes = dosAttributes;
        return r;
    }

    public boolean isEmpty() {
        return mode == null && uid == null && gid == null && size == null && atime == null
                && mtime == null && birthTime == null && changeTime == null && dosAttributes == null;
    }

    @Override
    public String toString() {
        return "SetAttributes[mode=" + (mode == null ? null : Integer.toOctalString(mode)) + " uid=" + uid
                + " gid=" + gid + " size=" + size + " atime=" + atime + " mtime=" + mtime + " birth="
                + birthTime + " change=" + changeTime + " dos=" + dosAttributes + "]";
    }
}
