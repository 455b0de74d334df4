package io.rdmagate.gateway.cli;

import io.rdmagate.gateway.Main;
import io.rdmagate.rdma.verbs.VerbsDeviceInfo;
import io.rdmagate.rdma.verbs.VerbsDevices;
import io.rdmagate.rdma.verbs.VerbsUnavailableException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * An {@code ibv_devinfo}-style self-test: what libibverbs reports of each RDMA device (limits,
 * ports, GID table with each GID's type, network device and IPv4 address), in the formats
 * {@code ibv_devinfo} and sysfs use, then the built-in soft-iWARP provider, which needs no
 * device. Each device also registers one slab's worth of memory as the gateway would, which is
 * where a locked-memory limit shows. Exit 0 when at least one verbs device takes that
 * registration, 1 when none does or there is none (or libibverbs or the kernel's RDMA support is
 * missing: the reason is printed).
 */
@Command(name = "devices", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Lists the host's RDMA devices through libibverbs: limits, ports, GIDs, and whether each takes a"
                + " registration of one I/O pool slab. Exits 0 when at least one does, 1 when none does, there is"
                + " none, or libibverbs cannot be used (the reason is printed)."})
public final class RdmaDevicesCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        int status;
        try {
            List<VerbsDeviceInfo> devices = VerbsDevices.list();
            out.println("verbs: " + devices.size() + (devices.size() == 1 ? " device" : " devices"));
            for (VerbsDeviceInfo d : devices) {
                print(out, d);
            }
            status = devices.stream().anyMatch(d -> d.registration().ok()) ? 0 : Main.EXIT_FAILURE;
        } catch (VerbsUnavailableException e) {
            out.println("verbs: not available: " + e.getMessage());
            status = Main.EXIT_FAILURE;
        }
        out.println("soft: the built-in software iWARP (rdma.provider: soft) needs no device; Linux clients reach it"
                + " with siw on any IP interface");
        out.flush();
        return status;
    }

    static void print(PrintWriter out, VerbsDeviceInfo d) {
        out.printf(Locale.ROOT, "%s: transport %s, node type %s, firmware %s, node_guid %s%n", d.name(), d.transport(),
                d.nodeType(), d.firmware().isEmpty() ? "-" : d.firmware(), d.nodeGuid());
        out.printf(Locale.ROOT, "  max_mr_size 0x%x, max_mr %d, max_pd %d, max_qp %d, max_qp_wr %d, max_sge %d,"
                + " max_sge_rd %d, max_cq %d, max_cqe %d, max_qp_rd_atom %d, max_qp_init_rd_atom %d, max_srq %d%n",
                d.maxMrSize(), d.maxMr(), d.maxPd(), d.maxQp(), d.maxQpWr(), d.maxSge(), d.maxSgeRd(), d.maxCq(),
                d.maxCqe(), d.maxQpRdAtom(), d.maxQpInitRdAtom(), d.maxSrq());
        VerbsDeviceInfo.Registration r = d.registration();
        out.printf(Locale.ROOT, "  registration of %d MiB (local write, remote read and write): %s, %s%n", r.bytes() >> 20,
                r.ok() ? "ok" : "refused", r.detail());
        for (VerbsDeviceInfo.Port p : d.ports()) {
            out.printf(Locale.ROOT, "  port %d: state PORT_%s, link_layer %s, active_mtu %d, max_mtu %d, max_msg_sz 0x%x,"
                    + " lid %d%n", p.number(), p.state(), p.linkLayer(), p.activeMtu(), p.maxMtu(), p.maxMessage(), p.lid());
            for (VerbsDeviceInfo.Gid g : p.gids()) {
                StringBuilder b = new StringBuilder("    GID[").append(g.index()).append("] ").append(g.gid());
                if (!g.type().isEmpty()) {
                    b.append(", ").append(g.type());
                }
                if (!g.netdev().isEmpty()) {
                    b.append(", ").append(g.netdev());
                }
                if (!g.ipv4().isEmpty()) {
                    b.append(", ").append(g.ipv4());
                }
                out.println(b);
            }
        }
    }
}
