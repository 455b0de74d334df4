package io.rdmagate.gateway.config;

/** The protocol listeners and their ports. */
public record TransportsConfig(Nfs nfs, Rpcbind rpcbind, Smb smb) {

    /** NFS over TCP and RDMA, with its side protocols MOUNT, NLM and NSM. */
    public record Nfs(boolean enabled, Port port, Port rdmaPort, Port mountPort, Port nlmPort, Port nsmPort) {
    }

    /**
     * The portmapper NFSv3 clients ask for the MOUNT, NLM and NSM ports. {@code auto} uses the
     * system's rpcbind when one answers on the host, else runs the embedded one.
     */
    public record Rpcbind(Port port, Mode mode) {
        public enum Mode { AUTO, EMBEDDED, SYSTEM, OFF }
    }

    /** SMB over TCP, and SMB Direct (RDMA). */
    public record Smb(boolean enabled, Port port, Port directPort) {
    }
}
