package io.rdmagate.vfs.support;

import io.rdmagate.vfs.DirectoryChange;
import io.rdmagate.vfs.DirectoryListener;
import io.rdmagate.vfs.DirectoryWatch;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongConsumer;

/**
 * The listeners of a volume's watched directories, by directory file id, and the one thread that
 * delivers their changes in order (so a backend can report a change while it holds its own locks).
 */
public final class Watches {
    private final Map<Long, List<DirectoryListener>> byDir = new ConcurrentHashMap<>();
    private final ExecutorService delivery;
    private final LongConsumer unwatched;

    /** {@code unwatched} runs when the last listener of a directory goes (a backend drops its kernel watch). */
    public Watches(String name, LongConsumer unwatched) {
        this.delivery = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "vfs-watch-" + name);
            t.setDaemon(true);
            return t;
        });
        this.unwatched = unwatched;
    }

    /** Adds a listener; the watch's {@code settle} waits for the changes fired so far to be delivered. */
    public DirectoryWatch add(long dir, DirectoryListener l) {
        byDir.computeIfAbsent(dir, k -> new CopyOnWriteArrayList<>()).add(l);
        return new DirectoryWatch() {
            @Override
            public void close() {
                remove(dir, l);
            }

            @Override
            public void settle() {
                flush();
            }
        };
    }

    private void remove(long dir, DirectoryListener l) {
        boolean[] last = new boolean[1];
        byDir.computeIfPresent(dir, (k, list) -> {
            list.remove(l);
            last[0] = list.isEmpty();
            return last[0] ? null : list;
        });
        if (last[0]) {
            unwatched.accept(dir);
        }
    }

    public boolean isEmpty() {
        return byDir.isEmpty();
    }

    /** The watched directories' file ids. */
    public Set<Long> directories() {
        return byDir.keySet();
    }

    /** Hands a change of directory {@code dir} to its listeners, on the delivery thread. */
    public void fire(long dir, DirectoryChange change, String name) {
        List<DirectoryListener> l = byDir.get(dir);
        if (l == null || l.isEmpty() || delivery.isShutdown()) {
            return;
        }
        delivery.execute(() -> {
            for (DirectoryListener x : l) {
                x.changed(change, name);
            }
        });
    }

    /** Returns once every change handed to {@link #fire} before the call has reached its listeners. */
    public void flush() {
        try {
            delivery.submit(() -> { }).get();
        } catch (java.util.concurrent.RejectedExecutionException | java.util.concurrent.ExecutionException e) {
            // closed: nothing more is delivered
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public void close() {
        byDir.clear();
        delivery.shutdownNow();
    }
}
