package io.rdmagate.gateway;

import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into an orderly stop: the handler only releases a latch that the
 * main thread waits on; the main thread then stops the gateway and exits with status 0.
 * (sun.misc.Signal, from jdk.unsupported, replaces the JVM's default handling of these
 * signals, which would run shutdown hooks concurrently with everything else.)
 */
public final class ShutdownSignals {
    private static final Logger log = LoggerFactory.getLogger(ShutdownSignals.class);

    private final CountDownLatch stop = new CountDownLatch(1);

    public static ShutdownSignals install() {
        ShutdownSignals s = new ShutdownSignals();
        for (String name : new String[] {"TERM", "INT"}) {
            Signal.handle(new Signal(name), sig -> {
                if (s.stop.getCount() > 0) {
                    log.info("SIG{} received, stopping", sig.getName());
                } else {
                    log.info("SIG{} received again; already stopping", sig.getName());
                }
                s.stop.countDown();
            });
        }
        return s;
    }

    public void await() throws InterruptedException {
        stop.await();
    }
}
