package io.rdmagate.gateway.spi.security;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.time.Instant;
import java.util.Date;
import java.util.Optional;
import javax.security.auth.kerberos.KerberosKey;

/**
 * When the ticket of an accepted AP-REQ ends: the endtime of its EncTicketPart (RFC 4120 §5.3),
 * which an SMB session (MS-SMB2 3.3.5.5.3, Session.ExpirationTime) and an RPCSEC_GSS context
 * (RFC 2203 §5.3.3.3) last until. The JDK's GSS-API does not say it (its Kerberos context
 * answers INDEFINITE_LIFETIME), so the ticket is read a second time, after the GSS-API accepted
 * it, with the JDK's own Kerberos classes ({@code sun.security.krb5} of
 * {@code java.security.jgss}): the same key from the keytab, the same decryption, no cryptography
 * of ours. Those packages are not exported: the gateway's jar asks for them in its manifest
 * ({@code Add-Exports}, honoured by {@code java -jar}), other launches pass {@link #JVM_OPTIONS}.
 * Without them the end is unknown, which {@link #readable()} tells at start.
 */
public final class TicketEnd {
    /** What a JVM started with {@code -cp} needs for ticket ends to be known. */
    public static final java.util.List<String> JVM_OPTIONS = java.util.List.of(
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5.internal=ALL-UNNAMED");
    /** RFC 4120 §7.5.1: the key usage of a ticket's encrypted part. */
    private static final int KU_TICKET = 2;
    private static final Reflection JDK = Reflection.load();

    private TicketEnd() {
    }

    /** Whether this JVM lets the gateway read ticket ends (see the class comment). */
    public static boolean readable() {
        return JDK != null;
    }

    /**
     * The end of the ticket in {@code gssToken} (the initial context token, RFC 2743 §3.1, whose
     * inner token is the AP-REQ), decrypted with whichever of {@code keys} matches its enctype and
     * key version; empty when it cannot be read. Call it only for a token the GSS-API accepted.
     */
    static Optional<Instant> of(byte[] gssToken, KerberosKey[] keys) {
        if (JDK == null || keys == null) {
            return Optional.empty();
        }
        byte[] apReq = innerToken(gssToken);
        if (apReq == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(JDK.endtime(apReq, keys));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The AP-REQ inside the framing of RFC 2743 §3.1: [APPLICATION 0] length, the mechanism's OID,
     * then the Kerberos token with TOK_ID 01 00 (RFC 4121 §4.1).
     */
    static byte[] innerToken(byte[] t) {
        if (t == null || t.length < 2 || (t[0] & 0xff) != 0x60) {
            return null;
        }
        int at = 1;
        int first = t[at++] & 0xff;
        if (first >= 0x80) {
            int n = first & 0x7f;
            if (n == 0 || n > 4 || at + n > t.length) {
                return null;
            }
            at += n;
        }
        if (at + 2 > t.length || t[at] != 0x06) {
            return null;
        }
        int oidLength = t[at + 1] & 0xff;
        at += 2 + oidLength;
        if (at + 2 > t.length || t[at] != 0x01 || t[at + 1] != 0x00) {
            return null;
        }
        at += 2;
        return java.util.Arrays.copyOfRange(t, at, t.length);
    }

    /** The JDK's classes, looked up once: APReq, its ticket, EncryptedData, EncryptionKey, EncTicketPart. */
    private record Reflection(Constructor<?> apReq, java.lang.reflect.Field ticket, java.lang.reflect.Field encPart,
            Method etype, Method kvno, Constructor<?> key, Method decrypt, Method reset, Constructor<?> encTicketPart,
            java.lang.reflect.Field endtime, Method toDate) {
        static Reflection load() {
            Module jgss = ModuleLayer.boot().findModule("java.security.jgss").orElse(null);
            Module us = TicketEnd.class.getModule();
            if (jgss == null || !jgss.isExported("sun.security.krb5", us)
                    || !jgss.isExported("sun.security.krb5.internal", us)) {
                return null;
            }
            try {
                Class<?> apReq = Class.forName("sun.security.krb5.internal.APReq");
                Class<?> ticket = Class.forName("sun.security.krb5.internal.Ticket");
                Class<?> encrypted = Class.forName("sun.security.krb5.EncryptedData");
                Class<?> key = Class.forName("sun.security.krb5.EncryptionKey");
                Class<?> encTicketPart = Class.forName("sun.security.krb5.internal.EncTicketPart");
                Class<?> time = Class.forName("sun.security.krb5.internal.KerberosTime");
                return new Reflection(apReq.getConstructor(byte[].class), apReq.getField("ticket"),
                        ticket.getField("encPart"), encrypted.getMethod("getEType"),
                        encrypted.getMethod("getKeyVersionNumber"),
                        key.getConstructor(byte[].class, int.class, Integer.class),
                        encrypted.getMethod("decrypt", key, int.class), encrypted.getMethod("reset", byte[].class),
                        encTicketPart.getConstructor(byte[].class), encTicketPart.getField("endtime"),
                        time.getMethod("toDate"));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return null;
            }
        }

        Instant endtime(byte[] der, KerberosKey[] keys) throws ReflectiveOperationException {
            Object req = apReq.newInstance((Object) der);
            Object enc = encPart.get(ticket.get(req));
            int type = (Integer) etype.invoke(enc);
            Integer version = (Integer) kvno.invoke(enc);
            for (KerberosKey k : keys) {
                if (k.getKeyType() == type && (version == null || k.getVersionNumber() == version)) {
                    Object plain = decrypt.invoke(enc, key.newInstance(k.getEncoded(), type, k.getVersionNumber()),
                            KU_TICKET);
                    Object part = encTicketPart.newInstance(reset.invoke(enc, plain));
                    return ((Date) toDate.invoke(endtime.get(part))).toInstant();
                }
            }
            throw new IllegalStateException("no key of enctype " + type + " kvno " + version);
        }
    }
}
