#!/bin/sh
# Provisions the real-kernel harness inside the Debian 13 build root: the
# current Debian 6.12 kernel (image, headers, kbuild and source of one
# version, resolved now, .debs cached), vkms built out of tree from that
# source (no Debian kernel enables it) with the harness's fix of its vblank
# timer (vkms-vblank-timer.patch) and an EDID property on its connector
# (vkms-edid-property.patch), the test module lg_link_fault
# (tests/kernel/module/), and an initramfs that mounts the build
# root over 9p and runs tests/kernel/guest.sh.
#
#   provision.sh OUT_DIR
#
# Prints "kernel VERSION" and leaves OUT_DIR/{vmlinuz,initramfs.gz,modules/}.
# Fails with the reason when anything cannot be had: never a silent skip.
set -eu

die() {
	echo "kernel-provision: $*" >&2
	exit 1
}

out=${1:?usage: provision.sh OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
cache=${LINKGUARD_KERNEL_CACHE:-/var/cache/linkguard/kernel}
apt="apt-get -o APT::Sandbox::User=root -o Acquire::Check-Valid-Until=false"

for tool in qemu-system-x86_64 busybox depmod make gcc cpio xz pahole patch; do
	command -v $tool >/dev/null 2>&1 ||
		die "$tool is missing: run this inside the trixie build root (scripts/in-root)"
done

# The kernel and kernel-userland tests run side by side: the cache (apt's
# lists, the unpacked tree that depmod writes into) is one writer's at a time.
mkdir -p "$cache"
exec 9>"$cache.lock"
flock 9

# The version the archive has now: Debian drops superseded kernels.
$apt update -qq 2>/dev/null || echo "kernel-provision: apt-get update failed; using the cached lists" >&2
abi=$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/.*Depends: linux-image-\(.*\)-amd64$/\1/p' | head -n 1)
[ -n "$abi" ] || abi=$(ls "$cache" 2>/dev/null | sort -V | tail -n 1)
[ -n "$abi" ] || die "no linux-image-amd64 in the archive's lists and nothing cached"
kver=$abi-amd64
dir=$cache/$abi
mkdir -p "$dir/debs"
# A superseded kernel is never asked for again.
for old in "$cache"/*; do
	[ "$old" = "$dir" ] || rm -rf "$old"
done

# Exact names and versions: a glob would be taken as a pattern.
if [ ! -f "$dir/debs/.complete" ]; then
	version=$(apt-cache show "linux-image-$kver" | sed -n 's/^Version: //p' | head -n 1)
	[ -n "$version" ] || die "linux-image-$kver has no version in the lists"
	series=${abi%.*}
	(cd "$dir/debs" && $apt download -q "linux-image-$kver=$version" \
		"linux-headers-$kver=$version" "linux-headers-$abi-common=$version" \
		"linux-kbuild-$abi=$version" "linux-source-$series=$version") >&2 ||
		die "downloading kernel $abi ($version) from the archive failed"
	touch "$dir/debs/.complete"
fi

# Image, headers and kbuild unpacked side by side; the headers' Makefile
# includes the common tree by its absolute installed path.
if [ ! -f "$dir/tree/.complete" ]; then
	rm -rf "$dir/tree"
	mkdir -p "$dir/tree"
	for deb in "$dir"/debs/linux-image-* "$dir"/debs/linux-headers-* \
			"$dir"/debs/linux-kbuild-*; do
		dpkg-deb -x "$deb" "$dir/tree"
	done
	sed -i "s|^include /usr/src/|include $dir/tree/usr/src/|" \
		"$dir/tree/usr/src/linux-headers-$kver/Makefile"
	dpkg-deb --fsys-tarfile "$dir"/debs/linux-source-* |
		tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
		tar -xJ -C "$dir/tree" --wildcards '*/drivers/gpu/drm/vkms'
	touch "$dir/tree/.complete"
fi
headers=$dir/tree/usr/src/linux-headers-$kver
moddir=$dir/tree/usr/lib/modules/$kver

# build_module NAME SRC [PATCH...]: out-of-tree build into $out/build/NAME,
# the PATCHes applied first. vkms's Makefile builds it only for
# CONFIG_DRM_VKMS, which no Debian kernel sets.
build_module() {
	name=$1 build=$out/build/$1
	rm -rf "$build"
	mkdir -p "$out/build"
	cp -r "$2" "$build"
	shift 2
	for patch; do
		patch -s -p1 -d "$build" <"$patch" ||
			die "$(basename "$patch") does not apply to $name of $kver"
	done
	if [ -f "$build/Makefile" ]; then
		sed -i 's/^obj-$(CONFIG_[A-Z_]*)/obj-m/' "$build/Makefile"
	fi
	make -s -C "$headers" M="$build" modules >"$build.log" 2>&1 ||
		{ cat "$build.log" >&2; die "building $name against $kver failed"; }
}

rm -rf "$out/modules"
mkdir -p "$out/modules"
# 6.12's vkms deadlocks two CPUs, interrupts off, when a CRTC's vblanks go
# off while its timer fires (the patch says how): the fix is built in.
# LINKGUARD_KERNEL_VKMS_FIX=0 builds it without, to show the freeze. Its
# connector has an EDID property for lg_link_fault's monitor either way.
# The cached modules are named after their patches.
fix=$here/vkms-vblank-timer.patch edid=$here/vkms-edid-property.patch
fixed=$dir/vkms-$(cat "$fix" "$edid" | sha256sum | cut -c1-16).ko
stock=$dir/vkms-stock-$(sha256sum "$edid" | cut -c1-16).ko
patches="$fix $edid" vkms=$fixed
if [ "${LINKGUARD_KERNEL_VKMS_FIX:-1}" = 0 ]; then
	patches=$edid vkms=$stock
	echo "kernel-provision: vkms WITHOUT the fix of its vblank timer" >&2
fi
for ko in "$dir"/vkms*.ko; do
	case $ko in
	"$fixed" | "$stock") ;;
	*) rm -f "$ko" ;; # older patches'
	esac
done
if [ ! -f "$vkms" ]; then
	build_module vkms "$(echo "$dir"/tree/linux-source-*/drivers/gpu/drm/vkms)" $patches
	cp "$out/build/vkms/vkms.ko" "$vkms"
fi
build_module lg_link_fault "$here/module"

# The modules the guest loads, with their dependencies, in load order.
mkdir -p "$moddir/extra"
cp "$vkms" "$moddir/extra/vkms.ko"
cp "$out/build/lg_link_fault/lg_link_fault.ko" "$moddir/extra/"
depmod -b "$dir/tree/usr" "$kver"
modules_for() {
	modprobe -d "$dir/tree/usr" -S "$kver" --show-depends "$@" |
		sed -n 's/^insmod \([^ ]*\).*/\1/p'
}
# Decompressed: busybox's insmod in the initramfs takes plain .ko files.
# (modprobe takes one module a call: what follows it are its parameters.)
load_order() {
	for module; do
		modules_for "$module"
	done | awk '!seen[$0]++' | while read -r ko; do
		name=$(basename "$ko" | sed 's/\.ko\(\.xz\)\{0,1\}$//')
		case $ko in
		*.xz) xz -dc "$ko" >"$out/modules/$name.ko" ;;
		*) cp "$ko" "$out/modules/$name.ko" ;;
		esac
		echo "$name.ko"
	done
}
load_order 9pnet_virtio 9p >"$out/modules/boot.order"
# lg_link_fault needs drm_display_helper (its AUX channel), which vkms does not.
load_order vkms lg_link_fault >"$out/modules/drm.order"

# The initramfs: busybox, the 9p modules and /init.
initramfs=$out/initramfs
rm -rf "$initramfs"
mkdir -p "$initramfs/bin" "$initramfs/proc" "$initramfs/sys" "$initramfs/dev" \
	"$initramfs/root" "$initramfs/modules"
cp "$(command -v busybox)" "$initramfs/bin/busybox"
cp "$here/init" "$initramfs/init"
for ko in $(cat "$out/modules/boot.order"); do
	cp "$out/modules/$ko" "$initramfs/modules/"
done
cp "$out/modules/boot.order" "$initramfs/modules/"
(cd "$initramfs" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.gz"
cp "$dir/tree/boot/vmlinuz-$kver" "$out/vmlinuz"
echo "kernel $kver"
