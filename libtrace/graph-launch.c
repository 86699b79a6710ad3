/* SPDX-License-Identifier: MIT */
/*
 * graph-launch.c - launches of executable graphs: graph_launch events.
 *
 * A graph launch runs the graph's nodes on the launch stream; CUPTI gives
 * each kernel, copy and memset it runs its own record, with the graph's
 * ids and the correlation id of the launch call (cupti_activity.h,
 * the kernel record's graphId). The graph_launch event is that call:
 * the gpu_* events with its correlation id are its work.
 */
#include <stddef.h>
#include <cupti.h>

#include "api-call.h"
#include "call-stack.h"
#include "capture.h"
#include "cudatrace-tp.h"

static void emit_graph_launch(struct api_call *call, CUgraphExec exec, CUstream stream)
{
	struct ct_ev_graph_launch e;

	/* Launched into a capture, the graph is a child node, not run. */
	if (call_failed(call) || !lttng_ust_tracepoint_enabled(cudatrace, graph_launch) ||
	    capture_stream_is_capturing(call, stream))
		return;
	e = (struct ct_ev_graph_launch){
		.graph_exec = PTR(exec),
		.stream = call_stream(call, stream),
		.device = call_device(call),
		.api = call_record(call),
	};
	call_note_name(call);
	call_stack_note_operation(call, e.api.correlation_id);
	lttng_ust_do_tracepoint(cudatrace, graph_launch, &e);
}

/* Every form takes the executable graph, then the stream. */
_Static_assert(
    offsetof(cuGraphLaunch_params, hStream) == offsetof(cudaGraphLaunch_v10000_params, stream) &&
        offsetof(cuGraphLaunch_ptsz_params, hStream) == offsetof(cuGraphLaunch_params, hStream) &&
        offsetof(cudaGraphLaunch_ptsz_v10000_params, stream) ==
            offsetof(cudaGraphLaunch_v10000_params, stream) &&
        offsetof(cuGraphLaunch_params, hGraph) == 0 &&
        offsetof(cudaGraphLaunch_v10000_params, graphExec) == 0 &&
        sizeof(cudaGraphExec_t) == sizeof(CUgraphExec) && sizeof(cudaStream_t) == sizeof(CUstream),
    "every graph launch takes the executable graph, then the stream");
static void graph_launch_exit(struct api_call *call)
{
	const cuGraphLaunch_params *p = call_params(call);

	emit_graph_launch(call, p->hGraph, p->hStream);
}

static const struct api_binding graph_launch_bindings[] = {
	BIND_RUNTIME_PT(cudaGraphLaunch, v10000, ptsz_v10000, 0, NULL, graph_launch_exit),
	BIND_DRIVER_PT(cuGraphLaunch, ptsz, 0, NULL, graph_launch_exit),
	BIND_END,
};

static bool graph_launches_wanted(void)
{
	return api_events_wanted() || lttng_ust_tracepoint_enabled(cudatrace, graph_launch);
}

const struct api_family graph_launch_family = {
	.bindings = graph_launch_bindings,
	.wanted = graph_launches_wanted,
};
