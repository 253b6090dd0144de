# SPDX-License-Identifier: GPL-2.0-or-later
#
# selftests/ as a kselftest target in a kernel tree (selftests/kselftest.mk);
# included by the top-level Makefile.
#   make kselftest        link selftests/ into the kselftest part of the
#                         linux-source tree (extracted into $(KSFT_TREE)) as
#                         tools/testing/selftests/starvd, build it there with
#                         the kernel's own Makefiles, as README's commands do
#                         (no STARVD_SRC: found through the link; O= keeps
#                         the outputs out of selftests/), and install it
#   make kselftest-run    run_kselftest.sh -c starvd from the install (root),
#                         its KTAP in $(KSFT_TAP) parsed by two consumers
#                         written elsewhere: Perl's prove and the kernel's
#                         tools/testing/kunit/kunit.py parse (each fails on
#                         a "not ok"); appends a results line to $(RESULTS)

KSFT_LINUX_SRC	?= $(lastword $(sort $(wildcard /usr/src/linux-source-*.tar.xz)))
KSFT_TREE	:= $(abspath $(O))/kselftest-tree
KSFT_OBJ	:= $(abspath $(O))/kselftest-obj
KSFT_INSTALL	:= $(abspath $(O))/kselftest_install
KSFT_TAP	:= $(abspath $(O))/kselftest.tap
# The kernel's make must not see this make's command-line variables (O).
KSFT_MAKE	= env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS $(MAKE) \
		  -C $(KSFT_TREE)/tools/testing/selftests TARGETS=starvd \
		  O=$(KSFT_OBJ) KSFT_INSTALL_PATH=$(KSFT_INSTALL)

# What `make -C tools/testing/selftests install` and run_kselftest.sh use.
$(KSFT_TREE)/.extracted:
	@test -n "$(KSFT_LINUX_SRC)" || { echo "no /usr/src/linux-source-*.tar.xz: run 'make deps-check' (installs linux-source-6.12)"; exit 1; }
	@rm -rf $(KSFT_TREE) && mkdir -p $(KSFT_TREE)
	@echo "  EXTRACT tools/testing/selftests (kselftest part) from $(KSFT_LINUX_SRC)"
	@tar -xJf $(KSFT_LINUX_SRC) -C $(KSFT_TREE) --strip-components=1 --wildcards \
		'*/tools/testing/selftests/Makefile' '*/tools/testing/selftests/lib.mk' \
		'*/tools/testing/selftests/run_kselftest.sh' \
		'*/tools/testing/selftests/kselftest/*' \
		'*/tools/testing/selftests/kselftest*.h' '*/scripts/subarch.include' \
		'*/tools/testing/kunit/*'
	@touch $@

kselftest: all $(KSFT_TREE)/.extracted
	@rm -rf $(KSFT_TREE)/tools/testing/selftests/starvd $(KSFT_INSTALL)
	ln -s $(CURDIR)/selftests $(KSFT_TREE)/tools/testing/selftests/starvd
	$(KSFT_MAKE)
	$(KSFT_MAKE) install

kselftest-run: kselftest
	cd $(KSFT_INSTALL) && ./run_kselftest.sh -c starvd | tee $(KSFT_TAP)
	@prove -e cat $(KSFT_TAP) && \
	 python3 $(KSFT_TREE)/tools/testing/kunit/kunit.py parse $(KSFT_TAP) && st=0 || st=1; \
	 ok=$$(grep -c '^ok ' $(KSFT_TAP)); skip=$$(grep -c '^ok .*# SKIP' $(KSFT_TAP)); \
	 bad=$$(grep -c '^not ok ' $(KSFT_TAP)); \
	 [ -z "$(RESULTS)" ] || echo "kselftest # Totals: pass:$$((ok - skip)) fail:$$bad xfail:0 xpass:0 skip:$$skip error:$$st" >>$(RESULTS); \
	 exit $$st

.PHONY: kselftest kselftest-run
