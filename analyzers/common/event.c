/* SPDX-License-Identifier: MIT */
/*
 * event.c - the names of the event types and of the enumeration values,
 * generated from the event contract (contract/events.def).
 */
#include <string.h>

#include "event.h"

#define CT_EVENT(ident, name, layout, group) [CT_EV_##ident] = #name,
static const char *const type_names[CT_EV_COUNT] = {
	[CT_EV_NONE] = "",
#include "contract/events.def"
};

#define CT_EVENT(ident, name, layout, group) [CT_EV_##ident] = CT_GROUP_##group,
static const enum ct_event_group type_groups[CT_EV_COUNT] = {
#include "contract/events.def"
};

/* The label of VALUE in LABELS (COUNT of them), "unknown" if it has none. */
static const char *label_of(const char *const *labels, unsigned count, unsigned value)
{
	return value < count && labels[value] ? labels[value] : "unknown";
}

/* ct_<name>_label(): a table of the labels of enumeration name and its reader. */
#define CT_VALUE(ident, label, value, flags) [value] = #label,
#define CT_ENUM(name, values)                                                     \
	static const char *const name##_labels[CT_ENUM_COUNT(name)] = { values }; \
	const char *ct_##name##_label(unsigned value)                             \
	{                                                                         \
		return label_of(name##_labels, CT_ENUM_COUNT(name), value);       \
	}
#include "contract/events.def"

const char *ct_event_type_name(enum ct_event_type type)
{
	return (unsigned)type < CT_EV_COUNT ? type_names[type] : NULL;
}

enum ct_event_group ct_event_type_group(enum ct_event_type type)
{
	return (unsigned)type < CT_EV_COUNT ? type_groups[type] : CT_GROUP_TRACER;
}

enum ct_event_type ct_event_type_from_name(const char *name)
{
	for (unsigned t = 1; t < CT_EV_COUNT; t++)
		if (!strcmp(type_names[t], name))
			return (enum ct_event_type)t;
	return CT_EV_NONE;
}
