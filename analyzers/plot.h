/* SPDX-License-Identifier: MIT */
/*
 * plot.h - the report's pictures, drawn with cairo from the finished
 * report document (so they show exactly what the JSON says):
 *
 *   memory-PID-devN.svg/.png  device memory over time for one process and
 *                             device (memory.timeline), the range within
 *                             each time bucket, the peak and every failed
 *                             allocation marked (memory.devices,
 *                             memory.failures);
 *   host-memory-PID.svg/.png  resident host memory over time for one
 *                             process (host_memory.timeline), with its
 *                             memory cgroup's limit (host_memory.processes);
 *   transfers.svg/.png        the transfer hotspots as bars, by the time
 *                             they cost (transfers.hotspots).
 *
 * A plot whose data the report lacks (an analysis not run, no copies) is
 * not drawn.
 */
#ifndef CUDATRACE_ANALYZERS_PLOT_H
#define CUDATRACE_ANALYZERS_PLOT_H

#include "document.h"

/*
 * Draws the plots of ROOT into directory DIR (created if missing; its
 * parent must exist). Returns the number of plots drawn, or -1 after an
 * error message to the log (log.h).
 */
int ct_plot_write(const struct ct_node *root, const char *dir);

#endif
