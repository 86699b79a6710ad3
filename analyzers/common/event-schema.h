/* SPDX-License-Identifier: MIT */
/*
 * event-schema.h - the fields of each event type as the reader looks for
 * them in a trace and stores them in a struct ct_event, generated from the
 * event contract (contract/events.def).
 */
#ifndef CUDATRACE_ANALYZERS_EVENT_SCHEMA_H
#define CUDATRACE_ANALYZERS_EVENT_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "event.h"

/* How a field is stored in struct ct_event. */
enum ct_field_storage {
	CT_STORE_U8,
	CT_STORE_U16,
	CT_STORE_U32,
	CT_STORE_U64,
	CT_STORE_I32,
	CT_STORE_I64,
	CT_STORE_STRING,   /* const char *, borrowed from the trace */
	CT_STORE_TEXT,     /* const char *, and its length at len_offset */
	CT_STORE_ARRAY_X8, /* uint8_t[count] */
	CT_STORE_SEQ_X64,  /* const uint64_t *, and its count at len_offset */
	/* A batch's column (gpu_batch): read by gpu-batches.h, not stored. */
	CT_STORE_SEQ_U64,
	CT_STORE_SEQ_U32,
	CT_STORE_SEQ_U16,
	CT_STORE_SEQ_U8,
};

struct ct_field_spec {
	const char *name;    /* as in the trace */
	uint16_t offset;     /* in struct ct_event */
	uint16_t len_offset; /* CT_STORE_TEXT, CT_STORE_SEQ_*: of the uint16_t length */
	uint8_t storage;     /* enum ct_field_storage */
	uint8_t count;       /* CT_STORE_ARRAY_X8: elements */
	bool optional;       /* a trace may lack it: then it stays 0 */
};

/* The fields of TYPE, ended by one whose name is NULL; NULL for CT_EV_NONE. */
const struct ct_field_spec *ct_event_fields(enum ct_event_type type);

/* The number of fields of the event with the most. */
#define CT_FIELD(type, name, need)           0,
#define CT_PATH(type, path, name, need)      0,
#define CT_ENUM_FIELD(enum, name, need)      0,
#define CT_ENUM_PATH(enum, path, name, need) 0,
#define CT_TEXT(name, need)                  0,
#define CT_STRING(name, need)                0,
#define CT_ARRAY(type, name, count, need)    0,
#define CT_SEQ(type, name, max, need)        0,
#define CT_LAYOUT(name, fields)              char name[sizeof((const char[]){ fields 0 })];
union ct_field_counts {
#include "contract/events.def"
};
#define CT_FIELDS_MAX (sizeof(union ct_field_counts) - 1)

/* Where a reader of one event type finds the fields it names (ct_event_field_places). */
struct ct_field_places {
	gsize done;
	int8_t place[CT_FIELDS_MAX];
};

/*
 * For each field of TYPE, by its place among ct_event_fields(TYPE): the
 * index among the COUNT NAMES of its name, -1 when it is none of them.
 * Found on the first call, into PLACES (a reader's static one), then
 * read from it, from any thread: so that a reader matches its fields by
 * name once, not at each event.
 */
const int8_t *ct_event_field_places(struct ct_field_places *places, enum ct_event_type type,
                                    const char *const *names, int count);

#endif
