#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make run: the daemon in the foreground, verbose, BPF backend. RT
# throttling is turned off while it runs (starvd refuses to run with it on,
# like stalld) and put back when it stops. Extra arguments: ARGS="-t 5".
set -u
cd "$(dirname "$0")/.." || exit 1
[ "$(id -u)" = 0 ] || { echo "make run: run as root (starvd loads BPF programs and changes scheduling policies)" >&2; exit 1; }
. scripts/rt-throttle.sh
trap rt_throttle_restore EXIT
rt_throttle_off
echo "== user/starvd -v -b bpf $* (Ctrl-C stops it and restores what it boosted)"
user/starvd -v -b bpf "$@"
