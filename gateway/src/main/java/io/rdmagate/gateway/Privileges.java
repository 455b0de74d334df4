package io.rdmagate.gateway;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether this process may bind ports below {@code net.ipv4.ip_unprivileged_port_start}
 * (1024 unless the host or container lowers it): it may when its effective uid is 0 or its
 * effective capabilities hold CAP_NET_BIND_SERVICE.
 */
public record Privileges(boolean privileged, int unprivilegedPortStart) {
    static final int CAP_NET_BIND_SERVICE = 10;

    public boolean mayBind(int port) {
        return privileged || port >= unprivilegedPortStart;
    }

    /** Reads /proc; where it cannot, assumes no privilege and the kernel default of 1024. */
    public static Privileges detect() {
        String status = read(Path.of("/proc/self/status"));
        String start = read(Path.of("/proc/sys/net/ipv4/ip_unprivileged_port_start"));
        return parse(status == null ? "" : status, start);
    }

    static Privileges parse(String procStatus, String portStart) {
        boolean root = false;
        boolean cap = false;
        for (String line : procStatus.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f[0].equals("Uid:") && f.length > 2) {
                root = f[2].equals("0");
            } else if (f[0].equals("CapEff:") && f.length > 1) {
                try {
                    cap = (Long.parseUnsignedLong(f[1], 16) >>> CAP_NET_BIND_SERVICE & 1) == 1;
                } catch (NumberFormatException e) {
                    cap = false;
                }
            }
        }
        int s = 1024;
        if (portStart != null) {
            try {
                s = Integer.parseInt(portStart.trim());
            } catch (NumberFormatException e) {
                s = 1024;
            }
        }
        return new Privileges(root || cap, s);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return null;
        }
    }
}
