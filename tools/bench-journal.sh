#!/bin/bash
# bench-journal.sh — what accepting a job durably costs (docs/BENCHMARKS.md, "Durable accept"):
#   accept   `cuzk bench journal`: the accepted path in-process (spool copy + fsync + journal
#            group commit) for 1 MiB and 100 MiB witnesses, p50/p99, s per GiB; 32 concurrent
#            submitters: journal commits per submit; a 10,000-job journal's replay time
#   group    the real cuzkd (null backend, 2^8 merkle key): 32 `cuzkctl submit`s at once, 5
#            rounds; journal commits per submit from the daemon's own status counters
#   restart  cuzkd started on a state directory whose journal holds 10,000 finished jobs, vs an
#            empty one, in the same run: time until the socket answers, and the daemon's
#            own journal open_ms
# Files go under $TMPDIR (default /var/tmp): run it on the filesystem the state directory uses.
# usage: tools/bench-journal.sh [accept|group|restart|all]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
what=${1:-all}
export TMPDIR=${TMPDIR:-/var/tmp}
tmp=$(mktemp -d "$TMPDIR/cuzk-bench-journal-XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
ctl() { "$B/bin/cuzkctl" --socket "$tmp/s.sock" "$@"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

start() {   # $1 = state dir, the rest cuzkd's options; sets up_ms: until the socket answers
	local t0; t0=$(now_ms)
	"$B/bin/cuzkd" --socket "$tmp/s.sock" --state-dir "$1" "${@:2}" >/dev/null 2>"$tmp/d.log" &
	dpid=$!
	for _ in $(seq 1000); do ctl status >/dev/null 2>&1 && { up_ms=$(( $(now_ms) - t0 )); return 0; }; sleep 0.01; done
	cat "$tmp/d.log" >&2; return 1
}
stop() { kill -TERM "$dpid"; wait "$dpid" || true; }
jstat() { ctl status --json | python3 -c "import json,sys; j=json.load(sys.stdin)['journal']; print(j['$1'])"; }

bench_accept() {
	echo "== in-process accepted path (engine/spool.c + engine/journal.c), files in $TMPDIR"
	"$B/bin/cuzk" bench journal
}

bench_group() {
	"$B/bin/cuzk" devsetup --builtin merkle --log2 8 --out-dir "$tmp" --witnesses 1 >/dev/null
	start "$tmp/gstate" --backend null --null-delay-ms 1
	ctl load m "$tmp/merkle_8.zkey" >/dev/null
	local c0 s0 subs=0
	c0=$(jstat spool_dir_syncs); s0=$(jstat commits)
	for r in $(seq 5); do
		for i in $(seq 32); do ctl submit m "$tmp"/merkle_8_*.wtns >/dev/null & done
		wait $(jobs -p | grep -v "^$dpid\$") 2>/dev/null || true
		subs=$((subs + 32))
	done
	local c1 s1
	c1=$(jstat spool_dir_syncs); s1=$(jstat commits)
	echo "== cuzkd (null backend): 5 rounds of 32 concurrent cuzkctl submits"
	echo "submits $subs, commits carrying a submit $((c1 - c0)) ($(awk -v a=$((c1 - c0)) -v b=$subs 'BEGIN{printf "%.3f", a/b}') journal fsyncs per submit), all commits $((s1 - s0)) (ends included)"
	stop
}

bench_restart() {
	local empty full
	start "$tmp/rempty" --backend null; empty=$up_ms; stop
	"$B/bin/cuzk" bench journal make-state "$tmp/rfull" 10000
	start "$tmp/rfull" --backend null; full=$up_ms
	local open_ms jobs bytes
	open_ms=$(jstat open_ms); jobs=$(jstat jobs); bytes=$(jstat bytes)
	stop
	echo "== cuzkd start until its socket answers: empty state $empty ms; journal of $jobs finished jobs ($bytes bytes) $full ms (journal open: $open_ms ms)"
}

case $what in
accept) bench_accept ;;
group) bench_group ;;
restart) bench_restart ;;
all) bench_accept; bench_group; bench_restart ;;
*) echo "usage: $0 [accept|group|restart|all]" >&2; exit 2 ;;
esac
