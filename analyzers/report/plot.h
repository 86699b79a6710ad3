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

#include <stddef.h>

#include "common/document.h"

/*
 * Draws the plots of ROOT into directory DIR (created if missing; its
 * parent must exist). Returns the number of plots drawn, or -1 after an
 * error message to the log (log.h).
 */
int ct_plot_write(const struct ct_node *root, const char *dir);

/*
 * A plot drawn as an SVG document in memory: NAME as the file would be
 * called without its extension ("memory-42-dev0"), SVG its LEN bytes
 * (valid until it returns). Returns 0, or -1 after an error message to
 * the log, which stops the drawing.
 */
typedef int (*ct_plot_svg_fn)(const char *name, const unsigned char *svg, size_t len, void *data);

/*
 * The same plots of ROOT as SVG documents, each handed to EMIT with DATA
 * (a report that holds them, such as the HTML one). Returns the number
 * drawn, or -1.
 */
int ct_plot_svgs(const struct ct_node *root, ct_plot_svg_fn emit, void *data);

#endif
