#!/bin/sh
# Installs what cuzk's build and tests need on Debian (run as root, or with sudo).
# One list, used by .ci/run, `make demo` and the README.  qemu-system-x86,
# linux-image-amd64 and busybox-static: the two-node VM of `make check-numa`.
# libssl-dev: SHA-256 of spooled witnesses (engine/spool.c); libmicrohttpd-dev: cuzkd's --metrics-listen; libsystemd-dev: sd_notify;
# prometheus: promtool, which checks /metrics in selftests/e2e_metrics;
# chromium: the dashboard's headless test there; tmux: cuzkctl top's test there;
# libpq-dev: cuzkd --fleet (engine/fleet/); postgresql: the real server selftests/engine_fleet starts (initdb, pg_ctl);
# xfsprogs: the reflink spool test (selftests/engine_spool) and tools/bench-journal.sh reflink.
set -e
PKGS="build-essential pkg-config libgmp-dev liburing-dev libnuma-dev libjson-c-dev libssl-dev libhwloc-dev hwloc-nox qemu-system-x86 linux-image-amd64 busybox-static libmicrohttpd-dev libsystemd-dev prometheus chromium tmux clang libclang-rt-14-dev python3 time xfsprogs libpq-dev postgresql"
# node and npm (for the snarkjs interop tests) come with the machine image; install only when absent.
command -v npm >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
# snarkjs and circom2, pinned by tools/fixtures/package-lock.json: the snarkjs interop tests
# (selftests/e2e_cli.c) and the fixture generator need them.
fixtures="$(cd "$(dirname "$0")" && pwd)/fixtures"
if [ ! -d "$fixtures/node_modules/snarkjs" ]; then
	npm ci --prefix "$fixtures" --no-audit --no-fund
fi
