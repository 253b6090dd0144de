# SPDX-License-Identifier: GPL-2.0-or-later
#
# selftests/ as a kselftest target: copied or linked into a kernel tree as
# tools/testing/selftests/starvd (make kselftest links it into the
# linux-source tree the build extracts), built there through the kernel's
# lib.mk and installed and run by its kselftest machinery:
#   make -C tools/testing/selftests TARGETS=starvd
#   make -C tools/testing/selftests TARGETS=starvd install
#   kselftest_install/run_kselftest.sh -c starvd
# STARVD_SRC: the starvd tree (user/ and include/ for libstarvd.a, the
# daemon and starvctl under test, built here into $(OUTPUT)/starvd-build
# and installed next to the tests, where lib/daemon_proc.c finds them).
# Linked, it is the parent of this directory's real location (make -C
# enters the link's target); a copy has no starvd tree around it, so
# STARVD_SRC=/path/to/starvd is needed then.
# settings: the timeout; config: the kernel options the tests need.
# Included by selftests/Makefile when it finds the kernel's lib.mk
# ($(KSFT_LIB_MK)).

STARVD_SRC	?= $(realpath $(CURDIR)/..)
ifeq ($(wildcard $(STARVD_SRC)/user/starvd.c),)
ifeq ($(origin STARVD_SRC),file)
$(error $(CURDIR) is a copy of starvd's selftests/, with no starvd tree around it: set STARVD_SRC=/path/to/starvd (its user/ and include/ are built for the tests), or link the directory instead of copying it (ln -s /path/to/starvd/selftests tools/testing/selftests/starvd))
else
$(error STARVD_SRC=$(STARVD_SRC) is not a starvd tree (no user/starvd.c there): set it to the top of a starvd checkout)
endif
endif

TEST_GEN_PROGS := test_options test_cpuset test_detect test_journal test_event \
		  test_cli test_starvation
TEST_GEN_PROGS_EXTENDED := starvd starvctl
LOCAL_HDRS := $(wildcard lib/*.h)

include $(KSFT_LIB_MK)

STARVD_O	:= $(OUTPUT)/starvd-build
LIB		:= lib/workload.c lib/daemon_proc.c
CFLAGS		+= -O2 -g -Wall -Wno-unused-parameter -I$(selfdir) -I. \
		   -I$(STARVD_SRC)/user -I$(STARVD_SRC)/include -I$(STARVD_O)
LDLIBS		+= -lbpf -lelf -lz -ldl -lnl-genl-3 -lnl-3 -lcap -ljson-c -lm -lpthread

# starvd's own Makefile, without the kselftest make's variables (OUTPUT,
# O) on its command line.
STARVD_MAKE	= env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS \
		  $(MAKE) -C $(STARVD_SRC) O=$(STARVD_O) BIN=$(OUTPUT)

$(STARVD_O)/libstarvd.a $(OUTPUT)/starvd $(OUTPUT)/starvctl: FORCE
	$(STARVD_MAKE) $(OUTPUT)/starvd $(OUTPUT)/starvctl $(STARVD_O)/libstarvd.a

$(TEST_GEN_PROGS): $(LIB) $(STARVD_O)/libstarvd.a

EXTRA_CLEAN	:= $(STARVD_O)

.PHONY: FORCE
