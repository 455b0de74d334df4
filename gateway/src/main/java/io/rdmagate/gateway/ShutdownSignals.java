package io.rdmagate.gateway;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into an orderly stop: the handler only releases a latch that the
 * main thread waits on; the main thread then stops the gateway and exits with status 0.
 * (sun.misc.Signal, from jdk.unsupported, replaces the JVM's default handling of these
 * signals, which would run shutdown hooks concurrently with everything else.)
 *
 * <p>The stop is bounded: a watchdog thread, started with the handlers (so that it exists even
 * when a heap or thread limit has been reached since), halts the process with status
 * {@link #EXIT_STOP_TIMEOUT} if the orderly stop has not ended {@code bound} after the signal. A
 * wedged gateway (a thread stuck in a write to a dead disk, a heap exhausted) so always ends, for
 * systemd or the container engine to start again.
 */
public final class ShutdownSignals {
    private static final Logger log = LoggerFactory.getLogger(ShutdownSignals.class);
    /** The exit status of a stop that did not end within its bound. */
    public static final int EXIT_STOP_TIMEOUT = 3;

    private final CountDownLatch stop = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Thread watchdog;

    private ShutdownSignals(Duration bound, IntConsumer halt) {
        if (bound.isNegative() || bound.isZero()) {
            throw new IllegalArgumentException("stop bound " + bound);
        }
        watchdog = Thread.ofPlatform().daemon().name("rdmagate-stop-watchdog").unstarted(() -> {
            try {
                stop.await();
                if (!stopped.await(bound.toNanos(), TimeUnit.NANOSECONDS)) {
                    System.err.println("rdmagate: the orderly stop did not end within " + bound + "; halting");
                    halt.accept(EXIT_STOP_TIMEOUT);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        watchdog.start();
    }

    /** Handles SIGTERM and SIGINT; a stop that takes longer than {@code bound} halts the process. */
    public static ShutdownSignals install(Duration bound) {
        ShutdownSignals s = new ShutdownSignals(bound, status -> Runtime.getRuntime().halt(status));
        for (String name : new String[] {"TERM", "INT"}) {
            Signal.handle(new Signal(name), sig -> {
                if (s.stop.getCount() > 0) {
                    log.info("SIG{} received, stopping", sig.getName());
                } else {
                    log.info("SIG{} received again; already stopping", sig.getName());
                }
                s.requestStop();
            });
        }
        return s;
    }

    /** Without signal handlers, halting through {@code halt}: for tests. */
    static ShutdownSignals unhandled(Duration bound, IntConsumer halt) {
        return new ShutdownSignals(bound, halt);
    }

    /** What a signal does: the main thread's {@link #await} returns, and the bound starts. */
    void requestStop() {
        stop.countDown();
    }

    public void await() throws InterruptedException {
        stop.await();
    }

    /** The orderly stop ended: the watchdog stands down. */
    public void stopped() {
        stopped.countDown();
    }

    /** The watchdog thread, which ends once the stop ended or it halted. */
    Thread watchdog() {
        return watchdog;
    }
}
