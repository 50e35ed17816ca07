#!/bin/bash
# bench-devproc.sh — issue 10's figures: what the device processes
# (--isolation process, cuzkd's default) cost against threads of cuzkd.
#   ring     `cuzk bench ring`: the *_xproc lines (consumer in a forked child
#            over a MAP_SHARED ring) beside the same shapes between threads;
#            target: cross-process wake-up p99 <= 50 us
#   null     null backend, 4 devices x 2 consumers at 2 ms, synthesis 1 ms x 4,
#            $JOBS (default 40) jobs x 10 partitions, process and thread isolation alternating
#            (--runs N each, default 3): wall ms, partitions/s and duty per
#            device from the daemon's trace (tools/cuzk-trace-report --json);
#            targets: process within 2% of thread, duty >= 99.5% in process
#   restart  cpu backend, merkle 2^10: kill -9 of cz-dev0 on a fresh daemon
#            (first death: 100 ms backoff), --runs N times; ms from the kill
#            to status saying ready with a new pid (polled every 5 ms), and to
#            a one-partition job submitted at the kill being done; target <= 1 s
# usage: tools/bench-devproc.sh [ring|null|restart|all] [--runs N]
# Run it on a quiet machine for figures to compare; on a loaded one say so
# (it prints the load average with each section).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
what=${1:-all}
runs=3
jobs=${JOBS:-40}
parts=${PARTS:-10}     # partitions a job (at most 200): PARTS=200 JOBS=20 keeps the client out of it
[ "${2:-}" = "--runs" ] && runs=$3
tmp=$(mktemp -d /tmp/cuzk-bench-devproc-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
ctl() { "$B/bin/cuzkctl" --socket "$tmp/s.sock" "$@"; }
load() { echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"; }

start() {
	rm -rf "$tmp/state"
	"$B/bin/cuzkd" --socket "$tmp/s.sock" --state-dir "$tmp/state" "$@" 2>"$tmp/d.log" &
	dpid=$!
	for _ in $(seq 400); do ctl status >/dev/null 2>&1 && return 0; sleep 0.05; done
	cat "$tmp/d.log"; return 1
}
stop() { kill -TERM "$dpid"; wait "$dpid" || true; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
keys() {   # $1 = log2, $2 = witnesses
	[ -f "$tmp/merkle_$1.zkey" ] || "$B/bin/cuzk" devsetup --builtin merkle --log2 "$1" \
		--out-dir "$tmp" --witnesses "$2" >/dev/null
}
# devices[N].FIELD from status --json
devfield() { ctl status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["devices"][int(sys.argv[1])][sys.argv[2]])' "$1" "$2"; }
wait_ready() {   # device, old pid: waits until ready with another pid
	for _ in $(seq 2000); do
		local st; st=$(ctl status --json | python3 -c 'import json,sys; d=json.load(sys.stdin)["devices"][int(sys.argv[1])]; print(d["state"], d["pid"])' "$1")
		[ "${st% *}" = ready ] && [ "${st#* }" != "$2" ] && [ "${st#* }" != 0 ] && return 0
		sleep 0.005
	done
	return 1
}

bench_ring() {
	echo "== cuzk bench ring --log2 20 --iters 3 ($(load))"
	"$B/bin/cuzk" bench ring --log2 20 --iters 3 | grep -E 'ring_spsc |ring_spsc_b1 |ring_wake_lat |ring_spin_lat |xproc'
}

null_run() {   # isolation -> "wall_ms duty0 duty1 duty2 duty3 gap_p99_us"
	start --backend null --devices 4 --consumers-per-device 2 --synth-workers 4 \
		--null-delay-ms 2 --null-synth-ms 1 --isolation "$1" --max-queued-partitions $((jobs * parts + 200))
	ctl load m "$tmp/merkle_8.zkey"
	for d in 0 1 2 3; do wait_ready $d 0; done      # warm-up verified, both isolations
	local w=() i
	for i in $(seq 0 $((parts - 1))); do w+=("$tmp/merkle_8_$((i % 10)).wtns"); done
	local t0; t0=$(now_ms)
	for j in $(seq "$jobs"); do ctl submit m "${w[@]}" --id "j$j" >/dev/null; done
	for j in $(seq "$jobs"); do ctl await "j$j" >/dev/null; done
	local t1; t1=$(now_ms)
	ctl trace --out "$tmp/$1.jsonl"
	stop
	tools/cuzk-trace-report --json "$tmp/$1.jsonl" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(sys.argv[1], " ".join("%.4f" % d["duty"] for d in r["devices"]), "%.1f" % r["gap_p99_us"], "%.1f" % r["window_ms"])
' "$(( t1 - t0 ))"
}

bench_null() {
	keys 8 10
	echo "== null backend, 4 devices x 2 consumers at 2 ms, synthesis 1 ms x 4, $jobs jobs x $parts partitions; process and thread alternating, $runs runs each ($(load))"
	echo "   columns: isolation, wall ms (cuzkctl included), duty of devices 0-3 (trace), gap p99 us, trace window ms"
	: > "$tmp/null.txt"
	for r in $(seq "$runs"); do
		for iso in process thread; do
			echo "$iso $(null_run $iso)" | tee -a "$tmp/null.txt"
		done
	done
	python3 - "$tmp/null.txt" "$((jobs * parts))" <<'EOF'
import sys, statistics as st
nparts = int(sys.argv[2])
rows = [l.split() for l in open(sys.argv[1])]
out = {}
for iso in ("process", "thread"):
    rs = [r for r in rows if r[0] == iso]
    wall = st.median(float(r[1]) for r in rs)
    win = st.median(float(r[-1]) for r in rs)
    duty = st.median(min(float(x) for x in r[2:-2]) for r in rs)
    mean_duty = st.median(sum(float(x) for x in r[2:-2]) / len(r[2:-2]) for r in rs)
    out[iso] = (wall, win, duty, mean_duty)
    print("%-7s median wall %.0f ms (%.0f partitions/s, cuzkctl included), trace window %.1f ms, "
          "duty: lowest device %.2f%%, mean %.2f%%" % (iso, wall, nparts / wall * 1000, win, 100 * duty, 100 * mean_duty))
p, t = out["process"], out["thread"]
print("process / thread: wall %+.1f%%, trace window %+.1f%%, mean duty %+.2f points"
      % (100 * (p[0] / t[0] - 1), 100 * (p[1] / t[1] - 1), 100 * (p[3] - t[3])))
EOF
}

bench_restart() {
	keys 10 1
	echo "== cpu backend, merkle 2^10: kill -9 of cz-dev0, first death of a fresh daemon; $runs runs ($(load))"
	for r in $(seq "$runs"); do
		start --backend cpu --synth-workers 1 --isolation process
		ctl load m "$tmp/merkle_10.zkey"
		wait_ready 0 0
		local pid; pid=$(devfield 0 pid)
		local t0; t0=$(now_ms)
		kill -9 "$pid"
		ctl submit m "$tmp/merkle_10_0.wtns" --id after >/dev/null
		wait_ready 0 "$pid"
		local t1; t1=$(now_ms)
		ctl await after >/dev/null
		local t2; t2=$(now_ms)
		echo "run $r: death -> ready $(devfield 0 restart_ms) ms (cuzkd's own clock, status restart_ms); kill -> ready seen by polling $(( t1 - t0 )) ms; kill -> a job submitted at the kill done $(( t2 - t0 )) ms; restarts $(devfield 0 restarts)"
		grep "ready in" "$tmp/d.log" | tail -1
		stop
	done
}

case "$what" in
ring) bench_ring ;;
null) bench_null ;;
restart) bench_restart ;;
all) bench_ring; bench_null; bench_restart ;;
*) echo "usage: $0 [ring|null|restart|all] [--runs N]" >&2; exit 2 ;;
esac
