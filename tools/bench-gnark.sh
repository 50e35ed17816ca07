#!/bin/bash
# tools/bench-gnark.sh — cuzk beside gnark's Groth16 prover on the same circuit shape, both curves.
#
#   GNARK=/path/to/gnark-chain tools/bench-gnark.sh [-c CURVE] [-r ROUNDS] [-n PROOFS] [-d DIR] K [K ...]
#
# gnark proves circuits written in Go, so it cannot take cuzk's .zkey and .wtns: it proves its
# own key of the same circuit, tools/peers/gnark-chain (x[0] = a, x[i+1] = x[i]^2 + b for 2^K - 3
# steps, b public: tools/fixtures/circuits/mulchain.circom's shape, one constraint a step, domain
# 2^K), whose key it makes once in DIR (default /tmp/cuzk-gnark) with its own setup.  cuzk proves
# the circom build of that circuit (tools/bn128-key.sh: mulchain_key CURVE K).
# CURVE: bn128 (BN254, the default) or bls12381.  For each K, ROUNDS times (default 5), one
# after another so that the machine's drift hits all alike:
#   one-shot: `gnark-chain prove` (a fresh process: its constraint system and proving key read
#   from DIR, the witness assigned, one proof, checked with its verifying key; gnark's circuit
#   has one constraint more than circom's, its own `out == x[n]`), `cuzk prove`
#   (its default path) and `CZ_NO_IFMA=1 cuzk prove` (the portable path), each a whole process
#   timed by /usr/bin/time (start-up and reading the key included); cuzk's proofs are checked
#   by `snarkjs groth16 verify`;
#   resident (with -n PROOFS > 0, default 3): `gnark-chain prove -iters PROOFS` and `cuzk bench
#   prove --iters PROOFS --tables off` and `--tables auto` (the fixed-base tables a daemon
#   keeps with a resident key), each on both of cuzk's paths, the key read once, each side's
#   median time of a proof as it reports it (gnark: its groth16.Prove call; cuzk: prove.total,
#   synthesis and its built-in proof check included).
# Prints Markdown rows: medians, and the median of the per-round ratios gnark / cuzk.
#
# The peer is a reference, never a dependency: this script does not fetch or build it
# (tools/peers/build-gnark.sh builds it by hand from sources laid out beforehand).
# Needs build/bin/cuzk (make) and tools/fixtures/node_modules (tools/install-deps.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuzk=${CUZK:-$root/build/bin/cuzk}
snarkjs="node $root/tools/fixtures/node_modules/snarkjs/build/cli.cjs"
circom="node $root/tools/fixtures/node_modules/circom2/cli.js"
rounds=5 proofs=3 dir=/tmp/cuzk-gnark curve=bn128
usage="usage: GNARK=GNARK-CHAIN $0 [-c bn128|bls12381] [-r ROUNDS] [-n PROOFS] [-d DIR] K [K ...]"
while getopts "c:r:n:d:" o; do
	case $o in
	c) curve=$OPTARG ;;
	r) rounds=$OPTARG ;;
	n) proofs=$OPTARG ;;
	d) dir=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
case $curve in
bn128) gcurve=bn254 ;;
bls12381) gcurve=bls12-381 ;;
*) echo "$0: -c $curve: not bn128 or bls12381" >&2; exit 2 ;;
esac
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "$0: -r $rounds: not a positive count" >&2; exit 2; }
[[ $proofs =~ ^[0-9]+$ ]] || { echo "$0: -n $proofs: not a count" >&2; exit 2; }
[ -n "${GNARK:-}" ] && [ -x "$GNARK" ] ||
	{ echo "$0: GNARK must name the gnark-chain binary (tools/peers/build-gnark.sh; not built by this script)" >&2; exit 2; }
. "$root/tools/peers-common.sh"
peers_ready
mkdir -p "$dir"
. "$root/tools/bn128-key.sh"

# timed OUTFILE CMD...: runs CMD, appends "wall_s cpu_s" to OUTFILE.
timed() {
	local f=$1
	shift
	/usr/bin/time -f "%e %U %S" -o "$f.one" "$@" >"$f.out" 2>&1 || { echo "$0: failed: $*" >&2; cat "$f.out" >&2; exit 1; }
	awk '{print $1, $2 + $3}' "$f.one" >>"$f"
}

echo "peer: $("$GNARK" -log2 3 prove -dir /nonexistent 2>/dev/null | head -1 | sed "s/ curve=.*//")" >&2
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "| curve | n | mode | cuzk path | gnark s | cuzk s | gnark / cuzk (median of pairs) | gnark CPU s | cuzk CPU s | gnark / cuzk CPU |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for k in "$@"; do
	mulchain_key "$curve" "$k"
	b=$dir/mulchain_${curve}_$k g=$dir/gnark_${curve}_$k
	if [ ! -f "$g/done" ]; then
		mkdir -p "$g"
		"$GNARK" -curve "$gcurve" -log2 "$k" setup -dir "$g" >"$g/setup.log" 2>&1 ||
			{ echo "$0: gnark-chain setup failed (2^$k):" >&2; cat "$g/setup.log" >&2; exit 1; }
		touch "$g/done"
	fi
	rm -f "$dir"/{gs,cv,cp,gr,rv,rp,rt,rq}$k.t
	for ((r = 0; r < rounds; r++)); do
		timed "$dir/gs$k.t" "$GNARK" -curve "$gcurve" -log2 "$k" prove -dir "$g" -iters 1
		grep -q "verify=ok" "$dir/gs$k.t.out" ||
			{ echo "$0: gnark's proof did not verify (2^$k)" >&2; cat "$dir/gs$k.t.out" >&2; exit 1; }
		for path in cv cp; do
			e=()
			[ $path = cp ] && e=(env CZ_NO_IFMA=1)
			rm -f "$dir/cproof.json"
			timed "$dir/$path$k.t" "${e[@]}" "$cuzk" prove "$b.zkey" "${b}_0.wtns" "$dir/cproof.json" "$dir/cpub.json"
			$snarkjs groth16 verify "${b}_vk.json" "$dir/cpub.json" "$dir/cproof.json" >/dev/null ||
				{ echo "$0: snarkjs verify rejects cuzk's proof ($curve 2^$k, $path)" >&2; exit 1; }
		done
		if [ "$proofs" -gt 0 ]; then
			"$GNARK" -curve "$gcurve" -log2 "$k" prove -dir "$g" -iters "$proofs" >"$dir/gr.out" 2>&1 &&
				grep -q "verify=ok" "$dir/gr.out" ||
				{ echo "$0: gnark-chain prove -iters $proofs failed" >&2; cat "$dir/gr.out" >&2; exit 1; }
			# "gnark prove I wall_ms=W cpu_ms=C" per proof: the medians of the PROOFS
			w=$(awk '$2 == "prove" { sub("wall_ms=", "", $4); print $4 }' "$dir/gr.out" | median)
			c=$(awk '$2 == "prove" { sub("cpu_ms=", "", $5); print $5 }' "$dir/gr.out" | median)
			echo "$w $c" >>"$dir/gr$k.t"
			for path in rv rp rt rq; do
				e=() t=off
				case $path in rp | rq) e=(env CZ_NO_IFMA=1) ;; esac
				case $path in rt | rq) t=auto ;; esac
				"${e[@]}" "$cuzk" bench prove "$b.zkey" "${b}_0.wtns" --iters "$proofs" --tables $t >"$dir/cb.out" 2>&1 ||
					{ echo "$0: cuzk bench prove failed" >&2; cat "$dir/cb.out" >&2; exit 1; }
				awk '$1 ~ /^prove\.total/ { ms = $4; for (i = 1; i <= NF; i++) if ($i == "\"cpu_ms\":") { c = $(i + 1); sub(",", "", c) }
				     print ms, c; exit }' "$dir/cb.out" >>"$dir/$path$k.t"
			done
		fi
	done
	row() { # MODE PATHNAME GNARKFILE CUZKFILE SCALE
		local gw gc cw cc qw qc
		gw=$(cut -d' ' -f1 "$3" | median) gc=$(cut -d' ' -f2 "$3" | median)
		cw=$(cut -d' ' -f1 "$4" | median) cc=$(cut -d' ' -f2 "$4" | median)
		qw=$(paste -d' ' "$3" "$4" | awk '{print $1 / $3}' | median)
		qc=$(paste -d' ' "$3" "$4" | awk '{print $2 / $4}' | median)
		printf '| %s | 2^%s | %s | %s | %.3f | %.3f | %.2fx | %.3f | %.3f | %.2fx |\n' "$curve" "$k" "$1" "$2" \
			"$(echo "$gw $5" | awk '{print $1 * $2}')" "$(echo "$cw $5" | awk '{print $1 * $2}')" "$qw" \
			"$(echo "$gc $5" | awk '{print $1 * $2}')" "$(echo "$cc $5" | awk '{print $1 * $2}')" "$qc"
	}
	row one-shot default "$dir/gs$k.t" "$dir/cv$k.t" 1
	row one-shot "portable (CZ_NO_IFMA=1)" "$dir/gs$k.t" "$dir/cp$k.t" 1
	if [ "$proofs" -gt 0 ]; then
		row "resident, $proofs proofs" "default, tables off" "$dir/gr$k.t" "$dir/rv$k.t" 0.001
		row "resident, $proofs proofs" "portable, tables off" "$dir/gr$k.t" "$dir/rp$k.t" 0.001
		row "resident, $proofs proofs" "default, tables auto" "$dir/gr$k.t" "$dir/rt$k.t" 0.001
		row "resident, $proofs proofs" "portable, tables auto" "$dir/gr$k.t" "$dir/rq$k.t" 0.001
	fi
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
