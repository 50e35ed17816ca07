#!/bin/bash
# bench-daemon.sh — the daemon's scheduler and throughput benchmarks.
#   null   null backend, 4 fake devices × 2 consumers, 20 ms per partition,
#          8 jobs × 10 partitions, synthesis faster than the devices: duty
#          cycle, hand-off gaps (tools/cuzk-trace-report) and throughput vs ideal
#   rss    null backend, RSS after 10, 1,000 and 2,000 one-partition jobs
#   cpu    cpu backend, built-in circuit at 2^LOG2 (default 14), 3 jobs × 4
#          partitions: proofs/min and per-stage times, vs `cuzk prove` run on
#          the same partitions one after another
# usage: tools/bench-daemon.sh [null|rss|cpu|all] [--log2 K]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
what=${1:-all}
log2=14
[ "${2:-}" = "--log2" ] && log2=$3
tmp=$(mktemp -d /tmp/cuzk-bench-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
ctl() { "$B/bin/cuzkctl" --socket "$tmp/s.sock" "$@"; }

start() {
	rm -rf "$tmp/state"
	"$B/bin/cuzkd" --socket "$tmp/s.sock" --state-dir "$tmp/state" "$@" 2>"$tmp/d.log" &
	dpid=$!
	for _ in $(seq 200); do ctl status >/dev/null 2>&1 && return 0; sleep 0.05; done
	cat "$tmp/d.log"; return 1
}
stop() { kill -TERM "$dpid"; wait "$dpid" || true; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

keys() {   # $1 = log2, $2 = witnesses
	[ -f "$tmp/merkle_$1.zkey" ] || "$B/bin/cuzk" devsetup --builtin merkle --log2 "$1" \
		--out-dir "$tmp" --witnesses "$2" >/dev/null
}

bench_null() {
	keys 8 10
	start --backend null --devices 4 --consumers-per-device 2 --synth-workers 4 \
		--null-delay-ms 20 --null-synth-ms 2
	ctl load m "$tmp/merkle_8.zkey"
	local t0; t0=$(now_ms)
	for j in $(seq 8); do ctl submit m "$tmp"/merkle_8_*.wtns --id "j$j" >/dev/null; done
	for j in $(seq 8); do ctl await "j$j" >/dev/null; done
	local t1; t1=$(now_ms)
	ctl trace --out "$tmp/trace.jsonl"
	stop
	echo "== null backend: 4 devices x 2 consumers, 20 ms/partition, 8 jobs x 10 partitions"
	tools/cuzk-trace-report "$tmp/trace.jsonl"
	local ideal=$(( 80 * 20 / 4 ))
	echo "wall $(( t1 - t0 )) ms for 80 partitions, 8 cuzkctl submits and awaits included; ideal $ideal ms"
}

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$dpid/status"; }

bench_rss() {
	keys 8 1
	start --backend null --null-delay-ms 0 --synth-workers 2
	ctl load m "$tmp/merkle_8.zkey"
	local r10=0 r1000=0
	for j in $(seq 2000); do
		ctl submit m "$tmp/merkle_8_0.wtns" --wait >/dev/null
		[ "$j" = 10 ] && r10=$(rss_kb)
		[ "$j" = 1000 ] && r1000=$(rss_kb)
	done
	local r2000; r2000=$(rss_kb)
	stop
	echo "== RSS, null backend, one-partition jobs: after 10 ${r10} kB, after 1000 ${r1000} kB ($(awk -v a=$r10 -v b=$r1000 'BEGIN{printf "%+.1f%%", 100*(b-a)/a}')), after 2000 ${r2000} kB ($(awk -v a=$r1000 -v b=$r2000 'BEGIN{printf "%+.1f%%", 100*(b-a)/a}') from 1000)"
	echo "   (the daemon keeps the latest 256 finished jobs for await and status)"
}

bench_cpu() {
	keys "$log2" 4
	echo "== cpu backend: built-in merkle 2^$log2, 3 jobs x 4 partitions ($(nproc) cores)"
	local t0 t1 seq_ms d_ms
	t0=$(now_ms)
	for j in 1 2 3; do for i in 0 1 2 3; do
		"$B/bin/cuzk" prove "$tmp/merkle_$log2.zkey" "$tmp/merkle_${log2}_$i.wtns" "$tmp/p.json" "$tmp/pub.json" >/dev/null
	done; done
	t1=$(now_ms); seq_ms=$(( t1 - t0 ))
	start --backend cpu --consumers-per-device 2 --synth-workers 1
	ctl load m "$tmp/merkle_$log2.zkey"
	t0=$(now_ms)
	for j in 1 2 3; do ctl submit m "$tmp"/merkle_${log2}_[0-3].wtns --id "c$j" >/dev/null; done
	for j in 1 2 3; do ctl await "c$j" >/dev/null; done
	t1=$(now_ms); d_ms=$(( t1 - t0 ))
	local rss; rss=$(awk '/VmHWM/ {print $2}' "/proc/$dpid/status")
	ctl trace --out "$tmp/trace.jsonl"
	stop
	"$B/bin/cuzk" bench prove "$tmp/merkle_$log2.zkey" "$tmp/merkle_${log2}_0.wtns" --iters 1 || true
	tools/cuzk-trace-report "$tmp/trace.jsonl"
	echo "cuzk prove x12 one after another: $seq_ms ms ($(awk -v m=$seq_ms 'BEGIN{printf "%.1f", 12*60000/m}') proofs/min)"
	echo "cuzkd 3 jobs x 4 partitions:      $d_ms ms ($(awk -v m=$d_ms 'BEGIN{printf "%.1f", 12*60000/m}') proofs/min), peak RSS ${rss} kB; ratio $(awk -v a=$seq_ms -v b=$d_ms 'BEGIN{printf "%.2f", a/b}')x"
}

case "$what" in
null) bench_null ;;
rss) bench_rss ;;
cpu) bench_cpu ;;
all) bench_null; bench_rss; bench_cpu ;;
*) echo "usage: $0 [null|rss|cpu|all] [--log2 K]" >&2; exit 2 ;;
esac
