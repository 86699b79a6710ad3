/* SPDX-License-Identifier: MIT */
/*
 * cudatrace-tp.h - the LTTng-UST tracepoint provider `cudatrace`,
 * generated from the event contract (contract/events.def): each layout is
 * an event class whose tracepoints take a pointer to its payload struct
 * (contract/events.h), each event an instance of its layout's class.
 *
 * All the tracepoint call sites are in libcudatrace.so itself, so the
 * tracepoint and provider symbols are hidden (the lttng-ust-cyg-profile
 * pattern): a program that has its own provider never clashes with ours.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER cudatrace

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./cudatrace-tp.h"

#ifndef LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION
#define LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION
#endif
#ifndef LTTNG_UST_TRACEPOINT_PROVIDER_HIDDEN_DEFINITION
#define LTTNG_UST_TRACEPOINT_PROVIDER_HIDDEN_DEFINITION
#endif

#include "contract/events.h"

#if !defined(CUDATRACE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CUDATRACE_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

/*
 * lttng-ust reads this header several times, each time with its own
 * meaning of the LTTNG_UST_* macros; the contract's macros expand into
 * them anew at every reading.
 */
#define CT_LTTNG_U8(name, expr)              lttng_ust_field_integer(uint8_t, name, expr)
#define CT_LTTNG_U16(name, expr)             lttng_ust_field_integer(uint16_t, name, expr)
#define CT_LTTNG_U32(name, expr)             lttng_ust_field_integer(uint32_t, name, expr)
#define CT_LTTNG_U64(name, expr)             lttng_ust_field_integer(uint64_t, name, expr)
#define CT_LTTNG_I32(name, expr)             lttng_ust_field_integer(int32_t, name, expr)
#define CT_LTTNG_I64(name, expr)             lttng_ust_field_integer(int64_t, name, expr)
#define CT_LTTNG_X32(name, expr)             lttng_ust_field_integer_hex(uint32_t, name, expr)
#define CT_LTTNG_X64(name, expr)             lttng_ust_field_integer_hex(uint64_t, name, expr)
#define CT_LTTNG_ARRAY_X8(name, expr, count) lttng_ust_field_array_hex(uint8_t, name, expr, count)
#define CT_LTTNG_SEQ_X64(name, expr, len) \
	lttng_ust_field_sequence_hex(uint64_t, name, expr, uint16_t, len)
#define CT_LTTNG_SEQ_U64(name, expr, len) \
	lttng_ust_field_sequence(uint64_t, name, expr, uint16_t, len)
#define CT_LTTNG_SEQ_U32(name, expr, len) \
	lttng_ust_field_sequence(uint32_t, name, expr, uint16_t, len)
#define CT_LTTNG_SEQ_U16(name, expr, len) \
	lttng_ust_field_sequence(uint16_t, name, expr, uint16_t, len)
#define CT_LTTNG_SEQ_U8(name, expr, len) \
	lttng_ust_field_sequence(uint8_t, name, expr, uint16_t, len)

#define CT_VALUE(ident, label, value, flags) lttng_ust_field_enum_value(#label, value)
#define CT_ENUM(name, values) \
	LTTNG_UST_TRACEPOINT_ENUM(cudatrace, name, LTTNG_UST_TP_ENUM_VALUES(values))
#define CT_FIELD(type, name, need)      CT_LTTNG_##type(name, e->name)
#define CT_PATH(type, path, name, need) CT_LTTNG_##type(name, e->path)
#define CT_ENUM_FIELD(enum, name, need) \
	lttng_ust_field_enum(cudatrace, enum, uint8_t, name, e->name)
#define CT_ENUM_PATH(enum, path, name, need) \
	lttng_ust_field_enum(cudatrace, enum, uint8_t, name, e->path)
#define CT_TEXT(name, need) \
	lttng_ust_field_sequence_text(char, name, e->name, uint16_t, e->name##_len)
#define CT_STRING(name, need)             lttng_ust_field_string(name, e->name)
#define CT_ARRAY(type, name, count, need) CT_LTTNG_ARRAY_##type(name, e->name, count)
#define CT_SEQ(type, name, max, need)     CT_LTTNG_SEQ_##type(name, e->name, e->name##_count)
#define CT_LAYOUT(name, fields)                                                             \
	LTTNG_UST_TRACEPOINT_EVENT_CLASS(cudatrace, name,                                   \
	                                 LTTNG_UST_TP_ARGS(const struct ct_ev_##name *, e), \
	                                 LTTNG_UST_TP_FIELDS(fields))
#define CT_EVENT(ident, name, layout, group)                                    \
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(cudatrace, layout, cudatrace, name, \
	                                    LTTNG_UST_TP_ARGS(const struct ct_ev_##layout *, e))
#include "contract/events.def"

#endif /* CUDATRACE_TP_H */

#include <lttng/tracepoint-event.h>
