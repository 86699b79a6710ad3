/* SPDX-License-Identifier: MIT */
/*
 * formats.c - the list of output formats, for report and export alike.
 * Nothing else lives here: a writer or an exporter depends on what it
 * uses, never on this list.
 */
#include <string.h>

#include "registry/formats.h"

/* One a line; each kind's first is its default. */
/* clang-format off */
const struct ct_format ct_formats[] = {
	{ "text", CT_FORMAT_REPORT, "for people: the diagnosis, then the main tables",
	  &ct_text_writer, NULL },
	{ "csv", CT_FORMAT_REPORT, "one table per list, for spreadsheets", &ct_csv_writer, NULL },
	{ "json", CT_FORMAT_REPORT, "the whole report (doc/report-schema.md)", &ct_json_writer, NULL },
	{ "html", CT_FORMAT_REPORT, "one page to share, plots included", &ct_html_writer, NULL },
	{ "perfetto", CT_FORMAT_EXPORT, "Perfetto's protobuf trace (TracePacket, TrackEvent)",
	  NULL, &ct_perfetto_exporter },
	{ "ctf", CT_FORMAT_EXPORT, "GPU operations at their GPU times, as CTF (a directory)",
	  NULL, &ct_ctf_exporter },
	{ NULL, CT_FORMAT_REPORT, NULL, NULL, NULL },
};
/* clang-format on */

const struct ct_format *ct_format_find(enum ct_format_kind kind, const char *name)
{
	for (const struct ct_format *f = ct_formats; f->name; f++)
		if (f->kind == kind && !strcmp(f->name, name))
			return f;
	return NULL;
}

const struct ct_format *ct_format_default(enum ct_format_kind kind)
{
	for (const struct ct_format *f = ct_formats; f->name; f++)
		if (f->kind == kind)
			return f;
	return NULL;
}

const char *ct_format_names(enum ct_format_kind kind, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (const struct ct_format *f = ct_formats; f->name; f++) {
		int n;

		if (f->kind != kind)
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", f->name);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	return buf;
}

void ct_format_help(FILE *out, enum ct_format_kind kind, int indent, int width)
{
	for (const struct ct_format *f = ct_formats; f->name; f++)
		if (f->kind == kind)
			fprintf(out, "%*s%-*s %s\n", indent, "", width, f->name, f->summary);
}
