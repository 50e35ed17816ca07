#!/bin/sh
# Installs what cuzk needs on Debian (run as root, or with sudo).  Two lists:
#
#   tools/install-deps.sh build   what `make demo` needs: the compiler, the
#                                 libraries cuzkd links, nothing else, and no
#                                 recommended packages (about a minute on a
#                                 fresh machine once the compiler is there)
#   tools/install-deps.sh [check] that, plus what the tests need (the default:
#                                 .ci/run and `make check` use it)
#
# The test-only packages: libgmp-dev (the GMP oracle of the field tests);
# qemu-system-x86, linux-image-amd64 and busybox-static (the two-node VM of
# `make check-numa`); prometheus (promtool checks /metrics in
# selftests/e2e_metrics); chromium (the dashboard's headless test there); tmux
# (cuzkctl top's test there); clang and libclang-rt-14-dev (the fuzzers);
# xfsprogs (the reflink spool test, selftests/engine_spool, and
# tools/bench-journal.sh reflink); libpq-dev
# (cuzkd --fleet, engine/fleet/; without it the room builds a stub that says so)
# and postgresql (the real server selftests/engine_fleet starts: initdb, pg_ctl);
# time; node, npm and the pinned
# snarkjs/circom2 (tools/fixtures/package-lock.json) for the interop tests.
# python3 runs tools/cuzk-trace-report (the demo's last step: the duty cycle and idle
# gaps from the daemon's trace), so it is in the build list too.
# Build libraries: libssl-dev (SHA-256 of spooled witnesses, engine/durable/spool.c),
# libmicrohttpd-dev (cuzkd's --metrics-listen), libsystemd-dev (sd_notify),
# liburing-dev, libnuma-dev, libjson-c-dev, libhwloc-dev (+ hwloc-nox's tools);
# wabt (wasm2c and its runtime header wasm-rt.h: cuzk witness translates a
# circuit's .wasm with it, synth/witness/; wat2wasm for its tests).
#
# Already-installed packages are skipped, so a second run only checks.
set -e
what=${1:-check}
BUILD="build-essential pkg-config python3 liburing-dev libnuma-dev libjson-c-dev libssl-dev libhwloc-dev libmicrohttpd-dev libsystemd-dev wabt"
CHECK="libgmp-dev hwloc-nox qemu-system-x86 linux-image-amd64 busybox-static prometheus chromium tmux clang libclang-rt-14-dev time xfsprogs libpq-dev postgresql"
case "$what" in
build) PKGS="$BUILD" ;;
check) PKGS="$BUILD $CHECK"
	# node and npm (the snarkjs interop tests) come with the machine image; install only when absent.
	command -v npm >/dev/null 2>&1 || PKGS="$PKGS nodejs npm" ;;
*) echo "usage: $0 [build|check]" >&2; exit 2 ;;
esac
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	echo "install-deps ($what):$missing"
	$SUDO apt-get update -qq
	if [ "$what" = build ]; then
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
	else
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
	fi
fi
[ "$what" = check ] || exit 0
# snarkjs and circom2, pinned by tools/fixtures/package-lock.json: the snarkjs interop tests
# (selftests/e2e_cli.c) and the fixture generator need them.
fixtures="$(cd "$(dirname "$0")" && pwd)/fixtures"
# Installed again whenever the lock file changed since the last install.
if ! cmp -s "$fixtures/package-lock.json" "$fixtures/node_modules/.cuzk-package-lock.json"; then
	npm ci --prefix "$fixtures" --no-audit --no-fund
	cp "$fixtures/package-lock.json" "$fixtures/node_modules/.cuzk-package-lock.json"
fi
