#!/bin/bash
# tools/gpu-ptx-loads.sh — what three device bodies compile to, from nvcc's
# PTX and ptxas's report, no GPU needed: the G1 XYZZ mixed addition (the
# MSM's inner step), an NTT butterfly (the streaming stages) and the MSM's
# segment step (the deepest call chain), each with the portable field
# multiplication and with the inline-PTX one (CZ_F32_PTX=1).  Columns: PTX
# loads in all (ld.*), of them 128-bit global loads (ld.global.v4), loads
# in the SASS ptxas makes of it (cuobjdump), ptxas registers, stack frame
# and spill stores.  The figures behind
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
find zk -name '*.h' | while read -r f; do mkdir -p "$tmp/${f%/*}"; cp "$f" "$tmp/$f"; done
cat >"$tmp/probe.cu" <<'CU'
#include "gpu/msm32.h"
#include "gpu/ntt32.h"
#if PROBE == 1
extern "C" __global__ void probe_madd(cz_g1xyzz32 *r, const cz_g1xyzz32 *a, const cz_g1a32 *b)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	cz_g1xyzz32_add_affine(&r[i], &a[i], &b[i]);
}
#elif PROBE == 2
extern "C" __global__ void probe_bfly(cz_fr32 *a, unsigned hlog, const cz_fr32 *tw, unsigned L)
{
	cz_ntt32_bfly(a, (uint32_t)((size_t)blockIdx.x * blockDim.x + threadIdx.x), hlog, tw, L);
}
#else
extern "C" __global__ void probe_segment(cz_g1xyzz32 *out, const cz_g1xyzz32 *bk, uint32_t nseg, unsigned c)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	cz_msm32_segment(out, bk, i / nseg, i % nseg, nseg, c);
}
#endif
CU
# One kernel a compile, so a kernel's PTX is its entry and the functions it calls.
printf '%-8s %-10s %8s %8s %9s %6s %7s %7s\n' kernel mul "PTX ld" "ld.v4" "SASS LD" regs stack spills
for ptx in 0 1; do
	name=portable
	[ "$ptx" = 1 ] && name=inline-PTX
	for k in 1 2 3; do
		kn=$(echo madd bfly segment | cut -d' ' -f$k)
		"$NVCC" -std=c++17 -O3 -arch=sm_90 -I"$tmp" -DCZ_F32_PTX=$ptx -DPROBE=$k -ptx "$tmp/probe.cu" -o "$tmp/p.ptx"
		"$NVCC" -std=c++17 -O3 -arch=sm_90 -I"$tmp" -DCZ_F32_PTX=$ptx -DPROBE=$k -cubin "$tmp/probe.cu" \
			-o "$tmp/p.cubin" -Xptxas -v 2>"$tmp/v.txt"
		ld=$(grep -cE '^\s*ld\.' "$tmp/p.ptx" || true)
		v4=$(grep -cE '^\s*ld\.global(\.nc)?\.v4' "$tmp/p.ptx" || true)
		sl=n/a   # cuobjdump is not part of every toolkit install (not on the dev VM)
		command -v cuobjdump >/dev/null &&
			sl=$(cuobjdump -sass "$tmp/p.cubin" | grep -cE '[[:space:]](LDG|LDL|LDS|LD)\.' || true)
		rg=$(grep -oE 'Used [0-9]+ registers' "$tmp/v.txt" | head -1 | grep -oE '[0-9]+')
		st=$(grep -oE '[0-9]+ bytes stack frame' "$tmp/v.txt" | head -1 | grep -oE '^[0-9]+')
		sp=$(grep -oE '[0-9]+ bytes spill stores' "$tmp/v.txt" | head -1 | grep -oE '^[0-9]+')
		printf '%-8s %-10s %8s %8s %9s %6s %7s %7s\n' "$kn" "$name" "$ld" "$v4" "$sl" "${rg:-?}" "${st:-?}" "${sp:-?}"
	done
done
