package io.rdmagate.gateway.spi.config;

import java.net.InetAddress;

/** The protocol listeners, their ports and the address each protocol listens on. */
public record TransportsConfig(Nfs nfs, Rpcbind rpcbind, Smb smb) {

    /**
     * NFS over TCP and RDMA, with its side protocols MOUNT, NLM and NSM and the embedded rpcbind.
     *
     * @param address where they listen; null for every interface
     */
    public record Nfs(boolean enabled, InetAddress address, Port port, Port rdmaPort, Port mountPort, Port nlmPort,
            Port nsmPort) {
    }

    /**
     * The portmapper NFSv3 clients ask for the MOUNT, NLM and NSM ports. {@code auto} uses the
     * system's rpcbind when one answers on the host, else runs the embedded one.
     */
    public record Rpcbind(Port port, Mode mode) {
        public enum Mode { AUTO, EMBEDDED, SYSTEM, OFF }
    }

    /**
     * SMB over TCP, and SMB Direct (RDMA).
     *
     * @param address where it listens; null for every interface
     */
    public record Smb(boolean enabled, InetAddress address, Port port, Port directPort) {
    }
}
