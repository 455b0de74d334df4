package io.rdmagate.gateway.spi.log;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * A log of events a client can cause at will (failed logons, refused mounts, access denials):
 * at most {@code perKey} lines per key (the client's address) and {@code global} lines in all per
 * window, so a client that guesses passwords in a loop cannot flood the log or the disk. The first
 * line a key logs after lines of it were suppressed ends with "(N more suppressed)".
 *
 * <p>Bounded: at most {@code maxKeys} keys are remembered (least recently seen forgotten first).
 * Thread-safe; one short critical section per event, formatting outside it. Not meant for hot
 * paths: callers log only when something was refused.
 */
public final class RateLimitedLog {
    /** Levels a denial is logged at. */
    public enum Level { INFO, WARN }

    private static final class Window {
        long start;
        int logged;
        long suppressed;

        Window(long start) {
            this.start = start;
        }
    }

    private final Logger log;
    private final int perKey;
    private final int global;
    private final long windowNanos;
    private final LongSupplier clock;
    private final Map<String, Window> windows;
    private long globalStart;
    private int globalLogged;

    /** 5 lines per client and 50 in all per minute, 4096 clients remembered. */
    public static RateLimitedLog perMinute(Logger log) {
        return new RateLimitedLog(log, 5, 50, Duration.ofMinutes(1), 4096, System::nanoTime);
    }

    public RateLimitedLog(Logger log, int perKey, int global, Duration window, int maxKeys, LongSupplier nanoClock) {
        if (perKey < 1 || global < 1 || maxKeys < 1 || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("perKey " + perKey + ", global " + global + ", maxKeys " + maxKeys
                    + ", window " + window);
        }
        this.log = log;
        this.perKey = perKey;
        this.global = global;
        this.windowNanos = window.toNanos();
        this.clock = nanoClock;
        this.globalStart = nanoClock.getAsLong();
        this.windows = new LinkedHashMap<>(64, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Window> eldest) {
                return size() > maxKeys;
            }
        };
    }

    public Logger logger() {
        return log;
    }

    /**
     * Logs {@code format} with {@code args} (SLF4J "{}" placeholders) unless {@code key} or the whole
     * log is over its budget for this window; returns whether a line was written.
     */
    public boolean log(Level level, String key, String format, Object... args) {
        if (!(level == Level.WARN ? log.isWarnEnabled() : log.isInfoEnabled())) {
            return false;
        }
        long summary = 0;
        synchronized (this) {
            long now = clock.getAsLong();
            if (now - globalStart >= windowNanos) {
                globalStart = now;
                globalLogged = 0;
            }
            Window w = windows.get(key);
            if (w == null) {
                w = new Window(now);
                windows.put(key, w);
            } else if (now - w.start >= windowNanos) {
                w.start = now;
                w.logged = 0;
            }
            if (w.logged >= perKey || globalLogged >= global) {
                w.suppressed++;
                return false;
            }
            w.logged++;
            globalLogged++;
            summary = w.suppressed;
            w.suppressed = 0;
        }
        String f = format;
        Object[] a = args;
        if (summary > 0) {
            f = format + " ({} more suppressed)";
            a = Arrays.copyOf(args, args.length + 1);
            a[args.length] = summary;
        }
        if (level == Level.WARN) {
            log.warn(f, a);
        } else {
            log.info(f, a);
        }
        return true;
    }
}
