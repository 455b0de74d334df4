package io.rdmagate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The bound on a stop: a gateway whose orderly stop does not end (a wedged thread, an exhausted
 * heap) is halted with its own exit status, so its supervisor starts it again; one that stops in
 * time is left to exit with 0.
 */
class ShutdownSignalsTest {

    @Test
    void aStopThatDoesNotEndWithinTheBoundHalts() throws Exception {
        BlockingQueue<Integer> halted = new ArrayBlockingQueue<>(1);
        ShutdownSignals s = ShutdownSignals.unhandled(Duration.ofMillis(200), halted::add);
        s.requestStop();
        s.await();
        assertEquals(ShutdownSignals.EXIT_STOP_TIMEOUT, halted.poll(30, TimeUnit.SECONDS), "halted");
    }

    @Test
    void aStopThatEndsInTimeIsNotHalted() throws Exception {
        BlockingQueue<Integer> halted = new ArrayBlockingQueue<>(1);
        ShutdownSignals s = ShutdownSignals.unhandled(Duration.ofSeconds(30), halted::add);
        assertTrue(s.watchdog().isAlive(), "the watchdog exists before any signal");
        s.requestStop();
        s.await();
        s.stopped();
        s.watchdog().join(Duration.ofSeconds(30));
        assertFalse(s.watchdog().isAlive(), "the watchdog stood down");
        assertTrue(halted.isEmpty(), "nothing halted");
    }
}
