#!/bin/bash
# tools/bench-resident.sh — cuzk and iden3 rapidsnark, each with the key resident, on the same
# key and witness: the issue-26 "daemon with the key resident" row's like-for-like peer.
#
#   RAPIDSNARK_DIR=/path/to/rapidsnark tools/bench-resident.sh [-r ROUNDS] [-n PROOFS] [-d DIR]
#                                                               [-t THREADS] [-T TABLES] K [K ...]
#
# For each K: the BN254 key and witness of tools/bench-peers.sh (circom mulchain, 2^K - 3 steps,
# made once in DIR, default /tmp/cuzk-peers; tools/bn128-key.sh).  Then ROUNDS times (default 3),
# one after another: rapidsnark's library with the key loaded once and PROOFS proofs (default 3)
# against it (tools/peers/rapidsnark-resident.c, compiled here against RAPIDSNARK_DIR's
# build_prover/src/librapidsnark-fr-fq.a: a rapidsnark built from its sources, CMake Release,
# by whoever runs this, outside the repository); `cuzk bench prove --iters PROOFS --tables
# TABLES` (default off; its key loaded once, each stage's median over the proofs); the same
# with CZ_NO_IFMA=1 (the portable path, that of CPUs without AVX-512 IFMA).  Per proof: the
# median wall and process CPU (every thread, user + system) of the proofs in one process,
# the load not included (printed apart).  Every round's last proofs are checked: rapidsnark's
# by `cuzk verify`, cuzk's by its own built-in check against the key (a failure exits 1).
# Prints one Markdown row per K and cuzk path: medians over the rounds, and the median of the
# per-round ratios rapidsnark / cuzk.
#
# The peer is a reference, never a dependency: nothing here is part of cuzk's build, and this
# script fetches nothing.  THREADS, when given, is cuzk's --threads and OMP_NUM_THREADS.
# CUZK names another cuzk binary (default build/bin/cuzk).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuzk=${CUZK:-$root/build/bin/cuzk}
snarkjs="node $root/tools/fixtures/node_modules/snarkjs/build/cli.cjs"
circom="node $root/tools/fixtures/node_modules/circom2/cli.js"
rounds=3 proofs=3 dir=/tmp/cuzk-peers threads=0 tables=off
while getopts r:n:d:t:T: o; do
	case $o in
	r) rounds=$OPTARG ;;
	n) proofs=$OPTARG ;;
	d) dir=$OPTARG ;;
	t) threads=$OPTARG ;;
	T) tables=$OPTARG ;;
	*) echo "usage: RAPIDSNARK_DIR=... $0 [-r ROUNDS] [-n PROOFS] [-d DIR] [-t THREADS] [-T TABLES] K [K ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "$0: give at least one K (log2 of the constraints)" >&2; exit 2; }
. "$root/tools/peers-common.sh"
. "$root/tools/bn128-key.sh"
peers_ready
rs=${RAPIDSNARK_DIR:?set RAPIDSNARK_DIR to a rapidsnark source tree built with CMake (build_prover)}
lib=$rs/build_prover/src/librapidsnark-fr-fq.a
[ -f "$lib" ] || { echo "$0: $lib missing: in $rs/build_prover, make rapidsnarkStaticFrFq" >&2; exit 2; }
drv=$dir/rapidsnark-resident
if [ ! -x "$drv" ] || [ "$drv" -ot "$root/tools/peers/rapidsnark-resident.c" ] || [ "$drv" -ot "$lib" ]; then
	cc -std=gnu17 -O2 -Wall -Wextra -Werror -I"$rs/src" -o "$drv" "$root/tools/peers/rapidsnark-resident.c" "$lib" \
		-lstdc++ -lgmp -fopenmp -lpthread 2>"$dir/rapidsnark-resident.log" ||
		{ cat "$dir/rapidsnark-resident.log" >&2; echo "$0: the rapidsnark driver did not build" >&2; exit 1; }
fi
targs=() omp=()
[ "$threads" -gt 0 ] && targs=(--threads "$threads") && omp=(env OMP_NUM_THREADS="$threads")
echo "# $(date -u '+%F %T UTC'), $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| curve | n | cuzk path | tables | rapidsnark load ms | rapidsnark wall ms | cuzk wall ms | rapidsnark / cuzk wall | rapidsnark CPU ms | cuzk CPU ms | rapidsnark / cuzk CPU |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for k in "$@"; do
	bn128_key "$k"
	b=$dir/mulchain_bn128_$k
	: >"$dir/res.$k.rs"
	for p in default portable; do : >"$dir/res.$k.$p"; done
	for ((i = 0; i < rounds; i++)); do
		out=$("${omp[@]}" "$drv" "$b.zkey" "${b}_0.wtns" "$proofs" "$dir/rs.proof.json" "$dir/rs.public.json")
		"$cuzk" verify "${b}_vk.json" "$dir/rs.public.json" "$dir/rs.proof.json" | grep -qx OK ||
			{ echo "$0: rapidsnark's proof refused by cuzk verify (2^$k)" >&2; exit 1; }
		load=$(awk '$1 == "load" {print $2}' <<<"$out")
		w=$(awk '$1 == "prove" {print $3}' <<<"$out" | median)
		c=$(awk '$1 == "prove" {print $4}' <<<"$out" | median)
		echo "$load $w $c" >>"$dir/res.$k.rs"
		for p in default portable; do
			env=()
			[ $p = portable ] && env=(CZ_NO_IFMA=1)
			j=$(env "${env[@]}" "$cuzk" bench prove "$b.zkey" "${b}_0.wtns" "${targs[@]}" --iters "$proofs" \
				--tables "$tables" --json 2>"$dir/res.err") ||
				{ cat "$dir/res.err" >&2; echo "$0: cuzk bench prove failed (2^$k, $p)" >&2; exit 1; }
			grep -Eq '"op": "prove.verify(.tables)?"' <<<"$j" ||
				{ echo "$0: cuzk bench prove did not check its proof (2^$k, $p)" >&2; exit 1; }
			t=$(grep -E '"op": "prove.total(.tables)?"' <<<"$j" | sed 's/.*"ms": \([0-9.]*\), "cpu_ms": \([0-9.]*\).*/\1 \2/')
			echo "$t $w $c" >>"$dir/res.$k.$p"
		done
	done
	rl=$(awk '{print $1}' "$dir/res.$k.rs" | median)
	for p in default portable; do
		f=$dir/res.$k.$p
		printf '| bn128 | 2^%s | %s | %s | %.1f | %.1f | %.1f | **%.2fx** | %.1f | %.1f | %.2fx |\n' "$k" "$p" "$tables" "$rl" \
			"$(awk '{print $3}' "$f" | median)" "$(awk '{print $1}' "$f" | median)" \
			"$(awk '{print $3 / $1}' "$f" | median)" "$(awk '{print $4}' "$f" | median)" \
			"$(awk '{print $2}' "$f" | median)" "$(awk '{print $4 / $2}' "$f" | median)"
	done
done
