# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shared by the guest test scripts (guest-tests.sh, guest-faults.sh):
# TAP counting and module helpers. POSIX sh (busybox in the 686 guest).
# Source it after setting guest (a vm/check.sh guest name); it defines
# functions, the counters n, pass and fail, t0 (when it was sourced, for
# step) and i386 (1 in the 32-bit guests, 686 and 5.10-686: busybox sh,
# no BPF, no util-linux) only.
n=0
case $guest in
686 | *-686) i386=1 ;;
*) i386=0 ;;
esac
pass=0
fail=0
t0=$(date +%s)

step() {	# step TEXT: print it with the seconds since the script started
	echo "# [$(($(date +%s) - t0))s] $*"
}

# PREEMPT_RT: the RT patch set's /sys/kernel/realtime, or the kernel's
# version string (mainline PREEMPT_RT has no such file; user/util.c).
preempt_rt=0
if [ -e /sys/kernel/realtime ]; then
	[ "$(cat /sys/kernel/realtime)" != 1 ] || preempt_rt=1
else
	case " $(uname -v) " in
	*" PREEMPT_RT "* | *" PREEMPT RT "*) preempt_rt=1 ;;
	esac
fi
# On PREEMPT_RT the test scripts and what they start run on CPU 0, the
# busy loops on CPU 1 (everything that must be elsewhere pins itself):
# there the timer of a sleeping SCHED_OTHER task is a soft hrtimer expired
# by ktimers/N of the CPU where it was armed, and a `sleep` forked onto
# CPU 1 next to a busy loop does not return before the loop ends.
# (Hex mask: busybox's taskset in the 686 guests may lack -c.)
if [ $preempt_rt = 1 ]; then
	taskset -p 1 $$ >/dev/null 2>&1 ||
		echo "# could not pin the test script to CPU 0 (taskset -p 1 $$)"
fi

ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $n - $2"
	else
		fail=$((fail + 1))
		echo "not ok $n - $2"
	fi
}

# Run a command that prints TAP lines: count each as one of ours. Its
# exit status is left in tap_rc.
tap_from() {
	out=$("$@" 2>&1)
	tap_rc=$?
	echo "$out" | grep -vE '^(not )?ok [0-9]+ ' | sed 's/^/# /'
	res=$(echo "$out" | grep -E '^(not )?ok [0-9]+ ')
	[ -n "$res" ] || res="not ok 0 - $* printed no result"
	echo "$res" | while IFS= read -r l; do
		case $l in
		"not ok "*) echo 1 "${l#not ok * - }" ;;
		*) echo 0 "${l#ok * - }" ;;
		esac
	done >/tmp/tap.$$
	while read -r st desc; do
		ok "$st" "$desc"
	done </tmp/tap.$$
	rm -f /tmp/tap.$$
}

# util-linux setpriv in the amd64 guests; busybox su (whose /bin/sh is
# busybox there) in the 686 guest.
as_nobody() {
	if [ "$i386" = 1 ]; then
		su -s /bin/sh nobody -c "$*"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all --bounding-set=-all "$@"
	fi
}

# modprobe finds the DKMS module through modules.dep (depmod ran at
# install time); busybox modprobe in the 686 guest reads it too.
load() {
	modprobe starvd "$@"
}

# rmmod, retrying while a query holds the module; the number of retries
# is left in busy_tries.
unload_busy() {
	busy_tries=0
	while ! rmmod starvd 2>/dev/null; do
		busy_tries=$((busy_tries + 1))
		[ $busy_tries -lt 100 ] || break
		sleep 0.05
	done
	[ ! -d /sys/module/starvd ]
}

# What the kernel logged after line $1 of dmesg that should never be
# there: warnings, bugs, oopses, the module's own errors.
dmesg_bad() {
	dmesg | tail -n +$(($1 + 1)) |
		grep -E 'BUG|WARNING|Oops|refcount_t|general protection|starvd.*(error|cannot)'
}
