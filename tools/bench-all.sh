#!/bin/bash
# bench-all.sh — every benchmark of docs/BENCHMARKS.md in one run, for a
# quiet machine: field, curve, MSM, NTT, ring, slab, Groth16 prove (cuzk and
# snarkjs side by side), the daemon (null and cpu backends, RSS) and its
# device processes against threads (tools/bench-devproc.sh).
# usage: tools/bench-all.sh [--quick]   (quick: no 2^20 MSM, no snarkjs)
set -uo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
quick=${1:-}
c=$B/bin/cuzk
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "## field";   $c bench fp --iters 5000000; $c bench fr --iters 5000000
echo "## curve";   $c bench g1add; $c bench g1add --group g2
echo "## msm"
for t in 1 2; do
	for l in 16 18 $([ -z "$quick" ] && echo 20); do $c bench msm --group g1 --log2 $l --threads $t; done
	$c bench msm --group g2 --log2 16 --threads $t
done
echo "## ntt";     for t in 1 2; do for l in 16 18 20; do $c bench ntt --log2 $l --threads $t; done; done
echo "## ring";    $c bench ring
echo "## slab";    $c bench slab
echo "## prove"
tmp=$(mktemp -d /tmp/cuzk-benchall-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for l in 16 18; do
	$c devsetup --builtin merkle --log2 $l --out-dir "$tmp" --witnesses 1 >/dev/null 2>&1
	$c bench prove "$tmp/merkle_$l.zkey" "$tmp/merkle_${l}_0.wtns" --threads 2 --iters $([ $l = 16 ] && echo 3 || echo 1)
done
[ -z "$quick" ] && tools/interop.sh -r 3 -d "$tmp/interop" 14 16
echo "## daemon";  tools/bench-daemon.sh null; tools/bench-daemon.sh cpu --log2 14; tools/bench-daemon.sh rss
echo "## device processes"; tools/bench-devproc.sh all --runs 5
