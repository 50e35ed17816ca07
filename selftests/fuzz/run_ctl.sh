#!/bin/bash
# Runs the control-protocol fuzzer (selftests/fuzz/fuzz_ctl.c; installed as
# $B/selftests/fuzz_ctl by selftests/fuzz/fuzz.mk) and prints TAP: one test
# point, "ok" when it ran without a crash, leak or sanitizer report.  It
# starts from a corpus of one frame per request op (seeds written here);
# a crashing input is kept under $B/fuzz/crashes/.
#   CZ_FUZZ_SECONDS  seconds to run (default 5)
#   CZ_FUZZ_RUNS     executions to run instead (make fuzz-long: 10 M); with
#                    CZ_FUZZ_SECONDS as well, whichever comes first
#   CZ_FUZZ_RSS_MB   the fuzzer's RSS limit (default 4096; over it is a failure)
#   CZ_FUZZ_CORPUS   keep the corpus there (default: a temporary directory)
#   CZ_FUZZ_LOG      keep the fuzzer's output there
#   CZ_FUZZ_DIR      where fuzz_ctl is (default: beside this script's ../fuzz)
#   CZ_DATA_DIR      fixtures (default selftests/data)
here=$(cd "$(dirname "$0")" && pwd)
fuzz_dir=$(cd "${CZ_FUZZ_DIR:-$here/../fuzz}" && pwd)
data=$(cd "${CZ_DATA_DIR:-selftests/data}" && pwd)
secs=${CZ_FUZZ_SECONDS:-5}

echo "TAP version 13"
echo "1..1"
if [ -f "$fuzz_dir/skip_ctl" ]; then
	echo "ok 1 - fuzz_ctl # SKIP $(head -1 "$fuzz_dir/skip_ctl")"
	exit 4
fi
bin=$fuzz_dir/fuzz_ctl
if [ ! -x "$bin" ]; then
	echo "not ok 1 - fuzz_ctl: $bin missing"
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$fuzz_dir/crashes" "$work/corpus"
# The inputs that once crashed it, kept as regressions (selftests/fuzz/ctl_regress/).
[ -d "$here/ctl_regress" ] && cp "$here"/ctl_regress/* "$work/corpus/" 2>/dev/null

# seed FILE ENVELOPE JSON...: the envelope byte, then each JSON as a frame.
seed() {
	local f=$work/corpus/$1 env=$2
	shift 2
	printf "\\x$env" >"$f"
	for j in "$@"; do
		local n=${#j}
		printf "\\x$(printf %02x $((n & 255)))\\x$(printf %02x $(((n >> 8) & 255)))\\x00\\x00%s" "$j" >>"$f"
	done
}
seed load 20 '{"op":"load","name":"x","zkey":"'"$data"'/mulchain.zkey","partitions":2}' '{"op":"unload","name":"x"}'
seed submit_fd 21 '{"op":"load","name":"m","zkey":"'"$data"'/mulchain.zkey"}' '{"op":"submit","circuit":"m","priority":"high","id":"a"}' '{"op":"await","job":"a","timeout":1}'
seed submit_nonadmin 02 '{"op":"submit","circuit":"m"}' '{"op":"status"}'
seed submit_path 20 '{"op":"submit","circuit":"m","witnesses":["'"$data"'/mulchain_1.wtns"]}'
seed cancel 21 '{"op":"submit","circuit":"m","id":"c"}' '{"op":"cancel","job":"c"}'
seed status 20 '{"op":"status"}' '{"op":"circuits"}'
seed trace 12 '{"op":"submit","circuit":"m","id":"t"}' '{"op":"trace","job":"t"}'
seed device 20 '{"op":"device","device":0,"action":"restart"}'
seed bad 20 '{"op":"submit","circuit":"m","priorty":"critical"}' '{"op":"await","job":"x","timeout":1e300}'

log=${CZ_FUZZ_LOG:-$work/fuzz.log}
if [ -n "$CZ_FUZZ_RUNS" ] && [ -n "$CZ_FUZZ_SECONDS" ]; then
	limit=(-runs="$CZ_FUZZ_RUNS" -max_total_time="$secs")
	what="at most $CZ_FUZZ_RUNS runs or ${secs}s"
elif [ -n "$CZ_FUZZ_RUNS" ]; then
	limit=(-runs="$CZ_FUZZ_RUNS")
	what="$CZ_FUZZ_RUNS runs"
else
	limit=(-max_total_time="$secs")
	what="${secs}s"
fi
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} CZ_DATA_DIR=$data \
corpus=$work/corpus
if [ -n "$CZ_FUZZ_CORPUS" ]; then
	mkdir -p "$CZ_FUZZ_CORPUS" && cp "$work"/corpus/* "$CZ_FUZZ_CORPUS/" && corpus=$(cd "$CZ_FUZZ_CORPUS" && pwd)
fi
"$bin" "${limit[@]}" -timeout=20 -rss_limit_mb="${CZ_FUZZ_RSS_MB:-4096}" -max_len=8192 -print_final_stats=1 \
	-artifact_prefix="$fuzz_dir/crashes/ctl-" "$corpus" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
if [ "$rc" -eq 0 ]; then
	echo "ok 1 - fuzz_ctl: ${runs:-?} runs in $what from $(ls "$work/corpus" | wc -l) inputs, $cov, no crash"
else
	echo "not ok 1 - fuzz_ctl: exit $rc after ${runs:-?} runs"
	grep -E 'ERROR|SUMMARY|Test unit written|runtime error' "$log" | head -8 | sed 's/^/# /'
	exit 1
fi
