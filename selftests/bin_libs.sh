#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: what a program loads at start: `cuzk` (whose one-shot prove pays for every
# library it loads) needs none of libpq, libmicrohttpd, libsystemd, libhwloc or libnuma; no
# program needs libpq (engine/fleet/pq.c loads it at the first fleet open); and that load
# works: `cuzk bench fleet` on a database that is not there gets libpq's own connection error,
# not the loader's.  Read from the ELF's NEEDED entries (readelf), not by timing.
set -u
B=${B:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
echo "TAP version 13"
echo "1..4"
pass=0 fail=0
ok()  { echo "ok $1 - $2"; pass=$((pass + 1)); }
bad() { echo "not ok $1 - $2"; fail=$((fail + 1)); }
needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }

n=$(needed "$B/bin/cuzk")
if [ -z "$n" ]; then
	bad 1 "readelf -d $B/bin/cuzk: no NEEDED entries read (built? readelf installed?)"
elif echo "$n" | grep -qE 'libpq|libmicrohttpd|libsystemd|libhwloc|libnuma'; then
	bad 1 "$B/bin/cuzk needs a library its commands do not call at start: $n"
else
	ok 1 "$B/bin/cuzk needs only: $n"
fi
hit=""
for p in "$B"/bin/*; do
	needed "$p" | grep -q libpq && hit="$hit ${p##*/}"
done
if [ -z "$hit" ]; then
	ok 2 "no program in $B/bin links libpq (it is loaded by the first fleet open)"
else
	bad 2 "linked with libpq:$hit"
fi
if ! pkg-config --exists libpq; then
	echo "ok 3 # SKIP built without libpq (libpq-dev)"; echo "ok 4 # SKIP built without libpq"
	echo "# $pass passed, $fail failed, 2 skipped"
	[ "$fail" -eq 0 ]
	exit $?
fi
out=$(timeout 60 "$B/bin/cuzk" bench fleet "host=/nonexistent-cuzk-test dbname=x connect_timeout=2" --iters 1 2>&1)
rc=$?
case $out in
*"connecting to the database"*"/nonexistent-cuzk-test"*) ok 3 "cuzk bench fleet loaded libpq and got its connection error (rc $rc)" ;;
*) bad 3 "cuzk bench fleet on a missing database: rc $rc: $out" ;;
esac
if [ "$rc" = 1 ]; then ok 4 "... and exited 1"; else bad 4 "... exited $rc, expected 1"; fi
echo "# $pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
