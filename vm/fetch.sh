#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/fetch.sh GUEST...: download a guest's Debian kernel with apt-get
# download, unpack it into the cache with dpkg-deb -x (nothing goes to
# /boot) and build its initramfs: a static busybox of the guest's
# architecture plus the virtio/9p modules the guest needs to mount the
# host's root. Idempotent: reuses what the cache has.
# For the bullseye (5.10) guests it also unpacks, from bullseye's own apt
# configuration (vm/lib.sh), the kernel's headers and kbuild tools, with
# their absolute paths made to point into the cache, and Debian 11's
# gcc-10, the compiler those kernels and their headers were built with
# (bookworm's gcc-12 is not used for them: see kmod/README.md), so that
# kbuild and DKMS build modules for them without installing anything:
# vm_kdir KVER gives the kbuild directory, $BULLSEYE/bin has gcc-10.
# GUEST: see VM_ALL_GUESTS in vm/lib.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# fetch_deb PKG[:ARCH][=VERSION] [bullseye] -> path of the .deb in the cache
fetch_deb() {
	local pkg=$1 suite=${2:-bookworm} dir=$VM_CACHE/debs f apt=() glob
	if [ "$suite" = bullseye ]; then
		dir=$BULLSEYE/debs
		apt=(bullseye_apt)
	fi
	glob=${pkg%%[:=]*}_*.deb
	case $pkg in *=*) glob=${pkg%%[:=]*}_${pkg#*=}_*.deb ;; esac
	mkdir -p "$dir"
	f=$(ls "$dir"/$glob 2>/dev/null | head -n1 || true)
	if [ -z "$f" ]; then
		echo "fetch: apt-get download $pkg ($suite)" >&2
		(cd "$dir" && "${apt[@]}" apt-get download -q "$pkg" >&2) ||
			die "apt-get download $pkg ($suite) failed: run scripts/deps-vm.sh (apt-get update, i386 architecture) and check 'apt-cache policy $pkg'"
		f=$(ls "$dir"/$glob | head -n1)
	fi
	echo "$f"
}

# Unpack a bullseye package into $BULLSEYE/root once.
bullseye_unpack() {
	local pkg=$1 stamp=$BULLSEYE/root/.unpacked/${1%%:*} deb
	[ -e "$stamp" ] && return 0
	deb=$(fetch_deb "$pkg" bullseye)
	dpkg-deb -x "$deb" "$BULLSEYE/root"
	mkdir -p "${stamp%/*}"
	touch "$stamp"
}

# The headers of bullseye kernel KVER (ARCH amd64 or i386), usable by
# kbuild in place: Debian's headers name their common part and the kbuild
# tools by absolute paths (/usr/src/..., /usr/lib/linux-kbuild-5.10).
bullseye_headers() {
	local kver=$1 arch=$2 kdir common v f hdr=linux-headers-$1
	kdir=$(vm_kdir "$kver")
	[ -e "$kdir/.starvd-ready" ] && return 0
	[ "$arch" = i386 ] && hdr=$hdr:i386
	common=linux-headers-$(echo "$kver" | cut -d- -f1,2)-common
	case $kver in *-rt-*) common=$common-rt ;; esac
	# The common part and the kbuild tools of the same upload.
	v=$(bullseye_apt apt-cache policy "$hdr" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	[ -n "$v" ] && [ "$v" != "(none)" ] ||
		die "bullseye's lists know no $hdr: run scripts/deps-vm.sh"
	bullseye_unpack "$hdr"
	bullseye_unpack "$common=$v"
	bullseye_unpack "linux-kbuild-5.10=$v"	# the host's (amd64) fixdep, modpost
	grep -rlsE '/usr/(src/linux-headers-|lib/linux-kbuild-)' "$kdir" \
		--include=Makefile --include='.kernelvariables' --include='*.mk' |
		while read -r f; do
			sed -i -E "s@(^|[^/])/usr/(src/linux-headers-|lib/linux-kbuild-)@\1$BULLSEYE/root/usr/\2@g" "$f"
		done
	for f in $(find "$kdir" -maxdepth 1 -type l); do
		case $(readlink "$f") in
		/usr/*) ln -sfn "$BULLSEYE/root$(readlink "$f")" "$f" ;;
		esac
	done
	touch "$kdir/.starvd-ready"
}

# Debian 11's gcc-10 in $BULLSEYE/bin (gcc finds cc1 relative to itself).
bullseye_gcc() {
	local p
	[ -x "$BULLSEYE/bin/gcc-10" ] && return 0
	for p in gcc-10 cpp-10 gcc-10-base libgcc-10-dev; do
		bullseye_unpack "$p"
	done
	mkdir -p "$BULLSEYE/bin"
	ln -sfn ../root/usr/bin/x86_64-linux-gnu-gcc-10 "$BULLSEYE/bin/gcc-10"
	"$BULLSEYE/bin/gcc-10" --version >/dev/null ||
		die "bullseye's gcc-10 unpacked in $BULLSEYE/root does not run"
}

# Modules (paths relative to /lib/modules/KVER) that @1 needs, deps first.
mod_closure() {
	local root=$1 kver=$2 name=$3 dep=$1/lib/modules/$2/modules.dep line path
	line=$(grep -E "/$name\.ko(\.xz|\.zst)?:" "$dep" || true)
	[ -n "$line" ] || return 0	# built in
	path=${line%%:*}
	for d in ${line#*:}; do
		echo "$d"
	done | tac
	echo "$path"
}

build_initramfs() {
	local guest=$1 kver=$2 arch=$3 root=$VM_CACHE/$guest/root
	local out=$VM_CACHE/$guest/initrd.img stage=$VM_CACHE/$guest/initramfs
	local busybox m

	if [ "$arch" = i386 ]; then
		if [ ! -x "$VM_CACHE/busybox-i386/bin/busybox" ]; then
			dpkg-deb -x "$(fetch_deb busybox-static:i386)" "$VM_CACHE/busybox-i386"
			mkdir -p "$VM_CACHE/busybox-i386/sbin"
			ln -sf ../bin/busybox "$VM_CACHE/busybox-i386/sbin/modprobe"
		fi
		busybox=$VM_CACHE/busybox-i386/bin/busybox
	else
		busybox=$(command -v busybox) ||
			die "busybox not found: run scripts/deps-vm.sh (busybox-static)"
		file -L "$busybox" | grep -q 'statically linked' ||
			die "$busybox is not static: install busybox-static (scripts/deps-vm.sh)"
	fi
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,dev,proc,sys,host,mnt,lib/modules}
	cp "$busybox" "$stage/bin/busybox"
	: >"$stage/modules"
	for m in virtio_pci 9pnet_virtio 9p; do
		mod_closure "$root" "$kver" "$m"
	done | awk '!seen[$0]++' | while read -r m; do
		local base
		base=$(basename "$m")
		case $base in
		*.xz) xz -dc "$root/lib/modules/$kver/$m" >"$stage/lib/modules/${base%.xz}"; base=${base%.xz} ;;
		*.zst) zstd -qdc "$root/lib/modules/$kver/$m" >"$stage/lib/modules/${base%.zst}"; base=${base%.zst} ;;
		*) cp "$root/lib/modules/$kver/$m" "$stage/lib/modules/$base" ;;
		esac
		echo "$base" >>"$stage/modules"
	done
	cp "$STARVD_TOP/vm/initramfs-init" "$stage/init"
	chmod +x "$stage/init"
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
	mv "$out.tmp" "$out"
	echo "fetch: $guest: initramfs with $(wc -l <"$stage/modules") modules: $(tr '\n' ' ' <"$stage/modules")" >&2
}

fetch_guest() {
	local guest=$1 kver arch pkg dir suite deb
	kver=$(vm_kver "$guest")
	arch=$(vm_arch "$guest")
	dir=$VM_CACHE/$guest
	suite=$(vm_suite "$guest")
	pkg=linux-image-$kver
	[ "$arch" = i386 ] && pkg=$pkg:i386
	if [ "$suite" = bullseye ]; then
		bullseye_headers "$kver" "$arch"
		bullseye_gcc
	fi
	if [ ! -f "$dir/kver" ] || [ "$(cat "$dir/kver")" != "$kver" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		# 6.1 images are signed packages of the same name; 6.12 too.
		deb=$(fetch_deb "$pkg" "$suite")
		dpkg-deb -x "$deb" "$dir/root"
		depmod -b "$dir/root" "$kver" 2>/dev/null || true
		echo "$kver" >"$dir/kver"
	fi
	[ -f "$dir/root/boot/vmlinuz-$kver" ] || die "no kernel in $pkg (looked for $dir/root/boot/vmlinuz-$kver)"
	if [ ! -f "$dir/initrd.img" ] || [ "$STARVD_TOP/vm/initramfs-init" -nt "$dir/initrd.img" ]; then
		build_initramfs "$guest" "$kver" "$arch"
	fi
	echo "fetch: $guest: kernel $kver ready in $dir" >&2
}

[ $# -gt 0 ] || die "usage: vm/fetch.sh GUEST... (GUEST: $VM_ALL_GUESTS)"
vm_resolve_kernels
case " $* " in
*" 5.10"*) [ -d "$BULLSEYE/lists" ] || bullseye_update ;;
esac
for g in "$@"; do
	fetch_guest "$g"
done
