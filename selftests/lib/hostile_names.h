/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Thread names no sink may print raw: one of each class of
 * byte a name can hold and a text reader cares about, 15 bytes at most
 * (prctl(PR_SET_NAME) keeps 15). test_escape checks the rule on them,
 * test_hostile_names every sink of a real boost.
 */
#ifndef STARVD_TEST_HOSTILE_NAMES_H
#define STARVD_TEST_HOSTILE_NAMES_H

/* New lines: a forged "pid 1" line. */
#define NAME_NL		"nl\npid 1\nx"
/* Carriage return: overwrites the start of a terminal's line. */
#define NAME_CR		"cr\rpid 1"
/* Escape sequences: clear the screen, red text. */
#define NAME_ESC	"\x1b[2J\x1b[31mred"
/* Backslashes: a name that looks escaped ("\x0a") must not read as one. */
#define NAME_BACKSLASH	"b\\x0a\\\\sl"
/* Quotes: JSON's, a label value's, a shell's. */
#define NAME_QUOTES	"q\"u'o\"te"
/* Invalid UTF-8: a lone continuation, a cut sequence, an overlong '/'. */
#define NAME_UTF8	"u\x80t\xe2\x82" "f\xc0\xaf" "8"
/* 15 bytes of 0xff: the longest name, each byte escaped. */
#define NAME_FF		"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" \
			"\xff\xff\xff"
/* Clears the screen and forges a line: ESC [2J, NL "pid 1", NL x CR. */
#define NAME_FORGED	"\x1b[2J\npid 1\nx\r"

#endif
