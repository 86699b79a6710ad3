/* SPDX-License-Identifier: MIT */
/*
 * event-size.c - the largest cudatrace event, from the contract.
 */
#include <stdlib.h>
#include <string.h>

#include "contract/events.h"
#include "event-size.h"

/* Per layout: its bytes besides strings (each integer field counted as 8,
 * a sequence's elements at their size), and its strings. */
/* clang-format off */
#define CT_LAYOUT(name, fields)              0 fields,
#define CT_FIELD(type, name, need)           + 8
#define CT_ENUM_FIELD(enum, name, need)      + 1
#define CT_TEXT(name, need)                  + 2
#define CT_STRING(name, need)                + 1
#define CT_ARRAY(type, name, count, need)    + 8 * (count)
#define CT_SEQ(type, name, max, need)        + 2 + sizeof(CT_CTYPE_##type) * (max)
#define CT_MEMBER(ctype, member)
#define CT_PATH(type, path, name, need)      + 8
#define CT_ENUM_PATH(enum, path, name, need) + 1
static const unsigned layout_fixed[] = {
#include "contract/events.def"
};

#define CT_LAYOUT(name, fields)              0 fields,
#define CT_FIELD(type, name, need)
#define CT_ENUM_FIELD(enum, name, need)
#define CT_TEXT(name, need)                  + 1
#define CT_STRING(name, need)                + 1
#define CT_ARRAY(type, name, count, need)
#define CT_SEQ(type, name, max, need)
#define CT_MEMBER(ctype, member)
#define CT_PATH(type, path, name, need)
#define CT_ENUM_PATH(enum, path, name, need)
static const unsigned layout_strings[] = {
#include "contract/events.def"
};

#define CT_LAYOUT(name, fields)              #name,
#define CT_FIELD(type, name, need)
#define CT_ENUM_FIELD(enum, name, need)
#define CT_TEXT(name, need)
#define CT_STRING(name, need)
#define CT_ARRAY(type, name, count, need)
#define CT_SEQ(type, name, max, need)
#define CT_MEMBER(ctype, member)
#define CT_PATH(type, path, name, need)
#define CT_ENUM_PATH(enum, path, name, need)
static const char *const layout_names[] = {
#include "contract/events.def"
};
/* clang-format on */

/*
 * Beyond the payload: LTTng-UST's extended event header (id and full
 * timestamp), the vpid, vtid and procname contexts record adds, and the
 * alignment padding of every field.
 */
#define EVENT_OVERHEAD 256u

unsigned event_max_string(void)
{
	const char *s = getenv("CUDATRACE_MAX_STRING");
	char *end;
	unsigned long v;

	if (!s || !*s)
		return EVENT_MAX_STRING_DEFAULT;
	v = strtoul(s, &end, 10);
	if (*end || v < EVENT_MAX_STRING_MIN || v > EVENT_MAX_STRING_MAX)
		return EVENT_MAX_STRING_DEFAULT;
	return (unsigned)v;
}

uint64_t event_max_size(unsigned max_string)
{
	uint64_t largest = 0;

	for (size_t i = 0; i < sizeof(layout_fixed) / sizeof(layout_fixed[0]); i++) {
		/* a kernel name has a bound of its own (contract/events.h) */
		unsigned cap =
		    strcmp(layout_names[i], "kernel_name") || max_string > CT_KERNEL_NAME_MAX
		        ? max_string
		        : CT_KERNEL_NAME_MAX;
		uint64_t size = layout_fixed[i] + (uint64_t)layout_strings[i] * cap;

		if (size > largest)
			largest = size;
	}
	return largest + EVENT_OVERHEAD;
}
