#!/bin/bash
# tools/bench-peers.sh — cuzk prove beside other Groth16 provers on the same key and witness.
#
#   RAPIDSNARK=/path/to/prover tools/bench-peers.sh [-r ROUNDS] [-d DIR] [-t THREADS] K [K ...]
#
# For each K: the BN254 (bn128) key and witness of tools/interop.sh -c bn128 (circom mulchain
# with 2^K - 3 steps, made once in DIR, default /tmp/cuzk-peers; tools/bn128-key.sh), then
# ROUNDS times (default 5), one after another so that the machine's drift and the other
# processes' noise hit all alike: the peer, `cuzk prove` (its default path: AVX-512 IFMA where
# the CPU has it), `CZ_NO_IFMA=1 cuzk prove` (the portable mulx/adx path, that of CPUs
# without AVX-512 IFMA).  Each run is a whole process timed by /usr/bin/time (start-up and
# reading the key included).  Every proof is checked: the peer's by `cuzk verify`, cuzk's
# by `snarkjs groth16 verify`.
# Prints one Markdown row per K and cuzk path: medians of wall and CPU (user + system)
# seconds, and the median of the per-round ratios peer / cuzk (each round's three runs are
# minutes apart at most, so the ratio of a pair is steadier than the ratio of medians).
#
# The peers are references, never dependencies: this script does not fetch or build them.
# RAPIDSNARK names iden3 rapidsnark's `prover` binary (built from its sources by whoever
# runs this, outside the repository); THREADS, when given, is cuzk's --threads and the
# peer's OMP_NUM_THREADS.  gnark proves circuits written in Go, not .zkey + .wtns, so it has
# no place in this script.
# CUZK names another cuzk binary to measure (default build/bin/cuzk: an older build, for before
# and after).  Needs build/bin/cuzk (make) and tools/fixtures/node_modules (tools/install-deps.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuzk=${CUZK:-$root/build/bin/cuzk}
snarkjs="node $root/tools/fixtures/node_modules/snarkjs/build/cli.cjs"
circom="node $root/tools/fixtures/node_modules/circom2/cli.js"
rounds=5 dir=/tmp/cuzk-peers threads=0
usage="usage: RAPIDSNARK=PROVER $0 [-r ROUNDS] [-d DIR] [-t THREADS] K [K ...]"
while getopts "r:d:t:" o; do
	case $o in
	r) rounds=$OPTARG ;;
	d) dir=$OPTARG ;;
	t) threads=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
[ -n "${RAPIDSNARK:-}" ] && [ -x "$RAPIDSNARK" ] ||
	{ echo "$0: RAPIDSNARK must name rapidsnark's prover binary (not built by this script)" >&2; exit 2; }
. "$root/tools/peers-common.sh"
peers_ready
. "$root/tools/bn128-key.sh"
omp=()
[ "$threads" != 0 ] && omp=(env "OMP_NUM_THREADS=$threads")

# timed OUTFILE CMD...: runs CMD, appends "wall_s cpu_s" to OUTFILE.
timed() {
	local f=$1
	shift
	/usr/bin/time -f "%e %U %S" -o "$f.one" "$@" >/dev/null 2>&1 || { echo "$0: failed: $*" >&2; exit 1; }
	awk '{print $1, $2 + $3}' "$f.one" >>"$f"
}

echo "| curve | n | cuzk path | peer | peer wall s | cuzk wall s | peer / cuzk wall (median of pairs) | peer CPU s | cuzk CPU s | peer / cuzk CPU (median of pairs) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for k in "$@"; do
	bn128_key "$k"
	b=$dir/mulchain_bn128_$k
	rm -f "$dir/rs$k.t" "$dir/cv$k.t" "$dir/cp$k.t"
	for ((r = 0; r < rounds; r++)); do
		timed "$dir/rs$k.t" "${omp[@]}" "$RAPIDSNARK" "$b.zkey" "${b}_0.wtns" "$dir/rp.json" "$dir/rpub.json"
		"$cuzk" verify "${b}_vk.json" "$dir/rpub.json" "$dir/rp.json" >/dev/null ||
			{ echo "$0: cuzk verify rejects rapidsnark's proof (2^$k)" >&2; exit 1; }
		for path in cv cp; do
			e=()
			[ $path = cp ] && e=(env CZ_NO_IFMA=1)
			rm -f "$dir/cproof.json"
			timed "$dir/$path$k.t" "${e[@]}" "$cuzk" prove "$b.zkey" "${b}_0.wtns" "$dir/cproof.json" \
				"$dir/cpub.json" --threads "$threads"
			$snarkjs groth16 verify "${b}_vk.json" "$dir/cpub.json" "$dir/cproof.json" >/dev/null ||
				{ echo "$0: snarkjs verify rejects cuzk's proof (2^$k, $path)" >&2; exit 1; }
		done
	done
	for path in cv cp; do
		name=default
		[ $path = cp ] && name="portable (CZ_NO_IFMA=1)"
		rw=$(cut -d' ' -f1 "$dir/rs$k.t" | median) rc=$(cut -d' ' -f2 "$dir/rs$k.t" | median)
		cw=$(cut -d' ' -f1 "$dir/$path$k.t" | median) cc=$(cut -d' ' -f2 "$dir/$path$k.t" | median)
		qw=$(paste -d' ' "$dir/rs$k.t" "$dir/$path$k.t" | awk '{print $1 / $3}' | median)
		qc=$(paste -d' ' "$dir/rs$k.t" "$dir/$path$k.t" | awk '{print $2 / $4}' | median)
		printf '| bn128 | 2^%s | %s | rapidsnark | %.2f | %.2f | %.2fx | %.2f | %.2f | %.2fx |\n' \
			"$k" "$name" "$rw" "$cw" "$qw" "$rc" "$cc" "$qc"
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
