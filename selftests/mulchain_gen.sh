#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: tools/mulchain-r1cs.py writes circom's bytes: for K = 5 and 9 (9 crosses wire
# 256, where circom's term order is not the wires' numeric order) and both of its primes
# (--prime bn128, the default, and bls12381) the pinned circom2 compiles
# tools/fixtures/circuits/mulchain.circom with 2^K - 3 steps and `snarkjs wtns calculate`
# computes its witness for {"a": 3, "b": 5}; the generator's .r1cs and .wtns must equal them
# byte for byte (the oracle is circom and snarkjs, not the generator).  A K out of range and
# an unknown prime are refused with their reasons.  Skipped without tools/fixtures/node_modules.
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
nm=tools/fixtures/node_modules
echo "TAP version 13"
echo "1..6"
n=0 fail=0 skip=0
for case in "5 bn128" "9 bn128" "5 bls12381" "9 bls12381"; do
	set -- $case
	k=$1 prime=$2
	n=$((n + 1))
	gen=(--prime "$prime")
	[ "$prime" = bn128 ] && gen=()      # the default
	if [ ! -f $nm/circom2/cli.js ] || [ ! -f $nm/snarkjs/build/cli.cjs ]; then
		echo "ok $n - mulchain 2^$k ($prime): the generator's bytes are circom's and snarkjs's # SKIP $nm incomplete (tools/install-deps.sh)"
		skip=$((skip + 1))
		continue
	fi
	steps=$(((1 << k) - 3))
	rm -rf "$tmp/m${k}_js"
	sed "s/MulChain(40)/MulChain($steps)/" tools/fixtures/circuits/mulchain.circom >"$tmp/m$k.circom"
	echo '{"a": "3", "b": "5"}' >"$tmp/in.json"
	if ! node $nm/circom2/cli.js "$tmp/m$k.circom" --r1cs --wasm --prime "$prime" -o "$tmp" >"$tmp/log" 2>&1 ||
	   ! node $nm/snarkjs/build/cli.cjs wtns calculate "$tmp/m${k}_js/m$k.wasm" "$tmp/in.json" "$tmp/m$k.wtns" \
		>>"$tmp/log" 2>&1 ||
	   ! python3 tools/mulchain-r1cs.py "${gen[@]}" "$k" "$tmp/g$k.r1cs" "$tmp/g$k.wtns" >>"$tmp/log" 2>&1; then
		echo "not ok $n - mulchain 2^$k ($prime): circom, snarkjs and the generator run"
		sed 's/^/# /' "$tmp/log"
		fail=$((fail + 1))
	elif cmp "$tmp/g$k.r1cs" "$tmp/m$k.r1cs" >"$tmp/cmp" 2>&1 && cmp "$tmp/g$k.wtns" "$tmp/m$k.wtns" >>"$tmp/cmp" 2>&1; then
		echo "ok $n - mulchain 2^$k ($steps steps, $prime): tools/mulchain-r1cs.py's .r1cs is circom's and its .wtns snarkjs's, byte for byte"
	else
		echo "not ok $n - mulchain 2^$k ($steps steps, $prime): tools/mulchain-r1cs.py's .r1cs is circom's and its .wtns snarkjs's, byte for byte"
		sed 's/^/# /' "$tmp/cmp"
		fail=$((fail + 1))
	fi
done
# refused WHAT REASON ARG...: the generator run with ARG... must fail with REASON on stderr
# and write no .r1cs.
refused() {
	local what=$1 reason=$2
	shift 2
	n=$((n + 1))
	rm -f "$tmp/x.r1cs"
	if python3 tools/mulchain-r1cs.py "$@" "$tmp/x.r1cs" "$tmp/x.wtns" 2>"$tmp/err"; then
		echo "not ok $n - $what is refused"
		fail=$((fail + 1))
	elif grep -q -- "$reason" "$tmp/err" && [ ! -e "$tmp/x.r1cs" ]; then
		echo "ok $n - $what is refused with its reason, nothing written ($(cat "$tmp/err"))"
	else
		echo "not ok $n - $what is refused with its reason, nothing written"
		sed 's/^/# /' "$tmp/err"
		fail=$((fail + 1))
	fi
}
refused "K = 2" "K must be 3..28" 2
refused "an unknown --prime" "goldilocks: not bn128 or bls12381" --prime goldilocks 5
echo "# $((n - fail - skip)) passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
