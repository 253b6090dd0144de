#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/fetch.sh GUEST...: download a guest's Debian kernel with apt-get
# download, unpack it into the cache with dpkg-deb -x (nothing goes to
# /boot) and build its initramfs: a static busybox of the guest's
# architecture plus the virtio/9p modules the guest needs to mount the
# host's root. Idempotent: reuses what the cache has.
# GUEST: 6.1 | 6.12 | 686
set -euo pipefail
. "$(dirname "$0")/lib.sh"

fetch_deb() {	# fetch_deb PKG[:ARCH] -> path of the .deb in the cache
	local pkg=$1 dir=$VM_CACHE/debs f
	mkdir -p "$dir"
	f=$(ls "$dir/${pkg%%:*}"_*.deb 2>/dev/null | head -n1 || true)
	if [ -z "$f" ]; then
		echo "fetch: apt-get download $pkg" >&2
		(cd "$dir" && apt-get download -q "$pkg" >&2) ||
			die "apt-get download $pkg failed: run scripts/deps-vm.sh (apt-get update, i386 architecture) and check 'apt-cache policy $pkg'"
		f=$(ls "$dir/${pkg%%:*}"_*.deb | head -n1)
	fi
	echo "$f"
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
	local guest=$1 kver arch pkg dir
	kver=$(vm_kver "$guest")
	arch=$(vm_arch "$guest")
	dir=$VM_CACHE/$guest
	pkg=linux-image-$kver
	[ "$arch" = i386 ] && pkg=$pkg:i386
	if [ ! -f "$dir/kver" ] || [ "$(cat "$dir/kver")" != "$kver" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		# 6.1 images are signed packages of the same name; 6.12 too.
		dpkg-deb -x "$(fetch_deb "$pkg")" "$dir/root"
		depmod -b "$dir/root" "$kver" 2>/dev/null || true
		echo "$kver" >"$dir/kver"
	fi
	[ -f "$dir/root/boot/vmlinuz-$kver" ] || die "no kernel in $pkg (looked for $dir/root/boot/vmlinuz-$kver)"
	if [ ! -f "$dir/initrd.img" ] || [ "$STARVD_TOP/vm/initramfs-init" -nt "$dir/initrd.img" ]; then
		build_initramfs "$guest" "$kver" "$arch"
	fi
	echo "fetch: $guest: kernel $kver ready in $dir" >&2
}

[ $# -gt 0 ] || die "usage: vm/fetch.sh GUEST... (GUEST: 6.1 6.12 686)"
vm_resolve_kernels
for g in "$@"; do
	fetch_guest "$g"
done
