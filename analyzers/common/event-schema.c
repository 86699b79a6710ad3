/* SPDX-License-Identifier: MIT */
/*
 * event-schema.c - the field specs of every event type, generated from the
 * event contract (contract/events.def): one function per layout holds its
 * specs, the layout's struct known there as L.
 */
#include <stddef.h>

#include <string.h>

#include "event-schema.h"

_Static_assert(sizeof(struct ct_event) <= UINT16_MAX, "field offsets are kept in 16 bits");
_Static_assert(CT_FIELDS_MAX <= UINT8_MAX, "field counts are kept in 8 bits");

#define STORE_U8  CT_STORE_U8
#define STORE_U16 CT_STORE_U16
#define STORE_U32 CT_STORE_U32
#define STORE_U64 CT_STORE_U64
#define STORE_I32 CT_STORE_I32
#define STORE_I64 CT_STORE_I64
#define STORE_X32 CT_STORE_U32
#define STORE_X64 CT_STORE_U64
#define NEED_REQ  false
#define NEED_OPT  true
#define NEED_LATE true

/* The offset in struct ct_event of MEMBER of the layout struct L. */
#define AT(member) (offsetof(struct ct_event, u) + offsetof(L, member))

/* The end of a layout's specs: a NULL name. */
#define SPEC_END  \
	{         \
		0 \
	}
#define SPEC(name, offset, len_offset, storage, count, need) \
	{ #name, (uint16_t)(offset), (uint16_t)(len_offset), (storage), (count), NEED_##need },
#define CT_FIELD(type, name, need)           SPEC(name, AT(name), 0, STORE_##type, 0, need)
#define CT_PATH(type, path, name, need)      SPEC(name, AT(path), 0, STORE_##type, 0, need)
#define CT_ENUM_FIELD(enum, name, need)      SPEC(name, AT(name), 0, CT_STORE_U8, 0, need)
#define CT_ENUM_PATH(enum, path, name, need) SPEC(name, AT(path), 0, CT_STORE_U8, 0, need)
#define CT_TEXT(name, need)                  SPEC(name, AT(name), AT(name##_len), CT_STORE_TEXT, 0, need)
#define CT_STRING(name, need)                SPEC(name, AT(name), 0, CT_STORE_STRING, 0, need)
#define CT_ARRAY(type, name, count, need) \
	SPEC(name, AT(name), 0, CT_STORE_ARRAY_##type, count, need)
#define CT_SEQ(type, name, max, need) \
	SPEC(name, AT(name), AT(name##_count), CT_STORE_SEQ_##type, 0, need)
#define CT_LAYOUT(name, fields)                                                  \
	static const struct ct_field_spec *fields_of_##name(void)                \
	{                                                                        \
		typedef struct ct_ev_##name L;                                   \
		static const struct ct_field_spec specs[] = { fields SPEC_END }; \
		return specs;                                                    \
	}
#include "contract/events.def"

const struct ct_field_spec *ct_event_fields(enum ct_event_type type)
{
	switch (type) {
#define CT_EVENT(ident, name, layout, group) \
	case CT_EV_##ident:                  \
		return fields_of_##layout();
#include "contract/events.def"
	default:
		return NULL;
	}
}

const int8_t *ct_event_field_places(struct ct_field_places *places, enum ct_event_type type,
                                    const char *const *names, int count)
{
	const struct ct_field_spec *spec;

	if (!g_once_init_enter(&places->done))
		return places->place;
	spec = ct_event_fields(type);
	for (size_t n = 0; spec && n < CT_FIELDS_MAX && spec[n].name; n++) {
		places->place[n] = -1;
		for (int k = 0; k < count; k++)
			if (!strcmp(spec[n].name, names[k]))
				places->place[n] = (int8_t)k;
	}
	g_once_init_leave(&places->done, 1);
	return places->place;
}
