# Turns the "BENCH server figure value" lines of a bench-nfs-rdma job's output.log into the JSON
# that bench/run's harnesses write (bench/run chart draws it): each figure with knfsd's and
# rdmagate's value, the guest's CPU per random read beside the random-read figure, and the ratio
# rdmagate / knfsd.   awk -v vers=3 -v date=... -f bench-json.awk output.log
$1 == "BENCH" { v[$2 " " $3] = $4 }
function side(name, value, cpu) {
    return sprintf("{\"name\":\"%s\",\"value\":%s%s}", name, value,
        cpu == "" ? "" : sprintf(",\"cpuPerUnit\":%s,\"cpuUnit\":\"µs/read\"", cpu))
}
function figure(label, unit, key, withCpu,    k, r, kc, rc) {
    k = v["knfsd " key]; r = v["rdmagate " key]
    if (k == "" || r == "") {
        return ""
    }
    kc = withCpu ? v["knfsd randread-cpu-us-per-read"] : ""
    rc = withCpu ? v["rdmagate randread-cpu-us-per-read"] : ""
    return sprintf("{\"figure\":\"%s\",\"unit\":\"%s\",\"sides\":[%s,%s],\"ratio\":{\"name\":\"rdmagate / knfsd\",\"value\":%.4f}}",
        label, unit, side("knfsd", k, kc), side("rdmagate", r, rc), k > 0 ? r / k : 0)
}
END {
    n = 0
    f[++n] = figure("sequential write MB/s (1 MiB, O_DIRECT)", "MB/s", "write-MBps", 0)
    f[++n] = figure("sequential read MB/s (1 MiB, O_DIRECT)", "MB/s", "read-MBps", 0)
    f[++n] = figure("4 KiB random read IOPS (QD 16)", "IOPS", "randread-IOPS", 1)
    printf "{\"benchmark\":\"lab bench-nfs-rdma vers=%s\",\n\"date\":\"%s\",\n\"figures\":[\n", vers, date
    sep = ""
    for (i = 1; i <= n; i++) {
        if (f[i] != "") {
            printf "%s%s", sep, f[i]
            sep = ",\n"
        }
    }
    printf "\n]}\n"
}
