/* SPDX-License-Identifier: MIT */
/*
 * nvtx.c - NVTX calls, delivered through CUPTI's NVTX domain: nvtx_push,
 * nvtx_pop, nvtx_range_start, nvtx_range_end, nvtx_mark and
 * nvtx_domain_create.
 *
 * Registered strings (nvtxDomainRegisterStringA/W) are kept so that
 * messages given by handle are recorded as text; domain names are kept so
 * that a session started after a domain was created still gets its
 * nvtx_domain_create before the first event that uses it. Both tables are
 * bounded; past the bound, messages are recorded empty rather than growing
 * without end.
 */
#define NVTX_NO_IMPL
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <cupti.h>
#include <generated_nvtx_meta.h>

#include "api-call.h"
#include "config.h"
#include "cudatrace-tp.h"
#include "nvtx.h"
#include "table.h"
#include "text.h"

/* Registered strings and domain names kept, each table at most. */
#define TEXTS_MAX 65536

/* What a handle names, in the tables: registered strings, or domain
 * names. Never freed: an NVTX handle lives as long as the program. */
struct named {
	bool announced; /* domains: nvtx_domain_create emitted while enabled */
	char text[];    /* capped at config.max_string */
};

/* handle -> struct named *, one value word; every access under the
 * table's lock. */
static struct table strings = TABLE_INIT(1, TEXTS_MAX);
static struct table domains = TABLE_INIT(1, TEXTS_MAX);

/* Room for a capped string converted from wide characters, or copied out
 * of a table. */
#define TEXT_ROOM (4096 + 1)
_Static_assert(TEXT_ROOM > CONFIG_MAX_MAX_STRING, "a capped string fits in TEXT_ROOM");

/* The struct named of handle in t, under its lock; NULL if none. */
static struct named *named_find(struct table *t, uint64_t handle)
{
	uint64_t value;

	if (handle == 0 || !table_find(t, handle, NULL, NULL, &value))
		return NULL;
	return (struct named *)(uintptr_t)value;
}

static void named_put(struct table *t, uint64_t handle, const char *text)
{
	size_t len = text_length(text);
	struct named *n;
	uint64_t value;

	if (handle == 0)
		return;
	table_lock(t);
	if (named_find(t, handle) || table_count(t) >= TEXTS_MAX)
		goto end;
	n = malloc(sizeof(*n) + len + 1);
	if (!n)
		goto end;
	n->announced = false;
	memcpy(n->text, text_or_empty(text), len);
	n->text[len] = '\0';
	value = (uint64_t)(uintptr_t)n;
	if (!table_add(t, handle, &value))
		free(n);
end:
	table_unlock(t);
}

/* Copy the text of handle into out (size bytes); "" if unknown. */
static void named_get(struct table *t, uint64_t handle, char *out, size_t size)
{
	struct named *n;

	out[0] = '\0';
	table_lock(t);
	n = named_find(t, handle);
	if (n) {
		strncpy(out, n->text, size - 1);
		out[size - 1] = '\0';
	}
	table_unlock(t);
}

/* Emit nvtx_domain_create for a domain not yet announced while enabled. */
static void domain_announce(uint64_t domain)
{
	char name[TEXT_ROOM];
	struct named *n;
	bool wanted = false;

	if (domain == 0 || !lttng_ust_tracepoint_enabled(cudatrace, nvtx_domain_create))
		return;
	table_lock(&domains);
	n = named_find(&domains, domain);
	if (n && !n->announced) {
		n->announced = true;
		strcpy(name, n->text);
		wanted = true;
	}
	table_unlock(&domains);
	if (wanted)
		lttng_ust_do_tracepoint(cudatrace, nvtx_domain_create,
		                        &(struct ct_ev_nvtx_domain_create){
		                            .domain = domain,
		                            .name = name,
		                            .name_len = text_length(name),
		                        });
}

static bool unannounce(uint64_t handle, const uint64_t *value, void *ctx)
{
	struct named *n = (struct named *)(uintptr_t)value[0];

	n->announced = false;
	return true;
}

void nvtx_announce_again(void)
{
	table_lock(&domains);
	table_each(&domains, unannounce, NULL);
	table_unlock(&domains);
}

/* The message of an event attribute structure, resolved into buf. */
static const char *attrib_message(const nvtxEventAttributes_t *a, char *buf, size_t size)
{
	if (!a)
		return "";
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		return text_or_empty(a->message.ascii);
	case NVTX_MESSAGE_TYPE_UNICODE:
		text_from_wide(buf, size, a->message.unicode);
		return buf;
	case NVTX_MESSAGE_TYPE_REGISTERED:
		named_get(&strings, (uint64_t)(uintptr_t)a->message.registered, buf, size);
		return buf;
	default:
		return "";
	}
}

/* What the NVTX calls return, read as these integers. */
_Static_assert(sizeof(nvtxRangeId_t) == sizeof(uint64_t), "a range id is 64 bits");
_Static_assert(sizeof(nvtxDomainHandle_t) == sizeof(void *) &&
                   sizeof(nvtxStringHandle_t) == sizeof(void *),
               "NVTX handles are pointers");

static uint64_t returned_u64(const CUpti_NvtxData *data)
{
	return data->functionReturnValue ? *(const uint64_t *)data->functionReturnValue : 0;
}

static uint64_t returned_handle(const CUpti_NvtxData *data)
{
	const void *const *value = data->functionReturnValue;

	return value ? (uint64_t)(uintptr_t)*value : 0;
}

#define DOMAIN(d) ((uint64_t)(uintptr_t)(d))

/* The payload of nvtx_push and nvtx_mark. */
#define NVTX_MESSAGE(d, m)            \
	((struct ct_ev_nvtx_message){ \
	    .domain = (d), .message = (m), .message_len = text_length(m) })

static void emit_push(uint64_t domain, const char *message)
{
	if (!lttng_ust_tracepoint_enabled(cudatrace, nvtx_push))
		return;
	domain_announce(domain);
	lttng_ust_do_tracepoint(cudatrace, nvtx_push, &NVTX_MESSAGE(domain, message));
}

static void emit_pop(uint64_t domain)
{
	if (!lttng_ust_tracepoint_enabled(cudatrace, nvtx_pop))
		return;
	domain_announce(domain);
	lttng_ust_do_tracepoint(cudatrace, nvtx_pop, &(struct ct_ev_nvtx_pop){ .domain = domain });
}

static void emit_start(uint64_t domain, uint64_t id, const char *message)
{
	if (!lttng_ust_tracepoint_enabled(cudatrace, nvtx_range_start))
		return;
	domain_announce(domain);
	lttng_ust_do_tracepoint(cudatrace, nvtx_range_start,
	                        &(struct ct_ev_nvtx_range_start){
	                            .domain = domain,
	                            .range_id = id,
	                            .message = message,
	                            .message_len = text_length(message),
	                        });
}

static void emit_end(uint64_t domain, uint64_t id)
{
	if (!lttng_ust_tracepoint_enabled(cudatrace, nvtx_range_end))
		return;
	domain_announce(domain);
	lttng_ust_do_tracepoint(cudatrace, nvtx_range_end,
	                        &(struct ct_ev_nvtx_range_end){ .domain = domain, .range_id = id });
}

static void emit_mark(uint64_t domain, const char *message)
{
	if (!lttng_ust_tracepoint_enabled(cudatrace, nvtx_mark))
		return;
	domain_announce(domain);
	lttng_ust_do_tracepoint(cudatrace, nvtx_mark, &NVTX_MESSAGE(domain, message));
}

/* Narrow-string and wide-string variants of the same call. */
static const char *wide(const wchar_t *ws, char *buf, size_t size)
{
	text_from_wide(buf, size, ws);
	return buf;
}

static void on_register_string(const CUpti_NvtxData *data, bool is_wide)
{
	const nvtxDomainRegisterStringA_params *p = data->functionParams;
	char buf[TEXT_ROOM];
	const char *text = p->string;

	/* The W params struct declares the string as char*, but NVTX passes
	 * the program's wchar_t*. */
	if (is_wide)
		text = wide((const wchar_t *)(const void *)p->string, buf, sizeof(buf));
	named_put(&strings, returned_handle(data), text);
}

static void on_domain_create(const CUpti_NvtxData *data, bool is_wide)
{
	const nvtxDomainCreateA_params *p = data->functionParams;
	char buf[TEXT_ROOM];
	const char *name = p->name;
	uint64_t handle = returned_handle(data);

	if (is_wide)
		name = wide((const wchar_t *)(const void *)p->name, buf, sizeof(buf));
	named_put(&domains, handle, name);
	domain_announce(handle);
}

static void on_ranges(CUpti_CallbackId cbid, const CUpti_NvtxData *data, char *buf, size_t size)
{
	const void *params = data->functionParams;

	switch (cbid) {
	case CUPTI_CBID_NVTX_nvtxRangePushA:
		emit_push(0, text_or_empty(((const nvtxRangePushA_params *)params)->message));
		break;
	case CUPTI_CBID_NVTX_nvtxRangePushW:
		emit_push(0, wide(((const nvtxRangePushW_params *)params)->message, buf, size));
		break;
	case CUPTI_CBID_NVTX_nvtxRangePushEx:
		emit_push(0, attrib_message(((const nvtxRangePushEx_params *)params)->eventAttrib,
		                            buf, size));
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
		const nvtxDomainRangePushEx_params *p = params;

		emit_push(DOMAIN(p->domain), attrib_message(p->core.eventAttrib, buf, size));
		break;
	}
	case CUPTI_CBID_NVTX_nvtxRangePop:
		emit_pop(0);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangePop:
		emit_pop(DOMAIN(((const nvtxDomainRangePop_params *)params)->domain));
		break;
	case CUPTI_CBID_NVTX_nvtxRangeStartA:
		emit_start(0, returned_u64(data),
		           text_or_empty(((const nvtxRangeStartA_params *)params)->message));
		break;
	case CUPTI_CBID_NVTX_nvtxRangeStartW:
		emit_start(0, returned_u64(data),
		           wide(((const nvtxRangeStartW_params *)params)->message, buf, size));
		break;
	case CUPTI_CBID_NVTX_nvtxRangeStartEx:
		emit_start(0, returned_u64(data),
		           attrib_message(((const nvtxRangeStartEx_params *)params)->eventAttrib,
		                          buf, size));
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
		const nvtxDomainRangeStartEx_params *p = params;

		emit_start(DOMAIN(p->domain), returned_u64(data),
		           attrib_message(p->core.eventAttrib, buf, size));
		break;
	}
	case CUPTI_CBID_NVTX_nvtxRangeEnd:
		emit_end(0, ((const nvtxRangeEnd_params *)params)->id);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangeEnd: {
		const nvtxDomainRangeEnd_params *p = params;

		emit_end(DOMAIN(p->domain), p->core.id);
		break;
	}
	default:
		break;
	}
}

static void on_marks(CUpti_CallbackId cbid, const CUpti_NvtxData *data, char *buf, size_t size)
{
	const void *params = data->functionParams;

	switch (cbid) {
	case CUPTI_CBID_NVTX_nvtxMarkA:
		emit_mark(0, text_or_empty(((const nvtxMarkA_params *)params)->message));
		break;
	case CUPTI_CBID_NVTX_nvtxMarkW:
		emit_mark(0, wide(((const nvtxMarkW_params *)params)->message, buf, size));
		break;
	case CUPTI_CBID_NVTX_nvtxMarkEx:
		emit_mark(
		    0, attrib_message(((const nvtxMarkEx_params *)params)->eventAttrib, buf, size));
		break;
	case CUPTI_CBID_NVTX_nvtxDomainMarkEx: {
		const nvtxDomainMarkEx_params *p = params;

		emit_mark(DOMAIN(p->domain), attrib_message(p->core.eventAttrib, buf, size));
		break;
	}
	default:
		break;
	}
}

static bool nvtx_events_wanted(void)
{
	return lttng_ust_tracepoint_enabled(cudatrace, nvtx_push) ||
	       lttng_ust_tracepoint_enabled(cudatrace, nvtx_pop) ||
	       lttng_ust_tracepoint_enabled(cudatrace, nvtx_range_start) ||
	       lttng_ust_tracepoint_enabled(cudatrace, nvtx_range_end) ||
	       lttng_ust_tracepoint_enabled(cudatrace, nvtx_mark);
}

/* Ranges and marks: ids only, switched as a set (nvtx_callback handles
 * them). */
static const struct api_binding nvtx_event_bindings[] = {
	BIND_NVTX(nvtxMarkA),
	BIND_NVTX(nvtxMarkW),
	BIND_NVTX(nvtxMarkEx),
	BIND_NVTX(nvtxDomainMarkEx),
	BIND_NVTX(nvtxRangeStartA),
	BIND_NVTX(nvtxRangeStartW),
	BIND_NVTX(nvtxRangeStartEx),
	BIND_NVTX(nvtxDomainRangeStartEx),
	BIND_NVTX(nvtxRangeEnd),
	BIND_NVTX(nvtxDomainRangeEnd),
	BIND_NVTX(nvtxRangePushA),
	BIND_NVTX(nvtxRangePushW),
	BIND_NVTX(nvtxRangePushEx),
	BIND_NVTX(nvtxDomainRangePushEx),
	BIND_NVTX(nvtxRangePop),
	BIND_NVTX(nvtxDomainRangePop),
	BIND_END,
};

/* An NVTX callback: ranges, marks, domains and registered strings. */
static void nvtx_callback(CUpti_CallbackId cbid, const void *cbdata, struct api_call *outer)
{
	const CUpti_NvtxData *data = cbdata;
	char buf[TEXT_ROOM];

	if (!data || !data->functionParams)
		return;
	switch (cbid) {
	case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA:
	case CUPTI_CBID_NVTX_nvtxDomainRegisterStringW:
		on_register_string(data, cbid == CUPTI_CBID_NVTX_nvtxDomainRegisterStringW);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainCreateA:
	case CUPTI_CBID_NVTX_nvtxDomainCreateW:
		on_domain_create(data, cbid == CUPTI_CBID_NVTX_nvtxDomainCreateW);
		break;
	case CUPTI_CBID_NVTX_nvtxMarkA:
	case CUPTI_CBID_NVTX_nvtxMarkW:
	case CUPTI_CBID_NVTX_nvtxMarkEx:
	case CUPTI_CBID_NVTX_nvtxDomainMarkEx:
		if (lttng_ust_tracepoint_enabled(cudatrace, nvtx_mark))
			on_marks(cbid, data, buf, sizeof(buf));
		break;
	default:
		/* Not a string to keep: nothing to do unless it is recorded. */
		if (nvtx_events_wanted())
			on_ranges(cbid, data, buf, sizeof(buf));
		break;
	}
}

/* The domain stays on: registered strings and domain names are kept
 * whether or not a session records NVTX events, since a session started
 * later needs them. */
const struct api_family nvtx_family = {
	.bindings = nvtx_event_bindings,
	.wanted = nvtx_events_wanted,
	.domain = CUPTI_CB_DOMAIN_NVTX,
	.on_domain = nvtx_callback,
};
