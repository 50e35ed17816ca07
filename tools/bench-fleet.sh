#!/bin/bash
# bench-fleet.sh — what the fleet's job table costs per partition (docs/BENCHMARKS.md, "Fleet"):
# starts a scratch PostgreSQL (initdb + pg_ctl from /usr/lib/postgresql/*/bin, a unix socket in a
# temporary directory, no TCP; as user nobody when run as root: the server refuses root) and runs
# `cuzk bench fleet` against it: 1, 2 and 3 claiming nodes (claim 1 -> finish a 192-byte proof),
# then 3 nodes with 800 partitions held by another node; claim/finish p50/p99, partitions/s,
# statements and round trips per partition.  The server runs with its defaults but fsync=off
# unless FSYNC=on (a scratch cluster; a real fleet's database keeps fsync on: run both).
# usage: tools/bench-fleet.sh [--iters JOBS] [--json]   (JOBS of 10 partitions each, default 100)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "$0: no PostgreSQL server (apt install postgresql)" >&2; exit 2; }
dir=$(mktemp -d /tmp/czpgbench.XXXXXX)
as=()
if [ "$(id -u)" -eq 0 ]; then
	chown nobody: "$dir"
	as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
cleanup() {
	(cd "$dir" && "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -w -t 60 -m immediate stop >/dev/null 2>&1) || true
	rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir"
"${as[@]}" "$bin/initdb" -D "$dir/data" -A trust -U cz -E UTF8 --no-sync >"$dir/log" 2>&1
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
	-o "-k $dir -c listen_addresses= -c fsync=${FSYNC:-off}" start >>"$dir/log" 2>&1
cd - >/dev/null
echo "# PostgreSQL $("$bin/postgres" --version | awk '{print $3}'), fsync=${FSYNC:-off}, $(nproc) CPUs, $(date -u +%F)"
"$B/bin/cuzk" bench fleet "host=$dir port=5432 user=cz dbname=postgres" "$@"
