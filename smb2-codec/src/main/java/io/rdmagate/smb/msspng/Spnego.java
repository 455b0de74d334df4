package io.rdmagate.smb.msspng;

/**
 * SPNEGO (RFC 4178, MS-SPNG) with NTLMSSP and Kerberos (MS-KRB5 and the RFC 4121 OID) as mechanisms.
 *
 * <p>Accepts: an InitialContextToken ([APPLICATION 0] with the SPNEGO OID and a NegTokenInit), a
 * NegTokenResp ([1]), or a bare NTLMSSP message (some clients skip SPNEGO). Refuses: other
 * outer tags or OIDs, truncated or overlong elements, a NegTokenInit with no mechTypes.
 * Which mechanism serves the client is the caller's choice ({@link #choose}).
 */
public final class Spnego {
    /** 1.3.6.1.5.5.2 */
    static final byte[] SPNEGO_OID = {0x06, 0x06, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x02};
    /** 1.3.6.1.4.1.311.2.2.10 */
    public static final byte[] NTLMSSP_OID = {0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01, (byte) 0x82, 0x37, 0x02, 0x02, 0x0a};
    static final byte[] NTLMSSP_SIGNATURE = {'N', 'T', 'L', 'M', 'S', 'S', 'P', 0};
    /** 1.2.840.48018.1.2.2, Kerberos as Windows names it (MS-KILE 3.1.5.12); Windows lists it first. */
    public static final byte[] MS_KRB5_OID = {0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x82, (byte) 0xf7, 0x12, 0x01, 0x02,
        0x02};
    /** 1.2.840.113554.1.2.2, Kerberos V5 (RFC 1964, RFC 4121). */
    public static final byte[] KRB5_OID = {0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x12, 0x01, 0x02,
        0x02};

    public static final int ACCEPT_COMPLETED = 0;
    public static final int ACCEPT_INCOMPLETE = 1;
    public static final int REJECT = 2;

    private Spnego() {
    }

    /**
     * What the client sent. {@code mechTypes} is the DER of its MechTypeList (for the mechListMIC)
     * and {@code mechs} its OIDs in the client's order (the mechToken is for the first, RFC 4178
     * 3.2), both null when the token was a NegTokenResp or bare NTLMSSP; {@code raw} is true for
     * bare NTLMSSP.
     */
    public record ClientToken(byte[] mechToken, byte[] mechTypes, byte[] mechListMic, boolean raw,
            java.util.List<byte[]> mechs) {
        public ClientToken(byte[] mechToken, byte[] mechTypes, byte[] mechListMic, boolean raw) {
            this(mechToken, mechTypes, mechListMic, raw, null);
        }
    }

    /** The NEGOTIATE response's security buffer: an InitialContextToken offering NTLMSSP (MS-SPNG 3.2.5.2). */
    public static byte[] serverInit() {
        return serverInit(false);
    }

    /**
     * The NEGOTIATE response's security buffer (MS-SPNG 3.2.5.2), offering Kerberos (both OIDs,
     * as Windows does: the Linux cifs client picks by them) before NTLMSSP when {@code kerberos}.
     */
    public static byte[] serverInit(boolean kerberos) {
        byte[] mechTypes = kerberos ? Der.tlv(0x30, MS_KRB5_OID, KRB5_OID, NTLMSSP_OID) : Der.tlv(0x30, NTLMSSP_OID);
        byte[] negTokenInit = Der.tlv(0x30, Der.tlv(0xa0, mechTypes));
        return Der.tlv(0x60, SPNEGO_OID, Der.tlv(0xa0, negTokenInit));
    }

    /** Whether {@code oid} (DER, tag included) names Kerberos under either OID. */
    public static boolean isKerberos(byte[] oid) {
        return java.util.Arrays.equals(oid, KRB5_OID) || java.util.Arrays.equals(oid, MS_KRB5_OID);
    }

    /**
     * The mechanism the server picks from a NegTokenInit's list (RFC 4178 3.2: the first the
     * acceptor supports, in the initiator's order): Kerberos only when {@code kerberos}; null
     * when none is shared.
     */
    public static byte[] choose(java.util.List<byte[]> mechs, boolean kerberos) {
        for (byte[] m : mechs) {
            if (java.util.Arrays.equals(m, NTLMSSP_OID) || kerberos && isKerberos(m)) {
                return m;
            }
        }
        return null;
    }

    public static ClientToken parse(byte[] b) throws SpnegoException {
        if (b.length >= 8 && java.util.Arrays.equals(b, 0, 8, NTLMSSP_SIGNATURE, 0, 8)) {
            return new ClientToken(b, null, null, true);
        }
        Der.Tlv outer = Der.read(b, 0, b.length);
        if (outer.tag() == 0x60) {
            int at = outer.start();
            Der.Tlv oid = Der.read(b, at, outer.end());
            if (oid.tag() != 0x06 || !java.util.Arrays.equals(b, at, oid.end(), SPNEGO_OID, 0, SPNEGO_OID.length)) {
                throw new SpnegoException("not the SPNEGO mechanism");
            }
            Der.Tlv init = Der.read(b, oid.next(), outer.end());
            if (init.tag() != 0xa0) {
                throw new SpnegoException("expected NegTokenInit, got tag " + init.tag());
            }
            Der.Tlv seq = Der.read(b, init.start(), init.end());
            if (seq.tag() != 0x30) {
                throw new SpnegoException("NegTokenInit is not a SEQUENCE");
            }
            byte[] mechTypes = null;
            java.util.List<byte[]> mechs = new java.util.ArrayList<>();
            byte[] token = null;
            byte[] mic = null;
            for (int p = seq.start(); p < seq.end(); ) {
                Der.Tlv f = Der.read(b, p, seq.end());
                switch (f.tag()) {
                    case 0xa0 -> {
                        Der.Tlv list = Der.read(b, f.start(), f.end());
                        if (list.tag() != 0x30) {
                            throw new SpnegoException("MechTypeList is not a SEQUENCE");
                        }
                        mechTypes = java.util.Arrays.copyOfRange(b, f.start(), list.end());
                        for (int q = list.start(); q < list.end(); ) {
                            Der.Tlv mech = Der.read(b, q, list.end());
                            if (mech.tag() != 0x06) {
                                throw new SpnegoException("a MechType is not an OID");
                            }
                            mechs.add(java.util.Arrays.copyOfRange(b, q, mech.end()));
                            q = mech.next();
                        }
                    }
                    case 0xa2 -> token = octets(b, f);
                    case 0xa3 -> {
                        Der.Tlv o = Der.read(b, f.start(), f.end());
                        mic = o.tag() == 0x04 ? o.value() : null;
                    }
                    default -> {
                    }
                }
                p = f.next();
            }
            if (mechs.isEmpty()) {
                throw new SpnegoException("the client offers no mechanism");
            }
            return new ClientToken(token, mechTypes, mic, false, java.util.List.copyOf(mechs));
        }
        if (outer.tag() == 0xa1) {
            Der.Tlv seq = Der.read(b, outer.start(), outer.end());
            if (seq.tag() != 0x30) {
                throw new SpnegoException("NegTokenResp is not a SEQUENCE");
            }
            byte[] token = null;
            byte[] mic = null;
            for (int p = seq.start(); p < seq.end(); ) {
                Der.Tlv f = Der.read(b, p, seq.end());
                if (f.tag() == 0xa2) {
                    token = octets(b, f);
                } else if (f.tag() == 0xa3) {
                    mic = octets(b, f);
                }
                p = f.next();
            }
            return new ClientToken(token, null, mic, false);
        }
        throw new SpnegoException("unknown SPNEGO token tag 0x" + Integer.toHexString(outer.tag()));
    }

    private static byte[] octets(byte[] b, Der.Tlv explicit) throws SpnegoException {
        Der.Tlv o = Der.read(b, explicit.start(), explicit.end());
        if (o.tag() != 0x04) {
            throw new SpnegoException("expected an OCTET STRING");
        }
        return o.value();
    }

    /** NegTokenResp (RFC 4178 §4.2.2); null parts are left out; {@code withMech} names NTLMSSP. */
    public static byte[] response(int negState, boolean withMech, byte[] responseToken, byte[] mechListMic) {
        return response(negState, withMech ? NTLMSSP_OID : null, responseToken, mechListMic);
    }

    /** NegTokenResp (RFC 4178 §4.2.2) with supportedMech {@code mech} (DER OID); null parts are left out. */
    public static byte[] response(int negState, byte[] mech, byte[] responseToken, byte[] mechListMic) {
        java.util.List<byte[]> parts = new java.util.ArrayList<>();
        parts.add(Der.tlv(0xa0, Der.tlv(0x0a, new byte[] {(byte) negState})));
        if (mech != null) {
            parts.add(Der.tlv(0xa1, mech));
        }
        if (responseToken != null) {
            parts.add(Der.tlv(0xa2, Der.tlv(0x04, responseToken)));
        }
        if (mechListMic != null) {
            parts.add(Der.tlv(0xa3, Der.tlv(0x04, mechListMic)));
        }
        return Der.tlv(0xa1, Der.tlv(0x30, parts.toArray(new byte[0][])));
    }
}
