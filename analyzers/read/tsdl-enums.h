/* SPDX-License-Identifier: MIT */
/*
 * tsdl-enums.h - the enumerations of a CTF 1.8 trace's metadata text:
 * their labels and ranges, and what babeltrace2 2.0 needs of them before
 * it reads the metadata (it aborts where they fail).
 *
 * A tag's value selects the variant option its label names (CTF 1.8
 * section 4.2.2, "Variants"), so babeltrace2 gives each option the
 * ranges of its label in the tag's enumeration: it aborts when an
 * option outside the headers has no label, when two options' ranges
 * (or one's own) overlap, and when a range's first value is above its
 * last, in the signedness of the enumeration's integer.
 *
 * Which enumeration a variant's tag is is not resolved here: an option
 * must be a label of one enumeration or another, and the options of one
 * variant that are labels of one enumeration must have ranges apart.
 *
 *	enums = ct_tsdl_enums_scan(text, n, why, len);
 *	...; per option: ct_tsdl_enums_has_label(enums, name)
 *	...; per variant: ct_tsdl_enums_options_apart(enums, names, why, len)
 *	ct_tsdl_enums_destroy(enums);
 */
#ifndef CUDATRACE_ANALYZERS_TSDL_ENUMS_H
#define CUDATRACE_ANALYZERS_TSDL_ENUMS_H

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

struct ct_tsdl_enums;

/*
 * The enumerations of TEXT (N bytes), with the signedness of their
 * integers where the text gives it (an "integer { signed = ...; }" of
 * their own, or a typealias or typedef of one); NULL, with why in WHY
 * (LEN bytes), when a range's first value is above its last.
 */
struct ct_tsdl_enums *ct_tsdl_enums_scan(const char *text, size_t n, char *why, size_t len);

/* Whether NAME is a label of one of ENUMS. */
bool ct_tsdl_enums_has_label(const struct ct_tsdl_enums *enums, const char *name);

/*
 * Whether the ranges that one enumeration of ENUMS gives the labels of
 * OPTIONS (a set of a variant's option names, as GHashTable of strings)
 * are apart: 0, or -1 with why in WHY (LEN bytes).
 */
int ct_tsdl_enums_options_apart(const struct ct_tsdl_enums *enums, GHashTable *options, char *why,
                                size_t len);

void ct_tsdl_enums_destroy(struct ct_tsdl_enums *enums);

#endif
