/* SPDX-License-Identifier: MIT */
/*
 * trace-desc.c - a trace's name, clock and environment copied out of
 * babeltrace2's objects (see trace-desc.h).
 */
#include <string.h>

#include <glib.h>

#include "contract/events.h"
#include "trace-desc.h"

static void read_clock(struct ct_clock_desc *c, const bt_clock_class *clock)
{
	if (!clock)
		return;
	c->name = g_strdup(bt_clock_class_get_name(clock));
	c->description = g_strdup(bt_clock_class_get_description(clock));
	c->frequency = bt_clock_class_get_frequency(clock);
	c->precision = bt_clock_class_get_precision(clock);
	bt_clock_class_get_offset(clock, &c->offset_seconds, &c->offset_cycles);
	c->origin_is_unix_epoch = bt_clock_class_origin_is_unix_epoch(clock);
	if (bt_clock_class_get_uuid(clock)) {
		c->has_uuid = true;
		memcpy(c->uuid, bt_clock_class_get_uuid(clock), sizeof(c->uuid));
	}
}

/* The string and signed integer entries; CTF 1.8 has no other kind. */
static void read_environment(struct ct_trace_desc *d, const bt_trace *trace)
{
	uint64_t n = bt_trace_get_environment_entry_count(trace);

	d->env = g_new0(struct ct_trace_env_entry, n ? n : 1);
	for (uint64_t i = 0; i < n; i++) {
		struct ct_trace_env_entry *e = &d->env[d->env_count];
		const bt_value *value;
		const char *name;

		bt_trace_borrow_environment_entry_by_index_const(trace, i, &name, &value);
		if (bt_value_is_string(value))
			e->string = g_strdup(bt_value_string_get(value));
		else if (bt_value_is_signed_integer(value))
			e->integer = bt_value_integer_signed_get(value);
		else
			continue;
		e->name = g_strdup(name);
		d->env_count++;
	}
}

/* Whether one of TRACE's stream classes has an event class named NAME. */
static bool declares(const bt_trace *trace, const char *name)
{
	const bt_trace_class *tc = bt_trace_borrow_class_const(trace);

	for (uint64_t i = 0; i < bt_trace_class_get_stream_class_count(tc); i++) {
		const bt_stream_class *sc =
		    bt_trace_class_borrow_stream_class_by_index_const(tc, i);

		for (uint64_t j = 0; j < bt_stream_class_get_event_class_count(sc); j++) {
			const char *ec_name = bt_event_class_get_name(
			    bt_stream_class_borrow_event_class_by_index_const(sc, j));

			if (ec_name && strcmp(ec_name, name) == 0)
				return true;
		}
	}
	return false;
}

struct ct_trace_desc *ct_trace_desc_create(const bt_trace *trace, const bt_clock_class *clock)
{
	struct ct_trace_desc *d = g_new0(struct ct_trace_desc, 1);

	d->name = g_strdup(bt_trace_get_name(trace));
	read_clock(&d->clock, clock);
	read_environment(d, trace);
	d->declares_api_call = declares(trace, CT_PROVIDER_PREFIX "api_call");
	return d;
}

struct ct_trace_desc *ct_trace_desc_copy(const struct ct_trace_desc *desc)
{
	struct ct_trace_desc *d = g_memdup2(desc, sizeof(*desc));

	d->name = g_strdup(desc->name);
	d->clock.name = g_strdup(desc->clock.name);
	d->clock.description = g_strdup(desc->clock.description);
	d->env = g_new0(struct ct_trace_env_entry, desc->env_count ? desc->env_count : 1);
	for (size_t i = 0; i < desc->env_count; i++) {
		d->env[i] = desc->env[i];
		d->env[i].name = g_strdup(desc->env[i].name);
		d->env[i].string = g_strdup(desc->env[i].string);
	}
	return d;
}

void ct_trace_desc_destroy(struct ct_trace_desc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->env_count; i++) {
		g_free(d->env[i].name);
		g_free(d->env[i].string);
	}
	g_free(d->env);
	g_free(d->clock.name);
	g_free(d->clock.description);
	g_free(d->name);
	g_free(d);
}
