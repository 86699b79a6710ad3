/* SPDX-License-Identifier: MIT */
/*
 * text-wrap.h - text cut into lines that fit a width, for the text
 * written for people: the first page (first-page.h), the long values and
 * the headers of the tables below it (text-writer.c), the summary
 * `cudatrace record` prints. Lines are cut at the last blank that fits;
 * a word longer than a line is cut within, or left whole (a path that
 * must stay whole to be copied), as the caller says. Widths count
 * characters, not bytes.
 */
#ifndef CUDATRACE_ANALYZERS_TEXT_WRAP_H
#define CUDATRACE_ANALYZERS_TEXT_WRAP_H

#include <stdbool.h>
#include <stddef.h>

/* The width of text for people: the first page's and the tables'. */
#define CT_TEXT_WIDTH 100

/*
 * TEXT (valid UTF-8) in lines, the first at most FIRST characters, the
 * others at most REST (each at least 1); a word longer than its line is
 * cut within when CUT_WORDS, else it is a line of its own, longer. The
 * blanks where a line is cut are dropped. A NULL-terminated array of at
 * least one line; g_strfreev it.
 */
char **ct_text_wrap(const char *text, size_t first, size_t rest, bool cut_words);

/* Characters of TEXT (valid UTF-8), as a terminal shows them. */
size_t ct_text_width(const char *text);

/*
 * TEXT (valid UTF-8) in at most WIDTH characters (at least 3): whole when
 * it fits, else its middle left out as "…", two thirds of what is kept
 * from its start: a kernel's name and a path's file both stay. g_free it.
 */
char *ct_text_cut_middle(const char *text, size_t width);

/* The narrowest WIDTH ct_text_cut_showing moves its window in. */
#define CT_TEXT_CUT_SHOWING_MIN 9

/*
 * TEXT cut to WIDTH characters, like ct_text_cut_middle, but with the
 * character at offset AT still shown: when the middle cut would leave it
 * out, a third of WIDTH from the start, "…", then what follows from a
 * little before AT, and "…" when it does not reach the end. Names that a
 * middle cut makes look the same (two kernels of one template, told apart
 * by an argument inside) stay apart when AT is where they differ. g_free it.
 */
char *ct_text_cut_showing(const char *text, size_t width, size_t at);

#endif
