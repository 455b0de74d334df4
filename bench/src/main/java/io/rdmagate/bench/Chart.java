package io.rdmagate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws the figures of a {@code --json} file ({@link Report}) as an SVG bar chart: one bar per
 * figure with its ratio, and the line at 1.0 that the targets are measured against.
 *
 * <p>Usage: {@code bench/run chart FIGURES.json OUT.svg [title]}.
 */
public final class Chart {
    private static final int ROW = 28;
    private static final int LABEL = 330;
    private static final int BARS = 360;
    private static final int TOP = 48;

    private Chart() {
    }

    static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: bench/run chart FIGURES.json OUT.svg [title]");
            System.exit(2);
        }
        Map<String, Object> doc = Json.object(Files.readString(Path.of(args[0])));
        String title = args.length > 2 ? args[2] : "bench/run " + doc.get("benchmark") + ", " + doc.get("date");
        Files.writeString(Path.of(args[1]), svg(title, doc));
        System.out.println("chart written to " + args[1]);
    }

    @SuppressWarnings("unchecked")
    static String svg(String title, Map<String, Object> doc) {
        List<String> labels = new ArrayList<>();
        List<String> ratioNames = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        for (Object o : (List<Object>) doc.get("figures")) {
            Map<String, Object> f = (Map<String, Object>) o;
            Map<String, Object> ratio = (Map<String, Object>) f.get("ratio");
            if (ratio == null || ((String) ratio.get("name")).isEmpty() || !(ratio.get("value") instanceof Double)) {
                continue; // a figure with one side: nothing to compare
            }
            labels.add((String) f.get("figure"));
            ratioNames.add((String) ratio.get("name"));
            ratios.add((Double) ratio.get("value"));
        }
        double max = Math.max(1.25, ratios.stream().mapToDouble(Double::doubleValue).max().orElse(1));
        int height = TOP + ROW * labels.size() + 40;
        int width = LABEL + BARS + 80;
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"13\">%n", width, height));
        s.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        s.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                esc(title)));
        for (int i = 0; i < labels.size(); i++) {
            int y = TOP + i * ROW;
            double r = ratios.get(i);
            int w = (int) Math.round(BARS * r / max);
            String fill = r >= 1.0 ? "#2e7d32" : "#c62828";
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", LABEL - 8,
                    y + 15, esc(labels.get(i) + " (" + ratioNames.get(i) + ")")));
            s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                    LABEL, y + 3, w, ROW - 8, fill));
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%.2f</text>%n", LABEL + w + 6, y + 15, r));
        }
        int one = LABEL + (int) Math.round(BARS / max);
        s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\""
                + " stroke-dasharray=\"4 3\"/>%n", one, TOP - 6, one, TOP + ROW * labels.size()));
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">1.0</text>%n", one,
                TOP + ROW * labels.size() + 18));
        s.append("</svg>\n");
        return s.toString();
    }

    private static String esc(String t) {
        return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    /** Just enough JSON for the files {@link Report} writes: objects, arrays, strings, numbers, null. */
    static final class Json {
        private final String s;
        private int at;

        private Json(String s) {
            this.s = s;
        }

        @SuppressWarnings("unchecked")
        static Map<String, Object> object(String text) {
            Json j = new Json(text);
            Object v = j.value();
            j.space();
            if (j.at != text.length() || !(v instanceof Map)) {
                throw new IllegalArgumentException("not one JSON object at offset " + j.at);
            }
            return (Map<String, Object>) v;
        }

        private Object value() {
            space();
            if (at >= s.length()) {
                throw new IllegalArgumentException("JSON ends early");
            }
            char c = s.charAt(at);
            switch (c) {
                case '{' -> {
                    at++;
                    Map<String, Object> m = new LinkedHashMap<>();
                    space();
                    if (peek('}')) {
                        return m;
                    }
                    do {
                        space();
                        String k = string();
                        space();
                        expect(':');
                        m.put(k, value());
                        space();
                    } while (peek(','));
                    expect('}');
                    return m;
                }
                case '[' -> {
                    at++;
                    List<Object> l = new ArrayList<>();
                    space();
                    if (peek(']')) {
                        return l;
                    }
                    do {
                        l.add(value());
                        space();
                    } while (peek(','));
                    expect(']');
                    return l;
                }
                case '"' -> {
                    return string();
                }
                case 'n' -> {
                    if (!s.startsWith("null", at)) {
                        throw new IllegalArgumentException("bad literal at " + at);
                    }
                    at += 4;
                    return null;
                }
                default -> {
                    int from = at;
                    while (at < s.length() && "+-.eE0123456789".indexOf(s.charAt(at)) >= 0) {
                        at++;
                    }
                    if (from == at) {
                        throw new IllegalArgumentException("unexpected '" + c + "' at " + at);
                    }
                    return Double.parseDouble(s.substring(from, at));
                }
            }
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (at < s.length() && s.charAt(at) != '"') {
                char c = s.charAt(at++);
                if (c == '\\' && at < s.length()) {
                    char e = s.charAt(at++);
                    switch (e) {
                        case 'n' -> b.append('\n');
                        case 'u' -> {
                            b.append((char) Integer.parseInt(s.substring(at, at + 4), 16));
                            at += 4;
                        }
                        default -> b.append(e);
                    }
                } else {
                    b.append(c);
                }
            }
            expect('"');
            return b.toString();
        }

        private boolean peek(char c) {
            if (at < s.length() && s.charAt(at) == c) {
                at++;
                return true;
            }
            return false;
        }

        private void expect(char c) {
            if (!peek(c)) {
                throw new IllegalArgumentException("expected '" + c + "' at " + at);
            }
        }

        private void space() {
            while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
                at++;
            }
        }
    }
}
