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
# For the arm64 guests, from bookworm's arm64 packages (apt configuration
# $ARM64, vm/lib.sh): the kernel's headers with the host's (amd64) kbuild
# tools of the same upload, so that kbuild and DKMS cross-build the module
# (aarch64-linux-gnu-gcc-12, as Debian built the kernel with gcc-12), and
# an arm64 root ($ARM64/root, arm64_root below): the userland the guests
# chroot into, and the sysroot vm/build.sh arm64 links against.
# For the forky (7.2) guests, from Debian 14's own apt configurations
# ($FORKY, $FORKY_ARM64): the kernel (linux-binary and linux-modules),
# its headers and the kbuild tools of the same upload, and the toolchain
# those headers name (gcc-16, its binutils, pahole: forky_toolchain), all
# run with forky's C library from the cache (forky_wrap): DKMS builds
# the module with the kernel's own compiler, as on a Debian 14 machine.
# On a host whose release is not Debian 12 (vm_bookworm_foreign in
# vm/lib.sh), the bookworm amd64 and i386 guests' kernels, headers and
# kbuild tools come the same way, from bookworm's own apt configuration
# ($BOOKWORM), with the compiler and pahole those kernels were built with
# (bookworm_toolchain): nothing of bookworm is installed there.
# GUEST: see VM_ALL_GUESTS in vm/lib.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# suite_apt SUITE: the apt wrapper of fetch_deb's SUITE (bookworm: none
# on a Debian 12 host)
suite_apt() {
	case $1 in
	bookworm) vm_bookworm_apt ;;
	bullseye | arm64 | forky) echo "${1}_apt" ;;
	forky-arm64) echo forky_arm64_apt ;;
	esac
}

# fetch_deb PKG[:ARCH][=VERSION] [bullseye|arm64|forky|forky-arm64] ->
# path of the .deb in the cache
fetch_deb() {
	local pkg=$1 suite=${2:-bookworm} dir=$VM_CACHE/debs f apt glob
	case $suite in
	bullseye) dir=$BULLSEYE/debs ;;
	arm64) dir=$ARM64/debs ;;
	forky) dir=$FORKY/debs ;;
	forky-arm64) dir=$FORKY_ARM64/debs ;;
	esac
	apt=$(suite_apt "$suite")
	glob=${pkg%%[:=]*}_*.deb
	case $pkg in *=*) glob=${pkg%%[:=]*}_${pkg#*=}_*.deb ;; esac
	mkdir -p "$dir"
	f=$(ls "$dir"/$glob 2>/dev/null | head -n1 || true)
	if [ -z "$f" ]; then
		echo "fetch: apt-get download $pkg ($suite)" >&2
		(cd "$dir" && $apt apt-get download -q "$pkg" >&2) ||
			die "apt-get download $pkg ($suite) failed: run scripts/deps-vm.sh (apt-get update, i386 architecture) and check 'apt-cache policy $pkg'"
		f=$(ls "$dir"/$glob | head -n1)
	fi
	echo "$f"
}

# unpack_into ROOT SUITE PKG: unpack a package (fetch_deb's SUITE) into
# ROOT once.
unpack_into() {
	local root=$1 suite=$2 pkg=$3 stamp deb
	stamp=$root/.unpacked/${pkg%%:*}
	[ -e "$stamp" ] && return 0
	deb=$(fetch_deb "$pkg" "$suite")
	dpkg-deb -x "$deb" "$root"
	mkdir -p "${stamp%/*}"
	touch "$stamp"
}
bullseye_unpack() { unpack_into "$BULLSEYE/root" bullseye "$1"; }

# kbuild_version PKG SUITE V: the version of the host's kbuild tools
# package PKG (SUITE: bookworm, bullseye or forky) for headers of version V: V
# itself, else the newest of the same upstream version (the archive may
# publish one architecture's upload before another's: arm64 headers
# 6.1.192-2 beside amd64 kbuild 6.1.192-3). The tools, fixdep and modpost,
# change with the kernel's version, not with Debian's revision.
kbuild_version() {
	local pkg=$1 suite=$2 v=$3 all
	all=$($(suite_apt "$suite") apt-cache madison "$pkg" 2>/dev/null | awk -F' *[|] *' '{ print $2 }')
	if grep -qxF -- "$v" <<<"$all"; then
		echo "$v"
		return 0
	fi
	v=$(grep -F -- "${v%-*}-" <<<"$all" | sort -V | tail -n1)
	[ -n "$v" ] ||
		die "the $suite lists know no $pkg of version ${3%-*}: run scripts/deps-vm.sh, and check 'apt-cache madison $pkg'"
	echo "$v"
}

# The headers of a kernel of another suite or architecture (bullseye's
# amd64 and i386, bookworm's arm64, forky's, and bookworm's amd64 and
# i386 on a host of another release), usable by kbuild in place: Debian's
# headers name their common part and the kbuild tools by absolute paths
# (/usr/src/..., /usr/lib/linux-kbuild-X), which are made to point into
# ROOT. The kbuild tools (fixdep, modpost) are always the host's (amd64)
# of the same upload: bullseye's from bullseye's lists, an arm64 kernel's
# from the host's (its arm64 ones do not run here).
foreign_headers() {	# foreign_headers KVER ARCH ROOT SUITE
	local kver=$1 arch=$2 root=$3 suite=$4 kdir common v f hdr=linux-headers-$1 kb ksuite
	kdir=$(vm_kdir "$kver")
	[ -e "$kdir/.starvd-ready" ] && return 0
	[ "$arch" = i386 ] && hdr=$hdr:i386
	common=linux-headers-$(echo "$kver" | sed -E 's/-(rt-)?(amd64|686|arm64)$//')-common
	case $kver in *+deb14-*) ;; *-rt-*) common=$common-rt ;; esac
	# The common part and the kbuild tools of the same upload.
	v=$(foreign_apt "$(dirname "$root")" apt-cache policy "$hdr" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	[ -n "$v" ] && [ "$v" != "(none)" ] ||
		die "the $suite lists in $(dirname "$root") know no $hdr: run scripts/deps-vm.sh"
	case $kver in
	5.10.*) kb=linux-kbuild-5.10 ksuite=bullseye ;;
	*+deb14-*) kb=linux-kbuild-$(echo "$kver" | sed -E 's/-(rt-)?(amd64|arm64)$//') ksuite=forky ;;
	*) kb=linux-kbuild-$(echo "$kver" | sed -E 's/^([0-9]+\.[0-9]+)\.0-.*/\1/; s/-(rt-)?(amd64|686|arm64)$//')
	   ksuite=bookworm ;;
	esac
	unpack_into "$root" "$suite" "$hdr"
	unpack_into "$root" "$suite" "$common=$v"
	# the host's (amd64) fixdep, modpost
	unpack_into "$root" "$ksuite" "$kb=$(kbuild_version "$kb" "$ksuite" "$v")"
	grep -rlsE '/usr/(src/linux-headers-|lib/linux-kbuild-)' "$kdir" \
		--include=Makefile --include='.kernelvariables' --include='*.mk' |
		while read -r f; do
			sed -i -E "s@(^|[^/])/usr/(src/linux-headers-|lib/linux-kbuild-)@\1$root/usr/\2@g" "$f"
		done
	for f in $(find "$kdir" -maxdepth 1 -type l); do
		case $(readlink "$f") in
		/usr/*) ln -sfn "$root$(readlink "$f")" "$f" ;;
		esac
	done
	[ "$ksuite" != forky ] || forky_wrap "$root/usr/lib/$kb"
	touch "$kdir/.starvd-ready"
}

# Forky's programs need its C library (2.38 or later: modpost, objtool,
# resolve_btfids, gcc-16; the host has bookworm's 2.36). forky_wrap
# DIR...: each ELF program under DIR becomes a script that runs it (kept
# beside it as .NAME.elf) with the dynamic loader and libraries of
# forky's libc6 in $FORKY/root (forky_toolchain), so that everything it
# runs in turn (gcc's cc1, as, ld) is one of these scripts too. Run again
# after a package is unpacked over them.
forky_wrap() {
	local lib=$FORKY/root/usr/lib/x86_64-linux-gnu f elf
	find "$@" -type f -perm -u+x ! -name '.*.elf' ! -name '*.so' ! -name '*.so.*' |
		while read -r f; do
			[ "$(head -c4 "$f" | tail -c3)" = ELF ] || continue
			elf=${f%/*}/.${f##*/}.elf
			mv "$f" "$elf"
			printf '#!/bin/sh\nexec %s --library-path %s --argv0 "$0" %s "$@"\n' \
				"$lib/ld-linux-x86-64.so.2" "$lib" "$elf" >"$f"
			chmod +x "$f"
		done
}

# What forky's headers build with, in $FORKY/root (nothing installed):
# the compiler they name (CC = $(CROSS_COMPILE)gcc-16 in their
# .kernelvariables: x86_64-linux-gnu-gcc-16, aarch64-linux-gnu-gcc-16 for
# the arm64 kernels) with its binutils, and pahole (kbuild passes the
# modules' BTF options of the kernel's 1.32; bookworm's 1.24 has not
# got them). Resolved by apt against an empty package state (forky_apt:
# every dependency, forky's libc6 among them), unpacked with dpkg-deb,
# every program wrapped (forky_wrap). $FORKY/bin has what kbuild calls
# (the compilers and binutils by their target's name, pahole), for
# vm/dkms.sh's PATH. Rebuilt when this list changes.
FORKY_TOOL_PKGS="gcc-16 gcc-16-aarch64-linux-gnu pahole"
forky_toolchain() {
	local root=$FORKY/root want list p v f
	want=$(echo $FORKY_TOOL_PKGS)
	[ "$(cat "$root/.starvd-tools" 2>/dev/null)" = "$want" ] && return 0
	echo "fetch: forky toolchain: resolving and downloading $want" >&2
	# shellcheck disable=SC2086 # a list of package names
	list=$(forky_apt apt-get install -s -qq --no-install-recommends $FORKY_TOOL_PKGS |
		sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1 \2/p') && [ -n "$list" ] ||
		die "apt cannot resolve forky's $want (above): the archive lacks them, or the lists in $FORKY are old (remove $FORKY/lists and run again)"
	# shellcheck disable=SC2086
	forky_apt apt-get install -qq -y --download-only --no-install-recommends $FORKY_TOOL_PKGS >&2 ||
		die "downloading forky's $want failed: check the network to Debian's archive"
	echo "$list" | while read -r p v; do
		f=$(ls "$FORKY/cache/archives/${p}_${v/:/%3a}_"*.deb 2>/dev/null | head -n1)
		[ -n "$f" ] && dpkg-deb -x "$f" "$root" ||
			die "cannot unpack $p $v from $FORKY/cache/archives"
	done
	forky_wrap "$root/usr/bin" "$root/usr/libexec"
	rm -rf "$FORKY/bin"
	mkdir -p "$FORKY/bin"
	for f in "$root"/usr/bin/x86_64-linux-gnu-* "$root"/usr/bin/aarch64-linux-gnu-* \
		 "$root/usr/bin/pahole"; do
		ln -s "../root/usr/bin/${f##*/}" "$FORKY/bin/${f##*/}"
	done
	for p in x86_64-linux-gnu-gcc-16 aarch64-linux-gnu-gcc-16; do
		echo 'int f(void) { return 0; }' |
			"$FORKY/bin/$p" -x c -c -o /dev/null - ||
			die "forky's $p unpacked in $root does not compile (above)"
	done
	echo "$want" >"$root/.starvd-tools"
}

# What bookworm's headers build with on a host of another release, in
# $BOOKWORM/root (nothing installed): Debian 12's gcc-12, the compiler
# its kernels were built with (their CONFIG_CC_VERSION_TEXT; the 6.12
# headers name x86_64-linux-gnu-gcc-12, the 6.1 ones gcc-12, -m32 for
# 686), and its pahole 1.24 (CONFIG_PAHOLE_VERSION: kbuild passes that
# version's options when it adds BTF to a module). $BOOKWORM/bin has
# them by those names, for vm/dkms.sh's PATH. They run with the host's
# libraries (isl, mpc, mpfr, gmp, zstd; libbpf, libdw, libelf:
# scripts/deps-vm.sh, scripts/deps.sh), whose sonames later releases
# keep, and the host's binutils. Rebuilt when this list changes.
BOOKWORM_TOOL_PKGS="gcc-12 cpp-12 gcc-12-base libgcc-12-dev pahole"
bookworm_toolchain() {
	local root=$BOOKWORM/root bin=$BOOKWORM/bin want p
	want=$(echo $BOOKWORM_TOOL_PKGS)
	[ "$(cat "$bin/.starvd-tools" 2>/dev/null)" = "$want" ] && return 0
	for p in $BOOKWORM_TOOL_PKGS; do
		unpack_into "$root" bookworm "$p"
	done
	rm -rf "$bin"
	mkdir -p "$bin"
	for p in gcc-12 x86_64-linux-gnu-gcc-12; do
		ln -s ../root/usr/bin/x86_64-linux-gnu-gcc-12 "$bin/$p"
	done
	ln -s ../root/usr/bin/pahole "$bin/pahole"
	for p in -m64 -m32; do
		echo 'int f(void) { return 0; }' |
			"$bin/gcc-12" "$p" -x c -c -o /dev/null - ||
			die "bookworm's gcc-12 unpacked in $root does not compile ($p, above): scripts/deps-vm.sh installs the libraries it runs with"
	done
	"$bin/pahole" --version >/dev/null ||
		die "bookworm's pahole unpacked in $root does not run (above): scripts/deps-vm.sh installs the libraries it runs with"
	echo "$want" >"$bin/.starvd-tools"
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

# relative_links DIR: DIR's absolute symlinks made relative, pointing into
# DIR, so that they resolve there from the host too.
relative_links() {
	local dir=$1 l t
	find "$dir" -type l | while read -r l; do
		t=$(readlink "$l")
		case $t in
		/*) ln -sfn "$(realpath -ms --relative-to="$(dirname "$l")" "$dir$t")" "$l" ;;
		esac
	done
}

# The arm64 cross compiler in $ARM64/cross/usr/bin: bookworm's
# gcc-12-aarch64-linux-gnu and binutils-aarch64-linux-gnu (amd64 programs,
# from the host's lists), unpacked, not installed: the package conflicts
# with gcc-multilib, which the i386 guests' build needs. gcc finds its
# cc1, as and ld relative to itself.
ARM64_CROSS_PKGS="gcc-12-aarch64-linux-gnu cpp-12-aarch64-linux-gnu
	binutils-aarch64-linux-gnu libgcc-12-dev-arm64-cross libgcc-s1-arm64-cross"
arm64_cross() {
	local dir=$ARM64/cross p
	[ "$(cat "$dir/.starvd-pkgs" 2>/dev/null)" = "$(echo $ARM64_CROSS_PKGS)" ] &&
		return 0
	rm -rf "$dir"
	for p in $ARM64_CROSS_PKGS; do
		unpack_into "$dir" bookworm "$p"
	done
	relative_links "$dir"
	echo 'int main(void) { return 0; }' >"$dir/t.c"
	LD_LIBRARY_PATH=$ARM64_CROSS_LIBS \
		"$dir/usr/bin/aarch64-linux-gnu-gcc-12" --sysroot="$ARM64/root" \
		"$dir/t.c" -o "$dir/t" ||
		die "the cross compiler unpacked in $dir does not build a program for arm64"
	rm -f "$dir/t.c" "$dir/t"
	echo $ARM64_CROSS_PKGS >"$dir/.starvd-pkgs"
}

# The arm64 guests' root: what the suites run (bash, coreutils,
# util-linux, procps, kmod, iproute2's genl, bpftool, python3 for ynl,
# strace), the libraries the cross-built programs link (their -dev
# packages: the same tree is vm/build.sh arm64's sysroot) and the
# initramfs's static busybox. Resolved by apt against an empty package
# state (arm64_apt: every dependency, no Essential set), unpacked with
# dpkg-deb, no maintainer script run: what those would have done and the
# guests need is done here (users, /bin/sh, awk). Absolute symlinks are
# made relative, so that they resolve inside the tree from the host too
# (the cross linker). Rebuilt when this list changes.
ARM64_PKGS="base-files base-passwd libc6-dev bash dash coreutils util-linux
	sysvinit-utils procps grep sed mawk findutils diffutils gzip kmod
	iproute2 bpftool python3 python3-yaml strace busybox-static
	libbpf-dev libnl-genl-3-dev libnl-3-dev libelf-dev zlib1g-dev
	libjson-c-dev libcap-dev libdw-dev libncurses-dev"
arm64_root() {
	local root=$ARM64/root want list p v f
	want=$(echo $ARM64_PKGS)
	[ "$(cat "$root/.starvd-pkgs" 2>/dev/null)" = "$want" ] && return 0
	echo "fetch: arm64 root: resolving and downloading $want" >&2
	# What apt would install (name and version), then their .debs.
	# shellcheck disable=SC2086 # a list of package names
	list=$(arm64_apt apt-get install -s -qq --no-install-recommends $ARM64_PKGS |
		sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1 \2/p') && [ -n "$list" ] ||
		die "apt cannot resolve the arm64 root's packages (above): run scripts/deps-vm.sh (arm64 lists in $ARM64)"
	# shellcheck disable=SC2086
	arm64_apt apt-get install -qq -y --download-only --no-install-recommends $ARM64_PKGS >&2 ||
		die "downloading the arm64 root's packages failed: check the network to Debian's archive"
	rm -rf "$root"
	mkdir -p "$root"
	echo "$list" | while read -r p v; do
		f=$(ls "$ARM64/cache/archives/${p}_${v/:/%3a}_"*.deb 2>/dev/null | head -n1)
		[ -n "$f" ] && dpkg-deb -x "$f" "$root" ||
			die "cannot unpack $p $v from $ARM64/cache/archives"
	done
	relative_links "$root"
	cp "$root/usr/share/base-passwd/passwd.master" "$root/etc/passwd"
	cp "$root/usr/share/base-passwd/group.master" "$root/etc/group"
	[ -e "$root/bin/sh" ] || ln -s dash "$root/bin/sh"
	[ -e "$root/usr/bin/awk" ] || ln -s mawk "$root/usr/bin/awk"
	mkdir -p "$root"/{proc,sys,dev,tmp,run,var/tmp,lib/modules}
	echo "$want" >"$root/.starvd-pkgs"
	echo "fetch: arm64 root ready in $root ($(echo "$list" | wc -l) packages)" >&2
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

	if [ "$arch" = arm64 ]; then
		busybox=$ARM64/root/bin/busybox
	elif [ "$arch" = i386 ]; then
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
	local guest=$1 kver arch pkg dir suite deb p
	kver=$(vm_kver "$guest")
	arch=$(vm_arch "$guest")
	dir=$VM_CACHE/$guest
	suite=$(vm_suite "$guest")
	pkg=linux-image-$kver
	[ "$arch" = i386 ] && pkg=$pkg:i386
	case $suite-$arch in
	bullseye-*)
		foreign_headers "$kver" "$arch" "$BULLSEYE/root" bullseye
		bullseye_gcc ;;
	forky-amd64)
		forky_toolchain
		foreign_headers "$kver" "$arch" "$FORKY/root" forky ;;
	forky-arm64)
		suite=forky-arm64
		forky_toolchain
		foreign_headers "$kver" "$arch" "$FORKY_ARM64/kbuild" forky-arm64 ;;
	bookworm-arm64)
		suite=arm64
		foreign_headers "$kver" "$arch" "$ARM64/kbuild" arm64 ;;
	bookworm-*)
		if vm_bookworm_foreign; then
			bookworm_toolchain
			foreign_headers "$kver" "$arch" "$BOOKWORM/root" bookworm
		fi ;;
	esac
	if [ "$arch" = arm64 ]; then
		arm64_root
		arm64_cross
		# Where the guest's chroot shows the tree and DKMS's modules
		# (vm/initramfs-init): the root is shared read-only.
		mkdir -p "$ARM64/root$STARVD_TOP" "$ARM64/root/lib/modules/$kver"
	fi
	if [ ! -f "$dir/kver" ] || [ "$(cat "$dir/kver")" != "$kver" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		case $suite in
		forky*)
			# linux-image-KVER is a meta package: the image is in
			# linux-binary-KVER, the modules in linux-modules-KVER,
			# all under /usr/lib/modules/KVER.
			for p in "linux-binary-$kver" "linux-modules-$kver"; do
				dpkg-deb -x "$(fetch_deb "$p" "$suite")" "$dir/root"
			done
			ln -s usr/lib "$dir/root/lib"
			mkdir -p "$dir/root/boot"
			ln -s "../usr/lib/modules/$kver/vmlinuz" "$dir/root/boot/vmlinuz-$kver" ;;
		*)
			# 6.1 images are signed packages of the same name; 6.12 too.
			deb=$(fetch_deb "$pkg" "$suite")
			dpkg-deb -x "$deb" "$dir/root" ;;
		esac
		depmod -b "$dir/root" "$kver" 2>/dev/null || true
		echo "$kver" >"$dir/kver"
	fi
	[ "$arch" != arm64 ] || [ ! "$ARM64/root/.starvd-pkgs" -nt "$dir/initrd.img" ] ||
		rm -f "$dir/initrd.img"	# its busybox comes from there
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
case " $* " in
*" arm64-"*) [ -d "$ARM64/lists" ] || arm64_update ;;
esac
for g in "$@"; do
	fetch_guest "$g"
done
