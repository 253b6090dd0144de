/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the fuzz targets. Each fuzz_<target>.c defines
 * LLVMFuzzerTestOneInput(); libFuzzer calls it (make fuzz) and so does
 * replay.c (make check), which renames it per target with
 * -DLLVMFuzzerTestOneInput=fuzz_<target>.
 */
#ifndef STARVD_FUZZ_H
#define STARVD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property of the code under test that must hold for every input. */
#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: fuzz check failed: %s\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

static inline void *fuzz_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	FUZZ_CHECK(p);
	return p;
}

/* The input as a C string: it ends at the first NUL, like a file read. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = fuzz_alloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * What a command-line parser returned (@res: PARSE_OK, PARSE_EXIT or
 * PARSE_ERROR, @err its message) is well formed: an error has a message
 * that names the option at fault, never argv[0].
 */
#define FUZZ_CHECK_PARSE(res, err) do {					\
	FUZZ_CHECK((res) == PARSE_OK || (res) == PARSE_EXIT ||		\
		   (res) == PARSE_ERROR);				\
	FUZZ_CHECK(memchr((err), '\0', sizeof(err)));			\
	if ((res) == PARSE_ERROR) {					\
		FUZZ_CHECK((err)[0]);					\
		if (!strncmp((err), "unknown option '", 16))		\
			FUZZ_CHECK((err)[16] == '-');			\
		if (!strncmp((err), "option '", 8))			\
			FUZZ_CHECK((err)[8] == '-');			\
	}								\
} while (0)

#define FUZZ_MAX_ARGS 128

/*
 * The input as a command line: arguments separated by '\n' or NUL (a
 * separator at the very end adds no empty argument), after @argv0. Each
 * argument is its own allocation, so that reads past one are caught.
 */
static inline char **fuzz_argv(const uint8_t *data, size_t size,
			       const char *argv0, int *argc)
{
	char **argv = fuzz_alloc((FUZZ_MAX_ARGS + 2) * sizeof(*argv));
	size_t start = 0, i;
	int n = 0;

	argv[n] = fuzz_alloc(strlen(argv0) + 1);
	strcpy(argv[n++], argv0);
	for (i = 0; i <= size && n <= FUZZ_MAX_ARGS; i++) {
		if (i < size && data[i] != '\n' && data[i])
			continue;
		if (i == size && start == size)
			break;
		argv[n] = fuzz_alloc(i - start + 1);
		memcpy(argv[n], data + start, i - start);
		argv[n++][i - start] = '\0';
		start = i + 1;
	}
	argv[n] = NULL;
	*argc = n;
	return argv;
}

static inline void fuzz_argv_free(char **argv)
{
	int i;

	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

#endif
