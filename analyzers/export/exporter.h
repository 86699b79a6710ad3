/* SPDX-License-Identifier: MIT */
/*
 * exporter.h - what every export format provides (`cudatrace export`):
 * one run that reads the traces and writes them in another tool's
 * format. The list of formats is the registry's (registry/formats.h).
 */
#ifndef CUDATRACE_ANALYZERS_EXPORTER_H
#define CUDATRACE_ANALYZERS_EXPORTER_H

#include <stddef.h>
#include <stdio.h>

#include "common/options.h"

enum ct_export_status {
	CT_EXPORT_OK = 0,
	CT_EXPORT_ERROR = 1,       /* out of memory, babeltrace2 plugins missing, cannot write */
	CT_EXPORT_INPUT_ERROR = 2, /* no readable trace, or nothing to export in it */
};

/* What to export, and where; everything borrowed. */
struct ct_export_request {
	const struct ct_options *opts;
	const char *const *paths; /* the traces, as `cudatrace report` finds them */
	size_t path_count;
	const char *output; /* the file or directory to write */
	const char *prefix; /* of each message: "cudatrace export" */
	FILE *messages;     /* errors and warnings, one a line (stderr) */
	FILE *summary;      /* what was written, one line (stdout) */
};

struct ct_exporter_class {
	/* the room its output needs under the output path (a directory's files) */
	size_t output_room;
	/*
	 * Writes the export. A trace cut short is exported up to its last
	 * event: OK, with a warning. On an error its reason is in messages
	 * and no output of the export's own is left.
	 */
	enum ct_export_status (*run)(const struct ct_export_request *req);
};

extern const struct ct_exporter_class ct_perfetto_exporter; /* export-perfetto.c */
extern const struct ct_exporter_class ct_ctf_exporter;      /* export-ctf.c */

#endif
