package io.rdmagate.nfs;

import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.vfs.memory.IoMemoryPool;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One I/O memory pool account per client connection, so that one client cannot hold more than
 * its share of the pool with READ payloads in flight. The transport does not report closed
 * connections to programs, so the table is an LRU bounded to {@link #MAX}: an account forgotten
 * while leases are out keeps counting them (leases hold their account), and a connection that
 * comes back after eviction starts a fresh share.
 */
public final class ConnectionAccounts {
    static final int MAX = 4096;

    private final IoMemoryPool pool;
    private final Map<Long, IoMemoryPool.Account> accounts = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, IoMemoryPool.Account> eldest) {
            return size() > MAX;
        }
    };

    public ConnectionAccounts(IoMemoryPool pool) {
        this.pool = pool;
    }

    public synchronized IoMemoryPool.Account of(Connection c) {
        return accounts.computeIfAbsent(c.id(), id -> pool.account(c.transport() + ":" + c.peer()));
    }
}
