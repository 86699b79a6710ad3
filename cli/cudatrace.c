/* SPDX-License-Identifier: MIT */
/*
 * cudatrace.c - the `cudatrace` command: global options and verb dispatch.
 * Each verb lives in a file of its own (report.c) behind verbs.h; a new
 * verb is one line in the table below.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "common/log.h"
#include "verbs.h"

struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct verb verbs[] = {
	{ "record", cmd_record, "run a command and trace its CUDA memory, copies and launches" },
	{ "report", cmd_report, "analyse traces: memory, leaks, fragmentation, OOMs" },
	{ "export", cmd_export,
	  "write traces in another tool's format: perfetto, ctf (GPU times)" },
	{ "list", cmd_list, "list the traces in a directory" },
	{ "jupyter", cmd_jupyter, "install a Jupyter kernel that runs under cudatrace record" },
	{ "doctor", cmd_doctor, "check the driver, devices, runtime, LTTng and tracer here" },
	{ NULL, NULL, NULL },
};

/* What the analyzers have to say (log.h), on stderr. */
static void print_analyzer_message(enum ct_log_level level, const char *message, void *data)
{
	fprintf(stderr, "cudatrace: %s%s\n", level == CT_LOG_WARNING ? "warning: " : "", message);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: cudatrace [--help] [--version] VERB [ARGS...]\n\n"
	             "Verbs:\n");
	for (const struct verb *v = verbs; v->name; v++)
		fprintf(out, "  %-10s %s\n", v->name, v->summary);
	fprintf(out, "\n`cudatrace VERB --help` describes a verb; man cudatrace(1) says more.\n");
}

int main(int argc, char **argv)
{
	const char *name;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	ct_log_set_handler(print_analyzer_message, NULL);
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
		printf("cudatrace %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (const struct verb *v = verbs; v->name; v++)
		if (!strcmp(v->name, name))
			return v->run(argc - 1, argv + 1);
	fprintf(stderr, "cudatrace: '%s' is not a verb\n\n", name);
	usage(stderr);
	return EXIT_USAGE;
}
