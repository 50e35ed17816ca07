#!/bin/bash
# tools/bn128-key.sh — sourced by tools/interop.sh, tools/bench-peers.sh, tools/bench-resident.sh
# and tools/bench-gnark.sh: the mulchain test keys, made once.  mulchain_key CURVE K makes
# DIR/mulchain_CURVE_K.{zkey,_vk.json,_0.wtns} for CURVE bn128 (BN254) or bls12381:
# tools/fixtures/circuits/mulchain.circom with 2^K - 3 steps compiled by the pinned circom
# (--prime CURVE), its witness by `snarkjs wtns calculate` (above 2^16 both written by
# tools/mulchain-r1cs.py, the same bytes: selftests/mulchain_gen.sh), an INSECURE key by
# `cuzk devsetup --r1cs` (snarkjs's own setup needs a 2^K powers of tau, hours here).
# bn128_key K is mulchain_key bn128 K.  The caller sets root, dir, cuzk, snarkjs and circom.
mulchain_key() {
	local c=$1 k=$2 b=$dir/mulchain_$1_$2
	case $c in bn128 | bls12381) ;; *) echo "$0: curve $c: not bn128 or bls12381" >&2; exit 2 ;; esac
	[ -f "$b.zkey" ] && [ -f "${b}_0.wtns" ] && return 0
	if [ "$k" -gt 16 ]; then         # circom2's wasm build: > 17 min at 2^20; the same bytes
		python3 "$root/tools/mulchain-r1cs.py" --prime "$c" "$k" "$b.r1cs" "${b}_0.wtns" ||
			{ echo "$0: tools/mulchain-r1cs.py failed ($c, 2^$k)" >&2; exit 1; }
	else
		sed "s/MulChain(40)/MulChain($(((1 << k) - 3)))/" "$root/tools/fixtures/circuits/mulchain.circom" >"$b.circom"
		$circom "$b.circom" --r1cs --wasm --prime "$c" -o "$dir" >/dev/null ||
			{ echo "$0: circom failed on $b.circom" >&2; exit 1; }
		echo '{"a": "3", "b": "5"}' >"$b.input.json"
		$snarkjs wtns calculate "${b}_js/mulchain_${c}_$k.wasm" "$b.input.json" "${b}_0.wtns" >/dev/null ||
			{ echo "$0: snarkjs wtns calculate failed ($c, 2^$k)" >&2; exit 1; }
	fi
	"$cuzk" devsetup --r1cs "$b.r1cs" --out-zkey "$b.zkey" --out-vk "${b}_vk.json" >/dev/null 2>&1 ||
		{ echo "$0: cuzk devsetup --r1cs $b.r1cs failed" >&2; exit 1; }
}

bn128_key() {
	mulchain_key bn128 "$1"
}
