#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/check.sh [GUEST...]: the module's tests in qemu guests booting
# Debian's own kernels (default: 6.1 6.12 686). On the host: fetch the
# kernels, build and install the module for each with DKMS, build the
# programs (64-bit, and 32-bit without BPF for the 686 guest), validate
# the netlink spec; then in each guest run selftests/kmod/guest-tests.sh.
#
# Each guest records one line per suite ("vm-GUEST-SUITE # Totals: ...",
# see selftests/summary.sh); they are appended to $RESULTS when it is set.
# A guest that does not boot or times out records a failing line. Prints
# "vm-GUEST: N passed, N failed" and the time of each guest; exits 1 if
# anything failed.
#
# Environment: GUEST_TIMEOUT (seconds per guest, default 1200: a guest
# normally takes 4-9 minutes under TCG),
# STARVD_VM_BPF_GUESTS (guests that also run the BPF selftests,
# default "6.1 6.12"), STARVD_TEST_BPF_MODES (passed to selftests/run.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

guests=${*:-6.1 6.12 686}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-1200}
bpf_guests=${STARVD_VM_BPF_GUESTS-6.1 6.12}
cd "$STARVD_TOP"

for t in qemu-system-x86_64 qemu-system-i386 dkms busybox; do
	command -v "$t" >/dev/null || die "$t not found: run scripts/deps-vm.sh first (as root)"
done
[ "$(id -u)" = 0 ] || die "the VM tests install the module with DKMS: run as root"
for g in $guests; do
	vm_arch "$g" >/dev/null
done

t_start=$(date +%s)
step() {	# step TEXT: print with the time since the start
	echo "# [$(($(date +%s) - t_start))s] $*"
}

vm_resolve_kernels
kvers=()
for g in $guests; do
	kvers+=("$(vm_kver "$g")")
done
step "fetching guest kernels: ${kvers[*]}"
vm/fetch.sh $guests
step "DKMS build and install"
vm/dkms.sh "${kvers[@]}"

step "building programs"
vm/build.sh 64
case " $guests " in
*" 686 "*) vm/build.sh 32 ;;
esac

ynl=$(vm/ynl.sh)
step "validating include/starvd/starvd.yaml"
/usr/bin/python3 selftests/kmod/validate-spec.py include/starvd/starvd.yaml \
	"$ynl/../../../Documentation/netlink/genetlink.yaml" include/starvd/abi.h

fail_line() {	# fail_line SUITE: a failing results line
	echo "$1 # Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:1"
}

any_fail=0
summary=()
for g in $guests; do
	step "guest $g ($(vm_kver "$g"))"
	if [ "$g" = 686 ]; then
		env="STARVD_BUILD=$STARVD_TOP/build32 STARVD_BIN_DIR=$STARVD_TOP/build32"
	else
		env="STARVD_BUILD=$STARVD_TOP/build STARVD_BIN_DIR=$STARVD_TOP/user STARVD_YNL=$ynl"
		case " $bpf_guests " in
		*" $g "*) env="$env STARVD_VM_BACKENDS='netlink bpf'" ;;
		esac
		[ -z "${STARVD_TEST_BPF_MODES:-}" ] ||
			env="$env STARVD_TEST_BPF_MODES='$STARVD_TEST_BPF_MODES'"
	fi
	res=$VM_CACHE/results/$g
	t0=$(date +%s)
	rc=0
	vm/run.sh -t "$GUEST_TIMEOUT" "$g" \
		"RESULTS=\$STARVD_VM_RESULTS/results $env sh selftests/kmod/guest-tests.sh" || rc=$?
	secs=$(($(date +%s) - t0))

	lines=$(cat "$res/results" 2>/dev/null || true)
	case $rc in
	124) lines="$lines${lines:+$'\n'}$(fail_line "vm-$g-timeout")"
	     echo "# vm-$g: timed out after ${GUEST_TIMEOUT}s (GUEST_TIMEOUT); console: $res/console" ;;
	125) lines="$lines${lines:+$'\n'}$(fail_line "vm-$g-boot")"
	     echo "# vm-$g: the guest did not boot or did not run the tests; console: $res/console" ;;
	esac
	if ! grep -q "^vm-$g-kmod " <<<"$lines"; then
		lines="$lines${lines:+$'\n'}$(fail_line "vm-$g-kmod")"
		echo "# vm-$g: the module checks did not finish; console: $res/console"
	fi
	[ -z "${RESULTS:-}" ] || echo "$lines" >>"$RESULTS"
	read -r p f < <(awk '{
		for (i = 1; i <= NF; i++) {
			split($i, kv, ":")
			if (kv[1] == "pass") p += kv[2]
			if (kv[1] == "fail" || kv[1] == "error") f += kv[2]
		}
	} END { print p + 0, f + 0 }' <<<"$lines")
	[ "$f" = 0 ] || any_fail=1
	echo "$lines" | sed 's/^/# /'
	echo "vm-$g: $p passed, $f failed"
	summary+=("vm-$g ($(vm_kver "$g")): $p passed, $f failed in ${secs}s")
done

step "done"
for s in "${summary[@]}"; do
	echo "# $s"
done
echo "# check-vm: $(($(date +%s) - t_start))s in all"
exit $any_fail
