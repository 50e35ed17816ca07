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
#   daemon   the real cuzkd (null backend, a 2^15 merkle key: 1 MiB witnesses): `cuzkctl submit`
#            timed from the client's side until it prints the job id, for one 1 MiB witness and
#            for 100 of them (100 MiB, one job), p50/p99; `cuzkctl status` as the floor (exec,
#            connect, one round trip); `cuzk bench journal accept` in-process beside it
#   reflink  `cuzk bench journal accept` on a loopback XFS with reflink (root, xfsprogs) and on
#            $TMPDIR, one after the other in the same run: spool cost per GiB, FICLONE vs
#            copy_file_range
# Files go under $TMPDIR (default /var/tmp), or --dir DIR: run it on the filesystem the state
# directory uses.
# usage: tools/bench-journal.sh [--dir DIR] [accept|group|restart|daemon|reflink|all]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
if [ "${1:-}" = --dir ]; then
	[ -d "${2:-}" ] || { echo "$0: --dir needs a directory" >&2; exit 2; }
	export TMPDIR=$2
	shift 2
fi
what=${1:-all}
export TMPDIR=${TMPDIR:-/var/tmp}
tmp=$(mktemp -d "$TMPDIR/cuzk-bench-journal-XXXXXX")
mnt=""
trap 'kill $(jobs -p) 2>/dev/null || true; [ -z "$mnt" ] || umount "$mnt" || true; rm -rf "$tmp"' EXIT
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
	echo "== in-process accepted path (engine/durable/spool.c + engine/durable/journal.c), files in $TMPDIR"
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

# p50/p99 (ms) of a command run N times, timed around the child process alone; an
# optional after-command (untimed) gets the first's stdout.  Nearest-rank percentiles.
timed() {   # $1 = label, $2 = N, $3 = command, $4 = after-command or ""
	python3 - "$@" <<'PY'
import subprocess, sys, time
label, n, cmd, after = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
v = []
for _ in range(n):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    v.append((time.perf_counter() - t0) * 1e3)
    if p.returncode:
        sys.exit(f"{label}: {cmd}: {p.stderr.strip()}")
    if after:
        subprocess.run(after.replace("{}", p.stdout.strip()), shell=True, capture_output=True)
v.sort()
pc = lambda q: v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]
print(f"{label:<34} n={n:<4} p50 {pc(0.5):9.2f} ms  p99 {pc(0.99):9.2f} ms  max {v[-1]:9.2f} ms")
PY
}

bench_daemon() {
	"$B/bin/cuzk" devsetup --builtin merkle --log2 15 --out-dir "$tmp" --witnesses 1 >/dev/null
	local w; w=$(echo "$tmp"/merkle_15_*.wtns)
	local hundred; hundred=$(for _ in $(seq 100); do printf '%s ' "$w"; done)
	start "$tmp/dstate" --backend null
	ctl load m "$tmp/merkle_15.zkey" >/dev/null
	local c="$B/bin/cuzkctl --socket $tmp/s.sock"
	echo "== cuzkd (null backend, state dir in $TMPDIR): cuzkctl from exec to exit; each job cancelled and awaited (untimed) before the next"
	echo "witness: $(stat -c %s "$w") bytes (2^15 merkle); spool before: $(ctl status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["spool"]["files"])')"
	timed "cuzkctl status (the floor)" 100 "$c status --json" ""
	timed "cuzkctl submit 1 MiB" 100 "$c submit m $w" "$c cancel {}; $c await {} --timeout 60"
	timed "cuzkctl submit 100 x 1 MiB" 20 "$c submit m $hundred" "$c cancel {}; $c await {} --timeout 120"
	echo "spool after: $(ctl status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["spool"])')"
	stop
	echo "== beside it, in-process (cuzk bench journal accept), same $TMPDIR"
	"$B/bin/cuzk" bench journal accept
}

bench_reflink() {
	if [ "$(id -u)" -ne 0 ] || ! command -v mkfs.xfs >/dev/null; then
		echo "== reflink: skipped (needs root and mkfs.xfs from xfsprogs)"; return 0
	fi
	truncate -s 2G "$tmp/xfs.img"
	mkfs.xfs -q -m reflink=1 "$tmp/xfs.img"
	mkdir "$tmp/xfs"
	mount -o loop "$tmp/xfs.img" "$tmp/xfs" && mnt=$tmp/xfs
	echo "== in-process accept on a loopback XFS (reflink=1, image on $TMPDIR)"
	TMPDIR=$mnt "$B/bin/cuzk" bench journal accept
	echo "== the same on $TMPDIR ($(stat -f -c %T "$TMPDIR"))"
	"$B/bin/cuzk" bench journal accept
	umount "$mnt" && mnt=""
}

case $what in
accept) bench_accept ;;
group) bench_group ;;
restart) bench_restart ;;
daemon) bench_daemon ;;
reflink) bench_reflink ;;
all) bench_accept; bench_group; bench_restart; bench_daemon; bench_reflink ;;
*) echo "usage: $0 [--dir DIR] [accept|group|restart|daemon|reflink|all]" >&2; exit 2 ;;
esac
