package io.rdmagate.rdma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The device listing against what the kernel says in sysfs on this host (the lab test compares
 * it with {@code ibv_devinfo} on real rxe and siw devices), and the formats it prints GIDs and
 * GUIDs in, which are sysfs's.
 */
class VerbsDevicesTest {
    private static final Path SYS = Path.of("/sys/class/infiniband");

    @Test
    void listsTheDevicesSysfsHasOrSaysTheKernelHasNoRdma() throws Exception {
        if (!Files.isDirectory(Path.of("/sys/class/infiniband_verbs"))) {
            VerbsUnavailableException e = assertThrows(VerbsUnavailableException.class, VerbsDevices::list);
            assertTrue(e.getMessage().contains("the kernel offers no RDMA") && e.getMessage().contains("ib_uverbs"),
                    "libibverbs loads, and the reason names what to load: " + e.getMessage());
            return;
        }
        List<VerbsDeviceInfo> devices = VerbsDevices.list();
        assertEquals(sysfsDevices(), devices.stream().map(VerbsDeviceInfo::name).sorted().toList());
        for (VerbsDeviceInfo d : devices) {
            assertEquals(Files.readString(SYS.resolve(d.name()).resolve("node_guid")).strip(), d.nodeGuid(), d.name());
            for (VerbsDeviceInfo.Port p : d.ports()) {
                Path port = SYS.resolve(d.name()).resolve("ports").resolve(Integer.toString(p.number()));
                assertTrue(Files.readString(port.resolve("state")).strip().endsWith(p.state()), d.name() + " port state");
                for (VerbsDeviceInfo.Gid g : p.gids()) {
                    assertEquals(Files.readString(port.resolve("gids").resolve(Integer.toString(g.index()))).strip(), g.gid());
                }
            }
        }
    }

    private static List<String> sysfsDevices() throws IOException {
        if (!Files.isDirectory(SYS)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(SYS)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void gidsAndGuidsAreWrittenAsSysfsWritesThem() {
        byte[] linkLocal = HexFormat.of().parseHex("fe80000000000000525400fffe123456");
        assertEquals("fe80:0000:0000:0000:5254:00ff:fe12:3456", VerbsDevices.gidText(linkLocal));
        assertEquals("", VerbsDevices.ipv4(linkLocal));
        byte[] mapped = HexFormat.of().parseHex("00000000000000000000ffff0ac80001");
        assertEquals("0000:0000:0000:0000:0000:ffff:0ac8:0001", VerbsDevices.gidText(mapped));
        assertEquals("10.200.0.1", VerbsDevices.ipv4(mapped));
        // node_guid is big-endian in ibv_device_attr: read as a little-endian long, then shown in network order
        assertEquals("5254:00ff:fe12:3456", VerbsDevices.guid(Long.reverseBytes(0x525400fffe123456L)));
    }

    @Test
    void mtuEnumIsBytes() {
        assertEquals(List.of(256, 512, 1024, 2048, 4096, 0, 0),
                Stream.of(1, 2, 3, 4, 5, 0, 6).map(VerbsDevices::mtu).toList());
    }
}
