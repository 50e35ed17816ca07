#!/bin/bash
# demo.sh — `make demo`: a dev key for the built-in circuit, cuzkd on the CPU
# backend on a temporary socket, two jobs submitted together, proofs
# verified with `cuzk verify` (and snarkjs when installed), a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
LOG2=${CUZK_DEMO_LOG2:-12}
PARTS=${CUZK_DEMO_PARTS:-3}
tmp=$(mktemp -d /tmp/cuzk-demo-XXXXXX)
dpid=
cleanup() { [ -n "$dpid" ] && kill "$dpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
ctl() { "$B/bin/cuzkctl" --socket "$tmp/cuzk.sock" "$@"; }

echo "== 1. an INSECURE development key for the built-in merkle circuit, 2^$LOG2 constraints"
"$B/bin/cuzk" devsetup --builtin merkle --log2 "$LOG2" --out-dir "$tmp" --witnesses $((2 * PARTS)) 2>&1 |
	grep -v WARNING | sed 's/^/   /'

echo "== 2. cuzkd, CPU backend, on $tmp/cuzk.sock"
"$B/bin/cuzkd" --socket "$tmp/cuzk.sock" --state-dir "$tmp/state" --backend cpu \
	--consumers-per-device 2 --synth-workers 1 2>"$tmp/cuzkd.log" &
dpid=$!
for _ in $(seq 100); do ctl status >/dev/null 2>&1 && break; sleep 0.05; done
ctl load merkle "$tmp/merkle_$LOG2.zkey"

echo "== 3. two jobs of $PARTS partitions each, submitted together"
w=("$tmp"/merkle_"${LOG2}"_*.wtns)
t0=$(date +%s%N)
ctl submit merkle "${w[@]:0:$PARTS}" --id demo-a >/dev/null
ctl submit merkle "${w[@]:$PARTS:$PARTS}" --id demo-b --priority high >/dev/null
da=$(ctl await demo-a)
db=$(ctl await demo-b)
t1=$(date +%s%N)
ctl status | sed 's/^/   /'

echo "== 4. verify every proof"
ok=0 bad=0 sj=0
snarkjs=tools/fixtures/node_modules/snarkjs/build/cli.cjs
for d in "$da" "$db"; do
	for ((k = 0; k < PARTS; k++)); do
		if "$B/bin/cuzk" verify "$tmp/merkle_${LOG2}_vk.json" "$d/$k.public.json" "$d/$k.proof.json" >/dev/null; then
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
		fi
		if [ -f "$snarkjs" ] && node "$snarkjs" groth16 verify "$tmp/merkle_${LOG2}_vk.json" \
			"$d/$k.public.json" "$d/$k.proof.json" 2>&1 | grep -q OK; then
			sj=$((sj + 1))
		fi
	done
done
ctl trace --out "$tmp/trace.jsonl"
kill -TERM "$dpid"; wait "$dpid"; dpid=

echo "== summary"
echo "   proofs: $((2 * PARTS)) of 2^$LOG2 constraints in $(( (t1 - t0) / 1000000 )) ms"
echo "   cuzk verify: $ok OK, $bad invalid"
[ -f "$snarkjs" ] && echo "   snarkjs groth16 verify: $sj OK"
echo "   the device's duty cycle and idle gaps, from the daemon's trace:"
tools/cuzk-trace-report "$tmp/trace.jsonl" | sed 's/^/   /'
[ "$bad" = 0 ]
