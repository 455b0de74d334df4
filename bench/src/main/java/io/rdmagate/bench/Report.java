package io.rdmagate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a benchmark run prints and, with {@code --json FILE}, writes as JSON: one entry per
 * figure with each side's value and CPU per unit, and the ratio the table shows. The JSON is
 * what {@code bench/chart} draws.
 */
public final class Report {
    /** One side of a figure: a server or transport. */
    public record Side(String name, double value, Double cpuPerUnit, String cpuUnit) {
    }

    private static final List<String> FIGURES = new ArrayList<>();
    private static Path json;
    private static String benchmark = "";

    private Report() {
    }

    /** Removes {@code --json FILE} from the arguments and remembers FILE. */
    static String[] takeJsonOption(String[] args) {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        int at = rest.indexOf("--json");
        if (at >= 0) {
            if (at + 1 >= rest.size()) {
                throw new IllegalArgumentException("--json needs a file name");
            }
            json = Path.of(rest.get(at + 1));
            rest.remove(at + 1);
            rest.remove(at);
        }
        return rest.toArray(String[]::new);
    }

    static void begin(String name) {
        benchmark = name;
        FIGURES.clear();
    }

    /** Records one row; {@code ratio} is the table's ratio column, named by {@code ratioName}. */
    public static void figure(String figure, String unit, String ratioName, double ratio, Side... sides) {
        StringBuilder b = new StringBuilder("{\"figure\":").append(str(figure)).append(",\"unit\":").append(str(unit))
                .append(",\"sides\":[");
        for (int i = 0; i < sides.length; i++) {
            Side s = sides[i];
            b.append(i == 0 ? "" : ",").append("{\"name\":").append(str(s.name())).append(",\"value\":")
                    .append(num(s.value()));
            if (s.cpuPerUnit() != null) {
                b.append(",\"cpuPerUnit\":").append(num(s.cpuPerUnit())).append(",\"cpuUnit\":").append(str(s.cpuUnit()));
            }
            b.append('}');
        }
        b.append("],\"ratio\":{\"name\":").append(str(ratioName)).append(",\"value\":").append(num(ratio)).append("}}");
        FIGURES.add(b.toString());
    }

    /**
     * Prints the comparison table of two servers, best of the rounds, the ratio first / second,
     * and records each row. Throughput CPU is in s/GiB, rate CPU in µs per call.
     */
    public static void versus(String first, String second, List<Map<String, Figure>> best) {
        System.out.println();
        System.out.printf("| figure | %s | %s | %s / %s | %s CPU | %s CPU |%n", first, second, first, second, first, second);
        System.out.println("|---|---:|---:|---:|---:|---:|");
        for (String k : best.get(0).keySet()) {
            Figure a = best.get(0).get(k);
            Figure b = best.get(1).get(k);
            String unit = cpuUnit(k);
            double scale = cpuScale(k);
            System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.2f | %.2f %s | %.2f %s |%n", k, a.value(), b.value(),
                    a.value() / b.value(), a.cpuPerUnit() * scale, unit, b.cpuPerUnit() * scale, unit);
            figure(k, valueUnit(k), first + " / " + second, a.value() / b.value(),
                    new Side(first, a.value(), a.cpuPerUnit() * scale, unit),
                    new Side(second, b.value(), b.cpuPerUnit() * scale, unit));
        }
    }

    public static String cpuUnit(String figure) {
        return Figure.isThroughput(figure) ? "s/GiB" : "µs/call";
    }

    public static double cpuScale(String figure) {
        return Figure.isThroughput(figure) ? 1 : 1e6;
    }

    public static String valueUnit(String figure) {
        return Figure.isThroughput(figure) ? "MB/s" : figure.contains("IOPS") ? "IOPS" : "calls/s";
    }

    /** Writes the JSON file if one was asked for. */
    static void write() throws IOException {
        if (json == null) {
            return;
        }
        Map<String, String> head = new LinkedHashMap<>();
        head.put("benchmark", str(benchmark));
        head.put("date", str(Instant.now().toString()));
        head.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        head.put("jvm", str(System.getProperty("java.vm.version")));
        StringBuilder b = new StringBuilder("{");
        head.forEach((k, v) -> b.append(str(k)).append(':').append(v).append(",\n"));
        b.append("\"figures\":[\n").append(String.join(",\n", FIGURES)).append("\n]}\n");
        Path parent = json.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(json, b);
        System.out.println("figures written to " + json);
    }

    private static String num(double d) {
        return Double.isFinite(d) ? String.format(Locale.ROOT, "%.4f", d) : "null";
    }

    static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
