package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which crashes of the gateway's JVM in the guest earn a job a second run: one in the JDK's or
 * the VM's code on qemu's emulated CPU (TCG), as reported in the JVM's crash file; never one in
 * rdmagate's own code, and never one on a real CPU.
 */
class EmulatorCrashTest {
    @TempDir
    Path dir;

    private void crashReport(String frame, String host) throws Exception {
        Files.writeString(dir.resolve("hs_err_pid209.log"), String.join("\n",
                "#", "# A fatal error has been detected by the Java Runtime Environment:", "#",
                "#  SIGSEGV (0xb) at pc=0x00007f701880a0a0, pid=209, tid=300", "#",
                "# Problematic frame:", "# " + frame, "#", "", "---------------  S U M M A R Y ------------", "",
                "Host: " + host, ""));
    }

    @Test
    void aCrashInJdkCodeOnTheEmulatedCpuIsTheEmulators() throws Exception {
        crashReport("J 2472 c1 jdk.internal.misc.Unsafe.getIntUnaligned(Ljava/lang/Object;JZ)I java.base@25.0.3 (12 bytes)",
                "QEMU TCG CPU version 2.5+, 2 cores, 3G, Debian GNU/Linux 12 (bookworm)");
        assertEquals("J 2472 c1 jdk.internal.misc.Unsafe.getIntUnaligned(Ljava/lang/Object;JZ)I java.base@25.0.3 (12 bytes)",
                GuestLab.Job.emulatorCrash(dir));
    }

    @Test
    void aCrashInRdmagatesOwnCodeOrOnARealCpuStands() throws Exception {
        assertNull(GuestLab.Job.emulatorCrash(dir), "no crash report, no rerun");
        crashReport("J 812 c2 io.rdmagate.vfs.local.Libc.pread(Ljava/lang/foreign/Arena;IJ)J (40 bytes)", "QEMU TCG CPU version 2.5+");
        assertNull(GuestLab.Job.emulatorCrash(dir));
        crashReport("J 2472 c1 jdk.internal.misc.Unsafe.getIntUnaligned(Ljava/lang/Object;JZ)I java.base@25.0.3",
                "AMD EPYC 7B13, 2 cores, 24G, Debian GNU/Linux 12 (bookworm)");
        assertNull(GuestLab.Job.emulatorCrash(dir));
    }
}
