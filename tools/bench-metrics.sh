#!/bin/bash
# bench-metrics.sh — what watching cuzkd costs (issue 13's benchmark):
#  1. /metrics and /status scrape time (curl's time_total, loopback) with
#     1,000 jobs in the daemon (queued behind a slow null device), and what
#     building /metrics cost the daemon itself (its own histogram,
#     cuzk_scrape_duration_seconds, wall and thread CPU): the difference is
#     the client's and the listener thread's waits for a CPU;
#  2. daemon CPU and device duty on the null backend under a steady stream
#     of jobs, without observers and with a /metrics scrape each second plus
#     the dashboard's /status poll at 5 Hz, same stream, same length.
# Usage: tools/bench-metrics.sh [SECONDS]  (default 20 s a run).  Prints a
# table; docs/BENCHMARKS.md keeps the figures with the machine and date.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
secs=${1:-20}
tmp=$(mktemp -d /tmp/cuzk-benchm-XXXXXX)
dpid=
cleanup() { [ -n "$dpid" ] && kill "$dpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
w=(selftests/data/mulchain_1.wtns selftests/data/mulchain_2.wtns)
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# /status in full needs --metrics-auth's token (docs/metrics.md, Who sees /status)
token=bench-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
(umask 077; echo "$token" >"$tmp/token")
auth="Authorization: Bearer $token"
start() {   # start NAME DELAY_MS
	port=$(freeport)
	sock="$tmp/$1.sock"
	"$B/bin/cuzkd" --socket "$sock" --state-dir "$tmp/$1" --backend null --devices 2 \
		--null-delay-ms "$2" --metrics-listen "127.0.0.1:$port" --metrics-auth "$tmp/token" 2>"$tmp/$1.log" &
	dpid=$!
	for _ in $(seq 200); do "$B/bin/cuzkctl" --socket "$sock" status >/dev/null 2>&1 && break; sleep 0.05; done
	"$B/bin/cuzkctl" --socket "$sock" load m selftests/data/mulchain.zkey
}
stop() { kill "$dpid"; wait "$dpid" 2>/dev/null || true; dpid=; }
cpu_s() { awk -v t="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); split($0, f, " "); printf "%.2f", (f[12] + f[13]) / t }' "/proc/$1/stat"; }
stats() {   # stats FILE: n, median, p99, max in ms
	sort -n "$1" | awk '{ v[NR] = $1 * 1000 } END { printf "n %d, median %.3f ms, p99 %.3f ms, max %.3f ms", NR, v[int((NR + 1) / 2)], v[int(NR * 0.99 + 0.5)], v[NR] }'
}

echo "== 1. scrape time with 1,000 jobs in the daemon"
start big 1000
for i in $(seq 1000); do "$B/bin/cuzkctl" --socket "$sock" submit m "${w[i % 2]}" >/dev/null; done
for _ in $(seq 200); do curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port/metrics"; done >"$tmp/m.txt"
for _ in $(seq 50); do curl -s -H "$auth" -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port/status"; done >"$tmp/s.txt"
jobs=$(curl -s -H "$auth" "http://127.0.0.1:$port/status" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))')
echo "   jobs in status: $jobs"
echo "   /metrics: $(stats "$tmp/m.txt") (curl's time_total)"
echo "   /status:  $(stats "$tmp/s.txt") (curl's time_total)"
curl -s "http://127.0.0.1:$port/metrics" | python3 -c '
import re, sys
h = {}
for l in sys.stdin:
    m = re.match(r"cuzk_scrape_duration_seconds_bucket\{clock=\"(\w+)\",le=\"([^\"]+)\"\} (\d+)", l)
    if m:
        h.setdefault(m.group(1), []).append((float("inf") if m.group(2) == "+Inf" else float(m.group(2)), int(m.group(3))))
for clock in ("wall", "cpu"):
    b = h.get(clock, [])
    n = b[-1][1] if b else 0
    q = lambda p: next((le for le, c in b if c >= p * n), float("inf"))
    le1 = next((c for le, c in b if le >= 0.001), n)
    print("   the daemon'"'"'s own /metrics cost (%s): %d scrapes, p50 <= %g ms, p99 <= %g ms, %.1f%% <= 1 ms"
          % (clock, n, 1e3 * q(0.5), 1e3 * q(0.99), 100.0 * le1 / n if n else 0))'
stop

run() {   # run NAME OBSERVE(0|1): a job of 2 partitions each 50 ms for SECONDS
	start "$1" 20
	local t0 c0 end
	c0=$(cpu_s "$dpid")
	t0=$(date +%s.%N)
	end=$(( $(date +%s) + secs ))
	obs=
	if [ "$2" = 1 ]; then
		( while [ "$(date +%s)" -lt "$end" ]; do curl -s -o /dev/null "http://127.0.0.1:$port/metrics"; sleep 1; done ) &
		obs="$obs $!"
		( while [ "$(date +%s)" -lt "$end" ]; do curl -s -H "$auth" -o /dev/null "http://127.0.0.1:$port/status"; sleep 0.2; done ) &
		obs="$obs $!"
	fi
	n=0
	while [ "$(date +%s)" -lt "$end" ]; do
		"$B/bin/cuzkctl" --socket "$sock" submit m "${w[0]}" "${w[1]}" >/dev/null
		n=$((n + 1))
		sleep 0.05
	done
	[ -n "$obs" ] && wait $obs
	sleep 0.5
	local c1 t1
	c1=$(cpu_s "$dpid")
	t1=$(date +%s.%N)
	duty=$(curl -s "http://127.0.0.1:$port/status" | python3 -c 'import json,sys; d=json.load(sys.stdin)["devices"]; print(" ".join("%.3f" % x["since_start"]["duty"] for x in d))')
	awk -v a="$c0" -v b="$c1" -v s="$t0" -v e="$t1" -v n="$n" -v name="$1" -v duty="$duty" \
		'BEGIN { printf "   %-10s %4d jobs, daemon CPU %.3f s over %.1f s = %.2f%% of a core, duty %s\n", name, n, b - a, e - s, 100 * (b - a) / (e - s), duty }'
	stop
}
echo "== 2. daemon CPU per request (idle daemon, 8 jobs done; CPU from /proc/PID/stat around 500 requests)"
start per 20
for i in $(seq 8); do "$B/bin/cuzkctl" --socket "$sock" submit m "${w[0]}" "${w[1]}" --wait >/dev/null; done
sleep 1
for path in metrics status; do
	c0=$(cpu_s "$dpid")
	for _ in $(seq 500); do curl -s -o /dev/null "http://127.0.0.1:$port/$path"; done
	c1=$(cpu_s "$dpid")
	awk -v a="$c0" -v b="$c1" -v p="/$path" 'BEGIN { printf "   %-9s %.3f ms of daemon CPU a request (incl. its idle threads over the loop)\n", p, (b - a) * 1000 / 500 }'
	eval "per_$path=\$(awk -v a=$c0 -v b=$c1 'BEGIN { print (b - a) / 500 }')"
done
awk -v m="$per_metrics" -v s="$per_status" 'BEGIN { printf "   a scrape each second + the dashboard at 5 Hz: %.3f%% of a core\n", 100 * (m + 5 * s) }'
stop

echo "== 3. daemon CPU and duty, null backend (2 devices, 20 ms a partition), a job of 2 partitions each ~50 ms, $secs s"
run quiet 0
run watched 1
