#!/bin/bash
# tools/gpu-ptx-loads.sh — how many loads the device's G1 XYZZ mixed addition
# compiles to, with the portable field multiplication and with the inline-PTX
# one (CZ_F32_PTX=1), from nvcc's PTX and from the SASS (cuobjdump) — no GPU
# needed.  The figure behind gpu/field32_impl.h's "operands into locals"
# (issue #14, item 2); docs/BENCHMARKS.md records it.
#
# Usage: tools/gpu-ptx-loads.sh [field32_impl.h to measure instead of the tree's]
set -eu
cd "$(dirname "$0")/.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/gpu"
cp gpu/hd.h gpu/field32.h gpu/field32_impl.h gpu/g1_32.h gpu/g1_32_impl.h "$tmp/gpu/"
[ $# -ge 1 ] && cp "$1" "$tmp/gpu/field32_impl.h"
cat >"$tmp/probe.cu" <<'CU'
#include "gpu/g1_32.h"
extern "C" __global__ void probe_madd(cz_g1xyzz32 *r, const cz_g1xyzz32 *a, const cz_g1a32 *b)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	cz_g1xyzz32_add_affine(&r[i], &a[i], &b[i]);
}
CU
printf '%-10s %10s %10s %10s %8s\n' "mul" "PTX ld" "SASS LD" "spill st" "regs"
for ptx in 0 1; do
	name=portable
	[ "$ptx" = 1 ] && name=inline-PTX
	"$NVCC" -std=c++17 -O3 -arch=sm_90 -I"$tmp" -I. -DCZ_F32_PTX=$ptx -ptx "$tmp/probe.cu" -o "$tmp/p$ptx.ptx"
	"$NVCC" -std=c++17 -O3 -arch=sm_90 -I"$tmp" -I. -DCZ_F32_PTX=$ptx -cubin "$tmp/probe.cu" \
		-o "$tmp/p$ptx.cubin" -Xptxas -v 2>"$tmp/v$ptx.txt"
	lp=$(grep -cE '^\s*ld\.' "$tmp/p$ptx.ptx" || true)
	ls=$(cuobjdump -sass "$tmp/p$ptx.cubin" 2>/dev/null | grep -cE '\b(LD|LDG|LDL|LDS)(\.|\s)' || true)
	sp=$(grep -oE '[0-9]+ bytes spill stores' "$tmp/v$ptx.txt" | head -1 | cut -d' ' -f1)
	rg=$(grep -oE 'Used [0-9]+ registers' "$tmp/v$ptx.txt" | head -1 | cut -d' ' -f2)
	printf '%-10s %10s %10s %10s %8s\n' "$name" "$lp" "$ls" "${sp:-?}" "${rg:-?}"
done
