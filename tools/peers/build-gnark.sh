#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tools/peers/build-gnark.sh — builds tools/peers/gnark-chain, cuzk's benchmark driver for the
# gnark peer (Consensys gnark's Groth16), from sources already on this machine.  A benchmark
# reference, never part of cuzk's build (make does not run this): run by hand.
#
#   tools/peers/build-gnark.sh [OUT]            build the driver to OUT
#                                               (default /work/peers/gnark/bin/gnark-chain)
#   tools/peers/build-gnark.sh --layout MIRRORS lay the GOPATH out from bare git clones
#
# It downloads nothing: Go runs in GOPATH mode (GO111MODULE=off GOFLAGS= GOPROXY=off), every
# import resolved from GNARK_GOPATH (default /work/peers/gnark/gopath), with the Go of GO
# (default /usr/lib/go-1.19/bin/go: Debian's golang-1.19-go).  The version stamped into the
# binary (-ldflags -X) is read from GNARK_GOPATH/LAYOUT, written by --layout.
#
# The GOPATH: each repository's tree (git archive of the revision below) at
# GNARK_GOPATH/src/<import path>; the revisions are those of gnark v0.10.0's go.mod (gnark's
# go.mod lists the whole selected module graph, gnark-crypto's needs included).  gnark v0.10.0
# is the newest release that Go 1.19 compiles (its go.mod says go 1.21, which Go 1.19 in GOPATH
# mode does not enforce; nothing this driver imports uses Go >= 1.20 features).  v0.11.0 fails:
# gnark's constraint/marshal.go:325 "undefined: min" (Go 1.21 builtin), gnark-crypto v0.14.0's
# polynomial/pool.go:175 "undefined: unsafe.SliceData" (Go 1.20), x/crypto v0.26.0's sha3
# "undefined: subtle.XORBytes" (Go 1.20).  v0.9.1 (go 1.19, gnark-crypto 1f65e75b6dfb, x/sys
# v0.11.0, the rest as below) builds too.
#
#   import path                     repository                   revision (commit)
layout='
github.com/consensys/gnark        Consensys/gnark        v0.10.0 b2dfec74eae2578fdebd2c63be6da390f2aad564
github.com/consensys/gnark-crypto Consensys/gnark-crypto d72fcb379d3eb894fc18ece74a91f835294e1439 d72fcb379d3eb894fc18ece74a91f835294e1439
github.com/consensys/bavard       Consensys/bavard       v0.1.13 99ebce1776594c4446a7cc31d1f9aacd1c6f5fbb
github.com/bits-and-blooms/bitset bits-and-blooms/bitset v1.8.0  38210554807e5c7ce64e035d266d77d84fd80e95
github.com/blang/semver/v4        blang/semver:v4        v4.0.0  af3461a9cbcf1f3f5889d21b83f5ef63880c33a8
github.com/fxamacker/cbor/v2      fxamacker/cbor         v2.5.0  3b32167103cde33fc9b665646e56d9325fab17fc
github.com/x448/float16           x448/float16           v0.8.4  cb9afec31f2649663ebb64da5c6c32c3d365c3ca
github.com/google/pprof           google/pprof           7a8ec2ada47b0ebe103b66ebb94efd558c8d9821 7a8ec2ada47b0ebe103b66ebb94efd558c8d9821
github.com/rs/zerolog             rs/zerolog             v1.30.0 06ec071bc1eddfbec464bcda042f2504b1126947
github.com/mattn/go-colorable     mattn/go-colorable     v0.1.13 11a925cff3d38c293ddc8c05a16b504e3e2c63be
github.com/mattn/go-isatty        mattn/go-isatty        v0.0.19 c067b4f3df49dfc0f376d884e16cfd784ea1874b
github.com/mmcloughlin/addchain   mmcloughlin/addchain   v0.4.0  fa760c82056fc4f0f961b650563a6a75f9cd54ce
github.com/stretchr/testify       stretchr/testify       v1.8.4  f97607b89807936ac4ff96748d766cf4b9711f78
github.com/davecgh/go-spew        davecgh/go-spew        v1.1.1  8991bc29aa16c548c550c7ff78260e27b9ab7c73
github.com/pmezard/go-difflib     pmezard/go-difflib     v1.0.0  792786c7400a136282c1664665ae0a8db921c6c2
gopkg.in/yaml.v3                  go-yaml/yaml           v3.0.1  f6f7691b1fdeb513f56608cd2c32c51f8194bf51
golang.org/x/sys                  golang/sys             v0.15.0 13b15b780d9013988b1fb0e79e30b2528a877638
rsc.io/tmplfunc                   rsc/tmplfunc           v0.0.3  92c0a0c00a3f7467a1c0bbf0042eaf3426f513b1
'
# "blang/semver:v4": that repository's v4/ folder is the module.  gnark-crypto's utils/testing.go
# imports testify outside a test, hence testify, go-spew, go-difflib and yaml.v3; bavard and
# tmplfunc come from gnark-crypto's field generator, imported by gnark's emulated fields.
# Nothing else is imported (go list -deps): not x/crypto, x/exp, x/sync, compress, icicle.
# A blob missing from a clone (gnark-crypto's ecc/*/fr/sis/test_cases.json, test data) is left
# out, and --layout says so.
#
# --layout MIRRORS takes bare clones at MIRRORS/<owner>+<name>/repo or MIRRORS/<owner>+<name>
# (e.g. /work/.mirror, as a session's fetch tool makes them) and fills GNARK_GOPATH/src afresh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
gopath=${GNARK_GOPATH:-/work/peers/gnark/gopath}
go=${GO:-/usr/lib/go-1.19/bin/go}

if [ "${1:-}" = --layout ]; then
	mirrors=${2:?--layout MIRRORS}
	rm -rf "$gopath/src"
	mkdir -p "$gopath/src"
	: >"$gopath/LAYOUT"
	echo "$layout" | while read -r path repo rev commit; do
		[ -n "$path" ] || continue
		sub=.
		case $repo in *:*) sub=${repo#*:} repo=${repo%%:*} ;; esac
		git=$mirrors/${repo/\//+}
		[ -d "$git/repo" ] && git=$git/repo
		got=$(git --git-dir="$git" rev-parse "$rev^{commit}")
		[ "$got" = "$commit" ] || { echo "$repo $rev is $got, not $commit" >&2; exit 1; }
		dest=$gopath/src/$path
		mkdir -p "$dest"
		missing=$(git --git-dir="$git" ls-tree -r "$commit" -- "$sub" |
			while read -r _ type hash file; do
				[ "$type" = blob ] && ! git --git-dir="$git" cat-file -e "$hash" 2>/dev/null &&
					echo ":(exclude)$file"
			done || true)
		strip=0
		[ "$sub" = . ] || strip=1
		# shellcheck disable=SC2086 # one pathspec a word
		git --git-dir="$git" archive "$commit" -- "$sub" $missing 2>/dev/null |
			tar -x -C "$dest" --strip-components=$strip
		want=$(git --git-dir="$git" ls-tree -r "$commit" -- "$sub" | awk '$2 == "blob"' | wc -l)
		want=$((want - $(echo "$missing" | grep -c . || true)))
		have=$(find "$dest" -type f -o -type l | wc -l)
		[ "$have" = "$want" ] || { echo "$path: $have files, not $want" >&2; exit 1; }
		echo "$path $repo $rev $commit" >>"$gopath/LAYOUT"
		without=$(printf '%s\n' "${missing//:(exclude)/}" | paste -sd' ')
		echo "$path <- $repo@$rev ($commit)${missing:+ without: $without}"
	done
	exit 0
fi

out=${1:-/work/peers/gnark/bin/gnark-chain}
[ -x "$go" ] || { echo "no Go at $go (apt-get install golang-1.19-go, or GO=...)" >&2; exit 1; }
[ -f "$gopath/LAYOUT" ] || { echo "no $gopath/LAYOUT: lay the GOPATH out first (--layout)" >&2; exit 1; }
stamp() { awk -v p="$1" -v f="$2" '$1 == p { print $f }' "$gopath/LAYOUT"; }
pkg=github.com/consensys/gnark
x="-X main.gnarkVersion=$(stamp $pkg 3) -X main.gnarkCommit=$(stamp $pkg 4)"
x="$x -X main.cryptoCommit=$(stamp $pkg-crypto 4)"
mkdir -p "$(dirname "$out")"
cd "$root"
env GOPATH="$gopath" GO111MODULE=off GOFLAGS= GOPROXY=off GONOSUMDB= GOSUMDB=off CGO_ENABLED=0 \
	"$go" build -trimpath -ldflags "$x" -o "$out" ./tools/peers/gnark-chain
echo "built $out ($("$go" version | cut -d' ' -f3); gnark $(stamp $pkg 3) $(stamp $pkg 4))"
