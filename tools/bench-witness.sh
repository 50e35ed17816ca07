#!/bin/bash
# tools/bench-witness.sh — cuzk witness vs snarkjs wtns calculate, and cuzk prove --wasm
# --input vs snarkjs groth16 fullprove, on the same circuits and inputs.
#
#   tools/bench-witness.sh [-r ROUNDS] [-d DIR] [CIRCUIT ...]
#
# CIRCUIT: sha256 (circomlib's SHA-256 of 64 bits, selftests/data/witness/sha256.circom),
# sha256x512 (of 512 bits: two blocks), merkle (a depth-4 Poseidon Merkle proof), mulchainK
# (tools/fixtures/circuits/mulchain.circom with 2^K - 3 squarings); default: sha256 merkle
# mulchain16.  Each is compiled once into DIR (default /tmp/cuzk-bench-witness) by the pinned
# circom, its witness library built once (the build's time printed: translate, compile), an
# INSECURE key made by `cuzk devsetup --r1cs`; then the commands run alternately ROUNDS times
# (default 5), so noise from other processes hits both alike, timed whole (process start
# included) by bash's clock (EPOCHREALTIME).  Every .wtns is compared with snarkjs's and every proof
# verified by snarkjs.  Prints Markdown rows: median wall seconds of each and the ratio.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuzk=$root/build/bin/cuzk
snarkjs="node $root/tools/fixtures/node_modules/snarkjs/build/cli.cjs"
circom="node $root/tools/fixtures/node_modules/circom2/cli.js"
rounds=5 dir=/tmp/cuzk-bench-witness
while getopts "r:d:" o; do
	case $o in
	r) rounds=$OPTARG ;;
	d) dir=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-d DIR] [CIRCUIT ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- sha256 merkle mulchain16
[ -x "$cuzk" ] || { echo "$0: $cuzk not built (make)" >&2; exit 2; }
mkdir -p "$dir"
export CUZK_WITNESS_CACHE=$dir/cache

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# timed OUTFILE CMD...: runs CMD, appends its wall seconds to OUTFILE: bash's
# EPOCHREALTIME (microseconds) around the fork, exec and wait of CMD, the same
# for both sides (/usr/bin/time's %e has 10 ms steps: 8% of a 0.12 s run).
timed() {
	local f=$1 t0 t1
	shift
	t0=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 || { echo "$0: failed: $*" >&2; exit 1; }
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$f"
}

# prepare NAME: DIR/NAME.{circom,r1cs,json,zkey,_vk.json}, DIR/NAME_js/NAME.wasm
prepare() {
	local n=$1 src
	case $n in
	sha256) src=$root/selftests/data/witness/sha256.circom ;;
	sha256x512) src=$dir/sha256x512.circom
		sed 's/Sha256(64)/Sha256(512)/' "$root/selftests/data/witness/sha256.circom" >"$src" ;;
	merkle) src=$root/selftests/data/witness/merkle.circom ;;
	mulchain*) src=$dir/$n.circom
		sed "s/MulChain(40)/MulChain($(((1 << ${n#mulchain}) - 3)))/" \
			"$root/tools/fixtures/circuits/mulchain.circom" >"$src" ;;
	*) echo "$0: unknown circuit '$n'" >&2; exit 2 ;;
	esac
	if [ ! -f "$dir/${n}_js/$n.wasm" ]; then
		# circom resolves includes against -l relative to the working directory
		cp "$src" "$root/tools/fixtures/.bench_$n.circom"
		(cd "$root" && $circom "tools/fixtures/.bench_$n.circom" --r1cs --wasm -l tools/fixtures/node_modules \
			-o "$dir" >/dev/null) || { rm -f "$root/tools/fixtures/.bench_$n.circom"; echo "$0: circom $n failed" >&2; exit 1; }
		rm -f "$root/tools/fixtures/.bench_$n.circom"
		mv "$dir/.bench_${n}_js/.bench_$n.wasm" "$dir/.bench_${n}_js/$n.wasm"
		rm -rf "$dir/${n}_js" && mv "$dir/.bench_${n}_js" "$dir/${n}_js"
		mv "$dir/.bench_$n.r1cs" "$dir/$n.r1cs"
	fi
	case $n in
	sha256) python3 -c 'import json; print(json.dumps({"in": [(0x6162636465666768 >> (63 - i)) & 1 for i in range(64)]}))' >"$dir/$n.json" ;;
	sha256x512) python3 -c 'import json; print(json.dumps({"in": [(i * 7 >> 2) & 1 for i in range(512)]}))' >"$dir/$n.json" ;;
	merkle) echo '{"leaf": "12345", "siblings": ["1", "2", "3", "0x2a"], "bits": [0, 1, 1, 0]}' >"$dir/$n.json" ;;
	mulchain*) echo '{"a": "3", "b": "5"}' >"$dir/$n.json" ;;
	esac
	[ -f "$dir/$n.zkey" ] || "$cuzk" devsetup --r1cs "$dir/$n.r1cs" --out-zkey "$dir/$n.zkey" \
		--out-vk "$dir/${n}_vk.json" >/dev/null 2>&1
	echo "## $n: the witness library's build (once):" >&2
	"$cuzk" witness-build "$dir/${n}_js/$n.wasm" --witness-cache "$dir/cache" >&2
}

echo "| circuit | witness values | snarkjs wtns calculate s | cuzk witness s | ratio | snarkjs groth16 fullprove s | cuzk prove --wasm --input s | ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for n in "$@"; do
	prepare "$n"
	w=$dir/${n}_js/$n.wasm in=$dir/$n.json
	rm -f "$dir/$n".{sw,cw,sp,cp}.t
	for ((r = 0; r < rounds; r++)); do
		timed "$dir/$n.sw.t" $snarkjs wtns calculate "$w" "$in" "$dir/$n.s.wtns"
		timed "$dir/$n.cw.t" "$cuzk" witness "$w" "$in" "$dir/$n.c.wtns" --quiet
		cmp -s "$dir/$n.s.wtns" "$dir/$n.c.wtns" || { echo "$0: $n: the .wtns differ" >&2; exit 1; }
		timed "$dir/$n.sp.t" $snarkjs groth16 fullprove "$in" "$w" "$dir/$n.zkey" "$dir/sp.json" "$dir/spub.json"
		timed "$dir/$n.cp.t" "$cuzk" prove "$dir/$n.zkey" --wasm "$w" --input "$in" "$dir/cp.json" "$dir/cpub.json" --quiet
		$snarkjs groth16 verify "$dir/${n}_vk.json" "$dir/cpub.json" "$dir/cp.json" >/dev/null ||
			{ echo "$0: $n: snarkjs rejects cuzk's proof" >&2; exit 1; }
	done
	nv=$(od -An -tu4 -j 60 -N 4 "$dir/$n.c.wtns" | tr -d ' ')
	sw=$(median <"$dir/$n.sw.t") cw=$(median <"$dir/$n.cw.t")
	sp=$(median <"$dir/$n.sp.t") cp=$(median <"$dir/$n.cp.t")
	awk -v n="$n" -v nv="$nv" -v sw="$sw" -v cw="$cw" -v sp="$sp" -v cp="$cp" 'BEGIN {
		printf "| %s | %s | %.3f | %.3f | %.1fx | %.3f | %.3f | %.1fx |\n", n, nv, sw, cw, sw / cw, sp, cp, sp / cp }'
done
