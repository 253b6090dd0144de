#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run selftest suites, each binary printing KTAP, and record one line per
# suite in $RESULTS (see summary.sh). Without RESULTS it prints the
# summary itself.
#
# Usage: run.sh BINDIR [unit] [host] [rescue] [softirq] [stacks] [load]
#   unit   pure logic, the coding style and the tree's own checks
#          (selftests/tree-check.py), no root needed
#   host   real starvation through the backend in $STARVD_TEST_BACKEND
#          (bpf: each mode of $STARVD_TEST_BPF_MODES), the rescues judged
#          from outside (test_rescue), the CLI tests and the stalld
#          compatibility suite
#   rescue, stacks  test_rescue, test_stacks alone (both are in host)
#   softirq  test_rescue's kernel_thread_softirq alone (threadirqs boots)
#   load   the soak: real starvation injected under 10,000 threads and a
#          fork/exit and context-switch storm for $STARVD_LOAD_SECONDS
#          (default 60) per backend / BPF mode, as for host. Not part of
#          host: guests run host under TCG, where it would not fit.
# Environment: STARVD_BIN_DIR (starvd, starvctl; default ../user),
#   SUITE_PREFIX (prepended to suite names, e.g. "vm-6.12-").
set -u
bindir=$(cd "$1" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
suites=${*:-unit host}
export STARVD_BIN_DIR=${STARVD_BIN_DIR:-$here/../user}
own_results=
if [ -z "${RESULTS:-}" ]; then
	RESULTS=$(mktemp)
	own_results=1
fi
rt_path=/proc/sys/kernel/sched_rt_runtime_us
# One run at a time on a machine: a second run would save the first's
# "-1" as the value to restore, and their busy loops would share a CPU.
# (Only where flock runs: the 686 test guest sees the host's 64-bit one.)
if [ "$(id -u)" = 0 ] && flock -V >/dev/null 2>&1; then
	exec 9>/run/starvd-selftests.lock
	flock 9 || exit 1
fi
rt_saved=$(cat $rt_path 2>/dev/null)
# The daemons under test journal their boosts in $run_dir. /run is tmpfs
# on any systemd machine; where it is not (this may be a bare container),
# a tmpfs of its own keeps the tests as fast as the real thing: on disk,
# every boost would wait for an fsync that needs the very kernel threads
# the busy loops starve.
run_dir=/run/starvd-selftests
own_tmpfs=
if [ "$(id -u)" = 0 ] && [ "$(stat -f -c %T /run 2>/dev/null)" != tmpfs ] &&
   ! mountpoint -q $run_dir 2>/dev/null; then
	mkdir -p $run_dir &&
		mount -t tmpfs -o mode=0700,size=4m starvd-selftests $run_dir &&
		own_tmpfs=1
fi

# Whatever happens to a test, RT throttling comes back and no busy loop
# outlives the run (each test also cleans up after itself).
cleanup() {
	[ -x "$STARVD_BIN_DIR/starvd" ] &&
		"$STARVD_BIN_DIR/starvd" --restore --run-dir $run_dir
	[ -z "$own_tmpfs" ] || umount $run_dir
	if [ -n "$rt_saved" ] && [ "$(cat $rt_path)" != "$rt_saved" ]; then
		echo "# restoring kernel.sched_rt_runtime_us=$rt_saved"
		echo "$rt_saved" > $rt_path
	fi
	tmux -L starvd-selftests kill-server 2>/dev/null
	for pid in $(pidof stv-hog); do
		echo "# killing leftover busy loop $pid"
		kill -9 "$pid"
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# POSIX sh (busybox in the 32-bit guests): no arrays; $run_args, if set,
# are the binary's arguments (split on spaces).
run_args=
run_one() {	# name binary [VAR=value...]
	local name=${SUITE_PREFIX:-}$1 bin=$2 out t0
	t0=$(date +%s)
	shift 2
	echo "# === $name"
	out=$(mktemp)
	# shellcheck disable=SC2086 # $run_args: words on purpose
	env "$@" "$bin" $run_args 2>&1 | tee "$out"
	echo "# === $name: $(($(date +%s) - t0)) s"
	if grep -q '^# Totals:' "$out"; then
		echo "$name $(grep '^# Totals:' "$out" | tail -n1)" >> "$RESULTS"
	else
		echo "$name # Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:1" >> "$RESULTS"
	fi
	rm -f "$out"
}

# per_mode NAME BINARY: once per BPF mode with the BPF backend, else once.
per_mode() {
	if [ "$backend" = bpf ]; then
		for mode in ${STARVD_TEST_BPF_MODES:-sched_info tracking}; do
			run_one "$1-bpf-$mode" "$bindir/$2" \
				STARVD_TEST_BACKEND=bpf STARVD_TEST_BPF_MODE=$mode
		done
	else
		run_one "$1-$backend" "$bindir/$2" STARVD_TEST_BACKEND="$backend"
	fi
}

cd "$here" || exit 1
for suite in $suites; do
	case $suite in
	unit)
		for t in options cpuset detect journal identity escalate event escape \
			ksym util task_cgroup task_role stack_unwind advise status log_ring \
			episodes pending; do
			run_one "unit-$t" "$bindir/test_$t"
		done
		# The netlink ABI: the generated header, the module's and the
		# netlink backend's policies against include/starvd/starvd.yaml.
		run_one "unit-abi" "$here/kmod/abi-check.py" \
			STARVD_YNL="$("$here/../vm/ynl.sh")"
		# The guests' scanner of kernel reports (vm/kernel-reports.sh).
		run_one "unit-kernel-reports" "$here/kmod/kernel-reports-test.sh"
		# The modules of user/ include each other one way.
		run_one "unit-include-graph" "$here/../scripts/include-graph.py"
		# kmod/, bpf/ and the ABI header in the kernel's coding style.
		run_one "unit-style" "$here/style.sh" \
			CHECKPATCH="$bindir/checkpatch/checkpatch.pl"
		# The shipped Prometheus rules, with promtool's unit tests.
		run_one "unit-prometheus-rules" "$here/promtool.sh" \
			PROMTOOL="$bindir/prometheus/usr/bin/promtool"
		# The tree itself (selftests/tree-check.py): no run history in
		# any file, every relative Markdown link resolves, the man
		# pages list exactly the options --help prints, one version.
		for t in history links man version; do
			run_one "unit-$t" "$here/tree-check.py" TREE_CHECK="$t"
		done
		# The fuzz targets over their seeds and regressions (make fuzz).
		run_one "unit-fuzz-replay" "$bindir/fuzz_replay" \
			STARVD_FUZZ_DIR="$here/fuzz" ;;
	host)
		backend=${STARVD_TEST_BACKEND:-bpf}
		per_mode starvation test_starvation
		# Tracking mode on a kernel without sched_info (its BTF faked).
		[ "$backend" != bpf ] || [ ! -x "$bindir/test_bpf_fallback" ] ||
			run_one "bpf-fallback" "$bindir/test_bpf_fallback"
		run_one "resilience-$backend" "$bindir/test_resilience" \
			STARVD_TEST_BACKEND="$backend"
		# Rescues judged from outside: the unpinned daemon, kernel threads.
		run_one "rescue-$backend" "$bindir/test_rescue" \
			STARVD_TEST_BACKEND="$backend"
		run_one "cli-$backend" "$bindir/test_cli" STARVD_TEST_BACKEND="$backend"
		# Not in the TCG guests: there a boost's CPU time is not what
		# the guest's clock grants, and the escalation suite fails;
		# the RT guest's guest-escalate.sh proves escalation by counts
		# instead.
		[ -n "${STARVD_VM_GUEST:-}" ] ||
			run_one "escalation-$backend" "$bindir/test_escalation" \
				STARVD_TEST_BACKEND="$backend"
		run_one "privileges-$backend" "$bindir/test_privileges" \
			STARVD_TEST_BACKEND="$backend"
		# Hostile thread names through every sink of a real boost.
		# Host only, as test_operator below: what they check is
		# starvd's own text and tools, the same on every kernel, and
		# under TCG they would cost minutes a guest.
		[ -n "${STARVD_VM_GUEST:-}" ] ||
			run_one "hostile-names-$backend" \
				"$bindir/test_hostile_names" \
				STARVD_TEST_BACKEND="$backend"
		# Holder stacks named from outside. In the guests once, with
		# BPF where the kernel has BTF (else the module: the 686
		# guest): the capture does not depend on the backend, but on
		# the kernel (what perf_event_open() asks for, and what
		# closing an event waits for on PREEMPT_RT).
		[ ! -x "$bindir/test_stacks" ] ||
			{ [ -n "${STARVD_VM_GUEST:-}" ] && [ "$backend" != bpf ] &&
			  [ -e /sys/kernel/btf/vmlinux ]; } ||
			run_one "stacks-$backend" "$bindir/test_stacks" \
				STARVD_TEST_BACKEND="$backend"
		# starvd run as stalld through a link, stalld-style.
		run_one "stalld-compat-$backend" "$bindir/test_stalld_compat" \
			STARVD_TEST_BACKEND="$backend"
		# starvctl top in tmux, and the shipped alert firing and
		# resolving on a real Prometheus (test_operator.c).
		[ -n "${STARVD_VM_GUEST:-}" ] ||
			run_one "operator-$backend" "$bindir/test_operator" \
				STARVD_TEST_BACKEND="$backend" \
				STARVD_NODE_EXPORTER="$bindir/node-exporter/usr/bin/prometheus-node-exporter" \
				STARVD_PROMETHEUS="$bindir/prometheus/usr/bin/prometheus" ;;
	rescue)
		# test_rescue alone (part of host): the PREEMPT_RT guest.
		backend=${STARVD_TEST_BACKEND:-bpf}
		run_one "rescue-$backend" "$bindir/test_rescue" \
			STARVD_TEST_BACKEND="$backend" ;;
	softirq)
		# A starving ksoftirqd (test_rescue's kernel_thread_softirq
		# alone): the guests booted with threadirqs.
		backend=${STARVD_TEST_BACKEND:-bpf}
		run_args="-t kernel_thread_softirq"
		run_one "softirq-$backend" "$bindir/test_rescue" \
			STARVD_TEST_BACKEND="$backend"
		run_args= ;;
	stacks)
		# test_stacks alone (part of host): the generic 6.12 guest.
		backend=${STARVD_TEST_BACKEND:-bpf}
		run_one "stacks-$backend" "$bindir/test_stacks" \
			STARVD_TEST_BACKEND="$backend" ;;
	load)
		backend=${STARVD_TEST_BACKEND:-bpf}
		per_mode load test_load ;;
	*)
		echo "run.sh: unknown suite '$suite' (unit, host, rescue, softirq, stacks, load)" >&2
		exit 2 ;;
	esac
done

if [ -n "$own_results" ]; then
	"$here/summary.sh" "$RESULTS"
	status=$?
	rm -f "$RESULTS"
	exit $status
fi
