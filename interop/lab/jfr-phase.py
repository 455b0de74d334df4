#!/usr/bin/env python3
"""Where a recorded gateway spent one phase of a lab benchmark.

  jfr-phase.py RECORDING.jfr START END [TOP]

START and END are epoch seconds (a PHASE line of the job's output.log). Prints, for the JFR
execution samples taken between them: the share by thread, by how the sampled frame ran
(interpreted, C1/C2 compiled, inlined: under TCG a method not yet compiled costs tens of times
more), the TOP (20) hottest methods, and the compilations that finished within the phase.
Needs the JDK's `jfr` on PATH or in $JAVA_HOME/bin.
"""
import collections
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime


def jfr_tool():
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "jfr")):
        return os.path.join(home, "bin", "jfr")
    return shutil.which("jfr") or sys.exit("jfr-phase: no jfr tool (set JAVA_HOME)")


def events(recording, names, depth):
    out = subprocess.run([jfr_tool(), "print", "--json", "--stack-depth", str(depth), "--events", names, recording],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["recording"]["events"]


def epoch(t):
    return datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()


def method(frame):
    m = frame["method"]
    return m["type"]["name"].replace("/", ".") + "." + m["name"]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    recording, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    samples = [e for e in events(recording, "jdk.ExecutionSample", 1)
               if start <= epoch(e["values"]["startTime"]) <= end]
    n = len(samples)
    print(f"{n} execution samples in {end - start:.1f} s")
    if n == 0:
        return
    threads = collections.Counter((e["values"]["sampledThread"] or {}).get("javaName") or "?" for e in samples)
    kinds = collections.Counter()
    methods = collections.Counter()
    for e in samples:
        frames = e["values"]["stackTrace"]["frames"] if e["values"]["stackTrace"] else []
        if frames:
            kinds[frames[0]["type"]] += 1
            methods[method(frames[0]) + " [" + frames[0]["type"] + "]"] += 1
    print("\nby thread:")
    for t, c in threads.most_common(12):
        print(f"  {100 * c / n:5.1f}%  {t}")
    print("\nby how the sampled frame ran:")
    for k, c in kinds.most_common():
        print(f"  {100 * c / n:5.1f}%  {k}")
    print(f"\nhottest {top} methods:")
    for m, c in methods.most_common(top):
        print(f"  {100 * c / n:5.1f}%  {m}")
    compiled = [e for e in events(recording, "jdk.Compilation", 0) if start <= epoch(e["values"]["startTime"]) <= end]
    levels = collections.Counter(e["values"]["compileLevel"] for e in compiled)
    print(f"\n{len(compiled)} compilations finished in the phase, by level: {dict(sorted(levels.items()))}")


if __name__ == "__main__":
    main()
