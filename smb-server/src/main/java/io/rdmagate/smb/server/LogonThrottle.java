package io.rdmagate.smb.server;

import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Slows password guessing: each failed logon from a client address holds the answer for
 * {@code delay} times the failures of that address in the last ten minutes (at most 10). The wait
 * happens on the request's virtual thread, so other clients are not slowed.
 */
public final class LogonThrottle {
    private record Failures(int count, long since) {
    }

    private final Duration delay;
    private final ConcurrentHashMap<InetAddress, Failures> failures = new ConcurrentHashMap<>();

    public LogonThrottle(Duration delay) {
        this.delay = delay;
    }

    public void failed(InetAddress client) {
        long now = System.nanoTime();
        Failures f = failures.merge(client, new Failures(1, now), (a, b) ->
                now - a.since > Duration.ofMinutes(10).toNanos() ? b : new Failures(Math.min(a.count + 1, 10), a.since));
        try {
            Thread.sleep(delay.multipliedBy(f.count));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public void succeeded(InetAddress client) {
        failures.remove(client);
    }

    public int failures(InetAddress client) {
        Failures f = failures.get(client);
        return f == null ? 0 : f.count;
    }
}
