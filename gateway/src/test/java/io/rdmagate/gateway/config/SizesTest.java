package io.rdmagate.gateway.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SizesTest {
    @Test
    void sizes() {
        assertEquals(4096, Sizes.parseSize("4096"));
        assertEquals(4096, Sizes.parseSize("4096B"));
        assertEquals(64 << 10, Sizes.parseSize("64KiB"));
        assertEquals(64L << 20, Sizes.parseSize("64MiB"));
        assertEquals(2L << 30, Sizes.parseSize("2GiB"));
        assertEquals(1L << 40, Sizes.parseSize("1TiB"));
        assertEquals(64_000, Sizes.parseSize("64KB"));
        assertEquals(5_000_000, Sizes.parseSize("5MB"));
        assertEquals(3_000_000_000L, Sizes.parseSize("3GB"));
        assertEquals(1 << 20, Sizes.parseSize(" 1 mib "));
    }

    @Test
    void badSizes() {
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseSize("-1"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseSize("1.5MiB"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseSize("1XB"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseSize("MiB"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseSize("99999999999TiB"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseSize("99999999999999999999"));
    }

    @Test
    void durations() {
        assertEquals(Duration.ofMillis(500), Sizes.parseDuration("500ms"));
        assertEquals(Duration.ofSeconds(5), Sizes.parseDuration("5s"));
        assertEquals(Duration.ofMinutes(2), Sizes.parseDuration("2m"));
        assertEquals(Duration.ofHours(1), Sizes.parseDuration("1h"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseDuration("5"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseDuration("5 days"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseDuration("-5s"));
    }

    @Test
    void format() {
        assertEquals("64MiB", Sizes.format(64L << 20));
        assertEquals("1000B", Sizes.format(1000));
        assertEquals("0B", Sizes.format(0));
    }
}
