package io.rdmagate.oncrpc.server;

import io.rdmagate.oncrpc.rpc.RpcRejectedException;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Several versions of one program on one listener, each its own {@link RpcProgram} (NFSv3 and NFSv4
 * on port 2049): a call goes to the program of its version, connection events go to every one.
 * The versions must be contiguous, so PROG_MISMATCH can name one range (RFC 5531 §9).
 */
public final class RpcVersions implements RpcProgram {
    private final List<RpcProgram> versions;
    private final int low;
    private final int high;

    private RpcVersions(List<RpcProgram> versions) {
        this.versions = versions;
        this.low = versions.getFirst().lowVersion();
        this.high = versions.getLast().highVersion();
    }

    /** One program of {@code programs}' number; a single program is returned as it is. */
    public static RpcProgram of(RpcProgram... programs) {
        if (programs.length == 1) {
            return programs[0];
        }
        List<RpcProgram> sorted = new ArrayList<>(List.of(programs));
        sorted.sort(Comparator.comparingInt(RpcProgram::lowVersion));
        for (int i = 1; i < sorted.size(); i++) {
            RpcProgram a = sorted.get(i - 1);
            RpcProgram b = sorted.get(i);
            if (a.program() != b.program() || b.lowVersion() != a.highVersion() + 1) {
                throw new IllegalArgumentException("versions of " + a.name() + " and " + b.name()
                        + " are not one program's contiguous range");
            }
        }
        return new RpcVersions(sorted);
    }

    private RpcProgram of(int version) {
        for (RpcProgram p : versions) {
            if (version >= p.lowVersion() && version <= p.highVersion()) {
                return p;
            }
        }
        throw new IllegalStateException("version " + version + " outside " + low + "-" + high);
    }

    @Override
    public int program() {
        return versions.getFirst().program();
    }

    @Override
    public String name() {
        return versions.getFirst().name();
    }

    @Override
    public int lowVersion() {
        return low;
    }

    @Override
    public int highVersion() {
        return high;
    }

    @Override
    public XdrMessage handle(RpcCall call) throws XdrException, RpcErrorException, RpcRejectedException {
        return of(call.version()).handle(call);
    }

    @Override
    public boolean isNonIdempotent(int version, int procedure) {
        return version >= low && version <= high && of(version).isNonIdempotent(version, procedure);
    }

    @Override
    public void connectionOpened(Connection connection) {
        versions.forEach(p -> p.connectionOpened(connection));
    }

    @Override
    public void connectionClosed(Connection connection) {
        versions.forEach(p -> p.connectionClosed(connection));
    }
}
