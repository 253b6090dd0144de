#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/check.sh [GUEST...]: the module's tests in qemu guests booting
# Debian's own kernels (default: $VM_DEFAULT_GUESTS of vm/lib.sh). On the
# host: vm/prepare.sh (unless VM_PREPARED=1); then boot the guests
# two at a time (each TCG guest is one host thread) and run
# selftests/kmod/guest-tests.sh in each (guest-rescue.sh in
# $VM_RESCUE_ONLY_GUESTS; $VM_THREADIRQS_GUESTS boot once more with
# threadirqs for guest-threadirqs.sh). The guests that run guest-tests.sh
# (they load the module) boot with the kernel's memory checkers on
# ($VM_MEMCHECK_ARGS), and any report of a fault the kernel logs there
# fails the guest (vm/kernel-reports.sh, a vm-GUEST-kernel line).
#
# Each guest records one line per suite ("vm-GUEST-SUITE # Totals: ...",
# see selftests/summary.sh); they are appended to $RESULTS when it is set.
# A guest that does not boot or times out records a failing line. Prints
# each guest's output when it is done, "vm-GUEST: N passed, N failed" and
# the time of each guest; exits 1 if anything failed.
#
# Environment: GUEST_TIMEOUT (seconds per guest, default 1800: a guest
# takes 7 to 19 minutes under TCG, two at once on two CPUs, the 5.10 one
# with both backends the longest; 2400 for the arm64 guests, which
# take about twice as long as their x86 peers), VM_PARALLEL (guests at once,
# default 2), STARVD_VM_BPF_GUESTS (guests that also run the daemon's
# selftests on the BPF backend, default $VM_DEFAULT_BPF_GUESTS of
# vm/lib.sh), STARVD_TEST_BPF_MODES (passed to selftests/run.sh; default
# sched_info: tracking mode's suites run on the host, and every BPF guest
# loads it against a BTF without sched_info, test_bpf_fallback),
# VM_PKG_GUEST and VM_PKG_DEBS (make check: once that guest's tests are
# done, it boots again to install the .debs of VM_PKG_DEBS there with
# vm/pkg-guest.sh, whose results line counts as that guest's: the
# package check runs in the time the other guest is still busy).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

guests=${*:-$VM_DEFAULT_GUESTS}
guest_timeout() {	# guest_timeout GUEST: its GUEST_TIMEOUT
	if [ -n "${GUEST_TIMEOUT:-}" ]; then
		echo "$GUEST_TIMEOUT"
	elif [ "$(vm_arch "$1")" = arm64 ]; then
		echo 2400
	else
		echo 1800
	fi
}
VM_PARALLEL=${VM_PARALLEL:-2}
# SLUB's consistency checks, red zones, poisoning and owner tracking on
# every cache; KFENCE guarding an allocation every 10 ms where the kernel
# has it (Debian builds it into 6.12, not into 5.10 or 6.1: those ignore
# the parameter).
VM_MEMCHECK_ARGS="slub_debug=FZPU kfence.sample_interval=10"
bpf_guests=${STARVD_VM_BPF_GUESTS-$VM_DEFAULT_BPF_GUESTS}
cd "$STARVD_TOP"

vm_preflight $guests

t_start=$(date +%s)
step() {	# step TEXT: print with the time since the start
	echo "# [$(($(date +%s) - t_start))s] $*"
}

# Fetching, DKMS and the builds: done already when VM_PREPARED=1 (make
# check runs make check-vm-prepare beside the packages' build).
[ "${VM_PREPARED:-}" = 1 ] || vm/prepare.sh $guests ||
	die "preparing the guests failed (vm/prepare.sh, output above)"
vm_resolve_kernels
ynl=$(vm/ynl.sh)
step "guests start"

fail_line() {	# fail_line SUITE: a failing results line
	echo "$1 # Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:1"
}

# boot_fail NAME STATUS: for vm/run.sh's timeout (124) or failed boot
# (125), add a failing line to $lines and say why on fd 3 (guest_run's).
boot_fail() {
	case $2 in
	124) lines="$lines${lines:+$'\n'}$(fail_line "vm-$1-timeout")"
	     echo "# vm-$1: timed out after $(guest_timeout "${1%-threadirqs}")s (GUEST_TIMEOUT); console: $res/console" >&3
	     [ ! -s "$res/stallwatch" ] || {
		echo "# vm-$1: what stallwatch saw stuck before that:"
		sed 's/^/#   /' "$res/stallwatch"
	     } >&3 ;;
	125) lines="$lines${lines:+$'\n'}$(fail_line "vm-$1-boot")"
	     echo "# vm-$1: the guest did not boot or did not run the tests; console: $res/console" >&3 ;;
	esac
}

# kernel_reports GUEST: a failing line in $lines, and the reports on fd 3,
# if the kernel of the boot whose results are in $res reported a fault.
kernel_reports() {
	local logs=("$res/console") out
	[ ! -f "$res/dmesg" ] || logs+=("$res/dmesg")
	out=$(vm/kernel-reports.sh "${logs[@]}" 2>&1) && return
	lines="$lines${lines:+$'\n'}$(fail_line "vm-$1-kernel")"
	echo "# vm-$1: the kernel reported faults of its own (vm/kernel-reports.sh):" >&3
	echo "$out" | sed 's/^/#   /' >&3
}

# guest_run GUEST: boot it, run the tests, leave in $VM_CACHE/results/
# GUEST.lines its results lines, GUEST.secs its time, GUEST.log its output.
guest_run() {
	local g=$1 env res=$VM_CACHE/results/$1 t0 rc=0 secs lines modes script
	local kargs=()
	case $(vm_arch "$g") in
	i386) env="STARVD_BUILD=$STARVD_TOP/build32 STARVD_BIN_DIR=$STARVD_TOP/build32" ;;
	arm64) env="STARVD_BUILD=$STARVD_TOP/build-arm64 STARVD_BIN_DIR=$STARVD_TOP/build-arm64 STARVD_YNL=$ynl" ;;
	*) env="STARVD_BUILD=$STARVD_TOP/build STARVD_BIN_DIR=$STARVD_TOP/user STARVD_YNL=$ynl" ;;
	esac
	if [ "$(vm_arch "$g")" != i386 ]; then
		case " $bpf_guests " in
		*" $g "*)
			env="$env STARVD_VM_BACKENDS='netlink bpf'"
			modes=${STARVD_TEST_BPF_MODES:-sched_info}
			env="$env STARVD_TEST_BPF_MODES='$modes'" ;;
		esac
	fi
	script=guest-tests.sh
	case " $VM_RESCUE_ONLY_GUESTS " in
	*" $g "*) script=guest-rescue.sh ;;
	esac
	[ "$script" != guest-tests.sh ] || kargs=(-a "$VM_MEMCHECK_ARGS")
	t0=$(date +%s)
	vm/run.sh "${kargs[@]}" -t "$(guest_timeout "$g")" "$g" \
		"RESULTS=\$STARVD_VM_RESULTS/results $env sh selftests/kmod/$script" \
		>"$VM_CACHE/results/$g.log" 2>&1 || rc=$?
	secs=$(($(date +%s) - t0))
	# vm/run.sh empties $res when it starts: keep ours next to it.
	exec 3>>"$VM_CACHE/results/$g.log"
	lines=$(cat "$res/results" 2>/dev/null || true)
	boot_fail "$g" $rc
	if [ "$script" = guest-tests.sh ] && ! grep -q "^vm-$g-kmod " <<<"$lines"; then
		lines="$lines${lines:+$'\n'}$(fail_line "vm-$g-kmod")"
		echo "# vm-$g: the module checks did not finish; console: $res/console" >&3
	fi
	[ "$script" != guest-tests.sh ] || kernel_reports "$g"
	case " $VM_THREADIRQS_GUESTS " in
	*" $g "*)
		rc=0
		vm/run.sh -a threadirqs -t "$(guest_timeout "$g")" "$g" \
			"RESULTS=\$STARVD_VM_RESULTS/results $env sh selftests/kmod/guest-threadirqs.sh" \
			>&3 2>&1 || rc=$?
		lines="$lines${lines:+$'\n'}$(cat "$res/results" 2>/dev/null || true)"
		boot_fail "$g-threadirqs" $rc
		grep -q "^vm-$g-threadirqs-escalate " "$res/results" 2>/dev/null || {
			lines="$lines${lines:+$'\n'}$(fail_line "vm-$g-threadirqs-escalate")"
			echo "# vm-$g (threadirqs): guest-threadirqs.sh ended (status $rc) before guest-escalate.sh's results line; console: $res/console" >&3
		}
		secs=$(($(date +%s) - t0))
		# Kept from the next boot of $g, which empties $res.
		rm -rf "$res-threadirqs"
		cp -r "$res" "$res-threadirqs" 2>/dev/null || true ;;
	esac
	# The packages (make check): installed in a boot of their own.
	if [ "$g" = "${VM_PKG_GUEST:-}" ] && [ -n "${VM_PKG_DEBS:-}" ]; then
		rm -f "$res.pkg"
		RESULTS=$res.pkg vm/pkg-guest.sh "$g" "$VM_PKG_DEBS" >&3 2>&1 || true
		lines="$lines${lines:+$'\n'}$(cat "$res.pkg" 2>/dev/null ||
			fail_line "pkg-vm-$g")"
		kernel_reports "$g-pkg"
		secs=$(($(date +%s) - t0))
	fi
	exec 3>&-
	echo "$lines" >"$VM_CACHE/results/$g.lines"
	echo "$secs" >"$VM_CACHE/results/$g.secs"
}

guest_report() {	# guest_report GUEST: print what guest_run left
	local g=$1 lines p f secs
	cat "$VM_CACHE/results/$g.log"
	lines=$(cat "$VM_CACHE/results/$g.lines")
	secs=$(cat "$VM_CACHE/results/$g.secs")
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
}

any_fail=0
summary=()
declare -A running=()
# Stopped (make interrupted, CI's time limit): stop every guest too.
trap 'kill_tree "${!running[@]}"; exit 143' TERM HUP
trap 'kill_tree "${!running[@]}"; exit 130' INT
mkdir -p "$VM_CACHE/results"
queue=$guests
while [ -n "$queue" ] || [ ${#running[@]} -gt 0 ]; do
	while [ -n "$queue" ] && [ ${#running[@]} -lt "$VM_PARALLEL" ]; do
		g=${queue%% *}
		[ "$queue" = "$g" ] && queue="" || queue=${queue#* }
		rm -f "$VM_CACHE/results/$g".{lines,secs}
		step "guest $g ($(vm_kver "$g")) starts"
		guest_run "$g" &
		running[$!]=$g
	done
	wait -n || true
	for pid in "${!running[@]}"; do
		kill -0 "$pid" 2>/dev/null && continue
		g=${running[$pid]}
		unset "running[$pid]"
		step "guest $g done"
		[ -f "$VM_CACHE/results/$g.secs" ] || {
			echo "$(fail_line "vm-$g-run")" >"$VM_CACHE/results/$g.lines"
			echo 0 >"$VM_CACHE/results/$g.secs"
		}
		guest_report "$g"
	done
done

step "done"
for s in "${summary[@]}"; do
	echo "# $s"
done
echo "# check-vm: $(($(date +%s) - t_start))s in all"
exit $any_fail
