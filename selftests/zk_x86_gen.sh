#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the generated x86-64 assembly matches its generators: zk/field/field_x86_gen.py
# --header and zk/field/field_x86_add_gen.py --header are run and their output compared byte
# for byte with the committed zk/field/field_x86.h and zk/field/field_x86_add.h; a difference
# fails, showing the diff (regenerate with the command it names).
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"
echo "1..2"
n=0 fail=0
for pair in field_x86_gen.py:field_x86.h field_x86_add_gen.py:field_x86_add.h; do
	gen=zk/field/${pair%%:*} hdr=zk/field/${pair#*:}
	n=$((n + 1))
	if ! python3 "$gen" --header >"$tmp/out" 2>"$tmp/err"; then
		echo "not ok $n - $gen --header runs"
		sed 's/^/# /' "$tmp/err"
		fail=$((fail + 1))
	elif cmp -s "$tmp/out" "$hdr"; then
		echo "ok $n - $hdr is $gen --header's output, byte for byte"
	else
		echo "not ok $n - $hdr is $gen --header's output, byte for byte (regenerate: $gen --header > $hdr)"
		diff -u "$hdr" "$tmp/out" | head -n 60 | sed 's/^/# /'
		fail=$((fail + 1))
	fi
done
echo "# $((n - fail)) passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
