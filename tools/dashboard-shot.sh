#!/bin/bash
# dashboard-shot.sh — the screenshot in docs/dashboard.png: cuzkd on the null
# backend (2 devices, one synthesis worker slower than the devices, so idle
# time shows a cause), jobs of mixed priority, the dashboard (/) captured by
# headless chromium while they run.  Usage: tools/dashboard-shot.sh [OUT.png]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
out=${1:-docs/dashboard.png}
tmp=$(mktemp -d /tmp/cuzk-shot-XXXXXX)
dpid=
cleanup() { [ -n "$dpid" ] && kill "$dpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
ctl() { "$B/bin/cuzkctl" --socket "$tmp/cuzk.sock" "$@"; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# the dashboard shows jobs only with --metrics-auth's token (docs/metrics.md, Who sees /status)
token=shot-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
(umask 077; echo "$token" >"$tmp/token")
"$B/bin/cuzkd" --socket "$tmp/cuzk.sock" --state-dir "$tmp/state" --backend null --devices 2 \
	--null-delay-ms 60 --null-synth-ms 100 --synth-workers 1 \
	--metrics-listen "127.0.0.1:$port" --metrics-auth "$tmp/token" 2>"$tmp/cuzkd.log" &
dpid=$!
for _ in $(seq 100); do ctl status >/dev/null 2>&1 && break; sleep 0.05; done
ctl load m selftests/data/mulchain.zkey >/dev/null
w=(selftests/data/mulchain_1.wtns selftests/data/mulchain_2.wtns)
for i in $(seq 0 7); do
	prio=normal; [ "$i" = 5 ] && prio=critical; [ "$i" = 6 ] && prio=low
	n=$((4 + i % 3 * 4))
	args=(); for k in $(seq "$n"); do args+=("${w[k % 2]}"); done
	ctl submit m "${args[@]}" --id "job-$i" --priority "$prio" >/dev/null
	sleep 0.3
done
sleep 1.5
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/chromium" \
	--virtual-time-budget=1000 --window-size=1000,560 --screenshot="$out" "http://127.0.0.1:$port/?token=$token" \
	2>/dev/null
echo "dashboard-shot: $out"
