/* SPDX-License-Identifier: MIT */
/*
 * class-cache.c - resolved event classes by event class, and the
 * descriptions of their traces by stream class, dropped with their trace
 * class (see class-cache.h).
 */
#include <glib.h>

#include "contract/assert.h"
#include "class-cache.h"

/* The description of the trace and clock of a stream class's events. */
struct trace_entry {
	const bt_trace_class *trace_class; /* weak */
	struct ct_trace_desc *desc;        /* owned */
};

struct ct_class_cache {
	/* const bt_event_class * (weak) -> struct ct_event_class_info (owned) */
	GHashTable *events;
	/* const bt_stream_class * (weak) -> struct trace_entry (owned) */
	GHashTable *traces;
	/* const bt_trace_class * (weak) -> its destruction listener's id, + 1 */
	GHashTable *listeners;
	/* The event class found last and its entry in events: a stream's
	 * events are mostly of one class (a loop's calls), found again
	 * without hashing. Forgotten whenever entries go. */
	const bt_event_class *last_class;
	struct ct_event_class_info *last_info;
};

static void trace_entry_free(gpointer data)
{
	struct trace_entry *t = data;

	ct_trace_desc_destroy(t->desc);
	g_free(t);
}

/* Whether an event class entry belongs to the trace class in DATA (g_hash_table_foreach_remove). */
static gboolean of_trace_class(gpointer key, gpointer value, gpointer data)
{
	const struct ct_event_class_info *info = value;

	return info->trace_class == data;
}

/* The same for a stream class's trace entry. */
static gboolean trace_of_trace_class(gpointer key, gpointer value, gpointer data)
{
	const struct trace_entry *t = value;

	return t->trace_class == data;
}

/* The trace class goes away, and its event classes and descriptions with it. */
static void trace_class_destroyed(const bt_trace_class *trace_class, void *data)
{
	struct ct_class_cache *cache = data;

	cache->last_class = NULL;
	cache->last_info = NULL;
	g_hash_table_foreach_remove(cache->events, of_trace_class, (gpointer)trace_class);
	g_hash_table_foreach_remove(cache->traces, trace_of_trace_class, (gpointer)trace_class);
	g_hash_table_remove(cache->listeners, trace_class);
}

struct ct_class_cache *ct_class_cache_create(void)
{
	struct ct_class_cache *cache = g_new0(struct ct_class_cache, 1);

	cache->events = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	cache->traces =
	    g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, trace_entry_free);
	cache->listeners = g_hash_table_new(g_direct_hash, g_direct_equal);
	return cache;
}

void ct_class_cache_destroy(struct ct_class_cache *cache)
{
	GHashTableIter iter;
	gpointer key, value;

	if (!cache)
		return;
	/*
	 * The trace classes still alive (babeltrace2 2.0 leaks some on its
	 * error paths) must not call back into a freed cache. No API function
	 * may be called while the thread has an error: it is of no use now.
	 */
	if (g_hash_table_size(cache->listeners))
		bt_current_thread_clear_error();
	g_hash_table_iter_init(&iter, cache->listeners);
	while (g_hash_table_iter_next(&iter, &key, &value))
		if (bt_trace_class_remove_destruction_listener(key, GPOINTER_TO_SIZE(value) - 1) !=
		    BT_TRACE_CLASS_REMOVE_LISTENER_STATUS_OK)
			bt_current_thread_clear_error();
	g_hash_table_destroy(cache->listeners);
	g_hash_table_destroy(cache->events);
	g_hash_table_destroy(cache->traces);
	g_free(cache);
}

struct ct_event_class_info *ct_class_cache_find(struct ct_class_cache *cache,
                                                const bt_event_class *event_class)
{
	if (event_class != cache->last_class) {
		cache->last_info = g_hash_table_lookup(cache->events, event_class);
		cache->last_class = cache->last_info ? event_class : NULL;
	}
	return cache->last_info;
}

/* Listens to TRACE_CLASS's destruction unless the cache does already. 0, or -1. */
static int listen_to(struct ct_class_cache *cache, const bt_trace_class *trace_class)
{
	bt_listener_id id;

	if (g_hash_table_contains(cache->listeners, trace_class))
		return 0;
	if (bt_trace_class_add_destruction_listener(trace_class, trace_class_destroyed, cache,
	                                            &id) != BT_TRACE_CLASS_ADD_LISTENER_STATUS_OK)
		return -1;
	g_hash_table_insert(cache->listeners, (gpointer)trace_class, GSIZE_TO_POINTER(id + 1));
	return 0;
}

struct ct_event_class_info *ct_class_cache_add(struct ct_class_cache *cache,
                                               const bt_event_class *event_class)
{
	const bt_trace_class *trace_class = bt_stream_class_borrow_trace_class_const(
	    bt_event_class_borrow_stream_class_const(event_class));
	struct ct_event_class_info *info;

	CT_ASSERT(!g_hash_table_contains(cache->events, event_class));
	if (listen_to(cache, trace_class) < 0)
		return NULL;
	info = g_new0(struct ct_event_class_info, 1);
	info->trace_class = trace_class;
	g_hash_table_insert(cache->events, (gpointer)event_class, info);
	return info;
}

/*
 * The description of EVENT's trace, with the clock of its stream class,
 * made when it is the first of its stream class. In babeltrace2's CTF
 * sources a trace class has one trace, so the stream class tells the
 * trace.
 */
static const struct ct_trace_desc *trace_of(struct ct_class_cache *cache, const bt_event *event)
{
	const bt_stream *stream = bt_event_borrow_stream_const(event);
	const bt_stream_class *sc = bt_stream_borrow_class_const(stream);
	struct trace_entry *t = g_hash_table_lookup(cache->traces, sc);

	if (t)
		return t->desc;
	t = g_new(struct trace_entry, 1);
	t->trace_class = bt_stream_class_borrow_trace_class_const(sc);
	t->desc = ct_trace_desc_create(bt_stream_borrow_trace_const(stream),
	                               bt_stream_class_borrow_default_clock_class_const(sc));
	g_hash_table_insert(cache->traces, (gpointer)sc, t);
	return t->desc;
}

enum ct_class_cache_status ct_class_cache_lookup(struct ct_class_cache *cache,
                                                 const bt_event *event, ct_ev_set decoded,
                                                 struct ct_event_class_info **info, char *why,
                                                 size_t len)
{
	const bt_event_class *ec = bt_event_borrow_class_const(event);

	*info = ct_class_cache_find(cache, ec);
	if (*info)
		return CT_CLASS_CACHE_OK;
	*info = ct_class_cache_add(cache, ec);
	if (!*info)
		return CT_CLASS_CACHE_MEMORY_ERROR;
	/* listened to by ct_class_cache_add: the description goes with its trace class */
	(*info)->trace = trace_of(cache, event);
	return ct_event_class_resolve(*info, event, decoded, why, len) < 0 ? CT_CLASS_CACHE_UNKNOWN
	                                                                   : CT_CLASS_CACHE_OK;
}
