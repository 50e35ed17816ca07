#!/bin/bash
# tools/gpu-check.sh — the CUDA backend's check, for a session on a GPU machine.
#
# The device run, cheapest and most telling first, each result printed as it
# lands (selftests/gpu_cuda.c with CZ_GPU_CHECK=full): the device's
# arithmetic (both curves, inline PTX against portable), NTTs 2^0 .. 2^24,
# MSMs 2^0 .. 2^24 (random, 0/1-heavy, all one, all zero, infinity bases, a
# repeated scalar), BN254 NTTs and MSMs, Groth16 partitions at 2^10, 2^16 and
# 2^20 whose proofs must verify, BN254 Groth16 through the backend (a random
# key at 2^10, 2^16, 2^20 against zk/, a BN254 circuit at 2^10 whose proof
# must verify, one key address with both curves); then, when a prebuilt
# cuzkd is at hand, the curves step (one cuzkd --backend cuda proves
# snarkjs's bn128 keys from selftests/data/bn128 and a BLS12-381 one, every
# proof checked by `cuzk verify` against snarkjs's vk.json: snarkjs is not
# on the GPU machine) and the daemon step (2 consumers, a backlog: duty and
# the order bound from its own trace).  A sticky CUDA error stops the run at
# once, naming the step; the script then reruns with CZ_CUDA_SYNC=1 (every
# launch waited for) so the message names the kernel.  Ends with a short
# table: device time (CUDA events) against the targets and zk/ on all host
# cores, then the curves and daemon lines.
# Budget: well inside 8 minutes on a 16-core host, 7.5 at worst
# (CUDA_CHECK_TIMEOUT caps the check, default 330 s; the rerun after a
# sticky error 90 s, only when it came in the first 4 minutes; then the
# curves step, watchdog 40 s, and the daemon step, 90 s, each only while
# CZ_GPU_CHECK_BUDGET, default 450 s from the start, leaves that much).
#
# The GPU machine has the CUDA toolkit but none of json-c, liburing,
# libnuma, GMP, so build here and carry the binaries:
#   tools/gpu-check.sh --prepare [DIR]   here (nvcc, no GPU): build gpu_cuda,
#                                        cuzkd, cuzkctl, cuzk and copy them with
#                                        the shared libraries they need into DIR
#                                        (default build/gpu-carry)
#   tools/gpu-check.sh [DIR]             there: run DIR's binaries (checked with
#                                        ldd first); without them it builds
#                                        `make gpu-check` there (the fallback:
#                                        only lib/, zk/, synth/, gpu/) and skips
#                                        the daemon step, saying why
#   tools/gpu-check.sh --dry-run         anywhere: the GPU machine's build
#                                        (`make gpu-check`), checks that it links
#                                        none of those libraries, runs the plan
#                                        with every device row "no device", and
#                                        the curves step with --backend cpu on
#                                        $B/bin's cuzkd when it is built; TAP
#                                        (make check runs it)
#   CZ_F32_PTX=1 tools/gpu-check.sh      builds the device code with the inline-
#                                        PTX multiplication (build/gpu-ptx); the
#                                        plain run checks it against the portable one
set -u
cd "$(dirname "$0")/.." || exit 1
mode=run
case "${1:-}" in
--dry-run) mode=dry; shift ;;
--prepare) mode=prepare; shift ;;
esac
CARRY=${1:-build/gpu-carry}
B=${B:-build}
defs=
[ "${CZ_F32_PTX:-0}" = 1 ] && defs="-DCZ_F32_PTX=1" && B=build/gpu-ptx
jobs=$(nproc 2>/dev/null || echo 4)
[ "$mode" != run ] && [ "$jobs" -gt 2 ] && jobs=2   # shared build machines
t0=$(date +%s)
forbidden='libjson-c|liburing|libnuma|libgmp'

build_check() {   # the GPU machine's build: lib/, zk/, synth/, gpu/ only
	mkdir -p "$B"
	CFLAGS="$defs" CUDA_DEFS="$defs" make -s -j"$jobs" B="$B" gpu-check >"$B/gpu-check-build.log" 2>&1
}

# ---- the daemon with --backend cuda ----------------------------------------
# daemon_step BACKEND LOG2: cuzkd with 2 consumers on device 0 and a backlog
# of 4 jobs x 6 partitions, then duty and the order bound from its trace.
daemon_step() {
	local be=$1 lg=$2 tmp
	echo "== daemon: --backend $be, 2 consumers, a backlog of 4 jobs x 6 partitions (merkle 2^$lg)"
	tmp=$(mktemp -d /tmp/gpu-check-d-XXXXXX)
	ctl() { timeout 60 "$CARRY/bin/cuzkctl" --socket "$tmp/s.sock" "$@"; }
	(
		set -e
		"$CARRY/bin/cuzk" devsetup --builtin merkle --log2 "$lg" --out-dir "$tmp" --witnesses 6 >/dev/null
		"$CARRY/bin/cuzkd" --socket "$tmp/s.sock" --state-dir "$tmp/state" --backend "$be" \
			--consumers-per-device 2 2>"$tmp/d.log" &
		dpid=$!
		# a watchdog: past 90 s the daemon goes, and every ctl call fails fast
		(sleep 90; kill -TERM "$dpid" 2>/dev/null) >/dev/null 2>&1 &
		wd=$!
		for _ in $(seq 300); do ctl status >/dev/null 2>&1 && break; sleep 0.1; done
		ctl load m "$tmp/merkle_$lg.zkey" >/dev/null
		for j in 1 2 3 4; do ctl submit m "$tmp"/merkle_"$lg"_[0-5].wtns --id "n$j" >/dev/null; done
		for j in 1 2 3 4; do ctl await "n$j" | head -c 200; echo; done
		ctl trace --out "$tmp/trace.jsonl"
		kill -TERM "$dpid"; wait "$dpid" || true
		kill "$wd" 2>/dev/null || true
		tools/cuzk-trace-report --json "$tmp/trace.jsonl" | python3 -c '
import json, sys
r = json.load(sys.stdin); o = r["order"]
for d in r["devices"]:
    print("# daemon device %d duty %.2f%% (target >= 99%%)" % (d["device"], 100 * d["duty"]))
print("# daemon order: worst inversions %d, bound %d, %d partitions over" % (o["max_inversions"], o["bound"], o["over_bound"]))
ok = all(d["duty"] >= 0.99 for d in r["devices"]) and o["over_bound"] == 0
print("ok - daemon duty and order bound" if ok else "not ok - daemon duty or order bound")'
		# side by side: one proof of the same partition on the host cores
		"$CARRY/bin/cuzk" bench prove "$tmp/merkle_$lg.zkey" "$tmp/merkle_${lg}_0.wtns" --iters 1 2>&1 |
			sed 's/^/# cpu, cuzk bench prove: /' || true
	) 2>&1 | tee -a "$log" | grep -E '^(# |ok|not ok)' | tail -14
	tail -5 "$tmp/d.log" 2>/dev/null | sed 's/^/# cuzkd: /'
	rm -rf "$tmp"
}

# ---- both curves through one daemon, checked by cuzk's verifier ---------------
# curves_step BACKEND BINDIR: cuzkd with BINDIR's binaries loads snarkjs's
# bn128 keys (selftests/data/bn128: mulchain 2^6, rangehash 2^7) and a
# BLS12-381 one (selftests/data/mulchain), proves 2 jobs of each bn128 key
# and one BLS12-381 job, and checks every partition's proof with `cuzk
# verify` against snarkjs's vk.json (snarkjs is not on the GPU machine).
# Prints "ok - curves ..." or "not ok - curves ..." and a "# curves" line.
curves_step() {
	local be=$1 bin=$2 tmp d=selftests/data
	echo "== curves: --backend $be, bn128 mulchain and rangehash (2 jobs each) and BLS12-381 mulchain (1 job), cuzk verify"
	tmp=$(mktemp -d /tmp/gpu-check-c-XXXXXX)
	(
		ctl() { timeout 30 "$bin/cuzkctl" --socket "$tmp/s.sock" "$@"; }
		"$bin/cuzkd" --socket "$tmp/s.sock" --state-dir "$tmp/state" --backend "$be" \
			--consumers-per-device 2 2>"$tmp/d.log" &
		dpid=$!
		(sleep 40; kill -TERM "$dpid" 2>/dev/null) >/dev/null 2>&1 &
		wd=$!
		for _ in $(seq 300); do ctl status >/dev/null 2>&1 && break; sleep 0.1; done
		good=0 all=0 why=
		# circuit name, key and fixtures' directory, vk
		for c in bn_mul:$d/bn128:mulchain bn_range:$d/bn128:rangehash bls_mul:$d:mulchain; do
			IFS=: read -r name dir f <<<"$c"
			ctl load "$name" "$dir/$f.zkey" >/dev/null 2>"$tmp/err" ||
				{ why="$why load $name: $(head -c 200 "$tmp/err");"; continue; }
			jobs=2
			[ "$name" = bls_mul ] && jobs=1
			for j in $(seq "$jobs"); do
				ctl submit "$name" "$dir/${f}_1.wtns" "$dir/${f}_2.wtns" --id "$name-$j" >/dev/null 2>"$tmp/err" ||
					why="$why submit $name-$j: $(head -c 200 "$tmp/err");"
			done
		done
		for c in bn_mul:$d/bn128:mulchain:2 bn_range:$d/bn128:rangehash:2 bls_mul:$d:mulchain:1; do
			IFS=: read -r name dir f jobs <<<"$c"
			for j in $(seq "$jobs"); do
				out=$(ctl await "$name-$j" --timeout 30 2>&1)
				jgood=$good
				for k in 0 1; do
					all=$((all + 1))
					if [ -d "$out" ] && "$bin/cuzk" verify "$dir/${f}_vk.json" "$out/$k.public.json" \
						"$out/$k.proof.json" >"$tmp/v" 2>&1; then
						good=$((good + 1))
					else
						why="$why $name-$j/$k: $(echo "$out" | head -c 120) $(head -c 120 "$tmp/v");"
					fi
				done
				echo "# curves: job $name-$j ($f): $((good - jgood)) of 2 proofs verify"
			done
		done
		kill -TERM "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null
		kill "$wd" 2>/dev/null
		echo "# curves ($be): $good of $all proofs verify with cuzk verify (bn128 mulchain, rangehash; BLS12-381 mulchain; one daemon)"
		if [ "$good" = 10 ] && [ "$all" = 10 ]; then
			echo "ok - curves: one cuzkd --backend $be proved 8 bn128 and 2 BLS12-381 partitions, every proof verifies"
		else
			echo "not ok - curves: $good of $all proofs verify:$why"
		fi
	) 2>&1 | tee -a "${log:-/dev/null}"
	tail -3 "$tmp/d.log" 2>/dev/null | sed 's/^/# cuzkd: /'
	rm -rf "$tmp"
}

if [ "$mode" = dry ]; then
	echo "1..4"
	if ! command -v "${NVCC:-nvcc}" >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
		echo "ok 1 # SKIP nvcc not found: no gpu-check build"
		echo "ok 2 # SKIP nvcc not found"
		echo "ok 3 # SKIP nvcc not found"
		echo "ok 4 # SKIP nvcc not found"
		exit 0
	fi
	if build_check; then
		echo "ok 1 - make gpu-check builds $B/gpu-check/gpu_cuda (lib/, zk/, synth/, gpu/ only)"
	else
		echo "not ok 1 - make gpu-check builds"; tail -20 "$B/gpu-check-build.log" | sed 's/^/# /'
		echo "not ok 2 - no binary"; echo "not ok 3 - no binary"; echo "not ok 4 - no binary"; exit 1
	fi
	bad=$(ldd "$B/gpu-check/gpu_cuda" 2>/dev/null | grep -E "$forbidden" | awk '{print $1}' | tr '\n' ' ')
	if [ -z "$bad" ]; then
		echo "ok 2 - gpu_cuda links none of json-c, liburing, libnuma, GMP (what the GPU machine lacks)"
	else
		echo "not ok 2 - gpu_cuda links $bad"
	fi
	out=$(CZ_GPU_CHECK=dry timeout 120 "$B/gpu-check/gpu_cuda" 2>&1)
	rc=$?
	plan=$(echo "$out" | grep -m1 -oE '^1\.\.[0-9]+' | cut -c4-)
	ran=$(echo "$out" | grep -cE '^(not )?ok [0-9]+')
	nodev=$(echo "$out" | grep -c 'device   no device')
	rows=$(echo "$out" | sed -n '/^# device vs host/,$p' | grep -c '^# [A-Z]')
	if [ "$rc" = 0 ] && [ -n "$plan" ] && [ "$ran" = "$plan" ] && [ "$rows" -gt 0 ] && [ "$nodev" = "$rows" ]; then
		echo "ok 3 - the full plan runs dry: $ran of $plan points, every one of $rows table rows \"no device\""
	else
		echo "not ok 3 - the dry run: rc $rc, $ran of ${plan:-?} points, $nodev of $rows rows \"no device\""
	fi
	echo "$out" | sed 's/^/# /'
	# the curves step the GPU machine runs, here on the cpu backend, so the
	# script's own daemon and verify steps cannot rot unseen
	if [ -x "$B/bin/cuzkd" ] && [ -x "$B/bin/cuzkctl" ] && [ -x "$B/bin/cuzk" ]; then
		cout=$(curves_step cpu "$B/bin" 2>&1)
		if echo "$cout" | grep -q '^ok - curves'; then
			echo "ok 4 - the curves step on --backend cpu: $(echo "$cout" | grep '^# curves' | cut -c3-)"
		else
			echo "not ok 4 - the curves step on --backend cpu"
		fi
		echo "$cout" | sed 's/^/# /'
	else
		echo "ok 4 # SKIP no $B/bin/cuzkd, cuzkctl, cuzk (make builds them): the curves step"
	fi
	exit 0
fi

if [ "$mode" = prepare ]; then
	echo "== prepare $CARRY (-j$jobs)"
	build_check || { tail -30 "$B/gpu-check-build.log"; echo "gpu-check: build failed"; exit 1; }
	make -s -j"$jobs" B="$B" "$B/bin/cuzkd" "$B/bin/cuzkctl" "$B/bin/cuzk" >"$B/gpu-carry-build.log" 2>&1 ||
		{ tail -30 "$B/gpu-carry-build.log"; echo "gpu-check: cuzkd build failed"; exit 1; }
	rm -rf "$CARRY"
	mkdir -p "$CARRY/bin" "$CARRY/lib"
	cp "$B/gpu-check/gpu_cuda" "$B/bin/cuzkd" "$B/bin/cuzkctl" "$B/bin/cuzk" "$CARRY/bin/"
	# every shared library but the C runtime's, which the GPU machine has
	for f in "$CARRY"/bin/*; do ldd "$f"; done | awk '/=> \// {print $3}' | sort -u |
		grep -vE '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
		while read -r l; do cp -L "$l" "$CARRY/lib/"; done
	{
		echo "commit $(git rev-parse HEAD 2>/dev/null)"
		echo "built $(date -u +%FT%TZ) on $(uname -n), $(nvcc --version 2>/dev/null | tail -1)"
		echo "defs ${defs:-none}"
	} >"$CARRY/BUILD-INFO"
	du -sh "$CARRY"
	echo "carry it: run(carry=[\"$CARRY\"], command=\"tools/gpu-check.sh $CARRY\")"
	exit 0
fi

if [ "${CZ_GPU_CHECK_DAEMON:-}" != "" ]; then
	# a development aid: only the daemon step, with another backend (cpu)
	log=$(mktemp /tmp/gpu-check-XXXXXX.log)
	daemon_step "$CZ_GPU_CHECK_DAEMON" "${CZ_GPU_CHECK_LOG2:-16}"
	curves_step "$CZ_GPU_CHECK_DAEMON" "$CARRY/bin"
	grep -E '^(not )?ok - (daemon|curves)' "$log"
	! grep -q '^not ok' "$log"
	exit
fi

# ---- the device run --------------------------------------------------------
echo "== $(date -u +%FT%TZ) $(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
command -v nvidia-smi >/dev/null &&
	nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
bin=
export LD_LIBRARY_PATH="$CARRY/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -x "$CARRY/bin/gpu_cuda" ] && ! ldd "$CARRY/bin/gpu_cuda" | grep -q 'not found'; then
	bin=$CARRY/bin/gpu_cuda
	echo "== prebuilt $bin ($(head -1 "$CARRY/BUILD-INFO" 2>/dev/null))"
else
	echo "== no usable prebuilt binary in $CARRY: building here ($B, -j$jobs)"
	if ! build_check; then
		tail -30 "$B/gpu-check-build.log"
		echo "gpu-check: build failed"
		exit 1
	fi
	bin=$B/gpu-check/gpu_cuda
	echo "   built in $(($(date +%s) - t0)) s"
fi
log=$(mktemp /tmp/gpu-check-XXXXXX.log)
echo "== check"
timeout -k 10 "${CUDA_CHECK_TIMEOUT:-330}" env CZ_GPU_CHECK=full "$bin" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if grep -q 'device out of service during' "$log" && [ $(($(date +%s) - t0)) -lt 240 ]; then
	echo "== a sticky error: once more with CZ_CUDA_SYNC=1, to name the kernel"
	timeout -k 5 90 env CZ_GPU_CHECK=full CZ_CUDA_SYNC=1 "$bin" 2>&1 |
		grep -E 'out of service|^not ok|cuzk: cuda' | head -20
fi

# The daemon steps, cheapest and most telling first, each only while the
# run's budget (CZ_GPU_CHECK_BUDGET, default 450 s from the start) leaves
# its watchdog's time: the curves step 40 s, the duty step 90 s.
budget=${CZ_GPU_CHECK_BUDGET:-450}
left() { echo $((budget - ($(date +%s) - t0))); }
usable=no
[ -x "$CARRY/bin/cuzkd" ] && [ -x "$CARRY/bin/cuzkctl" ] && [ -x "$CARRY/bin/cuzk" ] &&
	! ldd "$CARRY/bin/cuzkd" | grep -q 'not found' && ! ldd "$CARRY/bin/cuzk" | grep -q 'not found' &&
	grep -qE '^ok [0-9]+ - cz_cuda_open' "$log" && ! grep -q 'out of service' "$log" && usable=yes
crc=skipped
if [ "$usable" = yes ] && [ "$(left)" -ge 40 ]; then
	curves_step cuda "$CARRY/bin"
	crc=done
else
	echo "== curves step skipped: needs $CARRY/bin/cuzkd, cuzkctl and cuzk with their libraries (tools/gpu-check.sh --prepare here), a device in service, and 40 s of the budget ($(left) s left)"
fi
drc=skipped
if [ "$usable" = yes ] && command -v python3 >/dev/null && [ "$(left)" -ge 90 ]; then
	daemon_step cuda 16
	drc=done
else
	echo "== daemon step skipped: needs $CARRY/bin/cuzkd with its libraries (tools/gpu-check.sh --prepare here), python3, a device in service, and 90 s of the budget ($(left) s left)"
fi

echo "== summary (check rc $rc, daemon $drc, curves $crc, $(($(date +%s) - t0)) s in all)"
grep -E '^not ok' "$log"
ok=$(grep -cE '^ok [0-9]+' "$log")
skip=$(grep -cE '^ok [0-9]+ .*# SKIP' "$log")
printf '%s passed, %s failed, %s skipped\n' "$((ok - skip))" "$(grep -cE '^not ok' "$log")" "$skip"
sed -n '/^# device vs host/,/^# [0-9]* passed/p' "$log" | grep -v '^# [0-9]* passed'
grep -E '^# (daemon|curves)' "$log"
grep -qE '^not ok - (daemon|curves)' "$log" && [ "$rc" = 0 ] && rc=1
exit "$rc"
