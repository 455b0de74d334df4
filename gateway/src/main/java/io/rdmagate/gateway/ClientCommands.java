package io.rdmagate.gateway;

import io.rdmagate.gateway.spi.ListenerKind;
import io.rdmagate.gateway.spi.ListenerPlan;
import io.rdmagate.gateway.spi.config.ExportConfig;
import io.rdmagate.gateway.spi.config.GatewayConfig;
import io.rdmagate.gateway.spi.config.ShareConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The client command lines that reach this gateway with its planned ports, for the start-up log.
 * NFS lines name the NFS and MOUNT ports, so they work whether or not rpcbind is on 111; SMB
 * lines name the port only when it is not 445, and log on with the generated credentials file
 * when the configuration names no users, else as the first configured user.
 */
public final class ClientCommands {
    private ClientCommands() {
    }

    /** Lines for the listeners this build serves ({@code served}), with their planned ports. */
    public static List<String> of(GatewayConfig config, ListenerPlan plan, Set<ListenerKind> served, String host,
            Optional<Path> credentials) {
        List<String> out = new ArrayList<>();
        var nfs = plan.port(ListenerKind.NFS).filter(p -> served.contains(ListenerKind.NFS));
        var mount = plan.port(ListenerKind.MOUNT).filter(p -> served.contains(ListenerKind.MOUNT));
        var rdma = plan.port(ListenerKind.NFS_RDMA).filter(p -> served.contains(ListenerKind.NFS_RDMA));
        for (ExportConfig e : config.exports()) {
            if (nfs.isPresent() && mount.isPresent()) {
                out.add("mount -t nfs -o vers=3,port=" + nfs.get().port() + ",mountport=" + mount.get().port() + " "
                        + host + ":" + e.nfsPath() + " /mnt");
            }
            if (rdma.isPresent()) {
                out.add("mount -t nfs -o vers=3,rdma,port=" + rdma.get().port() + " " + host + ":" + e.nfsPath()
                        + " /mnt");
            }
        }
        var smb = plan.port(ListenerKind.SMB).filter(p -> served.contains(ListenerKind.SMB));
        // Linux cifs dials SMB Direct on 5445, then 445, whatever port= says: a line only for those
        var direct = plan.port(ListenerKind.SMB_DIRECT).filter(p -> served.contains(ListenerKind.SMB_DIRECT))
                .filter(p -> p.port() == 5445 || p.port() == 445);
        if (smb.isPresent()) {
            int port = smb.get().port();
            for (ShareConfig s : config.shares()) {
                String p = port == 445 ? "" : "-p " + port + " ";
                String o = port == 445 ? "" : "port=" + port + ",";
                String unc = "//" + host + "/" + s.name();
                if (credentials.isPresent()) {
                    String creds = "credentials=" + credentials.get().toAbsolutePath().normalize();
                    out.add("smbclient " + p + unc + " -A " + relative(credentials.get()));
                    out.add("mount -t cifs -o " + o + creds + " " + unc + " /mnt");
                    if (direct.isPresent()) {
                        out.add("mount -t cifs -o rdma,vers=3.1.1," + creds + " " + unc + " /mnt");
                    }
                } else {
                    String user = config.users().isEmpty() ? "USER" : config.users().getFirst().name();
                    out.add("smbclient " + p + unc + " -U " + user);
                    out.add("mount -t cifs -o " + o + "username=" + user + " " + unc + " /mnt");
                    if (direct.isPresent()) {
                        out.add("mount -t cifs -o rdma,vers=3.1.1,username=" + user + " " + unc + " /mnt");
                    }
                }
            }
        }
        return out;
    }

    /** A relative path as a shell user types it ("./state/x"); an absolute one as it is. */
    private static String relative(Path p) {
        Path n = p.normalize();
        return n.isAbsolute() ? n.toString() : "./" + n;
    }
}
