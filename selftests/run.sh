#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run selftest suites, each binary printing KTAP, and record one line per
# suite in $RESULTS (see summary.sh). Without RESULTS it prints the
# summary itself.
#
# Usage: run.sh BINDIR [unit] [host]
#   unit   pure logic, no root needed
#   host   real starvation through the backend in $STARVD_TEST_BACKEND
#          (bpf: each mode of $STARVD_TEST_BPF_MODES) and the CLI tests
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
rt_saved=$(cat $rt_path 2>/dev/null)

# Whatever happens to a test, RT throttling comes back and no busy loop
# outlives the run (each test also cleans up after itself).
cleanup() {
	[ -x "$STARVD_BIN_DIR/starvd" ] &&
		"$STARVD_BIN_DIR/starvd" --restore --run-dir /run/starvd-selftests
	if [ -n "$rt_saved" ] && [ "$(cat $rt_path)" != "$rt_saved" ]; then
		echo "# restoring kernel.sched_rt_runtime_us=$rt_saved"
		echo "$rt_saved" > $rt_path
	fi
	for pid in $(pidof stv-hog); do
		echo "# killing leftover busy loop $pid"
		kill -9 "$pid"
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

run_one() {	# name binary [VAR=value...]
	local name=${SUITE_PREFIX:-}$1 bin=$2 out
	shift 2
	echo "# === $name"
	out=$(mktemp)
	env "$@" "$bin" 2>&1 | tee "$out"
	if grep -q '^# Totals:' "$out"; then
		echo "$name $(grep '^# Totals:' "$out" | tail -n1)" >> "$RESULTS"
	else
		echo "$name # Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:1" >> "$RESULTS"
	fi
	rm -f "$out"
}

cd "$here" || exit 1
for suite in $suites; do
	case $suite in
	unit)
		for t in options cpuset detect journal; do
			run_one "unit-$t" "$bindir/test_$t"
		done ;;
	host)
		backend=${STARVD_TEST_BACKEND:-bpf}
		if [ "$backend" = bpf ]; then
			for mode in ${STARVD_TEST_BPF_MODES:-sched_info tracking}; do
				run_one "starvation-bpf-$mode" "$bindir/test_starvation" \
					STARVD_TEST_BACKEND=bpf STARVD_TEST_BPF_MODE=$mode
			done
		else
			run_one "starvation-$backend" "$bindir/test_starvation" \
				STARVD_TEST_BACKEND="$backend"
		fi
		run_one "cli-$backend" "$bindir/test_cli" STARVD_TEST_BACKEND="$backend" ;;
	*)
		echo "run.sh: unknown suite '$suite' (unit, host)" >&2
		exit 2 ;;
	esac
done

if [ -n "$own_results" ]; then
	"$here/summary.sh" "$RESULTS"
	status=$?
	rm -f "$RESULTS"
	exit $status
fi
