/* SPDX-License-Identifier: MIT */
/*
 * verbs.h - the verbs of the `cudatrace` command. Each takes the
 * arguments after its name (argv[0] is the verb) and returns the exit
 * status: 0 success, 1 failure, 2 usage or input error.
 */
#ifndef CUDATRACE_CLI_VERBS_H
#define CUDATRACE_CLI_VERBS_H

/* Exit statuses shared by every verb. */
#define EXIT_USAGE 2

int cmd_report(int argc, char **argv);
/* export.c: traces in another tool's format (--format perfetto, ctf). */
int cmd_export(int argc, char **argv);

/*
 * record, list and jupyter (record.c, list.c, jupyter.c). record exits
 * with the traced command's status (128 + N when signal N killed it), or
 * EXIT_USAGE when the command line is wrong or the trace cannot be set up
 * (the command did not run).
 */
int cmd_record(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_jupyter(int argc, char **argv);
/* doctor.c: exits with 1 when something would stop CUDA or tracing. */
int cmd_doctor(int argc, char **argv);

#endif
