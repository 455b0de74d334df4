package io.rdmagate.gateway.spi.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger("test.ratelimited." + System.nanoTime());
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final AtomicLong now = new AtomicLong();

    @BeforeEach
    void attach() {
        lines.start();
        logger.addAppender(lines);
        logger.setLevel(ch.qos.logback.classic.Level.INFO);
        logger.setAdditive(false);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(lines);
    }

    private RateLimitedLog log(int perKey, int global, int maxKeys) {
        return new RateLimitedLog(logger, perKey, global, Duration.ofMinutes(1), maxKeys, now::get);
    }

    @Test
    void aBurstOfAThousandFromOneClientWritesTheBudgetThenASummary() {
        RateLimitedLog log = log(5, 50, 16);
        int written = 0;
        for (int i = 0; i < 1000; i++) {
            if (log.log(RateLimitedLog.Level.WARN, "10.0.0.1", "logon failure for {} from {}", "bob", "10.0.0.1")) {
                written++;
            }
        }
        assertEquals(5, written);
        assertEquals(5, lines.list.size());
        assertEquals("logon failure for bob from 10.0.0.1", lines.list.getFirst().getFormattedMessage());

        now.addAndGet(Duration.ofSeconds(61).toNanos());
        assertTrue(log.log(RateLimitedLog.Level.WARN, "10.0.0.1", "logon failure for {} from {}", "bob", "10.0.0.1"));
        assertEquals("logon failure for bob from 10.0.0.1 (995 more suppressed)", lines.list.getLast().getFormattedMessage());
        assertTrue(log.log(RateLimitedLog.Level.WARN, "10.0.0.1", "logon failure for {} from {}", "bob", "10.0.0.1"));
        assertEquals("logon failure for bob from 10.0.0.1", lines.list.getLast().getFormattedMessage());
    }

    @Test
    void clientsHaveTheirOwnBudgetsWithinTheGlobalOne() {
        RateLimitedLog log = log(2, 5, 16);
        for (int i = 0; i < 100; i++) {
            log.log(RateLimitedLog.Level.INFO, "a", "x");
        }
        assertEquals(2, lines.list.size());
        for (int i = 0; i < 100; i++) {
            log.log(RateLimitedLog.Level.INFO, "b", "y");
        }
        assertEquals(4, lines.list.size());
        for (int c = 0; c < 1000; c++) {
            log.log(RateLimitedLog.Level.INFO, "client" + c, "z");
        }
        assertEquals(5, lines.list.size(), "a thousand addresses share the global budget");
    }

    @Test
    void forgottenKeysAreBounded() {
        RateLimitedLog log = log(1, 1_000_000, 4);
        for (int c = 0; c < 10; c++) {
            log.log(RateLimitedLog.Level.INFO, "k" + c, "first of {}", c);
        }
        assertEquals(10, lines.list.size());
        assertTrue(log.log(RateLimitedLog.Level.INFO, "k0", "k0 again"), "k0 was forgotten, so it has a new budget");
        assertFalse(log.log(RateLimitedLog.Level.INFO, "k9", "k9 again"), "k9 is remembered and spent");
    }

    @Test
    void nothingIsCountedWhenTheLevelIsOff() {
        logger.setLevel(ch.qos.logback.classic.Level.WARN);
        RateLimitedLog log = log(1, 10, 4);
        assertFalse(log.log(RateLimitedLog.Level.INFO, "a", "info"));
        assertTrue(log.log(RateLimitedLog.Level.WARN, "a", "warn"));
        assertEquals(1, lines.list.size());
    }
}
