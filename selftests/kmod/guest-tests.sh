#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Module tests, run inside a test guest by vm/check.sh, from the top of
# the tree (POSIX sh: the 686 guest runs it with busybox). Prints TAP for
# its own checks and KTAP from the daemon's selftests, and records one
# line per suite in $RESULTS (see selftests/summary.sh): its own checks as
# vm-GUEST-kmod, the selftests as vm-GUEST-<suite>.
#
# Environment: STARVD_VM_GUEST (6.1, 6.12, 686), RESULTS, STARVD_BUILD
# (build directory: selftests/ and kmod-tests/ in it), STARVD_BIN_DIR
# (starvd and starvctl), STARVD_VM_BACKENDS (backends of the daemon's
# selftests, default netlink), STARVD_YNL (directory of the kernel's
# tools/net/ynl; empty: skip the ynl checks).
guest=${STARVD_VM_GUEST:?run by vm/check.sh inside a guest}
B=${STARVD_BUILD:?}
BIN=${STARVD_BIN_DIR:?}
: "${RESULTS:?}"
NL=$B/kmod-tests/nlcheck
kver=$(uname -r)
. selftests/kmod/guest-lib.sh

echo "TAP version 13"
echo "# guest $guest, kernel $kver"
# The CO-RE object the daemon under test embeds: in the arm64 guests the
# x86 build's (vm/build.sh arm64 checks the daemon holds its bytes).
[ ! -e "$B/starvd.bpf.o" ] ||
	echo "# BPF object $B/starvd.bpf.o: sha256 $(sha256sum <"$B/starvd.bpf.o" | cut -d' ' -f1)"
# Only what the kernel logs from here on is ours to judge.
dmesg_skip=$(dmesg | wc -l)

# 1. the DKMS-built module loads
ls /lib/modules/"$kver"/updates/dkms/starvd.ko* >/dev/null 2>&1
ok $? "DKMS installed starvd.ko for $kver"
load
ok $? "module loads (modprobe starvd)"
want=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
[ "$(cat /sys/module/starvd/version 2>/dev/null)" = "$want" ]
ok $? "module version is the DKMS package version $want"

# 2. the family is registered
if command -v genl >/dev/null 2>&1 && [ "$i386" = 0 ]; then
	genl ctrl list | grep -q 'Name: starvd'
	ok $? "genl ctrl list shows the starvd family"
fi
"$NL" info
ok $? "the family resolves and get-info answers"

# 3. malformed requests are rejected
tap_from "$NL" malformed

# 4. unprivileged queries are refused, also when the module is loaded
# with the unprivileged=1 of an old modprobe.d (the kernel ignores a
# parameter the module does not have, and says so)
tap_from as_nobody "$NL" eperm
rmmod starvd && load unprivileged=1
ok $? "modprobe starvd unprivileged=1 loads the module"
dmesg | tail -n +$((dmesg_skip + 1)) | grep -q "unknown parameter 'unprivileged' ignored"
ok $? "the kernel says it ignored unprivileged=1"
tap_from as_nobody "$NL" eperm

# 5. a real starvation is visible through netlink. Before the big dump:
# the exit of its 600 threads leaves work to CPU 1's kernel threads
# (their stacks are freed by kworkers, under the zone lock), which the
# busy loop starves with no daemon to rescue them; starve itself can be
# held up by that until its busy loop's own bound runs out, before
# starvctl looks.
step "5. a real starvation through netlink"
rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
echo -1 >/proc/sys/kernel/sched_rt_runtime_us
"$B/selftests/starve" -c 1 -s 10 >/tmp/starve.$$ 2>&1 &
starve=$!
i=0	# until the victim has been starving for a whole second
while ! grep -q '(starving)' /tmp/starve.$$ && [ $i -lt 40 ]; do
	sleep 0.2
	i=$((i + 1))
done
out=$("$BIN/starvctl" -b netlink -c 1 -m 0.5 tasks 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q 'SCHED_FIFO.*stv-victim'
ok $? "starvctl -b netlink sees stv-victim waiting behind the busy loop"
out=$("$BIN/starvctl" -b netlink -c 1 cpus 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q 'stv-hog'
ok $? "starvctl -b netlink cpus names the busy loop on CPU 1"
kill $starve	# it stops its busy loop and victim
wait $starve
sed 's/^/# /' /tmp/starve.$$
rm -f /tmp/starve.$$
echo "$rt" >/proc/sys/kernel/sched_rt_runtime_us

# 6. dumps larger than one skb
step "6. a dump of 600 spinning threads"
tap_from "$NL" bigdump 600

# 7. the kernel's ynl CLI against the live module
step "7. ynl cli.py"
if [ -n "${STARVD_YNL:-}" ]; then
	for cmd in get-tasks get-cpus; do
		out=$(PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 \
			"$STARVD_YNL/cli.py" --no-schema \
			--spec include/starvd/starvd.yaml --dump $cmd 2>&1)
		echo "$out" | head -n 4 | sed 's/^/# /'
		case $cmd in
		get-tasks) echo "$out" | grep -q "'tid'" ;;
		get-cpus) echo "$out" | grep -q "'nr-waiters'" ;;
		esac
		ok $? "ynl cli.py --dump $cmd"
	done
fi

# 8. unload while a query loop runs, reload, unload again
step "8. unload and reload under a query loop"
"$NL" loop 6 >/tmp/loop.$$ 2>&1 &
loop=$!
sleep 1
unload_busy
ok $? "module unloads while queries run ($busy_tries busy retries)"
sleep 1
load
ok $? "module loads again"
sleep 1
unload_busy
ok $? "and unloads again under the query loop"
wait $loop
st=$?
sed 's/^/# /' /tmp/loop.$$
rm -f /tmp/loop.$$
ok $st "the query loop saw only clean errors"
! dmesg_bad "$dmesg_skip"
ok $? "no kernel warning in dmesg"

echo "1..$n"
echo "# $(($(date +%s) - t0))s of module checks"
echo "vm-$guest-kmod # Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0" >>"$RESULTS"

# 9. faults the module and the daemon must survive (own results line)
sh selftests/kmod/guest-faults.sh
# Nothing it started may outlive it: a daemon left running would boost
# the next suites' tasks as well, unseen.
left=$(pidof starvd stv-hog stv-proc)
if [ -n "$left" ]; then
	echo "# left running by guest-faults.sh: $left"
	kill -9 $left
	echo "vm-$guest-faults-leftovers # Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0" >>"$RESULTS"
fi

# 10. the daemon's real-starvation selftests through the module (and BPF)
# run.sh is bash; the 686 guest has only busybox sh for it.
shell=bash
[ "$i386" = 1 ] && shell=sh
load
# A witness of who is stuck while they run (selftests/stallwatch.c), for
# a test that finds itself held up; printed after the suites. Its file is
# in the results share, so that a guest that hangs still leaves it.
sw=${STARVD_VM_RESULTS:-/dev/shm}/stallwatch
rm -f "$sw"
# With BPF, it also names each lock's owner (bpf/lockwait.bpf.c): pinned
# now, read at a stall without an exec (the stall may hold up the 9p root).
lw=/sys/fs/bpf/starvd-lockwait
rm -f "$lw"
lwopt=
if [ -e "$B/lockwait.bpf.o" ]; then
	if err=$(bpftool iter pin "$B/lockwait.bpf.o" "$lw" 2>&1); then
		lwopt="-l $lw"
	else
		echo "# stallwatch will not name lock owners: bpftool iter pin $B/lockwait.bpf.o failed: $(echo "$err" | tail -n 1)"
	fi
fi
# shellcheck disable=SC2086 # $lwopt: an option and its argument, or nothing
"$B/selftests/stallwatch" -t 3000 $lwopt -o "$sw" -s 3600 &
watch=$!
for be in ${STARVD_VM_BACKENDS:-netlink}; do
	before=$(wc -l <"$RESULTS")
	t=$(date +%s)
	RESULTS=$RESULTS SUITE_PREFIX=vm-$guest- STARVD_TEST_BACKEND=$be \
		STARVD_BIN_DIR=$BIN $shell selftests/run.sh "$B/selftests" host
	echo "# selftests with STARVD_TEST_BACKEND=$be: $(($(date +%s) - t))s"
	[ "$(wc -l <"$RESULTS")" -gt "$before" ] ||
		echo "vm-$guest-selftests-$be # Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:1" >>"$RESULTS"
done
kill $watch
wait $watch 2>/dev/null
rm -f "$lw"
if [ -s "$sw" ]; then
	echo "# stallwatch: tasks stuck for 3 s or more during the suites:"
	sed 's/^/# /' "$sw"
fi
rmmod starvd

# 11. boosts restore the work that was waiting, own results
# line; skipped where the 9p device's interrupt is not threaded
sh selftests/kmod/guest-escalate.sh
