package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.gateway.spi.config.ClientRule;
import io.rdmagate.nfs.NfsExport;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import java.net.InetAddress;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * SECINFO4resok (RFC 8881 §18.29.2): the flavors the client rule of the object's export allows
 * this client (exports(5) sec=), in its order; in the pseudo-filesystem, those of every export
 * the client may see. krb5, krb5i and krb5p are RPCSEC_GSS with the Kerberos V5 OID, QOP 0 and
 * the service rpc_gss_svc_none, _integrity or _privacy, as knfsd writes them.
 */
final class Secinfos {
    /** 1.2.840.113554.1.2.2, the contents of its DER encoding, as sec_oid4 carries it. */
    private static final byte[] KRB5_OID = {0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x12, 0x01, 0x02, 0x02};

    private Secinfos() {
    }

    /** @param export the export the object is in, or null for the pseudo-filesystem */
    static void write(Compound c, NfsExport export) {
        InetAddress client = c.call().connection().peer().getAddress();
        Set<ClientRule.Sec> flavors = new LinkedHashSet<>();
        for (NfsExport e : export != null ? java.util.List.of(export) : c.server().exports().all()) {
            e.ruleFor(client).ifPresent(r -> flavors.addAll(r.sec()));
        }
        if (flavors.isEmpty()) {
            flavors.add(ClientRule.Sec.SYS);
        }
        XdrEncoder out = c.out();
        out.writeInt(flavors.size());
        for (ClientRule.Sec f : flavors) {
            if (f.kerberos()) {
                out.writeInt(RPCSEC_GSS);
                out.writeOpaque(KRB5_OID);
                out.writeInt(0); // qop4
                out.writeInt(switch (f) { // rpc_gss_svc_t (RFC 2203 5)
                    case KRB5I -> io.rdmagate.oncrpc.rpc.RpcGssCred.SERVICE_INTEGRITY;
                    case KRB5P -> io.rdmagate.oncrpc.rpc.RpcGssCred.SERVICE_PRIVACY;
                    default -> io.rdmagate.oncrpc.rpc.RpcGssCred.SERVICE_NONE;
                });
            } else {
                out.writeInt(AUTH_SYS);
            }
        }
    }
}
