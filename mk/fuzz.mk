# SPDX-License-Identifier: GPL-2.0-or-later
#
# Fuzzing the parsers of outside input with libFuzzer; included by the
# top-level Makefile.
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="options cpuset"]
#       build selftests/fuzz/fuzz_<target>.c with clang
#       (-fsanitize=fuzzer,address,undefined) into $(O)/fuzz/ and run each
#       target for FUZZ_SECONDS; inputs that fail are copied into
#       selftests/fuzz/regressions/<target>/, which make check replays.
# Targets: options (starvd's command line), starvctl (its command line),
# cpuset (CPU lists), journal (boost journal entries), status_file (the
# state file starvctl reads). FUZZ_ARGS passes more libFuzzer options.

FUZZ_SECONDS	?= 60
FUZZ_TARGETS	?= options starvctl cpuset journal status_file

fuzz: deps
	$(SELFTESTS) fuzz FUZZ_CC="$(CLANG)" FUZZ_SECONDS="$(FUZZ_SECONDS)" \
		FUZZ_TARGETS="$(FUZZ_TARGETS)"

.PHONY: fuzz
