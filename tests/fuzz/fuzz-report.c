/* SPDX-License-Identifier: MIT */
/*
 * fuzz-report.c - a coverage-guided fuzz target (libFuzzer's entry point)
 * for `cudatrace report`'s way through a trace: the input is a trace
 * directory, written to a temporary directory, read with every analysis
 * and exported as a Perfetto trace in the same pass, the report written
 * in every format and drawn, and the trace exported as CTF (a pass of its
 * own, as `cudatrace export --format=ctf` makes it). Then as `cudatrace
 * list` reads it: its packets scanned, then repaired as record and list
 * repair a trace left by a killed session, and its summary read.
 *
 * The input is a list of records, each a kind byte, a 16-bit
 * little-endian length and that many bytes (cut to what is left), appended
 * to one file of the directory: kind & 3 is 0 for "metadata", 1 for the
 * stream file "cudatrace_N", 2 for its index "index/cudatrace_N.idx" (N
 * is kind >> 2 & 3), 3 for nothing. trace-input.py makes one of a trace
 * directory. Small records keep a mutation inside one file.
 *
 * Besides the sanitizers' findings, a crash is what a report must never
 * be: JSON that does not parse or is not UTF-8, CSV that is not UTF-8,
 * text with a control character in it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <json-c/json.h>

#include "registry/analyses.h"
#include "common/document.h"
#include "findings/findings.h"
#include "export/exporter.h"
#include "export/perfetto-export.h"
#include "report/plot.h"
#include "pass/reader.h"
#include "summary.h"
#include "trace-scan.h"
#include "registry/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The trace directory the inputs are written to, made once; short enough for its paths. */
static char trace_dir[256];

/* Removes the files of DIR (and of DIR/index), and DIR itself when WHOLE. */
static void clear_dir(const char *dir, int whole)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[PATH_MAX];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path) != 0)
			clear_dir(path, 1);
	}
	if (d)
		closedir(d);
	if (whole)
		rmdir(dir);
}

static void cleanup(void)
{
	if (trace_dir[0])
		clear_dir(trace_dir, 1);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");

	if (trace_dir[0])
		return;
	if (snprintf(trace_dir, sizeof(trace_dir), "%s/cudatrace-fuzz.XXXXXX",
	             tmp && *tmp ? tmp : "/tmp") >= (int)sizeof(trace_dir) ||
	    !mkdtemp(trace_dir)) {
		perror("fuzz-report: mkdtemp");
		abort();
	}
	atexit(cleanup);
}

/* Writes the records of DATA into the (empty) trace directory. */
static void unpack(const uint8_t *data, size_t size)
{
	char sub[PATH_MAX];

	snprintf(sub, sizeof(sub), "%s/index", trace_dir);
	mkdir(sub, 0700);
	while (size >= 3) {
		unsigned kind = data[0], n = (unsigned)data[1] | (unsigned)data[2] << 8;
		char path[PATH_MAX];
		int fd;

		data += 3;
		size -= 3;
		if (n > size)
			n = (unsigned)size;
		switch (kind & 3) {
		case 0:
			snprintf(path, sizeof(path), "%s/metadata", trace_dir);
			break;
		case 1:
			snprintf(path, sizeof(path), "%s/cudatrace_%u", trace_dir, kind >> 2 & 3);
			break;
		case 2:
			snprintf(path, sizeof(path), "%s/index/cudatrace_%u.idx", trace_dir,
			         kind >> 2 & 3);
			break;
		default:
			path[0] = '\0';
			break;
		}
		fd = path[0] ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0600) : -1;
		if (fd >= 0) {
			if (write(fd, data, n) != (ssize_t)n)
				abort();
			close(fd);
		}
		data += n;
		size -= n;
	}
}

/* What a report in FORMAT must be, whatever the trace held. */
static void check_output(const char *format, const char *text, size_t len)
{
	if (!g_utf8_validate(text, (gssize)len, NULL)) {
		fprintf(stderr, "fuzz-report: the %s report is not UTF-8\n", format);
		abort();
	}
	if (!strcmp(format, "json")) {
		json_object *obj = json_tokener_parse(text);

		if (!obj) {
			fprintf(stderr, "fuzz-report: the JSON report does not parse\n");
			abort();
		}
		json_object_put(obj);
	}
	if (!strcmp(format, "text")) {
		for (const char *p = text; p < text + len; p = g_utf8_next_char(p)) {
			gunichar c = g_utf8_get_char(p);

			if ((c < 0x20 && c != '\n') || c == 0x7f || (c >= 0x80 && c <= 0x9f) ||
			    c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e)) {
				fprintf(stderr,
				        "fuzz-report: the text report holds control character "
				        "U+%04X\n",
				        (unsigned)c);
				abort();
			}
		}
	}
}

static void write_all(const struct ct_node *root)
{
	static const char *const formats[] = { "json", "csv", "text" };
	struct ct_writer_options wopts = { .max_rows = 20 };
	char plot_dir[PATH_MAX];

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);

		if (!out)
			abort();
		ct_format_find(CT_FORMAT_REPORT, formats[i])->writer->write(root, &wopts, out);
		fclose(out);
		check_output(formats[i], text, len);
		free(text);
	}
	snprintf(plot_dir, sizeof(plot_dir), "%s/plots", trace_dir);
	ct_plot_write(root, plot_dir);
}

/* The trace directory as `cudatrace list` reads it: scanned, repaired,
 * and summed up. */
static void list_view(void)
{
	struct trace_scan scan;
	struct summary *s;

	trace_scan(trace_dir, false, &scan);
	trace_scan(trace_dir, true, &scan);
	s = summary_read(trace_dir);
	if (s)
		summary_numbers(s);
	summary_destroy(s);
}

/* The CTF export of the trace directory: it may fail, never crash. */
static void export_ctf(const struct ct_options *opts)
{
	const char *paths[1] = { trace_dir };
	char out[PATH_MAX];
	FILE *sink = fopen("/dev/null", "w");
	struct ct_export_request req = {
		.opts = opts,
		.paths = paths,
		.path_count = 1,
		.output = out,
		.prefix = "fuzz-report",
		.messages = sink,
		.summary = sink,
	};

	if (!sink)
		abort();
	snprintf(out, sizeof(out), "%s.ctf", trace_dir);
	clear_dir(out, 1);
	ct_ctf_exporter.run(&req);
	clear_dir(out, 1);
	fclose(sink);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *paths[1] = { trace_dir };
	struct ct_options opts;
	struct ct_reader *reader;
	struct ct_doc *doc = NULL;
	struct ct_perfetto *perfetto;
	enum ct_reader_status status;
	FILE *export_out;

	setup();
	clear_dir(trace_dir, 0);
	unpack(data, size);
	ct_options_init(&opts);
	opts.max_rows = 20;
	reader = ct_reader_create(&opts);
	for (size_t i = 0; ct_analyses[i]; i++)
		if (ct_reader_add(reader, ct_analyses[i]) < 0)
			abort();
	export_out = fopen("/dev/null", "w");
	perfetto = ct_perfetto_create(ct_reader_context(reader), &opts, export_out);
	if (!export_out || !perfetto || ct_reader_attach(reader, &ct_perfetto_export, perfetto) < 0)
		abort();
	status = ct_reader_read(reader, paths, 1);
	if (status != CT_READER_OK && status != CT_READER_TRUNCATED)
		goto end;
	if (ct_reader_finish(reader) < 0)
		goto end;
	ct_perfetto_failures(perfetto, ct_reader_result(reader, &ct_fragmentation_analysis));
	doc = ct_doc_create();
	if (ct_reader_report(reader, doc) == 0) {
		size_t count;
		const struct ct_result *results = ct_reader_results(reader, &count);

		ct_findings_write(doc, results, count);
	}
	if (ct_doc_root(doc))
		write_all(ct_doc_root(doc));
end:
	ct_doc_destroy(doc);
	ct_reader_destroy(reader); /* the exporter with it */
	fclose(export_out);
	export_ctf(&opts);
	list_view();
	return 0;
}
