package io.rdmagate.gateway.spi.security;

import com.sun.security.jgss.ExtendedGSSContext;
import com.sun.security.jgss.InquireType;
import io.rdmagate.gateway.spi.config.KerberosConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletionException;
import javax.security.auth.Subject;
import javax.security.auth.kerberos.EncryptionKey;
import javax.security.auth.kerberos.KerberosPrincipal;
import javax.security.auth.kerberos.KeyTab;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.GSSName;
import org.ietf.jgss.MessageProp;
import org.ietf.jgss.Oid;

/**
 * Accepts Kerberos AP-REQs (RFC 4120 3.2, through the GSS-API krb5 mechanism of RFC 4121) for
 * one service principal, with its keys from a keytab. The JDK's own GSS-API does the
 * cryptography and keeps the replay cache; this class binds it to the keytab without a JAAS
 * login configuration, and checks at start what would otherwise fail on the first client.
 *
 * <p>The keytab is read again when it changes, so a rotated key is picked up without a restart.
 */
public final class KerberosAcceptor {
    /** 1.2.840.113554.1.2.2, the Kerberos V5 GSS-API mechanism (RFC 1964). */
    public static final Oid KRB5_MECH = oid("1.2.840.113554.1.2.2");
    private static final Oid KRB5_PRINCIPAL_NAME = oid("1.2.840.113554.1.2.2.1");

    private static final System.Logger LOG = System.getLogger("io.rdmagate.security");
    private static final java.util.concurrent.atomic.AtomicBoolean TOLD = new java.util.concurrent.atomic.AtomicBoolean();

    private final String principal;
    private final GSSCredential credential;
    private final KeyTab keytab;
    private final KerberosPrincipal service;

    private KerberosAcceptor(String principal, GSSCredential credential, KeyTab keytab, KerberosPrincipal service) {
        this.principal = principal;
        this.credential = credential;
        this.keytab = keytab;
        this.service = service;
        if (!TicketEnd.readable() && TOLD.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, "Kerberos ticket end times cannot be read in this JVM (start it with"
                    + " java -jar, or with " + String.join(" ", TicketEnd.JVM_OPTIONS) + "): SMB sessions and NFS"
                    + " contexts made with Kerberos last until logoff, DESTROY or contextIdle instead of their ticket's end");
        }
    }

    /**
     * The acceptor for {@code principal} (e.g. cifs/host.example.test@EXAMPLE.TEST) with the keys
     * {@code config.keytab()} holds for it; fails with a message that names the fix when the
     * keytab is missing, unreadable or holds no key for the principal.
     */
    public static KerberosAcceptor open(KerberosConfig config, String principal) throws KerberosException {
        Path keytab = config.keytab();
        if (!Files.isRegularFile(keytab)) {
            throw new KerberosException("security.kerberos.keytab " + keytab + " does not exist (make it with ktutil,"
                    + " kadmin 'ktadd -k " + keytab + " " + principal + "', msktutil or adcli)");
        }
        if (!Files.isReadable(keytab)) {
            throw new KerberosException("security.kerberos.keytab " + keytab + " is not readable by this process");
        }
        Krb5Conf.use(config.krb5Conf());
        if (principal.indexOf('@') < 0) {
            principal = principal + "@" + config.realm();
        }
        KerberosPrincipal kp;
        try {
            kp = new KerberosPrincipal(principal, KerberosPrincipal.KRB_NT_SRV_HST);
        } catch (IllegalArgumentException e) {
            throw new KerberosException("service principal '" + principal + "': " + e.getMessage(), e);
        }
        KeyTab kt = KeyTab.getInstance(kp, keytab.toFile());
        if (kt.getKeys(kp).length == 0) {
            throw new KerberosException("the keytab " + keytab + " holds no key for " + principal
                    + " ('klist -k " + keytab + "' lists the principals it holds)");
        }
        Subject subject = new Subject();
        subject.getPrincipals().add(kp);
        subject.getPrivateCredentials().add(kt);
        GSSManager manager = GSSManager.getInstance();
        String name = principal;
        try {
            GSSName service = manager.createName(name, KRB5_PRINCIPAL_NAME);
            GSSCredential cred = Subject.callAs(subject, () -> manager.createCredential(service,
                    GSSCredential.INDEFINITE_LIFETIME, KRB5_MECH, GSSCredential.ACCEPT_ONLY));
            return new KerberosAcceptor(principal, cred, kt, kp);
        } catch (GSSException e) {
            throw new KerberosException("cannot accept tickets for " + principal + ": " + e.getMessage(), e);
        } catch (CompletionException e) {
            throw new KerberosException("cannot accept tickets for " + principal + ": " + e.getCause().getMessage(),
                    e.getCause());
        }
    }

    /**
     * SERVICE/FQDN@REALM of this host, the principal clients ask tickets for when they name the
     * gateway by its canonical name (the default of smbPrincipal and nfsPrincipal).
     */
    public static String hostPrincipal(String service, String realm) throws KerberosException {
        try {
            String host = java.net.InetAddress.getLocalHost().getCanonicalHostName().toLowerCase(java.util.Locale.ROOT);
            return service + "/" + host + "@" + realm;
        } catch (java.net.UnknownHostException e) {
            throw new KerberosException("this host's name does not resolve (" + e.getMessage() + "); set the "
                    + service + " principal in security.kerberos to " + service + "/FQDN@" + realm);
        }
    }

    /**
     * The acceptor of a protocol's service principal: {@code configured}, or SERVICE/FQDN@REALM of
     * this host when the configuration names none ({@link #hostPrincipal}).
     */
    public static KerberosAcceptor forService(KerberosConfig config, String service, String configured)
            throws KerberosException {
        return open(config, configured != null ? configured : hostPrincipal(service, config.realm()));
    }

    /** The service principal, with its realm. */
    public String principal() {
        return principal;
    }

    /** A new security context, for one client's authentication. */
    public Exchange begin() throws KerberosException {
        try {
            return new Exchange(GSSManager.getInstance().createContext(credential), this);
        } catch (GSSException e) {
            throw new KerberosException("cannot start a Kerberos context: " + e.getMessage(), e);
        }
    }

    /** One client's security context, from its AP-REQ to the established context. */
    public static final class Exchange {
        private final GSSContext context;
        private final KerberosAcceptor acceptor;
        private java.util.Optional<java.time.Instant> ticketEnd = java.util.Optional.empty();

        Exchange(GSSContext context, KerberosAcceptor acceptor) {
            this.context = context;
            this.acceptor = acceptor;
        }

        /**
         * Verifies the client's token (an AP-REQ in its GSS-API framing); returns what goes back
         * (the AP-REP when the client asked for mutual authentication), or null.
         */
        public byte[] accept(byte[] token) throws KerberosException {
            try {
                byte[] out = context.acceptSecContext(token, 0, token.length);
                if (context.isEstablished()) {
                    ticketEnd = TicketEnd.of(token, acceptor.keytab.getKeys(acceptor.service));
                }
                return out;
            } catch (GSSException e) {
                throw new KerberosException(e.getMessage() + skewHint(e), e);
            }
        }

        public boolean established() {
            return context.isEstablished();
        }

        /** The client's principal, as user@REALM. */
        public String client() throws KerberosException {
            try {
                return context.getSrcName().toString();
            } catch (GSSException e) {
                throw new KerberosException("no client name: " + e.getMessage(), e);
            }
        }

        /**
         * The context's key (RFC 4121 4.2: the acceptor's subkey, else the initiator's, else the
         * ticket's session key), which SMB derives its signing and encryption keys from.
         */
        public byte[] sessionKey() throws KerberosException {
            try {
                EncryptionKey k = (EncryptionKey) ((ExtendedGSSContext) context)
                        .inquireSecContext(InquireType.KRB5_GET_SESSION_KEY_EX);
                return k.getEncoded();
            } catch (GSSException e) {
                throw new KerberosException("no session key: " + e.getMessage(), e);
            }
        }

        /** A MIC token over {@code data} (RFC 2743 2.3.1 GSS_GetMIC). */
        public byte[] mic(byte[] data) throws KerberosException {
            try {
                return context.getMIC(data, 0, data.length, new MessageProp(0, false));
            } catch (GSSException e) {
                throw new KerberosException("cannot make a MIC: " + e.getMessage(), e);
            }
        }

        /**
         * Whether {@code mic} is the client's MIC over {@code data} (GSS_VerifyMIC). Tokens out of
         * order are not refused here: the protocols above keep their own sequence (RPCSEC_GSS's
         * window, RFC 2203 §5.3.3.1), and requests may arrive out of order.
         */
        public boolean verifyMic(byte[] data, byte[] mic) {
            try {
                context.verifyMIC(mic, 0, mic.length, data, 0, data.length, new MessageProp(0, false));
                return true;
            } catch (GSSException e) {
                return false;
            }
        }

        /** GSS_Wrap (RFC 2743 2.3.3) of {@code data}, encrypted when {@code confidential}. */
        public byte[] wrap(byte[] data, boolean confidential) throws KerberosException {
            try {
                return context.wrap(data, 0, data.length, new MessageProp(0, confidential));
            } catch (GSSException e) {
                throw new KerberosException("cannot wrap: " + e.getMessage(), e);
            }
        }

        /**
         * GSS_Unwrap (RFC 2743 2.3.4) of the client's {@code token}; refused when it does not verify
         * or, with {@code confidential}, was not encrypted.
         */
        public byte[] unwrap(byte[] token, boolean confidential) throws KerberosException {
            try {
                MessageProp p = new MessageProp(0, confidential);
                byte[] data = context.unwrap(token, 0, token.length, p);
                if (confidential && !p.getPrivacy()) {
                    throw new KerberosException("a token that should be encrypted is not");
                }
                return data;
            } catch (GSSException e) {
                throw new KerberosException("cannot unwrap: " + e.getMessage(), e);
            }
        }

        /**
         * When the client's ticket ends, which the context lasts until; empty when this JVM cannot
         * read it ({@link TicketEnd}).
         */
        public java.util.Optional<java.time.Instant> ticketEnd() {
            return ticketEnd;
        }

        /** {@link #ticketEnd()} on the {@link System#nanoTime()} clock, which deadlines are kept on. */
        public java.util.OptionalLong ticketEndNanoTime() {
            return ticketEnd.map(end -> java.util.OptionalLong.of(System.nanoTime()
                    + Math.max(0, java.time.Instant.now().until(end, java.time.temporal.ChronoUnit.NANOS))))
                    .orElse(java.util.OptionalLong.empty());
        }

        /** Ends the context and forgets its keys. */
        public void dispose() {
            try {
                context.dispose();
            } catch (GSSException e) {
                // nothing held outside the context
            }
        }

        private static String skewHint(GSSException e) {
            String m = String.valueOf(e.getMessage()) + (e.getCause() == null ? "" : e.getCause().getMessage());
            return m.contains("skew") ? " (the client's clock and the gateway's differ by more than the allowed skew,"
                    + " clockskew in krb5.conf, 300 s by default: run an NTP client on both)" : "";
        }
    }

    private static Oid oid(String s) {
        try {
            return new Oid(s);
        } catch (GSSException e) {
            throw new IllegalStateException(e);
        }
    }
}
