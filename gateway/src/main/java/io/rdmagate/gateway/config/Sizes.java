package io.rdmagate.gateway.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes and durations as written in the configuration.
 *
 * <p>Sizes: a plain count of bytes, or a number with a unit: B, KiB, MiB, GiB, TiB (powers of
 * 1024) or KB, MB, GB, TB (powers of 1000); units are case-insensitive. Durations: a number with
 * ms, s, m or h. Anything else, negative numbers and overflow are refused with the reason.
 */
public final class Sizes {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([A-Za-z]*)");
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

    private Sizes() {
    }

    public static long parseSize(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a size (write e.g. 4096, 64KiB, 1MiB, 2GiB)");
        }
        long unit = switch (m.group(2).toUpperCase(Locale.ROOT)) {
            case "", "B" -> 1L;
            case "KIB" -> 1L << 10;
            case "MIB" -> 1L << 20;
            case "GIB" -> 1L << 30;
            case "TIB" -> 1L << 40;
            case "KB" -> 1000L;
            case "MB" -> 1000_000L;
            case "GB" -> 1000_000_000L;
            case "TB" -> 1000_000_000_000L;
            default -> throw new IllegalArgumentException("unknown size unit '" + m.group(2)
                    + "' (use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)");
        };
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("size '" + text + "' is too large");
        }
    }

    public static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (write e.g. 500ms, 5s, 2m, 1h)");
        }
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("duration '" + text + "' is too large");
        }
        try {
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("duration '" + text + "' is too large");
        }
    }

    /** Human form of a byte count, exact: "64MiB", "1000B". */
    public static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        while (u < units.length - 1 && bytes != 0 && bytes % 1024 == 0) {
            bytes /= 1024;
            u++;
        }
        return bytes + units[u];
    }
}
