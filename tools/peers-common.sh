#!/bin/bash
# tools/peers-common.sh — sourced by tools/interop.sh and tools/bench-peers.sh, which set root,
# cuzk and dir: peers_ready checks that cuzk is built and snarkjs installed (exit 2 with the
# reason otherwise) and makes DIR; median prints the median of the numbers on stdin.
peers_ready() {
	[ -x "$cuzk" ] || { echo "$0: $cuzk not built (make)" >&2; exit 2; }
	[ -f "$root/tools/fixtures/node_modules/snarkjs/build/cli.cjs" ] ||
		{ echo "$0: snarkjs not installed (tools/install-deps.sh)" >&2; exit 2; }
	mkdir -p "$dir"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
