package io.rdmagate.nfs.mount;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Who has mounted what, for DUMP (knfsd's rmtab, in memory: clients re-mount after a restart).
 * Bounded: past {@link #MAX} entries the oldest is forgotten, so a client that mounts without ever
 * unmounting cannot grow it without limit.
 */
public final class MountTable {
    static final int MAX = 4096;

    public record Entry(String host, String directory) {
    }

    private final Set<Entry> entries = new LinkedHashSet<>();

    public synchronized void add(String host, String directory) {
        Entry e = new Entry(host, directory);
        entries.remove(e);
        entries.add(e);
        while (entries.size() > MAX) {
            entries.remove(entries.iterator().next());
        }
    }

    public synchronized void remove(String host, String directory) {
        entries.remove(new Entry(host, directory));
    }

    public synchronized void removeAll(String host) {
        entries.removeIf(e -> e.host().equals(host));
    }

    public synchronized List<Entry> list() {
        return new ArrayList<>(entries);
    }
}
