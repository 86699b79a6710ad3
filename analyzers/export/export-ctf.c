/* SPDX-License-Identifier: MIT */
/*
 * export-ctf.c - the GPU-time trace as CTF (see export-ctf.h): the reader
 * makes its pass with the GPU-time exporter attached, which writes as it
 * goes; then what the pass counted is added to the exporter's figures.
 */
#include <dirent.h>
#include <inttypes.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export-ctf.h"
#include "pass/reader.h"

/* What OUTPUT was before the export: nothing, or an empty directory of MODE. */
struct output_before {
	bool existed;
	mode_t mode;
};

/* OUTPUT does not exist, or is an empty directory (BEFORE says which): 0; else -1 with why. */
static int output_usable(const char *output, struct output_before *before, char *error, size_t len)
{
	DIR *dir = opendir(output);
	struct dirent *d;
	struct stat st;

	*before = (struct output_before){ 0 };
	if (!dir) {
		if (errno == ENOENT)
			return 0;
		snprintf(error, len, "cannot write into '%s': %s", output, strerror(errno));
		return -1;
	}
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			closedir(dir);
			snprintf(error, len, "'%s' is not empty: name a new directory", output);
			return -1;
		}
	before->existed = true;
	before->mode = fstat(dirfd(dir), &st) == 0 ? st.st_mode & 07777 : 0755;
	closedir(dir);
	return 0;
}

/*
 * An export that failed or wrote nothing takes back the directory it made,
 * with what the writer wrote in it (files only: ctf-writer.h makes no
 * directory there), so that no half trace is left; the
 * empty directory that was there before is made again, of its mode.
 */
static void remove_output(const char *output, const struct output_before *before)
{
	DIR *dir = opendir(output);
	struct dirent *d;

	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			unlinkat(dirfd(dir), d->d_name, 0);
	closedir(dir);
	rmdir(output);
	if (before->existed && mkdir(output, before->mode) == 0)
		chmod(output, before->mode);
}

/* The export's status for the reader's, STATUS, with why in ERROR. */
static enum ct_export_status read_failed(const struct ct_reader *reader,
                                         enum ct_reader_status status, char *error, size_t len)
{
	snprintf(error, len, "%s", ct_reader_stats(reader)->error);
	return status == CT_READER_INPUT_ERROR ? CT_EXPORT_INPUT_ERROR : CT_EXPORT_ERROR;
}

/* What the pass lost, beside what the exporter left out. */
static void add_reader_stats(struct ct_gpu_time_stats *stats, const struct ct_reader *reader)
{
	const struct ct_reader_stats *rs = ct_reader_stats(reader);

	stats->dropped_records = rs->dropped_records;
	stats->discarded_events = rs->discarded_events;
	stats->unmatched = rs->unmatched_gpu_records;
}

/* The pass over PATHS with the exporter writing into OUTPUT. */
static enum ct_export_status read_and_write(const char *const *paths, size_t count,
                                            const char *output, struct ct_gpu_time_stats *stats,
                                            char *error, size_t len)
{
	struct ct_options opts;
	struct ct_reader *reader;
	struct ct_gpu_time *x;
	enum ct_reader_status rs;
	enum ct_export_status status = CT_EXPORT_ERROR;

	ct_options_init(&opts);
	reader = ct_reader_create(&opts);
	x = ct_gpu_time_create(output, stats, error, len);
	if (!x || ct_reader_attach(reader, &ct_gpu_time_export, x) < 0) {
		if (x)
			snprintf(error, len, "%s", ct_reader_stats(reader)->error);
		goto end;
	}
	rs = ct_reader_read(reader, paths, count);
	if (rs == CT_READER_INPUT_ERROR || rs == CT_READER_ERROR) {
		status = read_failed(reader, rs, error, len);
		goto end;
	}
	if (ct_reader_finish(reader) < 0) {
		snprintf(error, len, "%s", ct_reader_stats(reader)->error);
		goto end;
	}
	if (ct_gpu_time_close(x, error, len) < 0)
		goto end;
	add_reader_stats(stats, reader);
	if (!stats->operations && stats->untimed) {
		snprintf(error, len,
		         "the traces' %" PRIu64 " GPU operations have no GPU times (their end is "
		         "unknown, or their times out of the clock's range): nothing to export",
		         stats->untimed);
		status = CT_EXPORT_INPUT_ERROR;
		goto end;
	}
	if (!stats->operations) {
		snprintf(error, len,
		         "the traces hold no GPU operation (gpu_kernel, gpu_memcpy, gpu_memset): "
		         "nothing to export (was GPU activity recorded? see cudatrace-record(1), "
		         "--activity)");
		status = CT_EXPORT_INPUT_ERROR;
		goto end;
	}
	/* a trace cut short: exported up to its last event, and said */
	stats->truncated = rs == CT_READER_TRUNCATED;
	if (stats->truncated)
		snprintf(error, len, "%s", ct_reader_stats(reader)->error);
	status = CT_EXPORT_OK;
end:
	ct_reader_destroy(reader);
	return status;
}

enum ct_export_status ct_export_ctf(const char *const *paths, size_t count, const char *output,
                                    struct ct_gpu_time_stats *stats, char *error, size_t len)
{
	struct output_before before;
	enum ct_export_status status;

	*stats = (struct ct_gpu_time_stats){ 0 };
	if (output_usable(output, &before, error, len) < 0)
		return CT_EXPORT_ERROR;
	status = read_and_write(paths, count, output, stats, error, len);
	if (status != CT_EXPORT_OK)
		remove_output(output, &before);
	return status;
}

/* --format ctf: the export, and what it left out, said as warnings. */
static enum ct_export_status ctf_run(const struct ct_export_request *req)
{
	struct ct_gpu_time_stats stats;
	char error[1024];
	enum ct_export_status status =
	    ct_export_ctf(req->paths, req->path_count, req->output, &stats, error, sizeof(error));
	FILE *m = req->messages;
	const char *p = req->prefix;

	if (status != CT_EXPORT_OK) {
		fprintf(m, "%s: %s\n", p, error);
		return status;
	}
	if (stats.truncated)
		fprintf(m, "%s: warning: %s\n", p, error);
	if (stats.dropped_records || stats.discarded_events)
		fprintf(m,
		        "%s: warning: CUPTI dropped %" PRIu64 " activity records and "
		        "LTTng discarded %" PRIu64
		        " events: the GPU-time trace misses what they held\n",
		        p, stats.dropped_records, stats.discarded_events);
	if (stats.late)
		fprintf(m,
		        "%s: warning: %" PRIu64 " GPU operations started before what every "
		        "lane of their CUDA stream had written (reorder window %.3f ms) and are "
		        "left out\n",
		        p, stats.late, (double)stats.window_ns / 1e6);
	if (stats.untimed)
		fprintf(m,
		        "%s: warning: %" PRIu64
		        " GPU records have no GPU times (their end is unknown: still running at a "
		        "forced flush), or times out of the clock's range, and are left out\n",
		        p, stats.untimed);
	if (stats.unmatched)
		fprintf(m,
		        "%s: warning: %" PRIu64
		        " GPU operations have no call in the trace (it was lost, or came before "
		        "the trace began) and are left out\n",
		        p, stats.unmatched);
	fprintf(req->summary,
	        "%s: %" PRIu64 " GPU operations in %" PRIu64 " stream%s written to %s\n", p,
	        stats.operations, stats.streams, stats.streams == 1 ? "" : "s", req->output);
	return CT_EXPORT_OK;
}

/* room for the stream files under the directory */
const struct ct_exporter_class ct_ctf_exporter = { .output_room = 128, .run = ctf_run };
