#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: engine/ names no curve: no curve's name (BN254, bn128, BLS12-381, ...), no
# CZ_CURVE_<curve> value and no curve's own types, members or functions in any engine/
# source or header, comments included; a curve is reached only through curves/curves.h's ops.
# Self-tests: a planted curve branch, a curve's function, a union member and a comment are
# each caught, naming file:line; a file that goes through the ops is not.
#
# Usage: curves_free.sh [ROOT]   (ROOT: the tree to check, default this checkout;
#        with --scan ROOT it only scans and prints the violations, no TAP)
set -u
here=$(cd "$(dirname "$0")/.." && pwd)

# A curve by name (any case), the enum's curve values, and the instances a
# curve's zk/ and synth/ code defines (BLS12-381's are the unprefixed ones).
NAMES='bn254|bn128|bls12|bls_?381'
IDENTS='CZ_CURVE_BN|CZ_CURVE_BLS|\bbn_[a-z]|[.>]bls\b|[.>]bn\b|\bcz_groth16_key\b|\bcz_fr\b|\bcz_synth_part|\bcz_synth_abc\b|\bcz_ntt_domain|\bcz_shkey_|\bcz_wtns_read|_json_render\b|\bcz_proof_bin\b|\bcz_groth16_devsetup\b'

scan() {         # prints file:line:text of each violation under $1/engine
	( cd "$1" && find engine \( -name '*.c' -o -name '*.h' \) -print | sort |
	  while read -r f; do
		grep -inE "$NAMES" "$f" | sed "s|^|$f:|"
		grep -nE "$IDENTS" "$f" | sed "s|^|$f:|"
	  done ) | sort -u
}

if [ "${1:-}" = "--scan" ]; then
	scan "$2"
	exit 0
fi
root=${1:-$here}

echo "TAP version 13"
echo "1..3"
pass=0 fail=0
ok()  { echo "ok $1 - $2"; pass=$((pass + 1)); }
bad() { echo "not ok $1 - $2"; fail=$((fail + 1)); }

n=$(find "$root/engine" \( -name '*.c' -o -name '*.h' \) | wc -l)
v=$(scan "$root")
if [ "$n" -gt 0 ] && [ -z "$v" ]; then
	ok 1 "engine/ names no curve ($n files scanned)"
else
	bad 1 "engine/ names no curve ($n files scanned)"
	printf '%s\n' "$v" | sed 's/^/# /'
fi

t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/engine/room"
cat > "$t/engine/room/planted.c" <<'C'
int f(const struct cz_circuit *c)
{
	if (c->curve == CZ_CURVE_BN254)
		return cz_bn254_wtns_read_fd(0, 1, 0, 0, 0);
	return w->bn_key != 0;  /* the work's other member */
}
/* a BLS12-381 key only */
C
got=$(scan "$t" | wc -l)
lines=$(scan "$t" | cut -d: -f2 | sort -un | tr '\n' ' ')
if [ "$got" -ge 4 ] && [ "$lines" = "3 4 5 7 " ] && scan "$t" | grep -q '^engine/room/planted.c:3:'; then
	ok 2 "self-test: a planted curve branch, a curve's function, a union member and a comment are caught at lines $lines"
else
	bad 2 "self-test: planted violations caught at lines '$lines' (want 3 4 5 7)"
fi
rm -f "$t/engine/room/planted.c"
cat > "$t/engine/room/clean.c" <<'C'
void g(const struct cz_circuit *c, struct cz_dev_work *w)
{
	cz_curve_ops(c->curve)->work(w, &c->key, c->dom, NULL);
	size_t n = (size_t)c->key.npub * CZ_CURVE_FR_BYTES;
}
C
if [ -z "$(scan "$t")" ]; then
	ok 3 "self-test: a file that goes through the curve ops is clean"
else
	bad 3 "self-test: a clean file was flagged"
	scan "$t" | sed 's/^/# /'
fi
echo "# $pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
