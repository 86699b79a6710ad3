/* SPDX-License-Identifier: MIT */
/*
 * bare-tp.h - the benchmark's own tracepoint provider, cudatrace_bench: one
 * event with the payload of cudatrace's memcpy event, emitted bare, so that
 * the cost of an LTTng event of that size is measured in the same run as
 * the tracer and the tracer's own work per call can be told apart from the
 * cost of the events it emits.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER cudatrace_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./bare-tp.h"

#if !defined(CUDATRACE_BENCH_BARE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CUDATRACE_BENCH_BARE_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

/* The field list reads best one field a line. */
/* clang-format off */
LTTNG_UST_TRACEPOINT_EVENT(cudatrace_bench, call,
	LTTNG_UST_TP_ARGS(uint64_t, src, uint64_t, dst, uint64_t, bytes, uint32_t, stream,
			  uint32_t, correlation_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint8_t, direction, 1)
		lttng_ust_field_integer_hex(uint64_t, src, src)
		lttng_ust_field_integer_hex(uint64_t, dst, dst)
		lttng_ust_field_integer(uint64_t, bytes, bytes)
		lttng_ust_field_integer(uint8_t, host, 2)
		lttng_ust_field_integer(uint8_t, sync, 0)
		lttng_ust_field_integer(uint32_t, stream, stream)
		lttng_ust_field_integer(uint8_t, src_device, 255)
		lttng_ust_field_integer(uint8_t, dst_device, 0)
		lttng_ust_field_integer(uint8_t, api_domain, 2)
		lttng_ust_field_integer(uint16_t, api_cbid, 41)
		lttng_ust_field_integer(uint32_t, correlation_id, correlation_id)
	)
)
/* clang-format on */

#endif /* CUDATRACE_BENCH_BARE_TP_H */

#include <lttng/tracepoint-event.h>
