# SPDX-License-Identifier: GPL-2.0-or-later
#
# stalld.service is starvd.service under stalld's names (make
# install-stalld-compat): the stalld link (log ident and prefix "stalld",
# run directory /run/stalld), /etc/sysconfig/stalld, and the two units
# conflict with each other. Everything else, the sandbox included, is
# starvd.service's: one unit to maintain.
s|^Description=.*|Description=Stall Monitor (starvd, a drop-in for stalld)|
s|^Conflicts=stalld\.service|Conflicts=starvd.service|
s|^# One starvation daemon at a time (stalld.service.*|# One starvation daemon at a time.|
/^EnvironmentFile=-\/etc\/default\/starvd$/d
s|^EnvironmentFile=-/etc/sysconfig/starvd$|EnvironmentFile=-/etc/sysconfig/stalld|
s|^RuntimeDirectory=starvd$|RuntimeDirectory=stalld|
s|@BINDIR@/starvd |@BINDIR@/stalld |g
s|/run/starvd|/run/stalld|g
