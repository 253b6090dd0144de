#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Faults the module and the daemon must survive, run inside a test guest
# by guest-tests.sh (or alone, from the top of the tree, with the same
# environment). POSIX sh: the 686 guest runs it with busybox. Prints TAP
# and records one results line, vm-GUEST-faults, in $RESULTS.
#
#  1. nlfuzz: tens of thousands of random and malformed generic-netlink
#     messages at the family; every answer checked; the module still
#     answers; the kernel logs no warning.
#  2. the module loaded and unloaded 110 times while a query loop runs:
#     no oops, no leak (slab and vmalloc counts, see fault2).
#  3. the module unloaded under a running starvd -b netlink: the daemon
#     says so once, starvctl says to load it, the daemon takes the module
#     back when it is loaded again and detects a real starvation.
#  4. CPU 1 offline and back while starvd monitors it (netlink, and BPF
#     in the guests that test BPF, STARVD_VM_BACKENDS): it starts with the CPU offline, detects a
#     starvation on it once online, logs no error.
#  5. (64-bit guests) BPF cannot load (root without CAP_BPF, CAP_PERFMON
#     and CAP_SYS_ADMIN): -b auto says why and uses the module; without
#     the module too, starvd and starvctl exit 1 naming both.
#  6. starvctl -b netlink as nobody: exit 1, saying what it needs.
#  7. every walk of a snapshot finding more tasks than it has room for
#     (the module's fault_snap_overflow): get-tasks and get-cpus are
#     refused with EAGAIN; without it, every record they return is a
#     task that exists on a CPU that exists.
#
# Environment: as guest-tests.sh (STARVD_VM_GUEST, RESULTS, STARVD_BUILD,
# STARVD_BIN_DIR), STARVD_FUZZ_SEED and STARVD_FUZZ_COUNT for nlfuzz
# (default: a new seed each run, printed; 60000 messages), and
# STARVD_FAULTS, the checks to run (default "1 2 3 4 5 6 7").
guest=${STARVD_VM_GUEST:?run inside a guest, see vm/check.sh}
B=${STARVD_BUILD:?}
BIN=${STARVD_BIN_DIR:?}
: "${RESULTS:?}"
NL=$B/kmod-tests/nlcheck
FUZZ=$B/kmod-tests/nlfuzz
STARVE=$B/selftests/starve
RUN=/tmp/starvd-faults
LOG=$RUN/starvd.log
RT=/proc/sys/kernel/sched_rt_runtime_us
CPU1=/sys/devices/system/cpu/cpu1/online
. selftests/kmod/guest-lib.sh

want() {	# want N: is check N asked for?
	case " ${STARVD_FAULTS:-1 2 3 4 5 6 7} " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

rt_saved=$(cat $RT)
was_loaded=0
[ -d /sys/module/starvd ] && was_loaded=1
dpid=
spid=
lpid=

# Whatever happens: no daemon, busy loop or query loop left, CPU 1 and
# RT throttling as they were, the module as it was.
cleanup() {
	for p in $dpid $spid $lpid; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	[ ! -e $CPU1 ] || echo 1 >$CPU1 2>/dev/null
	echo "$rt_saved" >$RT
	if [ $was_loaded = 1 ]; then
		load
		echo 0 >/sys/module/starvd/parameters/fault_snap_overflow
	else
		unload_busy
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p $RUN

# start_daemon ARGS...: starvd in the foreground, verbose, log-only (the
# tests are about reading, not boosting), on CPU 0, logging to $LOG; its
# pid in dpid.
start_daemon() {
	: >$LOG
	"$BIN/starvd" -v -l -t 1 -a 0 --run-dir $RUN "$@" >$LOG 2>&1 &
	dpid=$!
}

# wait_log PATTERN [TENTHS]: until the daemon's log has PATTERN (an ERE),
# at most TENTHS tenths of a second (default 300) or until it exits.
wait_log() {
	w=0
	while ! grep -qE "$1" $LOG; do
		w=$((w + 1))
		if [ $w -ge "${2:-300}" ] || ! kill -0 "$dpid" 2>/dev/null; then
			grep -qE "$1" $LOG && return
			echo "# wait_log: no '$1' in the daemon's log after $w tries ($(date +%s))"
			return 1
		fi
		sleep 0.1
	done
}

stop_daemon() {	# SIGTERM; the daemon's exit status
	kill "$dpid" 2>/dev/null
	wait "$dpid"
	st=$?
	dpid=
	return $st
}

show_log() {
	sed 's/^/#   /' $LOG
}

# A real starvation on CPU 1: a SCHED_FIFO 10 victim behind a SCHED_FIFO
# 50 busy loop (selftests/starve; RT throttling must be off), its pid in
# spid. starve_stop ends it (the busy loop also ends by itself).
starve_start() {
	# Emptied here, not by the background job's redirection: that runs
	# when the child does, and detected() could read the last run's
	# victim tid from the file before it, and wait for a gone task.
	: >$RUN/starve.log
	"$STARVE" -c 1 -s 30 >>$RUN/starve.log 2>&1 &
	spid=$!
}

starve_stop() {
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
}

# where_stuck: where the daemon's threads are (state, wait channel,
# kernel stack), and every task blocked in D (on PREEMPT_RT also a wait
# for a sleeping spinlock) or runnable on CPU 1, with its stack: what a
# daemon that reads but does not log waits for, and who holds it. Shell
# builtins only: a TCG guest forks slowly, and CPU 1 is busy.
where_stuck() {
	for t in /proc/$dpid/task/*; do
		stuck_task "starvd thread" "$t"
	done
	for t in /proc/[0-9]*/task/*; do
		case $t in
		/proc/$dpid/*) ;;
		*) stuck_task task "$t" ;;
		esac
	done
}

stuck_task() {	# stuck_task WHAT /proc/PID/task/TID (every "starvd thread")
	read -r stat <"$2/stat" 2>/dev/null || return
	# shellcheck disable=SC2086 # the fields after "pid (comm) "
	set -- "$1" "$2" ${stat##*) }
	[ "$1" != task ] || [ "$3" = D ] || { [ "$3" = R ] && [ "${39}" = 1 ]; } ||
		return
	read -r comm <"$2/comm" 2>/dev/null
	read -r wchan <"$2/wchan" 2>/dev/null
	echo "# where_stuck: $1 ${2#/proc/} $comm: state $3 on CPU ${39}, wchan ${wchan:-?}"
	while read -r addr sym; do
		echo "#     $sym"
	done <"$2/stack" 2>/dev/null
}

# status_lines: how many "status:" lines the daemon's log has.
status_lines() {
	grep -c 'starvd: status: ' $LOG
}

# uptime_cs: seconds since boot in hundredths, in up_cs, without a fork.
uptime_cs() {
	read -r up_cs _ </proc/uptime
	up_cs=${up_cs%.*}${up_cs#*.}
}

# victim_tid: the tid starve named its victim by, in vtid ("" before).
victim_tid() {
	vtid=$(sed -n 's/.*victim stv-victim tid \([0-9]*\) .*/\1/p' \
	       $RUN/starve.log)
}

# detected WHAT: starve on CPU 1; the daemon must report this victim (by
# its tid: the log may name earlier ones). starvd reports a task only
# from a read that saw it waiting for the threshold, so the report proves
# the detection, whenever the test gets to read it: the log is read while
# the starvation lasts (starve ends its busy loop by itself), then once
# more after the daemon has written every line it had queued (the status
# line SIGUSR1 asks for comes after them). Just after CPU 1 comes online,
# the victim can be in the log from the first second while the test is
# still reading the victim's tid when the busy loop ends. The likely
# cause: -l boosts nothing, and what CPU 1 is doing when the busy loop
# takes it (after hotplug, the kernel's own follow-up work) can hold what
# a fork, exec or exit on CPU 0 needs. So the tid is read again
# once the starvation is over, and such a hold-up is said, not failed. A
# line still missing 5 s into the starvation is explained (where_stuck).
detected() {
	starve_start
	uptime_cs
	started_cs=$up_cs
	# Until starve names its victim (once it starves), or starve is gone:
	# bounded by its own 30 s, not by a count of sleeps (a TCG guest
	# just after CPU hotplug took more than 100 of them).
	until victim_tid && [ -n "$vtid" ]; do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	line="stv-victim-$vtid starved on CPU 1 "
	explained=0
	while [ -n "$vtid" ] && ! grep -q "$line" $LOG &&
	      kill -0 "$spid" 2>/dev/null && kill -0 "$dpid" 2>/dev/null; do
		if [ $explained = 0 ] &&
		   grep -q 't= *5s .*(starving)' $RUN/starve.log; then
			echo "# detected: 5 s into the starvation of stv-victim-$vtid the daemon's log does not name it ($(date +%s)); where it is:"
			where_stuck
			explained=1
		fi
		sleep 0.1
	done
	starve_stop
	if [ -z "$vtid" ]; then
		uptime_cs
		victim_tid
		line="stv-victim-${vtid:-none} starved on CPU 1 "
		[ -z "$vtid" ] ||
			echo "# detected: this test was held up: it learned the victim's tid ($vtid) only when the starvation was over, $(((up_cs - started_cs) / 100)) s after starting it"
	fi
	r=0
	if ! grep -q "$line" $LOG; then
		before=$(status_lines)
		kill -USR1 "$dpid" 2>/dev/null
		w=0
		while [ "$(status_lines)" = "$before" ] && [ $w -lt 300 ] &&
		      kill -0 "$dpid" 2>/dev/null; do
			w=$((w + 1))
			sleep 0.1
		done
		grep -q "$line" $LOG || r=1
		[ $r = 1 ] ||
			echo "# detected: the report of stv-victim-$vtid reached the log only after the starvation ($(date +%s))"
	fi
	[ $r = 0 ] || { show_log; sed 's/^/#   /' $RUN/starve.log; }
	ok $r "$1"
}

# 1. fuzzing the family
fault1() {
	step "1. fuzzing the family"
	load
	seed=${STARVD_FUZZ_SEED:-$(date +%s)}
	tap_from "$FUZZ" -s "$seed" -n "${STARVD_FUZZ_COUNT:-60000}"
	[ "$tap_rc" -le 1 ]
	ok $? "nlfuzz ran to its end (exit status $tap_rc; rerun: STARVD_FUZZ_SEED=$seed)"
	"$NL" info >/dev/null
	ok $? "nlcheck info answers after the fuzzing"
	! dmesg_bad "$dmesg_skip"
	ok $? "no kernel warning in dmesg after the fuzzing"
}

# 2. load and unload 110 times while a query loop runs
#
# A leak is found by counting, in three quiet moments, the objects in use
# in the plain kmalloc caches (where the module's own allocations and
# genetlink's go; nlcheck slab: each cache shrunk, then the smallest of
# five counts) and the vmalloc'ed memory (module text and data): after 10
# warm-up cycles (first-use allocations), after 50 more and after 50
# more. Before each count the query loop is stopped and the kernel drops
# its dentry and inode caches, so what the shell and 9p cache is not
# counted. What is left moves by one slab's worth of one cache at most
# (up to 64 objects seen, either way, between quiet moments) and not
# with the number of cycles. A leak of even one object per cycle (or per
# query: there are thousands) grows both halves by 50 or more objects; a
# leak of module memory by 50 pages or more. So growth is a leak only
# when both halves show it: the noise can make one half grow, not both.
mem_count() {	# mem_count NAME: counts into $RUN/slab.NAME; prints totals
	sync
	echo 2 >/proc/sys/vm/drop_caches
	"$NL" slab >$RUN/slab.$1
	echo "$(sed -n 's/^total //p' $RUN/slab.$1)" \
		"$(awk '/^VmallocUsed:/ { print $2 }' /proc/meminfo)"
}

# reload_cycles N: load, query, unload N times under a query loop (10 ms
# between queries, still tens of them in each cycle: without pauses the
# loop takes the single host thread of both vCPUs from modprobe: at 2 ms
# a cycle takes about twice as long).
reload_cycles() {
	"$NL" loop 3600 10 >$RUN/loop.log 2>&1 &
	lpid=$!
	c=0
	while [ $c -lt "$1" ]; do
		load || cycle_fail=$((cycle_fail + 1))
		"$NL" info >/dev/null || cycle_fail=$((cycle_fail + 1))
		unload_busy || cycle_fail=$((cycle_fail + 1))
		c=$((c + 1))
	done
	cycles=$((cycles + c))
	# The loop runs until stopped; an error would have ended it early.
	kill -0 $lpid 2>/dev/null
	loop_ok=$?
	kill $lpid
	wait $lpid
	loop_rc=$?
	lpid=
	sed 's/^/#   /' $RUN/loop.log
	[ $loop_ok = 0 ] && [ $loop_rc = 0 ]
}

fault2() {
	step "2. load and unload 110 times while a query loop runs"
	cycles=0
	cycle_fail=0
	unload_busy
	reload_cycles 10
	r1=$?
	set -- $(mem_count a)
	s0=$1 v0=$2
	reload_cycles 50
	r2=$?
	set -- $(mem_count b)
	s1=$1 v1=$2
	reload_cycles 50
	r3=$?
	set -- $(mem_count c)
	s2=$1 v2=$2
	[ $r1 = 0 ] && [ $r2 = 0 ] && [ $r3 = 0 ]
	ok $? "a query loop ran through $cycles loads and unloads, seeing only clean errors"
	[ $cycle_fail = 0 ]
	ok $? "every load, get-info and unload worked ($cycle_fail failures)"
	echo "# kmalloc objects in use: $s0, +$((s1 - s0)), +$((s2 - s1)); vmalloc kB: $v0, +$((v1 - v0)), +$((v2 - v1))"
	awk 'NR == FNR { a[$1] = $2; next } $1 != "total" && $2 != a[$1] {
		printf "#   %s: %+d\n", $1, $2 - a[$1] }' $RUN/slab.a $RUN/slab.c
	! { [ $((s1 - s0)) -ge 50 ] && [ $((s2 - s1)) -ge 50 ]; }
	ok $? "no kmalloc objects leaked: $((s1 - s0)) and $((s2 - s1)) more in use after twice 50 reloads (a leak: 50 or more, both times)"
	! { [ $((v1 - v0)) -ge 200 ] && [ $((v2 - v1)) -ge 200 ]; }
	ok $? "no module memory leaked: vmalloc'ed $((v1 - v0)) and $((v2 - v1)) kB more (a leak: 200 kB or more, both times)"
	! dmesg_bad "$dmesg_skip"
	ok $? "no kernel warning in dmesg after the reloads"
}

# 3. the module unloaded under a running daemon, and loaded again
fault3() {
	step "3. the module unloaded under a running daemon, and loaded again"
	echo -1 >$RT
	load
	start_daemon -b netlink
	wait_log 'monitoring CPUs' 600
	ok $? "starvd -b netlink starts"
	unload_busy
	ok $? "the module unloads under the daemon"
	wait_log 'backend failed: .*modprobe starvd' 100
	ok $? "the daemon logs that the module is gone and how to load it"
	out=$("$BIN/starvctl" -b netlink tasks 2>&1)
	st=$?
	echo "$out" | sed 's/^/#   /'
	[ $st = 1 ] && echo "$out" | grep -q "module is not loaded.*modprobe starvd"
	ok $? "meanwhile starvctl -b netlink exits 1: module not loaded, modprobe starvd"
	# Retries back off from 0.1 s: by the fifth, 3 s have passed. SIGUSR1
	# makes the daemon say how many it made.
	w=0
	until grep -qE 'reads failing .*\(([5-9]|[1-9][0-9]+) attempts\)' $LOG; do
		w=$((w + 1))
		[ $w -lt 60 ] || break
		kill -USR1 "$dpid"
		sleep 0.5
	done
	grep -E 'reads failing' $LOG | tail -n 1 | sed 's/^/#   /'
	[ "$(grep -c 'backend failed' $LOG)" = 1 ]
	ok $? "the daemon retried at least 5 times and logged the failure once"
	kill -0 "$dpid" 2>/dev/null
	ok $? "the daemon is still running"
	load
	wait_log 'backend works again' 150
	ok $? "after modprobe the daemon logs that it reads again"
	detected "the daemon detects a real starvation on CPU 1 through the reloaded module"
	stop_daemon
	ok $? "starvd exits 0 on SIGTERM"
	[ "$(grep -c 'backend failed' $LOG)" = 1 ] &&
		[ "$(grep -c 'backend works again' $LOG)" = 1 ]
	ok $? "one failure line and one recovery line in the whole log"
	show_log
	echo "$rt_saved" >$RT
}

# 4. CPU hotplug under the daemon
hotplug() {	# hotplug BACKEND
	echo 0 >$CPU1
	start_daemon -b "$1" -c 1
	wait_log 'monitoring CPUs' 600
	ok $? "$1: starvd -c 1 starts while CPU 1 is offline"
	echo 1 >$CPU1
	detected "$1: once CPU 1 is online, a starvation on it is detected"
	echo 0 >$CPU1
	# A few reads with the monitored CPU gone.
	sleep 2
	kill -0 "$dpid" 2>/dev/null
	ok $? "$1: the daemon keeps running while CPU 1 goes offline again"
	out=$("$BIN/starvctl" -b "$1" cpus 2>&1)
	st=$?
	echo "$out" | sed 's/^/#   /'
	[ $st = 0 ]
	ok $? "$1: starvctl cpus works with CPU 1 offline"
	echo 1 >$CPU1
	detected "$1: CPU 1 back online: a starvation on it is detected again"
	stop_daemon
	ok $? "$1: starvd exits 0 on SIGTERM"
	# (detected() may have asked for a status line: "0 boost failures".)
	! grep -v 'starvd: status: ' $LOG | grep -iE 'fail|error|cannot'
	ok $? "$1: no error in the daemon's log"
	show_log
}

fault4() {
	step "4. CPU hotplug under the daemon"
	if [ ! -e $CPU1 ]; then
		echo "# CPU 1 cannot go offline in this guest: no hotplug checks"
		return
	fi
	echo -1 >$RT
	load
	hotplug netlink
	case " ${STARVD_VM_BACKENDS:-netlink} " in
	*" bpf "*) hotplug bpf ;;
	esac
	echo "$rt_saved" >$RT
}

# 5. BPF cannot load: -b auto falls back to the module
# Root, but without what loading BPF programs needs. A command prefix,
# not a function: "nobpf starvd &" as a function backgrounds a subshell,
# and killing $! left the daemon running through every later suite.
nobpf="setpriv --bounding-set=-bpf,-perfmon,-sys_admin"

fault5() {
	step "5. BPF cannot load: -b auto falls back to the module"
	if [ "$i386" = 1 ]; then
		# The real "no usable BPF" case: a kernel without BTF (and a
		# daemon built without BPF for it). -b auto needs no help.
		echo -1 >$RT
		load
		: >$LOG
		"$BIN/starvd" -v -l -t 1 -a 0 --run-dir $RUN -b auto >$LOG 2>&1 &
		dpid=$!
		wait_log 'monitoring CPUs' 600
		ok $? "-b auto on a kernel without BTF: starvd starts"
		grep -q 'BPF backend is unavailable, using the kernel module.*: the kernel lacks BTF' $LOG
		ok $? "-b auto: one line says BPF is unusable because the kernel lacks BTF, and that the module is used"
		grep -q 'backend netlink (starvd.ko .*) (BPF unavailable)' $LOG
		ok $? "-b auto: the daemon runs on the netlink backend"
		detected "-b auto on the module: a starvation is detected"
		stop_daemon
		show_log
		return
	fi
	echo -1 >$RT
	load
	: >$LOG
	$nobpf "$BIN/starvd" -v -l -t 1 -a 0 --run-dir $RUN -b auto \
		>$LOG 2>&1 &
	dpid=$!
	wait_log 'monitoring CPUs' 600
	ok $? "-b auto without CAP_BPF: starvd starts"
	grep -q 'BPF backend is unavailable, using the kernel module.*CAP_BPF' $LOG
	ok $? "-b auto: the log says BPF failed, why (CAP_BPF), and that the module is used"
	grep -q 'backend netlink (starvd.ko .*) (BPF unavailable)' $LOG
	ok $? "-b auto: the daemon runs on the netlink backend"
	detected "-b auto on the module: a starvation is detected"
	stop_daemon
	show_log
	unload_busy
	out=$($nobpf "$BIN/starvd" -v -l -t 1 -a 0 --run-dir $RUN -b auto 2>&1)
	st=$?
	echo "$out" | sed 's/^/#   /'
	[ $st = 1 ] && echo "$out" | grep -q 'BPF backend: .*CAP_BPF' &&
		echo "$out" | grep -q 'netlink backend: .*modprobe starvd'
	ok $? "without BPF and without the module starvd exits 1, naming both"
	out=$($nobpf "$BIN/starvctl" tasks 2>&1)
	st=$?
	echo "$out" | sed 's/^/#   /'
	[ $st = 1 ] && echo "$out" | grep -q 'BPF backend: .*CAP_BPF' &&
		echo "$out" | grep -q 'netlink backend: .*modprobe starvd'
	ok $? "and starvctl too"
	echo "$rt_saved" >$RT
}

# 6. starvctl -b netlink as nobody
fault6() {
	step "6. starvctl -b netlink as nobody"
	load
	out=$(as_nobody "$BIN/starvctl" -b netlink tasks 2>&1)
	st=$?
	echo "$out" | sed 's/^/#   /'
	[ $st = 1 ] && echo "$out" | grep -q 'needs CAP_NET_ADMIN: run as root'
	ok $? "starvctl -b netlink as nobody exits 1: needs CAP_NET_ADMIN, run as root"
}

# 7. every walk of a snapshot overflowing: 200 spinning threads, more
# than a first walk has room for
fault7() {
	step "7. every walk of a snapshot overflowing"
	load
	tap_from "$NL" records 200
	echo 1 >/sys/module/starvd/parameters/fault_snap_overflow
	ok $? "fault_snap_overflow set"
	tap_from "$NL" records 200 refused
	echo 0 >/sys/module/starvd/parameters/fault_snap_overflow
}

echo "TAP version 13"
echo "# guest $guest, kernel $(uname -r): faults"
dmesg_skip=$(dmesg | wc -l)
for f in 1 2 3 4 5 6 7; do
	want $f && fault$f
done
! dmesg_bad "$dmesg_skip"
ok $? "no kernel warning in dmesg"
echo "1..$n"
echo "# $(($(date +%s) - t0))s of fault checks"
echo "vm-$guest-faults # Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0" >>"$RESULTS"
