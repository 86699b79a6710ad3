/* SPDX-License-Identifier: MIT */
/*
 * export-perfetto.c - `cudatrace export --format perfetto`: one pass of
 * the reader with the Perfetto exporter (perfetto-export.h) and the
 * fragmentation analysis (for the verdict of each failed allocation)
 * attached, into one file, removed again when the export fails.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyses/fragmentation.h"
#include "exporter.h"
#include "pass/reader.h"
#include "perfetto-export.h"

/* The pass, writing to OUT. */
static enum ct_export_status perfetto_write(const struct ct_export_request *req, FILE *out)
{
	struct ct_reader *reader = ct_reader_create(req->opts);
	struct ct_perfetto *p = ct_perfetto_create(ct_reader_context(reader), req->opts, out);
	enum ct_export_status ret = CT_EXPORT_OK;
	enum ct_reader_status status;

	if (ct_reader_attach(reader, &ct_perfetto_export, p) < 0 ||
	    ct_reader_add(reader, &ct_fragmentation_analysis) < 0) {
		fprintf(req->messages, "%s: %s\n", req->prefix, ct_reader_stats(reader)->error);
		ct_reader_destroy(reader);
		return CT_EXPORT_ERROR;
	}
	status = ct_reader_read(reader, req->paths, req->path_count);
	if (status == CT_READER_INPUT_ERROR || status == CT_READER_ERROR) {
		fprintf(req->messages, "%s: %s\n", req->prefix, ct_reader_stats(reader)->error);
		ret = status == CT_READER_INPUT_ERROR ? CT_EXPORT_INPUT_ERROR : CT_EXPORT_ERROR;
		goto end;
	}
	if (status == CT_READER_TRUNCATED)
		fprintf(req->messages, "%s: warning: %s\n", req->prefix,
		        ct_reader_stats(reader)->error);
	if (ct_reader_finish(reader) < 0) {
		fprintf(req->messages, "%s: %s\n", req->prefix, ct_reader_stats(reader)->error);
		ret = CT_EXPORT_ERROR;
		goto end;
	}
	ct_perfetto_failures(p, ct_reader_result(reader, &ct_fragmentation_analysis));
	if (ct_perfetto_close(p) < 0) {
		fprintf(req->messages, "%s: cannot write '%s': %s\n", req->prefix, req->output,
		        strerror(errno));
		ret = CT_EXPORT_ERROR;
	}
end:
	ct_reader_destroy(reader);
	return ret;
}

static enum ct_export_status perfetto_run(const struct ct_export_request *req)
{
	enum ct_export_status ret;
	struct stat st;
	bool regular;
	FILE *out;

	out = fopen(req->output, "wb");
	if (!out) {
		fprintf(req->messages, "%s: cannot write '%s': %s\n", req->prefix, req->output,
		        strerror(errno));
		return CT_EXPORT_ERROR;
	}
	/* only a regular file is removed after a failure: never a device such as /dev/full */
	regular = fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode);
	ret = perfetto_write(req, out);
	if (fclose(out) != 0 && !ret) {
		fprintf(req->messages, "%s: cannot write '%s': %s\n", req->prefix, req->output,
		        strerror(errno));
		ret = CT_EXPORT_ERROR;
	}
	/* no half-written file is left to be taken for an export */
	if (ret && regular)
		unlink(req->output);
	return ret;
}

const struct ct_exporter_class ct_perfetto_exporter = { .output_room = 0, .run = perfetto_run };
