#!/bin/bash
# tools/gpu-check.sh — the CUDA backend's check, for a session on a GPU machine.
#
# The device run, cheapest and most telling first, each result printed as it
# lands (selftests/gpu_cuda.c with CZ_GPU_CHECK=full): the device's
# arithmetic (both curves, inline PTX against portable), NTTs 2^0 .. 2^24,
# MSMs 2^0 .. 2^24 (random, 0/1-heavy, all one, all zero, infinity bases, a
# repeated scalar), BN254 NTTs and MSMs, Groth16 partitions at 2^10, 2^16 and
# 2^20 whose proofs must verify; then the daemon with --backend cuda (2
# consumers, a backlog: duty and the order bound from its own trace) when a
# prebuilt cuzkd is at hand.  A sticky CUDA error stops the run at once,
# naming the step; the script then reruns with CZ_CUDA_SYNC=1 (every launch
# waited for) so the message names the kernel.  Ends with a short table:
# device time (CUDA events) against the targets and zk/ on all host cores.
# Budget: well inside 8 minutes on a 16-core host, 7 at worst
# (CUDA_CHECK_TIMEOUT caps the check, default 330 s; the rerun after a
# sticky error 90 s, only when it came in the first 4 minutes; the daemon
# step 90 s).
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
#                                        with every device row "no device"; TAP
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

if [ "$mode" = dry ]; then
	echo "1..3"
	if ! command -v "${NVCC:-nvcc}" >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
		echo "ok 1 # SKIP nvcc not found: no gpu-check build"
		echo "ok 2 # SKIP nvcc not found"
		echo "ok 3 # SKIP nvcc not found"
		exit 0
	fi
	if build_check; then
		echo "ok 1 - make gpu-check builds $B/gpu-check/gpu_cuda (lib/, zk/, synth/, gpu/ only)"
	else
		echo "not ok 1 - make gpu-check builds"; tail -20 "$B/gpu-check-build.log" | sed 's/^/# /'
		echo "not ok 2 - no binary"; echo "not ok 3 - no binary"; exit 1
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

if [ "${CZ_GPU_CHECK_DAEMON:-}" != "" ]; then
	# a development aid: only the daemon step, with another backend (cpu)
	log=$(mktemp /tmp/gpu-check-XXXXXX.log)
	daemon_step "$CZ_GPU_CHECK_DAEMON" "${CZ_GPU_CHECK_LOG2:-16}"
	grep -E '^(not )?ok - daemon' "$log"
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

drc=skipped
if [ -x "$CARRY/bin/cuzkd" ] && ! ldd "$CARRY/bin/cuzkd" | grep -q 'not found' &&
	command -v python3 >/dev/null && grep -qE '^ok [0-9]+ - cz_cuda_open' "$log" &&
	! grep -q 'out of service' "$log"; then
	daemon_step cuda 16
	drc=done
else
	echo "== daemon step skipped: needs $CARRY/bin/cuzkd with its libraries (tools/gpu-check.sh --prepare here), python3, and a device in service"
fi

echo "== summary (check rc $rc, daemon $drc, $(($(date +%s) - t0)) s in all)"
grep -E '^not ok' "$log"
ok=$(grep -cE '^ok [0-9]+' "$log")
skip=$(grep -cE '^ok [0-9]+ .*# SKIP' "$log")
printf '%s passed, %s failed, %s skipped\n' "$((ok - skip))" "$(grep -cE '^not ok' "$log")" "$skip"
sed -n '/^# device vs host/,$p' "$log" | grep -v '^#.*passed'
grep '^# daemon' "$log"
exit "$rc"
