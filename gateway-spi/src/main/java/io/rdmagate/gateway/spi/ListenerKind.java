package io.rdmagate.gateway.spi;

/**
 * Every listener the gateway can plan a port for. Only the two privileged protocol ports have an
 * unprivileged fallback, used when the port was defaulted and the process may not bind it:
 * rpcbind 111 moves to 10111, SMB 445 to 10445.
 */
public enum ListenerKind {
    RPCBIND("rpcbind", "tcp", 10111),
    NFS("nfs", "tcp", 0),
    NFS_RDMA("nfs", "rdma", 0),
    MOUNT("mount", "tcp", 0),
    NLM("nlm", "tcp", 0),
    NSM("nsm", "tcp", 0),
    SMB("smb", "tcp", 10445),
    SMB_DIRECT("smb-direct", "rdma", 0);

    private final String protocol;
    private final String transport;
    private final int fallbackPort;

    ListenerKind(String protocol, String transport, int fallbackPort) {
        this.protocol = protocol;
        this.transport = transport;
        this.fallbackPort = fallbackPort;
    }

    public String protocol() {
        return protocol;
    }

    public String transport() {
        return transport;
    }

    /** The unprivileged port a defaulted privileged port moves to; 0 if there is none. */
    public int fallbackPort() {
        return fallbackPort;
    }

    @Override
    public String toString() {
        return protocol + "/" + transport;
    }
}
