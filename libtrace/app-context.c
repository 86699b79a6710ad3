/* SPDX-License-Identifier: MIT */
/*
 * app-context.c - the application contexts $app.cudatrace:session and
 * $app.cudatrace_key:session (app-context.h).
 *
 * lttng-ust calls a context provider with the name "$app.PROVIDER" for
 * every context "$app.PROVIDER:NAME" a session uses, in a filter or added
 * to a channel. Its value here is a string read once, so the filter costs
 * a pointer read per event, and nothing is written to the trace unless a
 * session adds the context to a channel (cudatrace record does not).
 *
 * lttng-ust 2.13 exports the provider interface (liblttng-ust.so.1) but
 * installs no header for it (its ust-context-provider.h is internal: "to
 * be moved to the public header directory"): the structures are declared
 * here as that ABI has them, with the structures they refer to from the
 * public headers. A provider also serves every other name under
 * $app.cudatrace: with the same value, since only session is defined and
 * the name would have to be read from lttng-ust's private data.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <lttng/ust-events.h>
#include <lttng/ust-ringbuffer-context.h>

#include "app-context.h"
#include "log.h"
#include "contract/events.h"

/* lttng-ust's enum lttng_ust_dynamic_type: the values used here. */
enum app_value_type {
	APP_VALUE_NONE = 0,
	APP_VALUE_S64 = 4,
	APP_VALUE_STRING = 11,
};

/* lttng-ust's struct lttng_ust_ctx_value. */
struct app_value {
	enum app_value_type sel;
	union {
		int64_t s64;
		uint64_t u64;
		const char *str;
		double d;
	} u;
};

/* lttng-ust's struct lttng_ust_context_provider (base ABI). */
struct app_provider {
	uint32_t struct_size;
	const char *name;
	size_t (*get_size)(void *priv, struct lttng_ust_probe_ctx *probe_ctx, size_t offset);
	void (*record)(void *priv, struct lttng_ust_probe_ctx *probe_ctx,
	               struct lttng_ust_ring_buffer_ctx *ctx,
	               struct lttng_ust_channel_buffer *chan);
	void (*get_value)(void *priv, struct lttng_ust_probe_ctx *probe_ctx,
	                  struct app_value *value);
	void *priv;
};

struct lttng_ust_registered_context_provider;
extern struct lttng_ust_registered_context_provider *
lttng_ust_context_provider_register(struct app_provider *provider);

/* CUDATRACE_SESSION, read once: owned. */
static char *session;

/* ct_session_key of CUDATRACE_SESSION, read once; 0 when it is unset. */
static int64_t session_key;

/* What lttng-ust gave for the providers: kept for the process's life (they
 * are never unregistered; the library is never unloaded). */
static struct lttng_ust_registered_context_provider *registered;
static struct lttng_ust_registered_context_provider *key_registered;

static size_t get_size(void *priv, struct lttng_ust_probe_ctx *probe_ctx, size_t offset)
{
	(void)priv;
	(void)probe_ctx;
	(void)offset;
	/* A one-byte type tag, then the string and its NUL. */
	return 1 + (session ? strlen(session) + 1 : 0);
}

static void record(void *priv, struct lttng_ust_probe_ctx *probe_ctx,
                   struct lttng_ust_ring_buffer_ctx *ctx, struct lttng_ust_channel_buffer *chan)
{
	char tag = session ? APP_VALUE_STRING : APP_VALUE_NONE;

	(void)priv;
	(void)probe_ctx;
	chan->ops->event_write(ctx, &tag, sizeof(tag), 1);
	if (session)
		chan->ops->event_write(ctx, session, strlen(session) + 1, 1);
}

static void get_value(void *priv, struct lttng_ust_probe_ctx *probe_ctx, struct app_value *value)
{
	(void)priv;
	(void)probe_ctx;
	if (session) {
		value->sel = APP_VALUE_STRING;
		value->u.str = session;
	} else {
		value->sel = APP_VALUE_NONE;
	}
}

static struct app_provider provider = {
	.struct_size = sizeof(struct app_provider),
	.name = CT_APP_CONTEXT_PROVIDER,
	.get_size = get_size,
	.record = record,
	.get_value = get_value,
};

/* The key's size at OFFSET: its type tag, then the number, aligned as
 * lttng-ust aligns an int64_t. */
static size_t key_get_size(void *priv, struct lttng_ust_probe_ctx *probe_ctx, size_t offset)
{
	(void)priv;
	(void)probe_ctx;
	if (!session_key)
		return 1;
	return 1 + lttng_ust_ring_buffer_align(offset + 1, lttng_ust_rb_alignof(int64_t)) +
	       sizeof(int64_t);
}

static void key_record(void *priv, struct lttng_ust_probe_ctx *probe_ctx,
                       struct lttng_ust_ring_buffer_ctx *ctx, struct lttng_ust_channel_buffer *chan)
{
	char tag = session_key ? APP_VALUE_S64 : APP_VALUE_NONE;

	(void)priv;
	(void)probe_ctx;
	chan->ops->event_write(ctx, &tag, sizeof(tag), 1);
	if (session_key)
		chan->ops->event_write(ctx, &session_key, sizeof(session_key),
		                       lttng_ust_rb_alignof(int64_t));
}

static void key_get_value(void *priv, struct lttng_ust_probe_ctx *probe_ctx,
                          struct app_value *value)
{
	(void)priv;
	(void)probe_ctx;
	if (session_key) {
		value->sel = APP_VALUE_S64;
		value->u.s64 = session_key;
	} else {
		value->sel = APP_VALUE_NONE;
	}
}

static struct app_provider key_provider = {
	.struct_size = sizeof(struct app_provider),
	.name = CT_APP_CONTEXT_KEY_PROVIDER,
	.get_size = key_get_size,
	.record = key_record,
	.get_value = key_get_value,
};

/* Both providers or none: a session filters on the key, a person on the
 * string. */
static void register_provider(void)
{
	const char *value = getenv(CT_SESSION_ENV);

	if (value) {
		session = strdup(value);
		session_key = ct_session_key(value);
	}
	registered = lttng_ust_context_provider_register(&provider);
	key_registered = lttng_ust_context_provider_register(&key_provider);
}

/* Once: the tracer's start and a notebook's first cell (cells.c) may race to it. */
int app_context_register(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, register_provider);
	return registered && key_registered ? 0 : -1;
}

void app_context_ensure(const char *what)
{
	static atomic_bool warned;

	if (app_context_register() < 0 && !atomic_exchange(&warned, true))
		log_warn("cannot register the LTTng context $app.cudatrace:session: %s are not "
		         "recorded",
		         what);
}

const char *app_context_session(void)
{
	return session;
}
