#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The rescues judged from outside the daemon, alone, in a test guest
# (vm/check.sh runs it in the guests of VM_RESCUE_ONLY_GUESTS, vm/lib.sh:
# the generic 6.12, whose PREEMPT_RT build runs the whole suite):
# selftests/test_rescue.c and test_stacks.c on the BPF backend (results
# lines vm-GUEST-rescue-bpf, vm-GUEST-stacks-bpf), then
# guest-escalate.sh, the starving 9p IRQ thread whose lookups must keep
# completing (vm-GUEST-escalate).
guest=${STARVD_VM_GUEST:?run by vm/check.sh inside a guest}
: "${STARVD_BUILD:?}" "${STARVD_BIN_DIR:?}" "${RESULTS:?}"
# On CPU 0, as the other guest scripts (guest-lib.sh says why).
taskset -p 1 $$ >/dev/null 2>&1
echo "# guest $guest, kernel $(uname -r): test_rescue, test_stacks and guest-escalate.sh only"
RESULTS=$RESULTS SUITE_PREFIX=vm-$guest- STARVD_TEST_BACKEND=bpf \
	STARVD_BIN_DIR=$STARVD_BIN_DIR bash selftests/run.sh "$STARVD_BUILD/selftests" rescue stacks
sh selftests/kmod/guest-escalate.sh
