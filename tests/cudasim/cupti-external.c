/* SPDX-License-Identifier: MIT */
/*
 * cupti-external.c - external correlation: each thread's stacks of external
 * ids (cuptiActivityPushExternalCorrelationId / Pop), and the
 * CUpti_ActivityExternalCorrelation records that precede an API record made
 * while an id is pushed ("the activity API record will be preceded by a
 * CUpti_ActivityExternalCorrelation record for each
 * CUpti_ExternalCorrelationKind", cupti_activity.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cupti-internal.h"

struct id_stack {
	uint64_t *ids;
	size_t depth;
	size_t capacity;
};

static __thread struct id_stack stacks[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];
static __thread bool cleanup_armed;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t cleanup_key;

/* At thread exit: value is that thread's stacks. */
static void free_stacks(void *value)
{
	struct id_stack *thread_stacks = value;

	for (int kind = 0; kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; kind++) {
		free(thread_stacks[kind].ids);
		thread_stacks[kind] = (struct id_stack){ 0 };
	}
}

static void make_key(void)
{
	pthread_key_create(&cleanup_key, free_stacks);
}

static void arm_cleanup(void)
{
	if (cleanup_armed)
		return;
	pthread_once(&key_once, make_key);
	pthread_setspecific(cleanup_key, stacks);
	cleanup_armed = true;
}

static bool valid_kind(CUpti_ExternalCorrelationKind kind)
{
	return kind > CUPTI_EXTERNAL_CORRELATION_KIND_INVALID &&
	       kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE;
}

static CUptiResult push(struct id_stack *stack, uint64_t id)
{
	if (stack->depth == stack->capacity) {
		size_t capacity = stack->capacity ? stack->capacity * 2 : 16;
		uint64_t *ids = realloc(stack->ids, capacity * sizeof(*ids));

		if (!ids)
			return CUPTI_ERROR_OUT_OF_MEMORY;
		stack->ids = ids;
		stack->capacity = capacity;
	}
	stack->ids[stack->depth++] = id;
	return CUPTI_SUCCESS;
}

SIM_EXPORT CUptiResult CUPTIAPI
cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t id)
{
	if (!valid_kind(kind))
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	arm_cleanup();
	return cupti_status(push(&stacks[kind], id));
}

SIM_EXPORT CUptiResult CUPTIAPI
cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t *lastId)
{
	struct id_stack *stack;

	if (!valid_kind(kind))
		return cupti_status(CUPTI_ERROR_INVALID_PARAMETER);
	stack = &stacks[kind];
	if (stack->depth == 0)
		return cupti_status(CUPTI_ERROR_QUEUE_EMPTY);
	stack->depth--;
	if (lastId)
		*lastId = stack->ids[stack->depth];
	return CUPTI_SUCCESS;
}

void cupti_external_emit(uint32_t correlation_id)
{
	if (!cupti_activity_enabled(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION))
		return;
	for (int kind = 0; kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; kind++) {
		CUpti_ActivityExternalCorrelation record;

		if (stacks[kind].depth == 0)
			continue;
		memset(&record, 0, sizeof(record));
		record.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
		record.externalKind = (CUpti_ExternalCorrelationKind)kind;
		record.externalId = stacks[kind].ids[stacks[kind].depth - 1];
		record.correlationId = correlation_id;
		cupti_activity_emit((const CUpti_Activity *)&record, cupti_monotonic_ns());
	}
}
