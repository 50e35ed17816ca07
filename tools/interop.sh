#!/bin/bash
# tools/interop.sh — cuzk prove against snarkjs groth16 prove on the same key and witness.
#
#   tools/interop.sh [-r ROUNDS] [-d DIR] [-t THREADS] K [K ...]
#
# For each K: makes (once, in DIR, default /tmp/cuzk-interop) an INSECURE development key for
# the built-in merkle circuit with domain 2^K and one witness (cuzk devsetup), then runs
# `snarkjs groth16 prove` and `cuzk prove` alternately ROUNDS times (default 3), so that noise
# from other processes hits both alike, and checks every proof with the other tool's verifier.
# Prints one Markdown table row per K: median wall seconds, CPU seconds (user + system: less
# sensitive to a loaded machine than wall time) and peak RSS of each, and the ratios.
# Needs build/bin/cuzk (make) and tools/fixtures/node_modules (tools/install-deps.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuzk=$root/build/bin/cuzk
snarkjs="node $root/tools/fixtures/node_modules/snarkjs/build/cli.cjs"
rounds=3 dir=/tmp/cuzk-interop threads=0
while getopts "r:d:t:" o; do
	case $o in
	r) rounds=$OPTARG ;;
	d) dir=$OPTARG ;;
	t) threads=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-d DIR] [-t THREADS] K [K ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-r ROUNDS] [-d DIR] [-t THREADS] K [K ...]" >&2; exit 2; }
[ -x "$cuzk" ] || { echo "$0: $cuzk not built (make)" >&2; exit 2; }
[ -f "$root/tools/fixtures/node_modules/snarkjs/build/cli.cjs" ] ||
	{ echo "$0: snarkjs not installed (tools/install-deps.sh)" >&2; exit 2; }
mkdir -p "$dir"

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# timed OUTFILE CMD...: runs CMD, appends "wall_s maxrss_kb cpu_s" to OUTFILE.
timed() {
	local f=$1
	shift
	/usr/bin/time -f "%e %M %U %S" -o "$f.one" "$@" >/dev/null 2>&1 || { echo "$0: failed: $*" >&2; exit 1; }
	awk '{print $1, $2, $3 + $4}' "$f.one" >>"$f"
}

echo "| n | zkey MB | snarkjs wall s | cuzk wall s | wall ratio | snarkjs CPU s | cuzk CPU s | CPU ratio | snarkjs RSS MB | cuzk RSS MB |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for k in "$@"; do
	zk=$dir/merkle_$k.zkey vk=$dir/merkle_${k}_vk.json w=$dir/merkle_${k}_0.wtns
	[ -f "$zk" ] && [ -f "$w" ] ||
		"$cuzk" devsetup --builtin merkle --log2 "$k" --out-dir "$dir" --witnesses 1 >/dev/null 2>&1
	rm -f "$dir/s$k.t" "$dir/c$k.t"
	for ((r = 0; r < rounds; r++)); do
		timed "$dir/s$k.t" $snarkjs groth16 prove "$zk" "$w" "$dir/sp.json" "$dir/spub.json"
		timed "$dir/c$k.t" "$cuzk" prove "$zk" "$w" "$dir/cp.json" "$dir/cpub.json" --threads "$threads"
		"$cuzk" verify "$vk" "$dir/spub.json" "$dir/sp.json" >/dev/null ||
			{ echo "$0: cuzk verify rejects snarkjs's proof (2^$k)" >&2; exit 1; }
		$snarkjs groth16 verify "$vk" "$dir/cpub.json" "$dir/cp.json" >/dev/null ||
			{ echo "$0: snarkjs verify rejects cuzk's proof (2^$k)" >&2; exit 1; }
	done
	st=$(cut -d' ' -f1 "$dir/s$k.t" | median) ct=$(cut -d' ' -f1 "$dir/c$k.t" | median)
	sr=$(cut -d' ' -f2 "$dir/s$k.t" | median) cr=$(cut -d' ' -f2 "$dir/c$k.t" | median)
	su=$(cut -d' ' -f3 "$dir/s$k.t" | median) cu=$(cut -d' ' -f3 "$dir/c$k.t" | median)
	awk -v k="$k" -v z="$(stat -c %s "$zk")" -v st="$st" -v ct="$ct" -v sr="$sr" -v cr="$cr" \
		-v su="$su" -v cu="$cu" 'BEGIN {
		printf "| 2^%s | %.1f | %.2f | %.2f | %.1fx | %.2f | %.2f | %.1fx | %.0f | %.0f |\n",
			k, z / 1048576, st, ct, st / ct, su, cu, su / cu, sr / 1024, cr / 1024 }'
done
