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

# The ABI name (6.1.0-NN) behind a Debian meta package, e.g. linux-image-amd64.
vm_meta_kver() {
	local meta=$1 flavour=$2
	apt-cache depends "$meta" 2>/dev/null |
		sed -n "s/^ *Depends: linux-image-\(.*-$flavour\)\(:i386\)\{0,1\}\$/\1/p" | head -n1
}

# Newest linux-image-6.12.*+deb12-amd64 known to apt.
vm_newest_612() {
	apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' 2>/dev/null |
		sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12-amd64\) .*/\1/p' |
		sort -t. -k3,3n | tail -n1
}

# Fill KVER_61, KVER_612, KVER_686 (overridable from the environment).
vm_resolve_kernels() {
	KVER_61=${KVER_61:-$(vm_meta_kver linux-image-amd64 amd64)}
	KVER_612=${KVER_612:-$(vm_newest_612)}
	KVER_686=${KVER_686:-$(vm_meta_kver linux-image-686:i386 686)}
	[ -n "$KVER_61" ] || die "apt knows no linux-image-amd64: run scripts/deps-vm.sh (it runs apt-get update)"
	[ -n "$KVER_612" ] || die "apt knows no linux-image-6.12.*+deb12-amd64: run scripts/deps-vm.sh (it runs apt-get update)"
	[ -n "$KVER_686" ] || die "apt knows no linux-image-686:i386: run scripts/deps-vm.sh (it adds the i386 architecture)"
}

# Guest name -> kernel release
vm_kver() {
	case $1 in
	6.1) echo "$KVER_61" ;;
	6.12) echo "$KVER_612" ;;
	686) echo "$KVER_686" ;;
	*) die "unknown guest '$1' (known: 6.1 6.12 686)" ;;
	esac
}

# Guest name -> Debian architecture
vm_arch() {
	case $1 in
	686) echo i386 ;;
	*) echo amd64 ;;
	esac
}
