package io.rdmagate.nfs.v4.state;

import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.oncrpc.server.Backchannel;

/**
 * A session's back channel (RFC 8881 §2.10.3.1): the connection the server calls the client on,
 * the client's callback program and the credential the client asked callbacks to carry
 * (csa_sec_parms, AUTH_NONE or AUTH_SYS), and whether the last probe of the path succeeded.
 *
 * <p>A session has one from CREATE_SESSION with CONN_BACK_CHAN on a connection that can carry
 * calls the other way (TCP, or RPC-over-RDMA with RFC 8167); BIND_CONN_TO_SESSION moves it to
 * another connection and BACKCHANNEL_CTL changes its program and credential. SEQUENCE reports
 * SEQ4_STATUS_CB_PATH_DOWN while a granted back channel has no live connection or failed its probe.
 */
public final class BackChannel {
    private volatile boolean granted;
    private volatile Backchannel connection = Backchannel.NONE;
    private volatile int program;
    private volatile Credentials credentials = Credentials.NONE;
    private volatile int minorVersion = 1;
    /** The last probe of the connection: {@link #PROBING} until it is answered, then OK or FAILED. */
    private volatile int probe;
    private static final int PROBING = 0;
    private static final int OK = 1;
    private static final int FAILED = -1;
    /** CB_SEQUENCE's slot 0 (RFC 8881 §20.9): held by one CB_COMPOUND at a time. */
    private final java.util.concurrent.Semaphore slot = new java.util.concurrent.Semaphore(1);
    /** The sequence id of the last call on slot 0 that the client answered; guarded by {@link #slot}. */
    private int sequence;

    /**
     * The client asked for a back channel and got one on {@code connection}; its callbacks carry
     * {@code minorVersion}, the session's (a Linux client finds the session of a CB_SEQUENCE only
     * among its clients of that minor version).
     */
    public void grant(Backchannel connection, int program, Credentials credentials, int minorVersion) {
        this.minorVersion = minorVersion;
        this.program = program;
        this.credentials = credentials;
        this.connection = connection;
        this.probe = PROBING;
        this.granted = true;
    }

    /** BIND_CONN_TO_SESSION for the back channel: later callbacks go on {@code c}. */
    public void bind(Backchannel c) {
        this.connection = c;
        this.probe = PROBING;
    }

    /** BACKCHANNEL_CTL (RFC 8881 §18.33). */
    public void control(int program, Credentials credentials) {
        this.program = program;
        this.credentials = credentials;
    }

    public boolean granted() {
        return granted;
    }

    public Backchannel connection() {
        return connection;
    }

    /** The minor version of the session's COMPOUNDs, which its CB_COMPOUNDs carry too. */
    public int minorVersion() {
        return minorVersion;
    }

    public int program() {
        return program;
    }

    public Credentials credentials() {
        return credentials;
    }

    /** The outcome of a probe (CB_NULL) or of a callback on {@code c}: a later bind is not undone by it. */
    public void probed(Backchannel c, boolean ok) {
        if (connection == c) {
            probe = ok ? OK : FAILED;
        }
    }

    /** RFC 8881 §18.46.3 SEQ4_STATUS_CB_PATH_DOWN: granted, and no live connection or a failed probe. */
    public boolean pathDown() {
        return granted && (probe == FAILED || !connection.isOpen());
    }

    /** Granted, and the client answered the probe on a connection that is still up. */
    public boolean pathUp() {
        return granted && probe == OK && connection.isOpen();
    }

    /** Takes slot 0 for one CB_COMPOUND; waits while another holds it. */
    public void acquireSlot() throws InterruptedException {
        slot.acquire();
    }

    public void releaseSlot() {
        slot.release();
    }

    /** The sequence id the client last saw on slot 0; with the slot held. */
    public int slotSequence() {
        return sequence;
    }

    /** The client answered the call with sequence id {@code seq}; with the slot held. */
    public void sequenced(int seq) {
        sequence = seq;
    }
}
