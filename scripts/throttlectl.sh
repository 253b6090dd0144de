#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# stalld's throttlectl on starvd (make install-stalld-compat installs it as
# throttlectl): "off" saves kernel.sched_rt_runtime_us in /run/stalld and
# turns RT throttling off, "on" puts the saved value back (the kernel's
# default 950000 if none is saved), "show" prints it. The work is done by
# stalld --rt-throttling, the same code the daemon uses.
case ${1-} in
off|on|show)
	exec @BINDIR@/stalld --rt-throttling "$1" ;;
*)
	echo "usage: $0 on|off|show" >&2
	exit 2 ;;
esac
