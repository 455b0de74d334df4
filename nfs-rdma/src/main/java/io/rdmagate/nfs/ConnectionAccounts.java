package io.rdmagate.nfs;

import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.vfs.memory.IoMemoryPool;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One I/O memory pool account per client connection, so that one client cannot hold more than
 * its share of the pool with READ payloads in flight. An account lives exactly as long as its
 * connection: made when the transport reports the connection open, dropped when it reports it
 * closed (leases still out keep their account until they are released). A call of a connection
 * the table does not hold (UDP, or a call still running after its connection closed) gets an
 * account of its own that nothing keeps.
 */
public final class ConnectionAccounts {
    private final IoMemoryPool pool;
    private final Map<Long, IoMemoryPool.Account> accounts = new ConcurrentHashMap<>();

    public ConnectionAccounts(IoMemoryPool pool) {
        this.pool = pool;
    }

    public IoMemoryPool.Account of(Connection c) {
        IoMemoryPool.Account a = accounts.get(c.id());
        return a != null ? a : pool.account(name(c));
    }

    public void opened(Connection c) {
        accounts.putIfAbsent(c.id(), pool.account(name(c)));
    }

    public void closed(Connection c) {
        accounts.remove(c.id());
    }

    /** Connections holding an account now. */
    public int size() {
        return accounts.size();
    }

    private static String name(Connection c) {
        return c.transport() + ":" + c.peer();
    }
}
