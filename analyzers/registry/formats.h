/* SPDX-License-Identifier: MIT */
/*
 * formats.h - the registry of output formats: every format `cudatrace
 * report` writes and every format `cudatrace export` writes, in one
 * list, with the line each command's --help shows for it. It lists and
 * finds; the writers are in report/, the exporters in export/.
 */
#ifndef CUDATRACE_ANALYZERS_REGISTRY_FORMATS_H
#define CUDATRACE_ANALYZERS_REGISTRY_FORMATS_H

#include <stddef.h>
#include <stdio.h>

#include "export/exporter.h"
#include "report/writer.h"

enum ct_format_kind {
	CT_FORMAT_REPORT, /* cudatrace report --format */
	CT_FORMAT_EXPORT, /* cudatrace export --format */
};

struct ct_format {
	const char *name;
	enum ct_format_kind kind;
	const char *summary;                    /* what it is, for --help */
	const struct ct_writer_class *writer;   /* CT_FORMAT_REPORT: what writes it */
	const struct ct_exporter_class *export; /* CT_FORMAT_EXPORT: what writes it */
};

/* Every format, NULL-named at the end; the first of each kind is its command's default. */
extern const struct ct_format ct_formats[];

/* The format of KIND called NAME, NULL if none. */
const struct ct_format *ct_format_find(enum ct_format_kind kind, const char *name);

/* The default format of KIND. */
const struct ct_format *ct_format_default(enum ct_format_kind kind);

/* The names of KIND's formats, as "text, csv, json, html", in BUF (LEN bytes). Returns BUF. */
const char *ct_format_names(enum ct_format_kind kind, char *buf, size_t len);

/*
 * One line for each format of KIND, for --help: INDENT spaces, the name
 * in a column of WIDTH, the summary.
 */
void ct_format_help(FILE *out, enum ct_format_kind kind, int indent, int width);

#endif
