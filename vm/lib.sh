# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by scripts/deps-vm.sh and vm/*.sh: which Debian kernels the VM
# tests boot, and where the cache lives. Source it; it defines functions
# and variables only.

STARVD_TOP=${STARVD_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
STARVD_CACHE=${STARVD_CACHE:-$STARVD_TOP/.cache}
VM_CACHE=$STARVD_CACHE/vm

die() {
	echo "error: $*" >&2
	exit 1
}

# The ABI name (6.1.0-NN) behind a Debian meta package, e.g.
# linux-image-amd64; APT: a wrapper of another apt configuration
# (arm64_apt), else the host's.
vm_meta_kver() {	# vm_meta_kver META FLAVOUR [APT]
	local meta=$1 flavour=$2
	${3:-} apt-cache depends "$meta" 2>/dev/null |
		sed -n "s/^ *Depends: linux-image-\(.*-$flavour\)\(:i386\)\{0,1\}\$/\1/p" | head -n1
}

# Newest linux-image-6.12.*+deb12-FLAVOUR known to apt (FLAVOUR: amd64,
# rt-amd64; rt-arm64 with APT arm64_apt).
vm_newest_612() {	# vm_newest_612 [FLAVOUR [APT]]
	local flavour=${1:-amd64}
	${2:-} apt-cache search --names-only "^linux-image-6\\.12\\.[0-9]+\\+deb12-$flavour\$" 2>/dev/null |
		sed -n "s/^linux-image-\\(6\\.12\\.[0-9]*+deb12-$flavour\\) .*/\\1/p" |
		sort -t. -k3,3n | tail -n1
}

# Debian packages of another suite or architecture, through an apt
# configuration of their own under a directory of the cache (DIR): its
# sources list (the host's archive URIs), package lists, cache and
# architecture. The host's package state stays its own release's amd64
# (and i386): these packages are only ever downloaded and unpacked into
# the cache (vm/fetch.sh), never installed. Such configurations:
# Debian 11 (bullseye, the 5.10 kernels) in $BULLSEYE, Debian 12's
# arm64 packages (the arm64 guests' kernels, headers and userland, and the
# libraries the cross-built programs link) in $ARM64, and Debian 14
# (forky, the 7.2 kernels: amd64 in $FORKY with the toolchain their
# headers name, arm64 kernels and headers in $FORKY_ARM64). On a host
# whose release is not Debian 12 (vm_bookworm_foreign), Debian 12's
# amd64 and i386 packages too, in $BOOKWORM: the bookworm guests'
# kernels, their headers and the toolchain those were built with.
BULLSEYE=$STARVD_CACHE/bullseye
BOOKWORM=$STARVD_CACHE/bookworm
ARM64=$STARVD_CACHE/arm64
FORKY=$STARVD_CACHE/forky
FORKY_ARM64=$STARVD_CACHE/forky-arm64
# The arm64 cross compiler's binutils libraries (libbfd, libopcodes of
# binutils-aarch64-linux-gnu): unpacked into the cache with it, not
# installed, so the dynamic loader must be told where they are
# (LD_LIBRARY_PATH) wherever the cross compiler runs.
ARM64_CROSS_LIBS=$ARM64/cross/usr/lib/x86_64-linux-gnu

# The host's archive URI of a suite (from debian.sources), or Debian's.
vm_archive_uri() {
	local suite=$1 def=$2
	awk -v s="$suite" '
		/^URIs:/ { u = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) print u }
		/^$/ { u = "" }' /etc/apt/sources.list.d/debian.sources 2>/dev/null |
		head -n1 | grep . || echo "$def"
}

# foreign_apt DIR apt-get|apt-cache ARGS...: apt with DIR's configuration.
# DIR/arch names its architecture, else it has the host's, the foreign
# ones (i386) included: named here, as apt asks dpkg for them in the
# directory of DIR/dpkg/status (apt 3.0), the empty package state its
# downloads resolve dependencies against.
foreign_apt() {
	local dir=$1 tool=$2 archs archopt
	shift 2
	if [ -f "$dir/arch" ]; then
		archs=$(cat "$dir/arch")
	else
		archs=$( (dpkg --print-architecture && dpkg --print-foreign-architectures) |
			paste -sd,)
	fi
	archopt=(-o APT::Architecture="${archs%%,*}" -o APT::Architectures="$archs")
	"$tool" -o APT::Sandbox::User=root "${archopt[@]}" \
		-o Dir::Etc::sourcelist="$dir/sources.list" \
		-o Dir::Etc::sourceparts=- -o Dir::State::Lists="$dir/lists" \
		-o Dir::State::status="$dir/dpkg/status" \
		-o Dir::Cache="$dir/cache" "$@"
}
bullseye_apt() { foreign_apt "$BULLSEYE" "$@"; }
bookworm_apt() { foreign_apt "$BOOKWORM" "$@"; }
arm64_apt() { foreign_apt "$ARM64" "$@"; }
forky_apt() { foreign_apt "$FORKY" "$@"; }
forky_arm64_apt() { foreign_apt "$FORKY_ARM64" "$@"; }

# foreign_update DIR SUITE [ARCH]: write DIR's sources list (SUITE and its
# security suite, bookworm's also -updates) and fetch the package lists
# (again after a day).
foreign_update() {
	local dir=$1 suite=$2 arch=${3:-} main sec list key=/usr/share/keyrings/debian-archive-keyring.gpg
	main=$(vm_archive_uri bookworm http://deb.debian.org/debian)
	sec=$(vm_archive_uri bookworm-security http://deb.debian.org/debian-security)
	list="deb [signed-by=$key] $main $suite main"
	[ "$suite" = bullseye ] || list="$list
deb [signed-by=$key] $main $suite-updates main"
	list="$list
deb [signed-by=$key] $sec $suite-security main"
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/dpkg"
	[ -e "$dir/dpkg/status" ] || : >"$dir/dpkg/status"
	if [ -n "$arch" ] && [ "$(cat "$dir/arch" 2>/dev/null)" != "$arch" ]; then
		echo "$arch" >"$dir/arch"
	fi
	if [ "$(cat "$dir/sources.list" 2>/dev/null)" != "$list" ]; then
		echo "$list" >"$dir/sources.list.tmp.$$"
		mv "$dir/sources.list.tmp.$$" "$dir/sources.list"
	fi
	if [ -z "$(find "$dir/lists" -maxdepth 1 -name "*${suite}*Packages*" -mmin -1440 2>/dev/null)" ]; then
		echo "vm: apt-get update for $suite${arch:+ $arch} ($dir/sources.list)" >&2
		foreign_apt "$dir" apt-get update -qq ||
			die "apt-get update of $suite${arch:+ $arch} failed ($dir/sources.list): check the network to $main"
	fi
}
bullseye_update() { foreign_update "$BULLSEYE" bullseye; }
bookworm_update() { foreign_update "$BOOKWORM" bookworm; }
arm64_update() { foreign_update "$ARM64" bookworm arm64; }
forky_update() { foreign_update "$FORKY" forky; }
forky_arm64_update() { foreign_update "$FORKY_ARM64" forky arm64; }

# The host's Debian release (VERSION_CODENAME of /etc/os-release), empty
# on a host that is not Debian.
VM_HOST_RELEASE=$(. /etc/os-release 2>/dev/null
	[ "${ID:-}" != debian ] || echo "${VERSION_CODENAME:-}")

# True when the bookworm guests' packages are another release's than the
# host's: their lists, headers and compiler come through $BOOKWORM
# (bookworm_apt), never installed. On a Debian 12 host they are the
# host's own: the headers are installed (scripts/deps-vm.sh).
vm_bookworm_foreign() {
	[ "$VM_HOST_RELEASE" != bookworm ]
}

# The apt wrapper of bookworm's packages: none on a Debian 12 host.
vm_bookworm_apt() {
	! vm_bookworm_foreign || echo bookworm_apt
}

# Fill KVER_61, KVER_612, KVER_612RT, KVER_61RT, KVER_686 (overridable from
# the environment), from the host's lists on a Debian 12 host, else from
# $BOOKWORM's (fetched here the first time: bookworm_update).
vm_resolve_kernels() {
	local apt
	apt=$(vm_bookworm_apt)
	[ -z "$apt" ] || [ -d "$BOOKWORM/lists" ] || bookworm_update
	KVER_61=${KVER_61:-$(vm_meta_kver linux-image-amd64 amd64 $apt)}
	KVER_612=${KVER_612:-$(vm_newest_612 amd64 $apt)}
	KVER_686=${KVER_686:-$(vm_meta_kver linux-image-686:i386 686 $apt)}
	KVER_612RT=${KVER_612RT:-$(vm_newest_612 rt-amd64 $apt)}
	KVER_61RT=${KVER_61RT:-$(vm_meta_kver linux-image-rt-amd64 rt-amd64 $apt)}
	[ -n "$KVER_61" ] || die "apt knows no linux-image-amd64: run scripts/deps-vm.sh (it runs apt-get update)"
	[ -n "$KVER_612" ] || die "apt knows no linux-image-6.12.*+deb12-amd64: run scripts/deps-vm.sh (it runs apt-get update)"
	[ -n "$KVER_612RT" ] || die "apt knows no linux-image-6.12.*+deb12-rt-amd64: run scripts/deps-vm.sh (it runs apt-get update)"
	[ -n "$KVER_61RT" ] || die "apt knows no linux-image-rt-amd64: run scripts/deps-vm.sh (it runs apt-get update)"
	[ -n "$KVER_686" ] || die "apt knows no linux-image-686:i386: run scripts/deps-vm.sh (it adds the i386 architecture)"
}

# The ABI name (5.10.0-NN-FLAVOUR) behind bullseye's meta package @1 in
# the point release.
bullseye_meta_kver() {
	local meta=$1 flavour=$2 v
	v=$(bullseye_apt apt-cache madison "$meta" 2>/dev/null |
		awk -F' *[|] *' '$3 ~ / bullseye\/main / { print $2; exit }')
	[ -n "$v" ] || return 0
	bullseye_apt apt-cache depends "$meta=$v" 2>/dev/null |
		sed -n "s/^ *Depends: linux-image-\(.*-$flavour\)\(:i386\)\{0,1\}\$/\1/p" | head -n1
}

# Fill KVER_510, KVER_510_686, KVER_510RT from bullseye's lists (fetched by
# bullseye_update); overridable from the environment. The kernels of the
# last point release (suite bullseye, 5.10.223), not bullseye-security's:
# the archive this was developed with served only part of the security
# kernels (404 for the 686 and rt images), and one upload for all three
# guests means one set of headers.
vm_resolve_bullseye() {
	local k a b c
	[ -n "${KVER_510:-}" ] && [ -n "${KVER_510_686:-}" ] && [ -n "${KVER_510RT:-}" ] && return 0
	[ -d "$BULLSEYE/lists" ] ||
		die "no bullseye package lists in $BULLSEYE: run scripts/deps-vm.sh"
	# apt-cache takes seconds here: the answer is kept until the lists change.
	local saved=$BULLSEYE/vm-kernels
	if [ ! "$saved" -nt "$BULLSEYE/lists" ]; then
		printf '%s %s %s\n' "$(bullseye_meta_kver linux-image-amd64 amd64)" \
			"$(bullseye_meta_kver linux-image-686:i386 686)" \
			"$(bullseye_meta_kver linux-image-rt-amd64 rt-amd64)" >"$saved.$$"
		mv "$saved.$$" "$saved"
	fi
	read -r a b c <"$saved"
	KVER_510=${KVER_510:-$a}
	KVER_510_686=${KVER_510_686:-$b}
	KVER_510RT=${KVER_510RT:-$c}
	for k in "$KVER_510" "$KVER_510_686" "$KVER_510RT"; do
		[ -n "$k" ] || die "bullseye's lists in $BULLSEYE name no 5.10 kernel: run scripts/deps-vm.sh"
	done
}

# Fill KVER_ARM64_61 and KVER_ARM64_612RT, the arm64 guests' kernels,
# from the arm64 lists (fetched by arm64_update); overridable from the
# environment. Kept in $ARM64/vm-kernels until the lists change.
vm_resolve_arm64() {
	local a b saved=$ARM64/vm-kernels
	[ -n "${KVER_ARM64_61:-}" ] && [ -n "${KVER_ARM64_612RT:-}" ] && return 0
	[ -d "$ARM64/lists" ] ||
		die "no arm64 package lists in $ARM64: run scripts/deps-vm.sh"
	if [ ! "$saved" -nt "$ARM64/lists" ]; then
		printf '%s %s\n' "$(vm_meta_kver linux-image-arm64 arm64 arm64_apt)" \
			"$(vm_newest_612 rt-arm64 arm64_apt)" >"$saved.$$"
		mv "$saved.$$" "$saved"
	fi
	read -r a b <"$saved"
	KVER_ARM64_61=${KVER_ARM64_61:-$a}
	KVER_ARM64_612RT=${KVER_ARM64_612RT:-$b}
	[ -n "$KVER_ARM64_61" ] && [ -n "$KVER_ARM64_612RT" ] ||
		die "the arm64 lists in $ARM64 name no linux-image-arm64 or linux-image-6.12.*+deb12-rt-arm64: run scripts/deps-vm.sh"
}

# Newest linux-image-7.2.*+deb14-FLAVOUR known to APT (forky_apt,
# forky_arm64_apt). Forky splits a kernel into linux-image (a meta
# package), linux-binary (the image) and linux-modules.
vm_newest_72() {	# vm_newest_72 FLAVOUR APT
	local flavour=$1
	$2 apt-cache search --names-only "^linux-image-7\\.2\\.[0-9]+\\+deb14-$flavour\$" 2>/dev/null |
		sed -n "s/^linux-image-\\(7\\.2\\.[0-9]*+deb14-$flavour\\) .*/\\1/p" |
		sort -t. -k3,3n | tail -n1
}

# Fill KVER_72, KVER_72RT (amd64) and KVER_ARM64_72, KVER_ARM64_72RT from
# forky's lists (fetched here the first time: forky_update,
# forky_arm64_update); overridable from the environment. Kept in
# $FORKY/vm-kernels and $FORKY_ARM64/vm-kernels until the lists change.
vm_resolve_forky() {	# vm_resolve_forky amd64|arm64
	local dir=$FORKY apt=forky_apt a b
	[ "$1" = amd64 ] && [ -n "${KVER_72:-}" ] && [ -n "${KVER_72RT:-}" ] && return 0
	[ "$1" = arm64 ] && [ -n "${KVER_ARM64_72:-}" ] && [ -n "${KVER_ARM64_72RT:-}" ] && return 0
	[ "$1" = amd64 ] || dir=$FORKY_ARM64 apt=forky_arm64_apt
	if [ ! -d "$dir/lists" ]; then
		if [ "$1" = amd64 ]; then forky_update; else forky_arm64_update; fi
	fi
	if [ ! "$dir/vm-kernels" -nt "$dir/lists" ]; then
		printf '%s %s\n' "$(vm_newest_72 "$1" $apt)" "$(vm_newest_72 "rt-$1" $apt)" >"$dir/vm-kernels.$$"
		mv "$dir/vm-kernels.$$" "$dir/vm-kernels"
	fi
	read -r a b <"$dir/vm-kernels"
	[ -n "$a" ] && [ -n "$b" ] ||
		die "forky's $1 lists in $dir name no linux-image-7.2.*+deb14-$1 or -rt-$1: the archive lacks Debian 14's 7.2 kernels, or the lists are old (remove $dir/lists and run vm/fetch.sh again)"
	if [ "$1" = amd64 ]; then
		KVER_72=${KVER_72:-$a}
		KVER_72RT=${KVER_72RT:-$b}
	else
		KVER_ARM64_72=${KVER_ARM64_72:-$a}
		KVER_ARM64_72RT=${KVER_ARM64_72RT:-$b}
	fi
}

# Known guests; those vm/check.sh (make check-vm) boots by default, two
# at a time, in an order that makes both slots end together in make
# check (roughly: 6.12-rt 680 s, then 6.12 with the package guest 560 s,
# then 686 290 s; beside them 5.10 770 s, then 6.1 640 s); those of
# them that also run the daemon's selftests on the BPF backend (in
# sched_info mode: tracking mode's suites run on the host, and its load
# is checked in each of them, test_bpf_fallback). Every guest runs the module's checks, its faults
# and the daemon's suites on the netlink backend: each kernel builds the
# module differently. BPF where it adds coverage: PREEMPT_RT 6.12, 6.1,
# the generic kernel without the fair server (the host, 6.18, runs BPF on
# a generic kernel with it), and 5.10, the oldest kernel the CO-RE object
# loads on (no bpf_get_current_task_btf(), JIT images freed one by one),
# and the arm64 guests (the x86-built object on another architecture).
# 5.10 is also the legacy kernel the module exists for (the pre-6.1
# compat code). The generic 6.12, whose PREEMPT_RT
# build runs the whole suite, runs the rescues and the escalation suite
# (VM_RESCUE_ONLY_GUESTS), and its threadirqs boot (below). Not booted by
# default, to keep make check within its time (docs/testing.md, "The guests",
# says what runs on them): 6.1-rt, 5.10-rt, 5.10-686, the arm64
# guests (qemu-system-aarch64; programs cross-built, vm/build.sh arm64):
# arm64-6.1, the generic bookworm kernel, and arm64-6.12-rt, PREEMPT_RT,
# and Debian 14's 7.2 kernels (make check-vm VM_GUESTS="7.2-rt 7.2", and
# arm64-7.2, arm64-7.2-rt), whose time beside the others in make check
# is not measured on a quiet machine: 7.2-rt runs what 6.12-rt runs, the
# generic 7.2 the whole suite too, on both backends (no other guest runs
# a generic kernel with lazy preemption), and its threadirqs boot.
VM_ALL_GUESTS="6.1 6.12 686 6.12-rt 6.1-rt 5.10 5.10-686 5.10-rt 7.2 7.2-rt arm64-6.1 arm64-6.12-rt arm64-7.2 arm64-7.2-rt"
VM_DEFAULT_GUESTS="6.12-rt 5.10 6.12 6.1 686"
VM_DEFAULT_BPF_GUESTS="6.12-rt 6.1 5.10 7.2-rt 7.2 arm64-6.1 arm64-6.12-rt arm64-7.2 arm64-7.2-rt"
# Guests that run only selftests/kmod/guest-rescue.sh (test_rescue on the
# BPF backend, and guest-escalate.sh) instead of the whole suite;
# VM_RESCUE_ONLY_GUESTS= (empty) runs the whole suite there too.
VM_RESCUE_ONLY_GUESTS=${VM_RESCUE_ONLY_GUESTS-6.12}
# Generic guests booted a second time with "threadirqs" on the kernel
# command line to run selftests/kmod/guest-threadirqs.sh: a starving
# ksoftirqd (vm-GUEST-threadirqs-softirq-BACKEND), which only 6.1 (no fair
# server) shows, then guest-escalate.sh (vm-GUEST-threadirqs-escalate),
# whose starving 9p IRQ thread exists only with threaded IRQs, which
# PREEMPT_RT has and generic kernels have with that option. Not the
# whole suite: threadirqs also moves every softirq of a CPU to its
# ksoftirqd, which changes what the other suites' busy loops starve.
VM_THREADIRQS_GUESTS=${VM_THREADIRQS_GUESTS-6.12 7.2 6.1}

# kill_tree PID...: SIGTERM to each PID and every process below it,
# children first found, so that none is left running when its parent
# goes (a guest's qemu below vm/run.sh below vm/check.sh's slot).
kill_tree() {
	local p c
	for p in "$@"; do
		for c in $(pgrep -P "$p" 2>/dev/null); do
			kill_tree "$c"
		done
		kill -TERM "$p" 2>/dev/null || true
	done
}

# vm_preflight GUEST...: the guest names are known, the tools are there
# and this is root, or die saying what to do.
vm_preflight() {
	local t g tools=(qemu-system-x86_64 qemu-system-i386 dkms busybox)
	for g in "$@"; do
		[ "$(vm_arch "$g")" != arm64 ] ||
			tools+=(qemu-system-aarch64 qemu-aarch64-static)
	done
	for t in "${tools[@]}"; do
		command -v "$t" >/dev/null || die "$t not found: run scripts/deps-vm.sh first (as root)"
	done
	[ "$(id -u)" = 0 ] || die "the VM tests install the module with DKMS: run as root"
}

# Guest name -> kernel release
vm_kver() {
	case $1 in
	6.1) echo "$KVER_61" ;;
	6.12) echo "$KVER_612" ;;
	6.12-rt) echo "$KVER_612RT" ;;
	6.1-rt) echo "$KVER_61RT" ;;
	686) echo "$KVER_686" ;;
	5.10) vm_resolve_bullseye; echo "$KVER_510" ;;
	5.10-686) vm_resolve_bullseye; echo "$KVER_510_686" ;;
	5.10-rt) vm_resolve_bullseye; echo "$KVER_510RT" ;;
	arm64-6.1) vm_resolve_arm64; echo "$KVER_ARM64_61" ;;
	arm64-6.12-rt) vm_resolve_arm64; echo "$KVER_ARM64_612RT" ;;
	7.2) vm_resolve_forky amd64; echo "$KVER_72" ;;
	7.2-rt) vm_resolve_forky amd64; echo "$KVER_72RT" ;;
	arm64-7.2) vm_resolve_forky arm64; echo "$KVER_ARM64_72" ;;
	arm64-7.2-rt) vm_resolve_forky arm64; echo "$KVER_ARM64_72RT" ;;
	*) die "unknown guest '$1' (known: $VM_ALL_GUESTS)" ;;
	esac
}

# Guest name -> Debian architecture
vm_arch() {
	case $1 in
	686 | *-686) echo i386 ;;
	arm64-6.1 | arm64-6.12-rt | arm64-7.2 | arm64-7.2-rt) echo arm64 ;;
	5.10*) echo amd64 ;;
	6.* | 7.2*) echo amd64 ;;
	*) die "unknown guest '$1' (known: $VM_ALL_GUESTS)" ;;
	esac
}

# Guest name -> Debian suite its packages come from
vm_suite() {
	case $1 in
	5.10*) echo bullseye ;;
	7.2* | arm64-7.2*) echo forky ;;
	*) echo bookworm ;;
	esac
}

# Kernel release -> its kbuild directory: the installed headers
# (/lib/modules/KVER/build, bookworm amd64 and i386 on a Debian 12 host)
# or those unpacked into the cache by vm/fetch.sh (never installed):
# bullseye's, forky's, the arm64 kernels' (with the host's own kbuild
# tools), and bookworm's amd64 and i386 ones on any other host.
vm_kdir() {
	case $1 in
	5.10.*) echo "$BULLSEYE/root/usr/src/linux-headers-$1" ;;
	*+deb14-arm64 | *+deb14-rt-arm64) echo "$FORKY_ARM64/kbuild/usr/src/linux-headers-$1" ;;
	*+deb14-*) echo "$FORKY/root/usr/src/linux-headers-$1" ;;
	*-arm64) echo "$ARM64/kbuild/usr/src/linux-headers-$1" ;;
	*)
		if vm_bookworm_foreign; then
			echo "$BOOKWORM/root/usr/src/linux-headers-$1"
		else
			echo "/lib/modules/$1/build"
		fi ;;
	esac
}
