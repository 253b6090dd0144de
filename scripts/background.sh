#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Work of make check that needs CPU but no quiet machine (vm/prepare.sh:
# downloads, DKMS and compiler runs; the packages), started before the
# unit and host suites and run beside them at nice 19 and off the
# suites' test CPU (the last one): the suites' daemons and busy loops are
# SCHED_FIFO, their SCHED_OTHER test processes keep nearly all of their
# CPU share, the builds use what the suites leave idle, and none of them
# can queue behind a test's busy loop, where starvd would report it. Not
# beside the load soak: its storm fills CPU 0, and work started beside it
# got no CPU at all (a dpkg-deb runnable for minutes).
#
#   background.sh start NAME COMMAND...  run COMMAND (shell words) in the
#                                        background; its output in NAME.log
#   background.sh wait NAME              wait for it, print NAME.log, exit
#                                        with its exit status
#   background.sh stop NAME              kill it and what it started (its
#                                        process group), if still running
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: background.sh start|wait|stop NAME [COMMAND...]" >&2; exit 2; }
cmd=$1 name=$2
shift 2
case $cmd in
start)
	rm -f "$name.rc" "$name.log" "$name.pid"
	mkdir -p "$(dirname "$name")"
	n=$(getconf _NPROCESSORS_ONLN)
	pin=()
	[ "$n" -lt 2 ] || pin=(taskset -c "0-$((n - 2))")
	# setsid: its own process group, which stop kills as a whole.
	setsid "${pin[@]}" nice -n 19 \
		bash -c '"$@" >"$0.log" 2>&1; echo $? >"$0.rc"' \
		"$name" "$@" </dev/null &
	echo $! >"$name.pid" ;;
wait)
	[ -f "$name.pid" ] || { echo "background.sh: $name was never started" >&2; exit 1; }
	pid=$(cat "$name.pid")
	while [ ! -f "$name.rc" ] && kill -0 "$pid" 2>/dev/null; do
		sleep 1
	done
	cat "$name.log"
	rc=$(cat "$name.rc" 2>/dev/null || echo 1)
	[ -f "$name.rc" ] || echo "background.sh: $name ended without an exit status (killed?)" >&2
	exit "$rc" ;;
stop)
	[ -f "$name.pid" ] || exit 0
	pid=$(cat "$name.pid")
	[ -f "$name.rc" ] || kill -- -"$pid" 2>/dev/null || true ;;
*)
	echo "background.sh: unknown command '$cmd' (start, wait, stop)" >&2
	exit 2 ;;
esac
