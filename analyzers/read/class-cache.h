/* SPDX-License-Identifier: MIT */
/*
 * class-cache.h - the resolved event classes of a pass (event-decoder.h),
 * by event class, so that each class is resolved once however many events
 * it has; and with them the description of their trace (trace-desc.h),
 * made once per stream class, which the decoded events point to.
 *
 * The cache holds no reference to babeltrace2's objects: like babeltrace2's
 * own sinks (sink.text.details), it adds a destruction listener to each
 * trace class it has seen, and drops that trace class's entries when it
 * goes away, so a new class at a reused address is never taken for an old
 * one. Destroying the cache removes the listeners still in place.
 */
#ifndef CUDATRACE_ANALYZERS_CLASS_CACHE_H
#define CUDATRACE_ANALYZERS_CLASS_CACHE_H

#include <babeltrace2/babeltrace.h>

#include "event-decoder.h"

struct ct_class_cache;

struct ct_class_cache *ct_class_cache_create(void);
/* NULL is fine. */
void ct_class_cache_destroy(struct ct_class_cache *cache);

/* The entry of EVENT_CLASS, NULL if it has none yet. */
struct ct_event_class_info *ct_class_cache_find(struct ct_class_cache *cache,
                                                const bt_event_class *event_class);

/*
 * A new zeroed entry for EVENT_CLASS, to be resolved by the caller; NULL
 * when babeltrace2 cannot add the destruction listener to its trace class.
 */
struct ct_event_class_info *ct_class_cache_add(struct ct_class_cache *cache,
                                               const bt_event_class *event_class);

enum ct_class_cache_status {
	CT_CLASS_CACHE_OK = 0,
	CT_CLASS_CACHE_MEMORY_ERROR, /* no entry: babeltrace2 could not add the listener */
	CT_CLASS_CACHE_UNKNOWN,      /* an entry, but its class does not resolve: see WHY */
};

/*
 * The entry of EVENT's class in *INFO, resolved from EVENT when it is the
 * first of its class (ct_event_class_resolve, with DECODED), its trace
 * described (the entry's trace member, valid as long as the entry); on
 * CT_CLASS_CACHE_UNKNOWN, why the class does not resolve is in WHY (LEN
 * bytes).
 */
enum ct_class_cache_status ct_class_cache_lookup(struct ct_class_cache *cache,
                                                 const bt_event *event, ct_ev_set decoded,
                                                 struct ct_event_class_info **info, char *why,
                                                 size_t len);

#endif
