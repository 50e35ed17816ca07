#!/bin/bash
# tools/gpu-ptx-loads.sh — what three device bodies compile to, from nvcc's
# PTX and ptxas's report, no GPU needed: the G1 XYZZ mixed addition (the
# MSM's inner step), an NTT butterfly (the streaming stages) and the MSM's
# segment step (the deepest call chain), each with the portable field
# multiplication and with the inline-PTX one (CZ_F32_PTX=1).  Columns: PTX
# loads in all (ld.*), of them 128-bit global loads (ld.global.v4), ptxas
# registers, stack frame and spill stores.  The figures behind
# gpu/field32_impl.h's "operands into locals" and gpu/field32.h's alignment
# (issue #14, items 2 and 3); docs/BENCHMARKS.md records them.
#
# Usage: tools/gpu-ptx-loads.sh [REV]   REV: measure gpu/*.h as of that git
#                                        revision instead of the working tree
set -eu
cd "$(dirname "$0")/.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/gpu" "$tmp/zk"
for f in gpu/*.h; do
	if [ $# -ge 1 ]; then
		git show "$1:$f" >"$tmp/$f" 2>/dev/null || rm -f "$tmp/$f"
	else
		cp "$f" "$tmp/$f"
	fi
done
cp zk/*.h "$tmp/zk/"
cat >"$tmp/probe.cu" <<'CU'
#include "gpu/msm32.h"
#include "gpu/ntt32.h"
extern "C" __global__ void probe_madd(cz_g1xyzz32 *r, const cz_g1xyzz32 *a, const cz_g1a32 *b)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	cz_g1xyzz32_add_affine(&r[i], &a[i], &b[i]);
}
extern "C" __global__ void probe_bfly(cz_fr32 *a, unsigned hlog, const cz_fr32 *tw, unsigned L)
{
	cz_ntt32_bfly(a, (uint32_t)((size_t)blockIdx.x * blockDim.x + threadIdx.x), hlog, tw, L);
}
extern "C" __global__ void probe_segment(cz_g1xyzz32 *out, const cz_g1xyzz32 *bk, uint32_t nseg, unsigned c)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	cz_msm32_segment(out, bk, i / nseg, i % nseg, nseg, c);
}
CU
printf '%-14s %-10s %8s %8s %6s %7s %7s\n' kernel mul "PTX ld" "ld.v4" regs stack spills
for ptx in 0 1; do
	name=portable
	[ "$ptx" = 1 ] && name=inline-PTX
	"$NVCC" -std=c++17 -O3 -arch=sm_90 -I"$tmp" -DCZ_F32_PTX=$ptx -ptx "$tmp/probe.cu" -o "$tmp/p.ptx"
	"$NVCC" -std=c++17 -O3 -arch=sm_90 -I"$tmp" -DCZ_F32_PTX=$ptx -cubin "$tmp/probe.cu" \
		-o "$tmp/p.cubin" -Xptxas -v 2>"$tmp/v.txt"
	for k in probe_madd probe_bfly probe_segment; do
		# the kernel's PTX and the device functions it calls (the whole file
		# for the point kernels: their formulas are .func calls)
		body=$(awk -v k="$k" '$0 ~ "\\.entry " k {on=1} on {print} on && /^}/ {exit}' "$tmp/p.ptx")
		[ "$k" != probe_bfly ] && body=$(awk -v k="$k" '/\.entry / && $0 !~ k {skip=1} /\.func/ {skip=0} $0 ~ "\\.entry " k {skip=0} !skip' "$tmp/p.ptx")
		ld=$(echo "$body" | grep -cE '^\s*ld\.' || true)
		v4=$(echo "$body" | grep -cE '^\s*ld\.global(\.nc)?\.v4' || true)
		info=$(awk -v k="$k" '$0 ~ "Compiling entry function .?" k {on=1; next} on && /Used/ {print; exit} on && /stack frame/ {print}' "$tmp/v.txt" | tr '\n' ' ')
		rg=$(echo "$info" | grep -oE 'Used [0-9]+ registers' | grep -oE '[0-9]+')
		st=$(echo "$info" | grep -oE '[0-9]+ bytes stack frame' | grep -oE '^[0-9]+')
		sp=$(echo "$info" | grep -oE '[0-9]+ bytes spill stores' | grep -oE '^[0-9]+')
		printf '%-14s %-10s %8s %8s %6s %7s %7s\n' "${k#probe_}" "$name" "$ld" "$v4" "${rg:-?}" "${st:-?}" "${sp:-?}"
	done
done
