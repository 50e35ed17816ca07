#!/bin/bash
# bench-order.sh — order at the device, measured from the daemon's trace.
#   The scenario of issue 9: 3 normal jobs, then 1 critical, then 1 low, 6
#   partitions each, submitted back to back, on
#     null   --backend null --devices 2 --null-delay-ms 20 --null-synth-ms 5 --synth-workers 3
#     cpu    --backend cpu (one device, two consumers), built-in merkle 2^LOG2 (default 12)
#   ROUNDS times each (default 5, a fresh daemon each), and prints per round
#   the worst inversion count: for each partition b, the partitions with a
#   higher key that started on any device after b had been ready (enqueue)
#   for 1 ms and before b started; the design bound is one per consumer.
#   Also the critical job's first partition: ready → first start, in ms and
#   in partitions started meanwhile.
# usage: tools/bench-order.sh [null|cpu|all] [--rounds N] [--log2 K]
#   CUZKD=path runs another daemon binary (e.g. one built from main) with
#   this tree's cuzkctl and cuzk, to compare before and after in one session.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
CUZKD=${CUZKD:-$B/bin/cuzkd}
what=${1:-all}
shift || true
rounds=5 log2=12
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--log2) log2=$2; shift 2 ;;
	*) echo "bench-order.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
tmp=$(mktemp -d /tmp/cuzk-bench-order-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
ctl() { "$B/bin/cuzkctl" --socket "$tmp/s.sock" "$@"; }

start() {
	rm -rf "$tmp/state"
	"$CUZKD" --socket "$tmp/s.sock" --state-dir "$tmp/state" "$@" 2>"$tmp/d.log" &
	dpid=$!
	for _ in $(seq 200); do ctl status >/dev/null 2>&1 && return 0; sleep 0.05; done
	cat "$tmp/d.log"; return 1
}
stop() { kill -TERM "$dpid"; wait "$dpid" || true; }

# The trace alone decides: job priorities come from the submission order.
count() {   # $1 = trace, $2 = consumers
	python3 - "$1" "$2" <<'PY'
import json, sys
prio_of_submit = [2, 2, 2, 0, 3]
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
seqs = [e["job"] for e in ev if e["ev"] == "submit"]
prio = {s: prio_of_submit[i] for i, s in enumerate(seqs)}
ready, start = {}, {}
for e in ev:
    k = (e["job"], e["part"])
    if e["ev"] == "enqueue":
        ready.setdefault(k, e["ns"])
    elif e["ev"] == "compute_start":
        start.setdefault(k, e["ns"])
key = lambda k: (prio[k[0]], k[0], k[1])
worst, wb = 0, None
for b in start:
    if b not in ready:
        continue
    n = sum(1 for a in start if start[a] >= ready[b] + 1e6 and start[a] < start[b] and key(a) > key(b))
    if n > worst or wb is None:
        worst, wb = n, b
crit = [k for k in start if prio[k[0]] == 0]
first_ready = min(ready[k] for k in crit)
first_start = min(start[k] for k in crit)
between = sum(1 for a in start if prio[a[0]] != 0 and first_ready < start[a] < first_start)
print(f"worst inversions {worst} (bound {sys.argv[2]}; partition job {wb[0]} part {wb[1]}); "
      f"critical: first ready -> first start {(first_start - first_ready) / 1e6:.1f} ms, "
      f"{between} other partitions started meanwhile")
PY
}

scenario() {   # $1 = key name, $2 = consumers
	local j=0
	for p in normal normal normal critical low; do
		ctl submit m "$tmp"/merkle_$1_*.wtns --priority $p --id "j$j" >/dev/null
		j=$((j + 1))
	done
	for j in 0 1 2 3 4; do ctl await "j$j" >/dev/null; done
	ctl trace --out "$tmp/trace.jsonl"
	count "$tmp/trace.jsonl" "$2"
}

bench_null() {
	[ -f "$tmp/merkle_8.zkey" ] || "$B/bin/cuzk" devsetup --builtin merkle --log2 8 --out-dir "$tmp" --witnesses 6 >/dev/null 2>&1
	echo "== null backend, 2 devices x 2 consumers, 20 ms/partition, synthesis 5 ms x 3 workers ($CUZKD)"
	for r in $(seq "$rounds"); do
		start --backend null --devices 2 --null-delay-ms 20 --null-synth-ms 5 --synth-workers 3
		ctl load m "$tmp/merkle_8.zkey" >/dev/null
		echo "round $r: $(scenario 8 4)"
		stop
	done
}

bench_cpu() {
	[ -f "$tmp/merkle_$log2.zkey" ] || "$B/bin/cuzk" devsetup --builtin merkle --log2 "$log2" --out-dir "$tmp" --witnesses 6 >/dev/null 2>&1
	echo "== cpu backend, 1 device x 2 consumers, merkle 2^$log2 ($(nproc) cores; $CUZKD)"
	for r in $(seq "$rounds"); do
		start --backend cpu --synth-workers 1
		ctl load m "$tmp/merkle_$log2.zkey" >/dev/null
		echo "round $r: $(scenario "$log2" 2)"
		stop
	done
}

case $what in
null) bench_null ;;
cpu) bench_cpu ;;
all) bench_null; bench_cpu ;;
*) echo "usage: tools/bench-order.sh [null|cpu|all] [--rounds N] [--log2 K]" >&2; exit 2 ;;
esac
