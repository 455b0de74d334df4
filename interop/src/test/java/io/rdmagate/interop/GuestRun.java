package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.function.Executable;

/**
 * What one boot reported: the job's exit status and its output, and in that output the
 * {@code RESULT <name> PASS|FAIL [detail]} lines of the lab's scripts (job/lib.sh).
 */
public record GuestRun(String name, Path dir, int exitCode, String output, Duration took) {
    private static final Pattern RESULT = Pattern.compile("^RESULT (\\S+) (PASS|FAIL) ?(.*)$", Pattern.MULTILINE);

    /** The guest's serial console ("" when there is none). */
    public String console() {
        try {
            Path c = dir.resolve("console.log");
            return java.nio.file.Files.isRegularFile(c)
                    ? new String(java.nio.file.Files.readAllBytes(c), java.nio.charset.StandardCharsets.ISO_8859_1) : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }

    /** One reported check. */
    public record Result(String name, boolean passed, String detail) {
    }

    /** The checks in the order reported; a name reported twice keeps its last verdict. */
    public Map<String, Result> results() {
        Map<String, Result> r = new LinkedHashMap<>();
        Matcher m = RESULT.matcher(output);
        while (m.find()) {
            r.put(m.group(1), new Result(m.group(1), m.group(2).equals("PASS"), m.group(3)));
        }
        return r;
    }

    /**
     * Asserts that each expected check was reported and passed, that no other check failed,
     * and that the job exited 0; every problem is listed at once.
     */
    public void assertPassed(List<String> expected) {
        Map<String, Result> results = results();
        List<Executable> checks = new ArrayList<>();
        for (String want : expected) {
            checks.add(() -> {
                Result r = results.get(want);
                if (r == null) {
                    fail(want + ": not reported by the guest" + context());
                } else if (!r.passed()) {
                    fail(want + ": FAIL " + r.detail() + context());
                }
            });
        }
        for (Result r : results.values()) {
            if (!r.passed() && !expected.contains(r.name())) {
                checks.add(() -> fail(r.name() + ": FAIL " + r.detail() + context()));
            }
        }
        checks.add(() -> {
            if (exitCode != 0) {
                fail("job " + name + " exited " + exitCode + context());
            }
        });
        assertAll(name, checks);
    }

    private String context() {
        return "\n  (job " + name + ", exit " + exitCode + "; last output:\n"
                + GuestLab.tail(dir.resolve("output.log"), 15) + "\n  host side:\n"
                + GuestLab.tail(dir.resolve("host.log"), 5) + "\n  console:\n"
                + GuestLab.tail(dir.resolve("console.log"), 60) + ")"; // enough for a guest oops's call trace
    }
}
