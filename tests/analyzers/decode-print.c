/* SPDX-License-Identifier: MIT */
/*
 * decode-print.c - the events the reader decodes from a trace, as the
 * analyses are handed them, one line each, for decode-expected.sh to hold
 * against a file written by hand:
 *
 *	decode-print DIR
 *
 * A line is the event's type, its time on the trace clock, its process
 * and thread, then each field of its payload in the order of its layout
 * (contract/events.def), as name=value: integers in decimal, those the
 * contract shows in hexadecimal (X32, X64) as 0x..., enumerations as
 * their number, strings quoted (", \ and bytes outside printable ASCII
 * escaped as \xNN), sequences and arrays as [a,b,...]. The reader makes
 * compact events whole before they are delivered (compact-events.h), so
 * a repeat prints as the event it stands for, each call of a repeat_run
 * and each record of a gpu_batch as an event of its own. A last line,
 * "stats ...", counts what the reader read and did not deliver: repeats
 * and GPU records whose event is not in the trace, pops without a push.
 *
 * Exits 1 when the trace cannot be read whole.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyses/analysis.h"
#include "common/options.h"
#include "pass/reader.h"

/* ------------------------------------------------------------ values */

static void put_unsigned(const char *name, uint64_t v)
{
	printf(" %s=%" PRIu64, name, v);
}

static void put_signed(const char *name, int64_t v)
{
	printf(" %s=%" PRId64, name, v);
}

static void put_hex(const char *name, uint64_t v)
{
	printf(" %s=0x%" PRIx64, name, v);
}

static void put_text(const char *name, const char *s, size_t len)
{
	printf(" %s=\"", name);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void put_string(const char *name, const char *s)
{
	put_text(name, s ? s : "", s ? strlen(s) : 0);
}

/* An element of a sequence or an array: I, from 0, is its index. */
static void put_element(size_t i, uint64_t v, bool hex)
{
	printf(hex ? "%s0x%" PRIx64 : "%s%" PRIu64, i ? "," : "", v);
}

/* The printer of each integer type of events.def. */
#define PUT_U8  put_unsigned
#define PUT_U16 put_unsigned
#define PUT_U32 put_unsigned
#define PUT_U64 put_unsigned
#define PUT_I32 put_signed
#define PUT_I64 put_signed
#define PUT_X8  put_hex
#define PUT_X32 put_hex
#define PUT_X64 put_hex
#define HEX_U8  false
#define HEX_U16 false
#define HEX_U32 false
#define HEX_U64 false
#define HEX_X8  true
#define HEX_X32 true
#define HEX_X64 true

#define PUT_LIST(type, name_, items, count)                                 \
	do {                                                                \
		printf(" %s=[", #name_);                                    \
		for (size_t i_ = 0; i_ < (size_t)(count); i_++)             \
			put_element(i_, (uint64_t)(items)[i_], HEX_##type); \
		putchar(']');                                               \
	} while (0)

/* ------------------------------------------------------------ payloads */

/* put_<layout>(p): each field of the payload P, in the layout's order. */
/* clang-format off */
#define CT_FIELD(type, name_, need) PUT_##type(#name_, p->name_);
#define CT_ENUM_FIELD(enum_, name_, need) put_unsigned(#name_, p->name_);
#define CT_PATH(type, path, name_, need) PUT_##type(#name_, p->path);
#define CT_ENUM_PATH(enum_, path, name_, need) put_unsigned(#name_, p->path);
#define CT_TEXT(name_, need) put_text(#name_, p->name_, p->name_##_len);
#define CT_STRING(name_, need) put_string(#name_, p->name_);
#define CT_ARRAY(type, name_, count, need) PUT_LIST(type, name_, p->name_, count);
#define CT_SEQ(type, name_, max, need) PUT_LIST(type, name_, p->name_, p->name_##_count);
#define CT_LAYOUT(name_, fields) \
	static void put_##name_(const struct ct_ev_##name_ *p) \
	{ \
		(void)p; \
		fields \
	}
/* clang-format on */
#include "contract/events.def"

static void put_payload(const struct ct_event *ev)
{
	switch (ev->type) {
#define CT_EVENT(ident, name_, layout, group) \
	case CT_EV_##ident:                   \
		put_##layout(&ev->u.layout);  \
		break;
#include "contract/events.def"
	default:
		break;
	}
}

/* ------------------------------------------------------------ the analysis */

static enum ct_analysis_status print_create(struct ct_context *ctx, const struct ct_options *opts,
                                            void **state)
{
	*state = NULL;
	return CT_ANALYSIS_OK;
}

static void print_event(void *state, const struct ct_event *ev)
{
	printf("%s t=%" PRId64 " pid=%" PRId64 " tid=%" PRId64, ct_event_type_name(ev->type),
	       ev->time_ns, ev->process->pid, ev->thread->tid);
	put_payload(ev);
	putchar('\n');
}

static enum ct_analysis_status print_finish(void *state, int64_t end_ns)
{
	return CT_ANALYSIS_OK;
}

static enum ct_analysis_status print_result(void *state, const void **result)
{
	*result = NULL;
	return CT_ANALYSIS_OK;
}

static void print_destroy(void *state)
{
}

/* Every event type. */
#define ALL_TYPES ((CT_EV_BIT(CT_EV_COUNT) - 1) & ~CT_EV_BIT(CT_EV_NONE))

static const struct ct_analysis_class print_analysis = {
	.name = "decode-print",
	.id = CT_ANALYSIS_OTHER,
	.section = NULL,
	.wants = ALL_TYPES,
	.create = print_create,
	.event = print_event,
	.finish = print_finish,
	.result = print_result,
	.destroy = print_destroy,
};

/* What the reader read and did not deliver, counted. */
static void put_stats(const struct ct_reader_stats *stats)
{
	printf("stats");
	put_unsigned("unmatched_repeats", stats->unmatched_repeats);
	put_unsigned("unmatched_gpu_records", stats->unmatched_gpu_records);
	put_unsigned("unmatched_pops", stats->unmatched_pops);
	putchar('\n');
}

int main(int argc, char **argv)
{
	struct ct_options opts;
	struct ct_reader *reader;
	enum ct_reader_status status = CT_READER_ERROR;

	if (argc != 2) {
		fprintf(stderr, "usage: decode-print DIR\n");
		return 2;
	}
	ct_options_init(&opts);
	reader = ct_reader_create(&opts);
	if (reader && ct_reader_add(reader, &print_analysis) == 0)
		status = ct_reader_read(reader, (const char *const *)&argv[1], 1);
	if (status == CT_READER_OK)
		put_stats(ct_reader_stats(reader));
	else
		fprintf(stderr, "decode-print: %s\n",
		        reader ? ct_reader_stats(reader)->error : "out of memory");
	ct_reader_destroy(reader);
	return status == CT_READER_OK ? 0 : 1;
}
