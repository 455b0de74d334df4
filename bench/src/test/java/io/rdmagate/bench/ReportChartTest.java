package io.rdmagate.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code --json} writes is valid JSON with every side of every figure, and the chart draws its ratios. */
class ReportChartTest {
    @Test
    @SuppressWarnings("unchecked")
    void theFiguresWrittenAsJsonAreTheOnesTheChartDraws(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("figures.json");
        String[] rest = Report.takeJsonOption(new String[] {"nfs-rdma", "--json", out.toString(), "64", "1"});
        assertArrayEquals(new String[] {"nfs-rdma", "64", "1"}, rest, "the harness sees its own arguments only");
        Report.begin("nfs-rdma");
        Report.figure("1 MiB seq read MB/s", "MB/s", "RDMA / TCP", 2117.0 / 2261.0,
                new Report.Side("TCP", 2261, 0.63, "s/GiB"), new Report.Side("RDMA", 2117, 0.60, "s/GiB"));
        Report.figure("GETATTR \"small\" calls/s", "calls/s", "RDMA / TCP", 1.10,
                new Report.Side("TCP", 30000, 31.4, "µs/call"), new Report.Side("RDMA", 33000, 29.0, "µs/call"));
        Report.figure("raw soft-iWARP RDMA Write MB/s", "MB/s", "", 1, new Report.Side("soft iWARP", 2311, null, null));
        Report.write();

        Map<String, Object> doc = Chart.Json.object(Files.readString(out));
        assertEquals("nfs-rdma", doc.get("benchmark"));
        List<Object> figures = (List<Object>) doc.get("figures");
        assertEquals(3, figures.size());
        Map<String, Object> read = (Map<String, Object>) figures.get(0);
        List<Object> sides = (List<Object>) read.get("sides");
        assertEquals(2117.0, ((Map<String, Object>) sides.get(1)).get("value"));
        assertEquals(0.6, ((Map<String, Object>) sides.get(1)).get("cpuPerUnit"));
        assertEquals("GETATTR \"small\" calls/s", ((Map<String, Object>) figures.get(1)).get("figure"));

        String svg = Chart.svg("rdma vs tcp", doc);
        assertTrue(svg.startsWith("<svg "), svg);
        assertEquals(2, svg.split("<rect x=", -1).length - 1, "one bar per compared figure, none for the raw one");
        assertTrue(svg.contains(">0.94<") && svg.contains("#c62828"), "below 1.0 is drawn red: " + svg);
        assertTrue(svg.contains(">1.10<") && svg.contains("#2e7d32"), "at or above 1.0 is drawn green: " + svg);
    }
}
