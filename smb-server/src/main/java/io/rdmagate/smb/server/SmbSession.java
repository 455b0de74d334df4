package io.rdmagate.smb.server;

import io.rdmagate.smb.msnlmp.NtlmServer;
import io.rdmagate.smb.mssmb2.crypto.PreauthIntegrity;
import io.rdmagate.smb.mssmb2.crypto.Smb2Cipher;
import io.rdmagate.smb.mssmb2.crypto.Smb2Signer;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileHandle;
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
    /** The client's SPNEGO MechTypeList, for the mechListMIC. */
    public byte[] mechTypes;
    /** Session.PreauthIntegrityHashValue (3.1.1). */
    public PreauthIntegrity preauth;
    private volatile SmbUser user;
    private volatile Caller caller;
    private volatile boolean anonymous;
    public volatile boolean signingRequired;
    public volatile boolean encryptData;
    private Smb2Signer signer;
    public volatile Smb2Cipher encryptor;
    public volatile Smb2Cipher decryptor;
    final Map<Integer, TreeConnect> trees = new ConcurrentHashMap<>();
    private final AtomicInteger nextTree = new AtomicInteger(1);

    /** The connection the session was set up on. */
    final SmbConnection conn;

    SmbSession(long id, PreauthIntegrity preauth, SmbConnection conn) {
        this.id = id;
        this.conn = conn;
        this.preauth = preauth;
    }

    public long id() {
        return id;
    }

    /**
     * MS-SMB2 3.3.5.5.3: a reconnecting client names its previous session, which the server then
     * ends; its durable opens are kept for the client to reconnect.
     */
    public void expireFromElsewhere() {
        conn.endPrevious(this);
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

    /** Signers are not thread-safe; callers hold this session's monitor. */
    synchronized Smb2Signer signerLocked() {
        return signer;
    }
}
