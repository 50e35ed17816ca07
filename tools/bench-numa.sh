#!/bin/bash
# bench-numa.sh — cross-node partitions on a simulated two-node machine.
#   The null-backend daemon planned on selftests/data/topo_2socket.xml (two
#   nodes of 4 CPUs; --topology plans without binding, so only *where* each
#   partition goes is measured, never what it costs), devices on both nodes
#   (--device-nodes 0,1 cycled), and per scenario ROUNDS fresh daemons
#   (default 3), each proving JOBS jobs of PARTS partitions (default 4 x 16)
#   submitted back to back:
#     synth   2 devices, 2 workers, synthesis 40 ms, device 2 ms (synthesis the bottleneck)
#     device  2 devices, 4 workers, synthesis 2 ms, device 20 ms (the devices the bottleneck)
#     even    4 devices, 4 workers, synthesis 10 ms, device 10 ms
#     skew    3 devices (two on node 0), 3 workers, synthesis 5 ms, device 15 ms
#   Prints per round, from the daemon's own status: partitions per node and
#   cross_node (proved on a device of another node than the one it was
#   synthesized on); from its trace: the worst order inversion count (as
#   tools/bench-order.sh: for each partition b, higher keys started after b
#   had been ready 1 ms and before b started; bound: one per consumer).
# usage: tools/bench-numa.sh [synth|device|even|skew|all] [--rounds N] [--jobs J] [--parts P]
#   CUZKD=path runs another daemon binary (e.g. one built from main).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
CUZKD=${CUZKD:-$B/bin/cuzkd}
what=${1:-all}
shift || true
rounds=3 jobs=4 parts=16
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--parts) parts=$2; shift 2 ;;
	*) echo "bench-numa.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
topo=selftests/data/topo_2socket.xml
tmp=$(mktemp -d /tmp/cuzk-bench-numa-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
ctl() { "$B/bin/cuzkctl" --socket "$tmp/s.sock" "$@"; }

start() {
	rm -rf "$tmp/state"
	"$CUZKD" --socket "$tmp/s.sock" --state-dir "$tmp/state" --backend null --topology "$topo" \
		--mem-budget 256M "$@" 2>"$tmp/d.log" &
	dpid=$!
	for _ in $(seq 200); do ctl status >/dev/null 2>&1 && return 0; sleep 0.05; done
	cat "$tmp/d.log"; return 1
}
stop() { kill -TERM "$dpid"; wait "$dpid" || true; }

report() {   # $1 = status json, $2 = trace, $3 = consumers
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
pl = st["placement"]
per = " ".join(f"node{n['node']}={n['partitions']}" for n in pl["node_partitions"])
ev = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
seqs = [e["job"] for e in ev if e["ev"] == "submit"]
ready, start = {}, {}
for e in ev:
    k = (e["job"], e["part"])
    if e["ev"] == "enqueue":
        ready.setdefault(k, e["ns"])
    elif e["ev"] == "compute_start":
        start.setdefault(k, e["ns"])
worst = 0
for b in start:
    if b in ready:
        worst = max(worst, sum(1 for a in start if start[a] >= ready[b] + 1e6 and start[a] < start[b] and a > b))
print(f"{per} cross_node={pl['cross_node']} worst_inversions={worst} (bound {sys.argv[3]})")
PY
}

run() {   # $1 = name, rest = daemon options; consumers = 2 a device
	local ndev
	ndev=$(echo "$@" | sed -n 's/.*--devices \([0-9]*\).*/\1/p')
	echo "== $1: ${*:2} ($jobs jobs x $parts partitions; $CUZKD)"
	local w=() i
	for i in $(seq "$parts"); do w+=("$tmp/merkle_8_0.wtns"); done
	for r in $(seq "$rounds"); do
		start "${@:2}"
		ctl load m "$tmp/merkle_8.zkey" >/dev/null
		for j in $(seq "$jobs"); do ctl submit m "${w[@]}" --id "j$j" >/dev/null; done
		for j in $(seq "$jobs"); do ctl await "j$j" >/dev/null; done
		ctl status --json >"$tmp/st.json"
		ctl trace --out "$tmp/trace.jsonl"
		echo "round $r: $(report "$tmp/st.json" "$tmp/trace.jsonl" $((ndev * 2)))"
		stop
	done
}

"$B/bin/cuzk" devsetup --builtin merkle --log2 8 --out-dir "$tmp" --witnesses 1 >/dev/null 2>&1
case $what in
synth|all) run synth --devices 2 --device-nodes 0,1 --synth-workers 2 --null-synth-ms 40 --null-delay-ms 2 ;;&
device|all) run device --devices 2 --device-nodes 0,1 --synth-workers 4 --null-synth-ms 2 --null-delay-ms 20 ;;&
even|all) run even --devices 4 --device-nodes 0,1 --synth-workers 4 --null-synth-ms 10 --null-delay-ms 10 ;;&
skew|all) run skew --devices 3 --device-nodes 0,0,1 --synth-workers 3 --null-synth-ms 5 --null-delay-ms 15 ;;&
synth|device|even|skew|all) ;;
*) echo "usage: tools/bench-numa.sh [synth|device|even|skew|all] [--rounds N] [--jobs J] [--parts P]" >&2; exit 2 ;;
esac
