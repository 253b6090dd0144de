#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What needs threaded interrupts, in a test guest booted with "threadirqs"
# (vm/check.sh boots each guest of VM_THREADIRQS_GUESTS, vm/lib.sh, once
# more for it):
#   - a starving ksoftirqd: with threadirqs every hard interrupt's exit
#     leaves the softirqs it raised to ksoftirqd/N, behind a busy loop
#     on CPU N (test_rescue kernel_thread_softirq, on each backend of
#     STARVD_VM_BACKENDS: results lines vm-GUEST-threadirqs-softirq-BACKEND;
#     where the fair server serves ksoftirqd it skips, saying so);
#   - the starving 9p IRQ thread of guest-escalate.sh
#     (vm-GUEST-threadirqs-escalate).
guest=${STARVD_VM_GUEST:?run by vm/check.sh inside a guest}
: "${STARVD_BUILD:?}" "${STARVD_BIN_DIR:?}" "${RESULTS:?}"
. selftests/kmod/guest-lib.sh
# On CPU 0, as the other guest scripts (guest-lib.sh says why).
taskset -p 1 $$ >/dev/null 2>&1
echo "# guest $guest, kernel $(uname -r), threadirqs: a starving ksoftirqd, then guest-escalate.sh"
for be in ${STARVD_VM_BACKENDS:-netlink}; do
	[ "$be" != netlink ] || load ||
		echo "# modprobe starvd failed: the netlink round fails"
	RESULTS=$RESULTS SUITE_PREFIX=vm-$guest-threadirqs- \
		STARVD_TEST_BACKEND=$be STARVD_BIN_DIR=$STARVD_BIN_DIR \
		bash selftests/run.sh "$STARVD_BUILD/selftests" softirq
	[ "$be" != netlink ] || unload_busy
done
sh selftests/kmod/guest-escalate.sh
