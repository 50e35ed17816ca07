#!/bin/bash
# Runs the parser fuzzers briefly (installed as $B/selftests/fuzz_parsers by
# selftests/fuzz/fuzz.mk) and prints TAP: one test point per fuzzer, "ok"
# when it ran its time without a crash, leak or sanitizer report.  Each
# fuzzer starts from a fresh corpus seeded with the fixtures; a crashing
# input is kept under $B/fuzz/crashes/.
#   CZ_FUZZ_SECONDS  seconds per fuzzer (default 5)
#   CZ_DATA_DIR      fixtures (default selftests/data)
here=$(cd "$(dirname "$0")" && pwd)
fuzz_dir=$(cd "$here/.." && pwd)/fuzz
data=${CZ_DATA_DIR:-selftests/data}
secs=${CZ_FUZZ_SECONDS:-5}
names="zkey wtns r1cs json"
globs=("*.zkey" "*.wtns" "*.r1cs" "*.json")

echo "TAP version 13"
echo "1..4"
if [ -f "$fuzz_dir/skip" ]; then
	reason=$(head -1 "$fuzz_dir/skip")
	i=0
	for n in $names; do
		i=$((i + 1))
		echo "ok $i - fuzz_$n # SKIP $reason"
	done
	exit 4
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$fuzz_dir/crashes"

# A sanitizer runtime that cannot start here (no ASLR control, tiny address
# space limits) is the environment's problem, not the parsers': skip then.
# A crash on the empty input writes a test unit and counts as a failure below.
mkdir -p "$work/empty"
if ! "$fuzz_dir/fuzz_wtns" -runs=1 "$work/empty" >"$work/sanity.log" 2>&1 &&
	! grep -q 'Test unit written' "$work/sanity.log"; then
	reason=$(grep -m1 -E 'ERROR|error|cannot' "$work/sanity.log" | cut -c1-120)
	i=0
	for n in $names; do
		i=$((i + 1))
		echo "ok $i - fuzz_$n # SKIP fuzzers cannot run here: ${reason:-see $work/sanity.log}"
	done
	exit 4
fi
i=0
fail=0
for n in $names; do
	glob=${globs[$i]}
	i=$((i + 1))
	bin=$fuzz_dir/fuzz_$n
	if [ ! -x "$bin" ]; then
		echo "not ok $i - fuzz_$n: $bin missing"
		fail=1
		continue
	fi
	mkdir -p "$work/$n"
	seeds=0
	for f in "$data"/$glob; do
		[ -f "$f" ] && cp "$f" "$work/$n/" && seeds=$((seeds + 1))
	done
	log=$work/$n.log
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	"$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=131072 \
		-print_final_stats=1 -artifact_prefix="$fuzz_dir/crashes/${n}-" "$work/$n" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	if [ "$rc" -eq 0 ]; then
		echo "ok $i - fuzz_$n: ${runs:-?} runs in ${secs}s from $seeds seeds, $cov, no crash"
	else
		echo "not ok $i - fuzz_$n: exit $rc after ${runs:-?} runs"
		grep -E 'ERROR|SUMMARY|Test unit written|runtime error' "$log" | head -8 | sed 's/^/# /'
		fail=1
	fi
done
exit $fail
