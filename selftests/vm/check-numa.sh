#!/bin/bash
# selftests/vm/check-numa.sh — placement on a real two-node kernel (`make
# check-numa`, and part of `make check`).  Prints TAP.
#
# Boots Debian's kernel under qemu (software emulation, -accel tcg: nested
# KVM is far slower here) with two NUMA nodes of one vCPU and 256 MiB each
# and a PCI expander bridge on node 1 with qemu's "edu" device behind it,
# no network (-nic none).  The initramfs is busybox and
# selftests/vm/numa_guest with its shared libraries; its TAP lines come
# back over the serial console.  Skips, saying why, where qemu, a kernel
# or busybox is missing (tools/install-deps.sh installs them) and in
# sanitizer builds (the guest would need the sanitizer's runtime).
B=${B:-build}
guest=$B/selftests/vm/numa_guest
skip() {
	echo "1..1"
	echo "ok 1 - placement on a two-node VM # SKIP $*"
	exit 0
}
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (Debian qemu-system-x86; tools/install-deps.sh)"
kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
[ -n "$kernel" ] && [ -r "$kernel" ] || skip "no readable /boot/vmlinuz-* (Debian linux-image-amd64; tools/install-deps.sh)"
bb=$(command -v busybox)
[ -n "$bb" ] && ! ldd "$bb" >/dev/null 2>&1 || skip "no statically linked busybox (Debian busybox-static; tools/install-deps.sh)"
[ -x "$guest" ] || skip "$guest is not built"
ldd "$guest" | grep -qE 'lib(a|t|ub)san' && skip "a sanitizer build (the guest runs in the plain build's make check)"

work=$(mktemp -d /tmp/cuzk-numa-vm-XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,proc,sys,dev,tmp}
cp "$bb" "$root/bin/busybox"
for a in sh mount poweroff echo; do ln -s busybox "$root/bin/$a"; done
cp "$guest" "$root/numa_guest"
for lib in $(ldd "$guest" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
cat >"$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
echo CZ-GUEST-START
/numa_guest
echo "CZ-GUEST-END rc=$?"
poweroff -f
INIT
chmod 755 "$root/init"
(cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) >"$work/initrd.gz"

timeout -k 5 ${CZ_NUMA_VM_TIMEOUT:-240} qemu-system-x86_64 -M pc -accel tcg -m 512M -smp 2 \
	-object memory-backend-ram,id=m0,size=256M -object memory-backend-ram,id=m1,size=256M \
	-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
	-device pxb,id=b1,bus_nr=8,numa_node=1,bus=pci.0 -device edu,bus=b1,addr=0 \
	-kernel "$kernel" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 quiet loglevel=3 panic=-1 rdinit=/init" \
	-nic none -display none -monitor none -serial "file:$work/console" -no-reboot
rc=$?
tr -d '\r' <"$work/console" >"$work/out"
if ! grep -q '^CZ-GUEST-END' "$work/out"; then
	echo "1..1"
	echo "not ok 1 - the two-node VM ran its test to the end (qemu exit $rc; console tail below)"
	tail -20 "$work/out" | sed 's/^/# /'
	exit 1
fi
sed -n '/^CZ-GUEST-START/,/^CZ-GUEST-END/p' "$work/out" | grep -vE '^CZ-GUEST-(START|END)'
grep -q '^CZ-GUEST-END rc=0' "$work/out"
