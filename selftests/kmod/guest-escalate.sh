#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# guest-escalate.sh [test|bench]: does a boost restore the work that was
# waiting? Runs inside a guest, from the top of the tree (by
# guest-tests.sh, vm/bench.sh, or vm/run.sh directly). A SCHED_FIFO 50
# busy loop owns CPU 1 (selftests/starve.c); on CPU 0 a SCHED_OTHER
# process stat()s a new name on the 9p root every 100 ms
# (selftests/lookup_probe.c). Each lookup is a virtio request completed by
# the IRQ thread of the 9p device's requests queue, whose affinity is set
# to CPU 1 here: the IRQ thread starves behind the busy loop, and so does
# the lookup. Needs threaded IRQs (PREEMPT_RT, or "threadirqs" on the
# kernel command line); elsewhere the interrupt is served in hard IRQ
# context and nothing starves: the suite is skipped, saying so.
#
# test: without a daemon no lookup completes during the busy loop; with
# starvd (its defaults except -t 2 -d 1: not pinned) they keep coming,
# in both halves of the busy loop; starvctl advise's command, run, moves
# the IRQ off CPU 1 and ends the starvation;
# a boost that did not let it progress is followed by an escalation; once
# the busy loop is over every escalated task is back at the configured
# runtime; nothing is left boosted. Checked by counts, never times.
# bench: the same three ways (none, starvd, starvd --no-escalation),
# printed as a table with times (TCG: compare rows, not absolute values).
#
# Environment: STARVD_VM_GUEST, STARVD_BUILD (build dir with selftests/),
# STARVD_BIN_DIR (starvd, starvctl), RESULTS (test mode: one line
# vm-GUEST-escalate, or vm-GUEST-threadirqs-escalate when the kernel was
# booted with threadirqs), STARVD_ESC_SECONDS (busy loop, default 20).
mode=${1:-test}
guest=${STARVD_VM_GUEST:?run inside a guest (vm/run.sh)}
B=${STARVD_BUILD:?}
BIN=${STARVD_BIN_DIR:?}
SECS=${STARVD_ESC_SECONDS:-20}
RUN=/run/starvd-escalate
W=/dev/shm/escalate
. selftests/kmod/guest-lib.sh

rt_path=/proc/sys/kernel/sched_rt_runtime_us
rt_saved=$(cat $rt_path)
mkdir -p $W $RUN
# RT throttling stays off for all the cases and comes back at the end:
# turning it on fails (EBUSY) while boosted tasks' SCHED_DEADLINE
# bandwidth is not released, which takes until their deadline, far
# ahead after an overrun (see README: the overrun debt). Retried 60 s.
rt_restore() {
	i=0
	until echo "$rt_saved" 2>/dev/null >$rt_path || [ $i -ge 120 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	[ "$(cat $rt_path)" = "$rt_saved" ] ||
		echo "# could not put kernel.sched_rt_runtime_us back to $rt_saved (DEADLINE bandwidth still held)"
}
cleanup() {
	[ -z "${irq:-}" ] || echo 0 >/proc/irq/$irq/smp_affinity_list 2>/dev/null
	[ -z "${daemon:-}" ] || kill "$daemon" 2>/dev/null
	[ -z "${probe:-}" ] || kill "$probe" 2>/dev/null
	[ -z "${sampler:-}" ] || kill "$sampler" 2>/dev/null
	"$BIN/starvd" --restore --run-dir $RUN >/dev/null 2>&1
	rt_restore
}
trap cleanup EXIT

result() {	# result: the results line (test mode)
	[ "$mode" = test ] && [ -n "${RESULTS:-}" ] &&
		echo "vm-$suite # Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:${1:-0} error:0" >>"$RESULTS"
}

suite=$guest-escalate
grep -qw threadirqs /proc/cmdline && suite=$guest-threadirqs-escalate

# The 9p root's virtio device, its requests IRQ and that IRQ's thread.
# The root is the share "hostroot" (the host's root), or in the arm64
# guests "guestroot" (their own): whichever "/" is mounted from.
tag=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") {
		if ($5 == "/" && $(i + 1) == "9p") print $(i + 2)
		break
	} }' /proc/self/mountinfo | tail -n 1)
dev=
for d in /sys/bus/virtio/drivers/9pnet_virtio/virtio*; do
	[ "$(tr -d '\000' <"$d/mount_tag" 2>/dev/null)" = "${tag:-hostroot}" ] &&
		dev=${d##*/}
done
irq=$(sed -n "s/^ *\([0-9]*\):.* $dev-requests\$/\1/p" /proc/interrupts)
irqtid=
for c in /proc/[0-9]*/comm; do
	case $(cat "$c" 2>/dev/null) in
	"irq/$irq-"*) irqtid=${c#/proc/}; irqtid=${irqtid%/comm} ;;
	esac
done
echo "TAP version 13"
echo "# guest $guest ($(uname -r)): 9p root ${tag:-hostroot} on $dev, requests IRQ ${irq:-?}, thread ${irqtid:-none}"
if [ -z "$dev" ] || [ -z "$irq" ] || [ -z "$irqtid" ]; then
	echo "# SKIP: the 9p root's requests interrupt is not threaded (boot a PREEMPT_RT kernel, or add threadirqs)"
	echo "1..0"
	result 1
	exit 0
fi
irqcomm=$(cat /proc/$irqtid/comm)
irqattr=$(chrt -p "$irqtid" | tr '\n' ' ')
# Explicitly on CPU 1 (vm/guest.sh keeps device IRQs on CPU 0): the
# thread follows its IRQ. On x86 the move takes effect with the next
# interrupt, and the thread moves the next time it runs after that: make
# 9p traffic until both are on CPU 1, or a lookup or two would still be
# served on CPU 0 during the busy loop.
irq_on() {	# irq_on CPU: the IRQ and its thread are there
	[ "$(cat /proc/irq/$irq/effective_affinity_list 2>/dev/null)" = "$1" ] &&
		grep -q "^Cpus_allowed_list:[[:space:]]*$1\$" /proc/$irqtid/status
}
irq_wait() {	# irq_wait CPU: 9p traffic until irq_on CPU (bounded)
	i=0
	until irq_on "$1" || [ $i -ge 100 ]; do
		ls / >/dev/null
		sleep 0.1
		i=$((i + 1))
	done
	irq_on "$1"
}
echo 1 >/proc/irq/$irq/smp_affinity_list
irq_wait 1
ok $? "IRQ $irq ($irqcomm) and its thread moved to CPU 1"

# The scheduler features (debugfs sched_features before 5.13).
features=/sys/kernel/debug/sched/features
[ -e $features ] || ! [ -e /sys/kernel/debug/sched_features ] ||
	features=/sys/kernel/debug/sched_features

# hrtick_sample FILE: until killed, every 0.2 s, append to FILE the
# HRTICK_DL word of sched/features (HRTICK_DL, NO_HRTICK_DL or none): the
# feature as the kernel has it while boosts come and go, seen from
# outside starvd (selftests/feature_sample.c, on CPU 0 at SCHED_FIFO 1;
# it says why it is not a bash loop). Started before the busy loop, so
# that its exec does not wait for the 9p root. Run it with &: $! is then
# the program itself (exec), which the caller kills: a child left behind
# would keep the guest's output pipe open, and the guest from ending.
hrtick_sample() {
	exec "$B/selftests/feature_sample" -c 0 HRTICK_DL $features "$1"
}

# run_case NAME [STARVD ARGS...]: NAME "none" runs no daemon. Leaves
# lookups (completed during the busy loop), longest (ns), victim (runs of
# the busy loop's FIFO 10 victim) and the daemon's JSON events in
# $W/NAME.json.
run_case() {
	name=$1
	shift
	rm -f $W/probe $W/$name.json $W/$name.log
	daemon=
	if [ "$name" != none ]; then
		"$BIN/starvd" -f -t 2 -d 1 --json \
			--run-dir $RUN "$@" >$W/$name.json 2>$W/$name.log &
		daemon=$!
		i=0
		while ! grep -q 'starvd .*: backend' $W/$name.log && [ $i -lt 100 ]; do
			sleep 0.2
			i=$((i + 1))
		done
	fi
	"$B/selftests/lookup_probe" -c 0 -s $((SECS + 60)) / $W/probe &
	probe=$!
	hrtick_sample $W/$name.hrtick &
	sampler=$!
	i=0
	while [ ! -s $W/probe ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# Nothing here may touch the 9p root while the busy loop runs (an
	# exec would wait for the starving IRQ thread too): the lookups are
	# counted afterwards, from the probe's log and the busy loop's start
	# and end as starve printed them (both CLOCK_BOOTTIME).
	taskset -c 0 "$B/selftests/starve" -c 1 -s "$SECS" >$W/$name.starve
	from=$(sed -n 's/.*from boot time \([0-9.]*\)$/\1/p' $W/$name.starve)
	to=$(sed -n 's/.*over at boot time \([0-9.]*\)$/\1/p' $W/$name.starve)
	# Lookups that began after the busy loop owned CPU 1 and completed
	# before it ended: not one without a daemon. (Counting completions
	# alone would also count the one the IRQ thread is serving as the
	# loop begins: at the same FIFO 50 as the loop, it is not preempted.)
	# Also counted per half of the loop: lookups that kept completing
	# complete in both.
	set -- $(awk -v from="$from" -v to="$to" '
		{ t = $1 / 1e9; s = ($1 - $2) / 1e9; if ($2 > longest) longest = $2 }
		s > from && t <= to { n++; if (t <= (from + to) / 2) h1++; else h2++ }
		END { print n + 0, longest + 0, h1 + 0, h2 + 0 }' $W/probe)
	lookups=$1 longest=$2 first_half=$3 second_half=$4
	victim=$(sed -n 's/.*victim ran *\([0-9]*\) times.*/\1/p' $W/$name.starve |
		awk '{ s += $1 } END { print s + 0 }')
	echo "# $name: $lookups lookups completed during the ${SECS}s busy loop ($first_half in its first half, $second_half in its second), longest $longest ns, victim ran $victim times"
	if [ -n "$daemon" ]; then
		# A task that keeps up is back at -r after threshold + duration
		# + period (4 s) from its last boost: wait for that (bounded).
		i=0
		while [ $i -lt 60 ]; do
			sleep 1
			"$BIN/starvctl" --json --run-dir $RUN status >$W/$name.status
			grep -q '"escalated":\[\]' $W/$name.status && break
			i=$((i + 1))
		done
		kill "$daemon"
		wait "$daemon"
		daemon_rc=$?
		daemon=
		sed 's/^/#   /' $W/$name.log | grep -v '^#   {' | tail -n 40
	fi
	kill "$probe" "$sampler" 2>/dev/null
	wait "$probe" "$sampler" 2>/dev/null
	probe= sampler=
}

events() {	# events NAME EVENT [TID]: how many
	grep "\"event\":\"$2\"" $W/$1.json | grep -c "\"tid\":${3:-[0-9]*},"
}

check_daemon_case() {	# check_daemon_case NAME
	name=$1
	boosts=$(events "$name" boost "$irqtid")
	esc=$(events "$name" escalate "$irqtid")
	noprog=$(grep '"event":"restore"' $W/$name.json | grep "\"tid\":$irqtid," |
		grep -c '"outcome":"no_progress"')
	prog=$(grep '"event":"restore"' $W/$name.json | grep "\"tid\":$irqtid," |
		grep -c '"outcome":"progress"')
	cap=$(sed -n 's/.*"cap_ns":\([0-9]*\).*/\1/p' $W/$name.status)
	# Boosts that follow one without progress, below the cap, without
	# an escalation just before them (log_escalation precedes the boost).
	missed=$(grep "\"tid\":$irqtid," $W/$name.json | awk -v cap="${cap:-0}" '
		/"event":"escalate"/ { esc = 1 }
		/"event":"restore"/ { last = /"outcome":"no_progress"/ }
		/"event":"boost"/ {
			rt = $0
			sub(/.*"runtime_ns":/, "", rt)
			sub(/[^0-9].*/, "", rt)
			if (last && !esc && rt + 0 < cap + 0) n++
			esc = 0
			last = 0
		}
		END { print n + 0 }')
	# The IRQ thread's reports and boosts, one line each, at seconds
	# into the busy loop (events are CLOCK_MONOTONIC, starve's times
	# CLOCK_BOOTTIME: the same in a guest that never suspends).
	grep "\"tid\":$irqtid," $W/$name.json | awk -v from="$from" '
		function f(k,   v) {
			v = $0
			if (!sub(".*\"" k "\":", "", v)) return "-"
			sub(/[,}].*/, "", v)
			return v
		}
		function at() { return sprintf("%6.2f s", f("time_ns") / 1e9 - from) }
		/"event":"starving"/ { printf "#   %s starving, waited %.2f s\n", at(), f("wait_ns") / 1e9 }
		/"event":"boost"/ { printf "#   %s boost %s ns", at(), f("runtime_ns") }
		/"event":"restore"/ { printf ": ran %s ns, %s switches, %s\n", f("ran_ns"), f("switches"), f("outcome") }'
	[ -z "${STARVD_VM_RESULTS:-}" ] || cp $W/$name.json "$STARVD_VM_RESULTS/"
	echo "# $name: $boosts boosts of $irqcomm ($prog with progress, $noprog without), $esc escalations"
	[ "$boosts" -gt 0 ]
	ok $? "$name: starvd boosted $irqcomm"
	# Not "one per boost with progress": a boost in which the IRQ thread
	# ran may end before it completed a request (20 us under TCG), and
	# the thread also serves 9p reads that are not lookups.
	[ "$first_half" -gt 0 ] && [ "$second_half" -gt 0 ]
	ok $? "$name: lookups begun during the busy loop kept completing in it (in its first half $first_half, in its second $second_half; $prog boosts let $irqcomm progress)"
}

hrtick() {	# hrtick: the HRTICK_DL word of sched/features, if any
	tr ' ' '\n' <$features 2>/dev/null |
		grep -x -E '(NO_)?HRTICK_DL'
}
hrtick_before=$(hrtick)
# Off for the whole suite. The write can fail for a while after an
# earlier suite's boosts (EIO on 6.12-rt): retried, and
# checked, since with throttling on the busy loop would not own CPU 1.
i=0
until echo -1 2>/dev/null >$rt_path && [ "$(cat $rt_path)" = -1 ] ||
	[ $i -ge 60 ]; do
	sleep 0.5
	i=$((i + 1))
done
[ "$(cat $rt_path)" = -1 ]
ok $? "RT throttling is off for the cases (kernel.sched_rt_runtime_us=-1)"
t0=$(date +%s)
dmesg_skip=$(dmesg | wc -l)
run_case none
[ "$lookups" = 0 ]
ok $? "without a daemon no lookup begun during the busy loop completes before it ends ($lookups)"
none_lookups=$lookups none_longest=$longest none_victim=$victim

run_case esc
check_daemon_case esc
[ "$missed" -eq 0 ]
ok $? "every boost of $irqcomm after one without progress was escalated (or at the cap): $noprog without progress, $esc escalations"
# What the starving thread serves: its IRQ, the IRQ's action (the 9p
# device's requests queue) and its affinity, read when it was reported.
action=$(find /proc/irq/$irq -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | head -n 1)
grep '"event":"starving"' $W/esc.json | grep "\"tid\":$irqtid," |
	grep "\"kind\":\"irq_thread\"" | grep "\"irq\":$irq," |
	grep -q "\"irq_actions\":\"$action\",\"irq_affinity\":\"1\""
ok $? "the report of $irqcomm names IRQ $irq, its action $action and its affinity (CPU 1)"
grep -q '"escalated":\[\]' $W/esc.status
ok $? "after the busy loop no task is left escalated (back at the configured runtime)"
[ "$esc" -eq 0 ] || [ "$(events esc deescalate "$irqtid")" -gt 0 ]
ok $? "an escalated $irqcomm was put back at the configured runtime"
grep -q '"boosting":\[\]' $W/esc.status
ok $? "after the busy loop nothing is boosted"
[ "$daemon_rc" = 0 ] && [ -z "$(ls $RUN/boosts 2>/dev/null)" ] &&
	[ ! -e $RUN/hrtick_dl ]
ok $? "starvd exited cleanly and its journal is empty"
[ "$(chrt -p "$irqtid" | tr '\n' ' ')" = "$irqattr" ]
ok $? "$irqcomm has its own attributes back ($irqattr)"
# Turned on while boosting (README: precision), where it was off and
# debugfs is writable (the guests): sampled every 0.2 s, boosts of 1 s.
hrtick_on=$(grep -c -x HRTICK_DL $W/esc.hrtick)
hrtick_samples=$(wc -l <$W/esc.hrtick)
if [ "$hrtick_before" = NO_HRTICK_DL ]; then
	[ "$hrtick_on" -gt 0 ]
	ok $? "HRTICK_DL was on while starvd boosted ($hrtick_on of $hrtick_samples samples during the case)"
else
	n=$((n + 1))
	skipped=1
	echo "ok $n # SKIP HRTICK_DL was ${hrtick_before:-absent} before starvd started: nothing to turn on"
fi
[ "$(hrtick)" = "$hrtick_before" ]
ok $? "the HRTICK_DL scheduler feature is back as it was (${hrtick_before:-absent})"
esc_lookups=$lookups esc_longest=$longest esc_victim=$victim
esc_boosts=$boosts esc_esc=$esc
esc_max=$(sed -n 's/.*"max_runtime_ns":\([0-9]*\).*/\1/p' $W/esc.status)

# The cure: from the episodes of the case above, starvctl advise says to
# move the IRQ off CPU 1 and prints the command; run as printed, it ends
# the starvation: under the same busy loop the lookups keep completing,
# and starvd reports no starvation of the IRQ thread and boosts it not
# once.
if [ "$mode" = test ]; then
	"$BIN/starvctl" --run-dir $RUN advise >$W/advise.txt 2>&1
	sed 's/^/#   /' $W/advise.txt
	cure=$(grep -x "echo [0-9,-]* > /proc/irq/$irq/smp_affinity_list" $W/advise.txt)
	[ -n "$cure" ]
	ok $? "starvctl advise says to move IRQ $irq off CPU 1, with the command: $cure"
	sh -c "$cure"
	irq_wait 0
	ok $? "the command moved IRQ $irq and its thread to CPU 0"
	run_case cured
	[ "$first_half" -gt 0 ] && [ "$second_half" -gt 0 ]
	ok $? "cured: lookups kept completing under the same busy loop ($first_half in its first half, $second_half in its second)"
	[ "$(events cured starving "$irqtid")" = 0 ] &&
		[ "$(events cured boost "$irqtid")" = 0 ]
	ok $? "cured: starvd reports no starvation of $irqcomm and boosts it not once"
fi

if [ "$mode" = bench ]; then
	run_case noesc --no-escalation
	check_daemon_case noesc
	fmt() { awk -v ns="$1" 'BEGIN { printf "%.2f s", ns / 1e9 }'; }
	echo
	echo "boosts and the work that waits, in the $guest guest ($(uname -r)), starvd -t 2 -d 1, ${SECS} s busy loop:"
	echo "| daemon | lookups completed during the busy loop | longest lookup | victim runs | boosts of $irqcomm | escalations |"
	echo "|---|---|---|---|---|---|"
	echo "| none | $none_lookups | $(fmt "$none_longest") | $none_victim | | |"
	echo "| starvd (escalation, up to $(awk -v n="$esc_max" 'BEGIN { printf "%g us", n / 1000 }') granted) | $esc_lookups | $(fmt "$esc_longest") | $esc_victim | $esc_boosts | $esc_esc |"
	echo "| starvd --no-escalation | $lookups | $(fmt "$longest") | $victim | $boosts | 0 |"
fi

! dmesg_bad "$dmesg_skip"
ok $? "no kernel warning in dmesg"
echo "1..$n"
echo "# $(($(date +%s) - t0))s"
result "${skipped:-0}"
[ "$fail" = 0 ]
