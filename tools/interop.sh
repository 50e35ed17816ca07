#!/bin/bash
# tools/interop.sh — cuzk prove against snarkjs groth16 prove on the same key and witness.
#
#   tools/interop.sh [-c CURVE] [-r ROUNDS] [-d DIR] [-t THREADS] K [K ...]
#
# For each K: makes (once, in DIR, default /tmp/cuzk-interop) an INSECURE development key with
# domain 2^K and one witness, then runs
# `snarkjs groth16 prove` and `cuzk prove` alternately ROUNDS times (default 3), so that noise
# from other processes hits both alike, and checks every proof with the other tool's verifier.
# CURVE bls12381 (the default): the built-in merkle circuit (cuzk devsetup --builtin).
# CURVE bn128 (BN254, circom's default): tools/fixtures/circuits/mulchain.circom with 2^K - 3
# steps compiled by the pinned circom (--prime bn128), its witness by `snarkjs wtns calculate`,
# the key by `cuzk devsetup --r1cs` (snarkjs's own setup needs a 2^K powers of tau, hours here).
# Prints one Markdown table row per K: median wall seconds, CPU seconds (user + system: less
# sensitive to a loaded machine than wall time) and peak RSS of each, the ratios, and cuzk's
# peak RSS over zkey + 8·n·32 bytes (the key plus the prover's vectors).
# Needs build/bin/cuzk (make) and tools/fixtures/node_modules (tools/install-deps.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuzk=$root/build/bin/cuzk
snarkjs="node $root/tools/fixtures/node_modules/snarkjs/build/cli.cjs"
circom="node $root/tools/fixtures/node_modules/circom2/cli.js"
rounds=3 dir=/tmp/cuzk-interop threads=0 curve=bls12381
while getopts "c:r:d:t:" o; do
	case $o in
	c) curve=$OPTARG ;;
	r) rounds=$OPTARG ;;
	d) dir=$OPTARG ;;
	t) threads=$OPTARG ;;
	*) echo "usage: $0 [-c bls12381|bn128] [-r ROUNDS] [-d DIR] [-t THREADS] K [K ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-c bls12381|bn128] [-r ROUNDS] [-d DIR] [-t THREADS] K [K ...]" >&2; exit 2; }
case $curve in bls12381|bn128) ;; *) echo "$0: -c: bls12381 or bn128, not '$curve'" >&2; exit 2 ;; esac
. "$root/tools/peers-common.sh"
peers_ready

# timed OUTFILE CMD...: runs CMD, appends "wall_s maxrss_kb cpu_s" to OUTFILE.
timed() {
	local f=$1
	shift
	/usr/bin/time -f "%e %M %U %S" -o "$f.one" "$@" >/dev/null 2>&1 || { echo "$0: failed: $*" >&2; exit 1; }
	awk '{print $1, $2, $3 + $4}' "$f.one" >>"$f"
}

# bn128_key K: DIR/mulchain_bn128_K.{zkey,_vk.json,_0.wtns}, made once.
. "$root/tools/bn128-key.sh"

echo "| curve | n | zkey MB | snarkjs wall s | cuzk wall s | wall ratio | snarkjs CPU s | cuzk CPU s | CPU ratio | snarkjs RSS MB | cuzk RSS MB | cuzk RSS / (zkey + 8·n·32) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for k in "$@"; do
	if [ "$curve" = bn128 ]; then
		bn128_key "$k"
		zk=$dir/mulchain_bn128_$k.zkey vk=$dir/mulchain_bn128_${k}_vk.json w=$dir/mulchain_bn128_${k}_0.wtns
	else
		zk=$dir/merkle_$k.zkey vk=$dir/merkle_${k}_vk.json w=$dir/merkle_${k}_0.wtns
		[ -f "$zk" ] && [ -f "$w" ] ||
			"$cuzk" devsetup --builtin merkle --log2 "$k" --out-dir "$dir" --witnesses 1 >/dev/null 2>&1
	fi
	rm -f "$dir/s$curve$k.t" "$dir/c$curve$k.t"
	for ((r = 0; r < rounds; r++)); do
		timed "$dir/s$curve$k.t" $snarkjs groth16 prove "$zk" "$w" "$dir/sp.json" "$dir/spub.json"
		timed "$dir/c$curve$k.t" "$cuzk" prove "$zk" "$w" "$dir/cp.json" "$dir/cpub.json" --threads "$threads"
		"$cuzk" verify "$vk" "$dir/spub.json" "$dir/sp.json" >/dev/null ||
			{ echo "$0: cuzk verify rejects snarkjs's proof (2^$k)" >&2; exit 1; }
		$snarkjs groth16 verify "$vk" "$dir/cpub.json" "$dir/cp.json" >/dev/null ||
			{ echo "$0: snarkjs verify rejects cuzk's proof (2^$k)" >&2; exit 1; }
	done
	st=$(cut -d' ' -f1 "$dir/s$curve$k.t" | median) ct=$(cut -d' ' -f1 "$dir/c$curve$k.t" | median)
	sr=$(cut -d' ' -f2 "$dir/s$curve$k.t" | median) cr=$(cut -d' ' -f2 "$dir/c$curve$k.t" | median)
	su=$(cut -d' ' -f3 "$dir/s$curve$k.t" | median) cu=$(cut -d' ' -f3 "$dir/c$curve$k.t" | median)
	awk -v k="$k" -v z="$(stat -c %s "$zk")" -v st="$st" -v ct="$ct" -v sr="$sr" -v cr="$cr" \
		-v su="$su" -v cu="$cu" -v cv="$curve" 'BEGIN {
		printf "| %s | 2^%s | %.1f | %.2f | %.2f | %.1fx | %.2f | %.2f | %.1fx | %.0f | %.0f | %.2f |\n",
			cv, k, z / 1048576, st, ct, st / ct, su, cu, su / cu, sr / 1024, cr / 1024,
			cr * 1024 / (z + 8 * 2 ^ k * 32) }'
done
