package io.rdmagate.smb.server;

import io.rdmagate.smb.msnlmp.NtlmServer;
import io.rdmagate.smb.mssmb2.crypto.PreauthIntegrity;
import io.rdmagate.smb.mssmb2.crypto.Smb2Cipher;
import io.rdmagate.smb.mssmb2.crypto.Smb2Signer;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileHandle;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** One SMB2 session (MS-SMB2 3.3.1.8). */
public final class SmbSession {
    public enum State { IN_PROGRESS, VALID, EXPIRED }

    final long id;
    volatile State state = State.IN_PROGRESS;
    /** The NTLMSSP exchange in progress. */
    public NtlmServer ntlm;
    /** The Kerberos exchange in progress. */
    public io.rdmagate.gateway.spi.security.KerberosAcceptor.Exchange krb5;
    /** The mechanism SPNEGO chose (its DER OID), null before a NegTokenInit. */
    public byte[] mech;
    /** The Kerberos client principal of the logon, for the log. */
    public String krb5Client;
    /** Whether the session logged on with Kerberos (shares may allow only that, or only NTLM). */
    public volatile boolean kerberosLogon;
    /** The client's SPNEGO MechTypeList, for the mechListMIC. */
    public byte[] mechTypes;
    /** Session.PreauthIntegrityHashValue (3.1.1). */
    public PreauthIntegrity preauth;
    private volatile SmbUser user;
    private volatile Caller caller;
    private volatile boolean anonymous;
    public volatile boolean signingRequired;
    public volatile boolean encryptData;
    private volatile boolean expires;
    private volatile long expiresAt;
    private Smb2Signer signer;
    public volatile Smb2Cipher encryptor;
    public volatile Smb2Cipher decryptor;
    final Map<Integer, TreeConnect> trees = new ConcurrentHashMap<>();
    private final AtomicInteger nextTree = new AtomicInteger(1);

    /** The connection the session was set up on: its first channel, whose dialect and algorithms bindings must match. */
    final SmbConnection conn;
    /**
     * MS-SMB2 3.3.1.8 Session.ChannelList: the connections the session is bound to, each with its
     * channel's signer; the first channel signs with the session's own signer (null here).
     */
    private final Map<SmbConnection, java.util.Optional<Smb2Signer>> channels = new ConcurrentHashMap<>();

    SmbSession(long id, PreauthIntegrity preauth, SmbConnection conn) {
        this.id = id;
        this.conn = conn;
        this.preauth = preauth;
        if (conn != null) {
            channels.put(conn, java.util.Optional.empty());
        }
    }

    /** MS-SMB2 3.3.5.5.3: a binding adds a channel, which signs with its own key. */
    public void bind(SmbConnection c, Smb2Signer channelSigner) {
        channels.put(c, java.util.Optional.ofNullable(channelSigner));
    }

    /** The connection the session was set up on (its dialect and algorithms are the session's). */
    public SmbConnection firstChannel() {
        return conn;
    }

    /**
     * Verifies {@code msg} with the key of channel {@code c} (the session's own when {@code c} is
     * not bound yet: a binding's requests, MS-SMB2 3.3.5.2.4).
     */
    public synchronized boolean verifyOn(SmbConnection c, java.nio.ByteBuffer msg) {
        Smb2Signer s = signerLocked(c);
        return s != null && s.verify(msg);
    }

    /** Whether {@code c} is a channel of this session. */
    public boolean boundTo(SmbConnection c) {
        return channels.containsKey(c);
    }

    /**
     * MS-SMB2 3.3.7.1: channel {@code c} is gone; returns whether another channel of the session
     * is still up (the session then lives on).
     */
    boolean unbind(SmbConnection c) {
        channels.remove(c);
        for (SmbConnection other : channels.keySet()) {
            if (other.isOpen()) {
                return true;
            }
        }
        return false;
    }

    /** The session's channels now. */
    public java.util.Set<SmbConnection> channels() {
        return channels.keySet();
    }

    /** A live channel other than {@code not}, or null: where a break goes when its open's connection is gone. */
    SmbConnection liveChannel(SmbConnection not) {
        for (SmbConnection c : channels.keySet()) {
            if (c != not && c.isOpen()) {
                return c;
            }
        }
        return null;
    }

    public long id() {
        return id;
    }

    /**
     * MS-SMB2 3.3.5.5.3: a reconnecting client names its previous session, which the server then
     * ends; its durable opens are kept for the client to reconnect.
     */
    public void expireFromElsewhere() {
        for (SmbConnection c : List.copyOf(channels.keySet())) {
            c.endPrevious(this);
        }
    }

    public State state() {
        return state;
    }

    public SmbUser user() {
        return user;
    }

    public Caller caller() {
        return caller;
    }

    public boolean isGuest() {
        return anonymous;
    }

    /**
     * Session.ExpirationTime (MS-SMB2 3.3.5.5.3): a Kerberos logon lasts as long as its ticket,
     * until {@code end}; after that the session answers STATUS_NETWORK_SESSION_EXPIRED until
     * the client re-authenticates it (3.3.5.2.9). {@code end} is on the {@link System#nanoTime()}
     * clock; empty: the logon does not expire (NTLM, or a ticket whose end this JVM cannot read).
     */
    public void expiresAt(java.util.OptionalLong end) {
        end.ifPresent(at -> expiresAt = at);
        expires = end.isPresent();
    }

    /** Whether the session's ExpirationTime has passed (MS-SMB2 3.3.5.2.9). */
    public boolean authenticationExpired() {
        return expires && System.nanoTime() - expiresAt >= 0;
    }

    /** MS-SMB2 3.3.5.5.3: the session becomes valid for this user. */
    public void authenticated(SmbUser u, boolean anon, boolean signingRequired, boolean encryptData) {
        this.user = u;
        this.caller = u.caller();
        this.anonymous = anon;
        this.signingRequired = signingRequired && !anon;
        this.encryptData = encryptData;
        this.state = State.VALID;
        if (conn != null) {
            conn.authenticated = true;
        }
    }

    public TreeConnect addTree(SmbShare share, FileHandle root, boolean ipc, int maximalAccess) {
        TreeConnect t = new TreeConnect(nextTree.getAndIncrement(), share, root, ipc, maximalAccess);
        trees.put(t.id, t);
        return t;
    }

    public void removeTree(TreeConnect t) {
        trees.remove(t.id);
    }

    public synchronized void setSigner(Smb2Signer s) {
        signer = s;
    }

    public synchronized boolean hasSigner() {
        return signer != null;
    }

    /** The signer of channel {@code c} (MS-SMB2 3.3.4.1.1: Channel.SigningKey); callers hold this session's monitor. */
    synchronized Smb2Signer signerLocked(SmbConnection c) {
        java.util.Optional<Smb2Signer> own = c == null ? null : channels.get(c);
        return own != null && own.isPresent() ? own.get() : signer;
    }
}
