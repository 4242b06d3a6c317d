#!/bin/bash
# mkinitramfs.sh - builds the gzipped newc initramfs that the qemu test
# boots: busybox-static, an /init that mounts /proc, /sys and /dev (not
# /tmp: the rootfs is writable, and a build tree under /tmp, copied in at
# its own path, must stay visible),
# loads the module, runs the ioctl suite and its benchmark, then an
# optional /pvm-test.sh, and powers off.  Works as any user (no device
# nodes: /init reopens the console once devtmpfs is mounted).
#
# Usage: mkinitramfs.sh OUT.cpio.gz MODULE.ko SUITE [FILE...]
#   SUITE  the static ioctl suite (tests/kmod/kmod-suite)
#   FILE   more programs to copy in with their shared libraries (ldd),
#          under the same absolute path; a file named pvm-test.sh goes
#          to /pvm-test.sh and is run after the suite (for the 2-task
#          PVM test: pvmd, libpvm3.so and a test program).
set -eu

out=$1 module=$2 suite=$3
shift 3
busybox=${BUSYBOX:-/bin/busybox}
[ -x "$busybox" ] || { echo "mkinitramfs: no $busybox" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,dev,proc,sys,tmp,etc,usr/bin,usr/sbin}
cp "$busybox" "$stage/bin/busybox"
cp "$module" "$stage/pvm_cosched.ko"
cp "$suite" "$stage/bin/kmod-suite"
printf '127.0.0.1 localhost\n' > "$stage/etc/hosts"
printf 'root:x:0:0::/root:/bin/sh\nnobody:x:65534:65534::/:/bin/sh\n' \
	> "$stage/etc/passwd"
mkdir -p "$stage/root"

# Copies a program and the libraries it loads, under the same paths.
copy_with_libs() {
	local f=$1 lib
	mkdir -p "$stage/$(dirname "$f")"
	cp -L "$f" "$stage/$f"
	for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$stage/$lib" ] && continue
		mkdir -p "$stage/$(dirname "$lib")"
		cp -L "$lib" "$stage/$lib"
	done
}
for f in "$@"; do
	case $(basename "$f") in
	pvm-test.sh) cp "$f" "$stage/pvm-test.sh"; chmod +x "$stage/pvm-test.sh" ;;
	*) copy_with_libs "$(realpath "$f")" ;;
	esac
done

cat > "$stage/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
hostname localhost
ifconfig lo 127.0.0.1 up
echo "KMOD-BOOT: $(uname -r)"
if insmod /pvm_cosched.ko; then
	/bin/kmod-suite --module /pvm_cosched.ko
	/bin/kmod-suite --bench
	[ -x /pvm-test.sh ] && /pvm-test.sh
else
	echo "KMOD-SUITE: FAIL insmod"
fi
echo "KMOD-END"
poweroff -f
EOF
chmod +x "$stage/init"
chmod 755 "$stage"	# the root directory: mktemp made it 0700
(cd "$stage" && find . | cpio -o -H newc --quiet -R 0:0 | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
