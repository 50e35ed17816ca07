#!/bin/bash
# bench-finalize.sh — does the finalizer keep up, and what does the engine
# allocate per partition?  (issue 9, items 5 and 6)
#
# Load: 1,000 partitions from 32 clients: 250 jobs of 4 partitions, each
# client submitting one job and waiting for it (`cuzkctl submit --wait`) in
# a loop, on the null backend (2 devices x 2 consumers, 2 ms per partition,
# 2 synthesis workers), after a warm-up of 100 partitions the same way.
# Measured:
#   - compute end -> finalize start per partition, from the daemon's trace
#     (compute_end and final_start of the same job and partition): median,
#     p90, p99, max;
#   - heap and mapping calls per partition in the engine's threads (every
#     cz-* thread but cz-ctl*; threads named otherwise counted as "other"),
#     by selftests/shim/heapcount.c preloaded into cuzkd, over the 1,000.
#
# usage: [BACKEND=cpu] [FINALIZERS=N] tools/bench-finalize.sh [DAEMON_BUILD_DIR]
#   FINALIZERS=N: cuzkd --finalizers N (verifying threads; the default is 2)
#   BACKEND=cpu: the same load on the cpu backend (one device, 2 consumers,
#   --device-threads 2): the finalizer then verifies every proof (a
#   multi-pairing, milliseconds), so verification is on the measured path.
#   DAEMON_BUILD_DIR (default build) gives cuzkd and cuzkctl, so a build of
#   another commit can be measured in the same session; the shim and the
#   key generator always come from $B (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
D=${1:-$B}
CLIENTS=32 JOBS=250 WARM=25 PARTS=4
BACKEND=${BACKEND:-null}
if [ "$BACKEND" = cpu ]; then
	dev=(--backend cpu --device-threads 2)
	desc="cpu backend, 1 device x 2 consumers, 2 host threads, merkle 2^8 (proofs verified)"
else
	dev=(--backend null --devices 2 --null-delay-ms 2)
	desc="null backend, 2 devices x 2 consumers, 2 ms/partition"
fi
tmp=$(mktemp -d /tmp/cuzk-benchfin-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
ctl() { "$D/bin/cuzkctl" --socket "$tmp/s.sock" "$@"; }

"$B/bin/cuzk" devsetup --builtin merkle --log2 8 --out-dir "$tmp" --witnesses $PARTS >/dev/null
LD_PRELOAD="$PWD/$B/selftests/heapcount.so" CZ_HEAPCOUNT="$tmp/count" \
	"$D/bin/cuzkd" --socket "$tmp/s.sock" --state-dir "$tmp/state" "${dev[@]}" \
	--synth-workers 2 --mem-budget 256M ${FINALIZERS:+--finalizers "$FINALIZERS"} 2>"$tmp/d.log" &
dpid=$!
for _ in $(seq 200); do ctl status >/dev/null 2>&1 && break; sleep 0.05; done
ctl load m "$tmp/merkle_8.zkey" >/dev/null

# run N_JOBS: client c of CLIENTS takes jobs c, c+CLIENTS, ...
run() {
	local prefix=$1 njobs=$2 c
	for c in $(seq 0 $((CLIENTS - 1))); do
		(
			for ((j = c; j < njobs; j += CLIENTS)); do
				ctl submit m "$tmp"/merkle_8_*.wtns --id "$prefix$j" --wait >/dev/null
			done
		) &
	done
	wait $(jobs -p | grep -v "^$dpid\$") 2>/dev/null || true
}

run w $WARM
touch "$tmp/count.arm"
while [ -e "$tmp/count.arm" ]; do sleep 0.01; done
t0=$(date +%s%N)
run m $JOBS
t1=$(date +%s%N)
touch "$tmp/count.dump"
while [ -e "$tmp/count.dump" ] || [ ! -e "$tmp/count" ]; do sleep 0.01; done
ctl trace --out "$tmp/trace.jsonl"
ndirs=$(ls "$tmp/state/proofs" | grep -c '^m' || true)
kill -TERM "$dpid"
wait "$dpid" || true

python3 - "$tmp/trace.jsonl" "$tmp/count" "$(( (t1 - t0) / 1000000 ))" "$ndirs" "$D" "$desc" <<'EOF'
import json, sys
trace, count, wall, done, build, desc = sys.argv[1:7]
ce, fs = {}, {}
for line in open(trace):
    e = json.loads(line)
    k = (e["job"], e["part"])
    if e["ev"] == "compute_end":
        ce[k] = e["ns"]
    elif e["ev"] == "final_start":
        fs[k] = e["ns"]
gaps = sorted((fs[k] - ce[k]) / 1e6 for k in ce if k in fs and fs[k] >= ce[k])
# the measured run is the last 1,000 partitions finalized
keys = sorted((k for k in ce if k in fs), key=lambda k: fs[k])[-1000:]
g = sorted((fs[k] - ce[k]) / 1e6 for k in keys)
def q(p):
    return g[min(len(g) - 1, int(p * len(g)))] if g else float("nan")
eng = other = ctl = allc = 0
rows = []
for line in open(count):
    f = line.split()
    name, n = f[0], sum(int(x) for x in f[2:])
    allc += n
    if name.startswith("cz-ctl"):
        ctl += n
    elif name.startswith("cz-"):
        eng += n
        if n:
            rows.append("%s %s" % (name, " ".join(f[2:])))
    else:
        other += n
print("== finalizer under load (%s): 1,000 partitions from 32 clients, %s; wall %s ms" % (build, desc, wall))
print("compute end -> finalize start over %d partitions: median %.3f ms, p90 %.3f, p99 %.3f, max %.3f"
      % (len(g), q(0.5), q(0.9), q(0.99), g[-1] if g else float("nan")))
print("%s of 250 job directories published" % done)
print("heap+mapping calls, all threads: %d (%.2f per partition); in cz-* engine threads: %d (%.2f per "
      "partition); cz-ctl* %d; threads not named cz-* %d" % (allc, allc / 1000.0, eng, eng / 1000.0, ctl, other))
for r in rows:
    print("   " + r + "   (malloc calloc realloc free memalign trim mmap munmap ring)")
EOF
