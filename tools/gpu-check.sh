#!/bin/bash
# tools/gpu-check.sh — the CUDA backend's check, for a session on a GPU machine.
#
# Builds only what the CUDA test needs (`make gpu-check`: no json-c, liburing,
# libnuma or GMP, which such machines lack) and runs selftests/gpu_cuda with
# CZ_GPU_CHECK=full: device NTTs (2^0 .. 2^24, all five transforms) and G1
# MSMs (to 2^20, random, 0/1-heavy, all-one, all-zero, infinity bases) against
# zk/ on the host, and Groth16 partitions at 2^10, 2^16 and 2^20 through the
# cuda backend whose proofs must verify.  Prints the TAP lines, then a table.
# Budget: about 8 minutes in all on a 16-core host (CUDA_CHECK_TIMEOUT caps the run).
#
# Usage: tools/gpu-check.sh [build dir, default build/gpu]
#   CZ_F32_PTX=1 tools/gpu-check.sh   builds the device code with the inline-PTX
#   field multiplication (default build/gpu-ptx); the plain run checks it too.
set -u
cd "$(dirname "$0")/.." || exit 1
defs=
[ "${CZ_F32_PTX:-0}" = 1 ] && defs="-DCZ_F32_PTX=1"
B=${1:-build/gpu${defs:+-ptx}}
t0=$(date +%s)
jobs=$(nproc 2>/dev/null || echo 4)

command -v nvidia-smi >/dev/null && nvidia-smi -L
mkdir -p "$B"
echo "== build ($B, -j$jobs)"
if ! CFLAGS="$defs" CUDA_DEFS="$defs" make -s -j"$jobs" B="$B" gpu-check >"$B/build.log" 2>&1; then
	tail -30 "$B/build.log"
	echo "gpu-check: build failed"
	exit 1
fi
echo "   built in $(($(date +%s) - t0)) s"

echo "== run"
timeout -k 10 "${CUDA_CHECK_TIMEOUT:-420}" env CZ_GPU_CHECK=full "$B/gpu-check/gpu_cuda" | tee "$B/gpu-check.log"
rc=${PIPESTATUS[0]}

echo "== summary (rc $rc, $(($(date +%s) - t0)) s in all)"
grep -E '^not ok' "$B/gpu-check.log"
ok=$(grep -cE '^ok [0-9]+' "$B/gpu-check.log")
skip=$(grep -cE '^ok [0-9]+ .*# SKIP' "$B/gpu-check.log")
printf '%s passed, %s failed, %s skipped\n' "$((ok - skip))" \
	"$(grep -cE '^not ok' "$B/gpu-check.log")" "$skip"
sed -n '/^# device vs host/,$p' "$B/gpu-check.log" | grep -v '^#.*passed'
exit "$rc"
