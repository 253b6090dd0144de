# SPDX-License-Identifier: GPL-2.0-or-later
#
# Fuzz targets (fuzz_<target>.c), included by selftests/Makefile:
#   $(B)/fuzz_replay   every target's entry point over its seeds and
#                      regressions, built with $(CC) (KTAP; make check)
#   fuzz               build the libFuzzer binaries with $(FUZZ_CC) and run
#                      each for FUZZ_SECONDS (fuzz/run.sh; make fuzz)

FUZZ_ALL	:= options starvctl cpuset journal status_file json
FUZZ_TARGETS	?= $(FUZZ_ALL)
FUZZ_SECONDS	?= 60
FUZZ_CC		?= clang
# The user/ code the targets reach, compiled in with the instrumentation.
FUZZ_USER	:= $(addprefix ../user/,$(addsuffix .c,options starvctl_args \
		   cpuset util journal status_file metrics json sched_attr \
		   escape))
FUZZ_DEPS	:= $(FUZZ_USER) $(wildcard ../user/*.h) fuzz/fuzz.h lib/json_strict.h
FZ		:= $(O)/fuzz
REPLAY_O	:= $(B)/fuzz-replay

# Sanitizers for the replay when $(CC) has them (gcc -m32 may not).
ifndef REPLAY_SAN
REPLAY_SAN	:= $(shell printf 'int main(void){return 0;}' | \
		   $(CC) -x c -fsanitize=address,undefined -o /dev/null - \
		   2>/dev/null && echo -fsanitize=address,undefined \
		   -fno-sanitize-recover=all -fno-omit-frame-pointer)
endif
FUZZ_FLAGS	:= -g -O1 -fsanitize=fuzzer,address,undefined \
		   -fno-sanitize-recover=all -fno-omit-frame-pointer

$(REPLAY_O)/user/%.o: ../user/%.c $(FUZZ_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(REPLAY_SAN) $(WARN) -c $< -o $@

$(REPLAY_O)/fuzz_%.o: fuzz/fuzz_%.c $(FUZZ_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(REPLAY_SAN) $(WARN) \
		-DLLVMFuzzerTestOneInput=fuzz_$* -c $< -o $@

all: $(B)/fuzz_replay

$(B)/fuzz_replay: fuzz/replay.c $(FUZZ_ALL:%=$(REPLAY_O)/fuzz_%.o) \
		  $(FUZZ_USER:../user/%.c=$(REPLAY_O)/user/%.o) \
		  $(FUZZ_DEPS) $(KSFT)/kselftest_harness.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(REPLAY_SAN) $(WARN) $< \
		$(filter %.o,$^) -ljson-c -o $@

$(FZ)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) $(WARN) $< $(FUZZ_USER) -ljson-c -o $@

fuzz: $(FUZZ_TARGETS:%=$(FZ)/fuzz_%)
	fuzz/run.sh $(FZ) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

.PHONY: fuzz
