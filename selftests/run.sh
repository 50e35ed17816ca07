#!/bin/bash
# Runs selftest programs, each under a timeout, and sums their TAP lines.
# Last line: "N passed, N failed, N skipped"; exits 1 if anything failed.
# A program that crashes, times out or exits non-zero without a "not ok"
# line counts as one more failure, and so does one whose test points fall
# short of its "1..N" plan (or that prints no plan): a test that stops early
# has not passed.  CZ_TEST_TIMEOUT overrides the timeout (s).
timeout_s=${CZ_TEST_TIMEOUT:-600}
pass=0 fail=0 skip=0
log_dir=${B:-build}/selftests-logs
mkdir -p "$log_dir"
for t in "$@"; do
	name=$(basename "$t")
	log="$log_dir/$name.log"
	start=$(date +%s%N)
	timeout -k 10 "$timeout_s" "$t" >"$log" 2>&1
	rc=$?
	secs=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN{printf "%.2f", (b-a)/1e9}')
	p=$(grep -cE '^ok [0-9]+' "$log" | head -1)
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$log" | head -1)
	f=$(grep -cE '^not ok [0-9]+' "$log" | head -1)
	p=$((p - s))
	extra=""
	plan=$(grep -m1 -oE '^1\.\.[0-9]+' "$log" | cut -c4-)
	ran=$(grep -cE '^(not )?ok [0-9]+' "$log" | head -1)
	if [ -z "$plan" ] || [ "$ran" -lt "$plan" ]; then
		f=$((f + 1))
		extra=" (ran $ran of ${plan:-no} planned test points)"
	fi
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$f" -eq 0 ]; then
		f=1
		[ "$rc" -eq 124 ] && extra=" (timed out after ${timeout_s}s)" || extra=" (exit status $rc)"
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	printf '%-28s %4d passed %3d failed %3d skipped  %6ss%s\n' "$name" "$p" "$f" "$s" "$secs" "$extra"
	if [ "$f" -ne 0 ]; then
		grep -E '^not ok|^#' "$log" | grep -v '^# [0-9]* passed' | head -40 | sed 's/^/    /'
		tail -5 "$log" | sed 's/^/    | /'
	fi
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
