#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# scrape.sh EXPORTER DIR: what Prometheus would see of the *.prom files in
# DIR through node_exporter's textfile collector. Starts EXPORTER (Debian's
# prometheus-node-exporter, unpacked by selftests/Makefile) with only that
# collector on a free loopback port, scrapes /metrics once, stops it and
# prints the starvd_* and node_textfile_* samples, then the exporter's
# error lines, if any. Exit status 1 if no scrape could be made.
set -u
exporter=$1 dir=$2
log=$(mktemp)
pid=

stop() {
	[ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
	pid=
}
trap 'stop; rm -f "$log"' EXIT

# A port taken by something else makes the exporter exit: try the next.
for port in $(seq 19130 19169); do
	"$exporter" --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$dir" \
		--web.listen-address="127.0.0.1:$port" >"$log" 2>&1 &
	pid=$!
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		if out=$(curl -sf --max-time 5 "http://127.0.0.1:$port/metrics"); then
			stop
			grep -E '^(starvd|node_textfile)_' <<<"$out"
			grep 'level=error' "$log"
			exit 0
		fi
		sleep 0.1
	done
	stop
done
echo "scrape.sh: $exporter did not serve /metrics on any port tried:" >&2
cat "$log" >&2
exit 1
