#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the MSM flush chosen at start-up from the CPU and the environment
# (zk/msm/ifma.c; cuzk(1), CZ_NO_IFMA and CZ_AVX2), for each of the four groups, as
# `cuzk bench msm` reports it (path=, lanes=) with no --path: IFMA on 8 lanes where
# /proc/cpuinfo names avx512ifma, else scalar; under CZ_NO_IFMA=1 the scalar flush
# (the AVX2 one is opt-in: it lost to mulx/adx on every group on the Intel Xeon of
# docs/BENCHMARKS.md and won only BN254 G1 on a Zen 4), also with CZ_AVX2=0; with
# CZ_AVX2=1 the AVX2 flush where /proc/cpuinfo names avx2.  That the flushes'
# results agree is selftests/zk_msm_ifma's (each against the scalar one).
set -u
B=${B:-build}
cuzk=$B/bin/cuzk
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
has() { case " ${flags#*:} " in *" $1 "*) return 0 ;; esac; return 1; }

ifma=scalar:0
has avx512ifma && ifma=ifma:8
avx2=scalar:0
has avx2 && avx2=avx2:4

echo "TAP version 13"
echo "1..16"
i=0 fail=0
# each group under each environment: the path:lanes bench msm reports
for g in bn254-g1 bn254-g2 g1 g2; do
	for c in "$ifma|default" "scalar:0|CZ_NO_IFMA=1" "scalar:0|CZ_NO_IFMA=1 CZ_AVX2=0" \
		 "$avx2|CZ_NO_IFMA=1 CZ_AVX2=1"; do
		want=${c%%|*} envs=${c#*|}
		[ "$envs" = default ] && envs=
		# shellcheck disable=SC2086 # envs is a list of NAME=VALUE words
		out=$(env -u CZ_NO_IFMA -u CZ_AVX2 -u CZ_IFMA_LANES $envs \
			"$cuzk" bench msm --group "$g" --log2 10 --threads 1 2>&1)
		got=$(printf '%s\n' "$out" | sed -n 's/.* path=\([a-z0-9]*\) lanes=\([0-9]*\).*/\1:\2/p')
		i=$((i + 1))
		if [ "$got" = "$want" ]; then
			echo "ok $i - $g under '${envs:-no variable}': the $want flush"
		else
			echo "not ok $i - $g under '${envs:-no variable}': want $want, got '${got:-}' ($out)"
			fail=$((fail + 1))
		fi
	done
done
[ "$fail" = 0 ]
