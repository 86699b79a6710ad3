/* SPDX-License-Identifier: MIT */
/*
 * test-gpu-time-writer.c - the writing thread of the GPU-time export
 * (analyzers/export/gpu-time-writer.h), fed by hand: operations of three
 * streams, handed over in several batches, are all written, each stream
 * in a file named after it, the metadata with the clock and environment
 * of the trace described; operations whose GPU times cannot be
 * timestamps are counted, not written; a stream whose records lag far
 * behind another's loses nothing; an operation that starts before what
 * its stream wrote goes into the stream's next lane, a file of its own,
 * until the lanes run out; without a trace to take the clock
 * from, the close fails and says why; a writer destroyed without its
 * close (an export that failed) still ends its streams and its trace;
 * more streams than files kept open each have every packet, in order.
 * babeltrace2 reads what it wrote: every event, in packets of every
 * stream, an environment of strings that TSDL must escape, a clock whose
 * name is no TSDL identifier, the clock's UUID and the trace's (a random
 * one) as RFC 4122 writes them.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "export/gpu-time-writer.h"

#define STREAMS 3
#define OPS     3000

/* Stand-ins for processes: the writer only keys streams by them. */
static const int processes[2];

/* A trace as LTTng's: a 1 GHz clock, an environment. */
static struct ct_trace_desc *trace(void)
{
	static struct ct_trace_env_entry env[] = {
		{ "domain", "ust", 0 },
		{ "tracer_name", "lttng-ust", 0 },
		{ "tracer_major", NULL, 2 },
	};
	static struct ct_trace_desc desc = {
		.name = "test-trace",
		.clock = { .name = "monotonic", .frequency = 1000000000, .has_uuid = true },
		.env = env,
		.env_count = G_N_ELEMENTS(env),
	};

	return &desc;
}

/* Operation I: a kernel, a copy or a memset, on stream I % STREAMS, back to back there. */
static void op_at(struct ct_gpu_time_op *t, size_t i, int64_t start)
{
	memset(t, 0, sizeof(*t));
	t->process = &processes[i % STREAMS == 2];
	t->op.procname = i % STREAMS == 2 ? "proc1" : "proc0";
	t->op.kind = (enum ct_gpu_op_kind)(i % CT_GPU_OP_KINDS);
	t->op.start = start;
	t->op.end = start + 500;
	t->op.vpid = 100 + (i % STREAMS == 2);
	t->op.stream = (uint32_t)(i % STREAMS);
	t->op.correlation_id = (uint32_t)i;
	t->op.name = t->op.kind == CT_GPU_OP_KERNEL ? "kernel" : "memcpy HtoD";
	t->op.direction = "HtoD";
	/* every field a value of its own, to be found in its place */
	t->op.context = 9;
	t->op.bytes = 1000 + i;
	t->op.value = 0xab;
	t->op.grid_x = (int32_t)i + 1;
	t->op.grid_y = 2;
	t->op.grid_z = 3;
	t->op.block_x = 4;
	t->op.block_y = 5;
	t->op.block_z = 6;
}

/* COUNT operations from FIRST, in batches; START gives operation I's start. */
static void give(struct ct_gpu_time_writer *w, size_t first, size_t count,
                 int64_t (*start)(size_t i))
{
	struct ct_gpu_time_batch *b = NULL;

	for (size_t i = first; i < first + count; i++) {
		if (!b)
			b = ct_gpu_time_writer_batch(w);
		op_at(&b->ops[b->count++], i, start(i));
		if (b->count == CT_GPU_TIME_BATCH) {
			ct_gpu_time_writer_give(w, b);
			b = NULL;
		}
	}
	if (b)
		ct_gpu_time_writer_give(w, b);
}

static int64_t in_order(size_t i)
{
	return 1000000000 + (int64_t)i * 1000;
}

static int64_t untimed_every_tenth(size_t i)
{
	return i % 10 ? in_order(i) : 0;
}

static char *read_file(const char *dir, const char *name)
{
	char *path = g_build_filename(dir, name, NULL);
	char *text = NULL;

	g_file_get_contents(path, &text, NULL, NULL);
	g_free(path);
	return text;
}

static bool has_file(const char *dir, const char *name)
{
	char *path = g_build_filename(dir, name, NULL);
	GStatBuf st;
	bool ok = g_stat(path, &st) == 0 && st.st_size > 0;

	g_free(path);
	return ok;
}

/* A directory for a writer to make, in a new temporary one. */
static char *new_dir(void)
{
	char *tmp = g_dir_make_tmp("gpu-time-writer.XXXXXX", NULL);
	char *dir;

	assert_non_null(tmp);
	dir = g_build_filename(tmp, "gpu", NULL);
	g_free(tmp);
	return dir;
}

/* Removes DIR (files only) and the temporary directory it is in. */
static void remove_dir(char *dir)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	char *tmp = g_path_get_dirname(dir);
	const char *name;

	while (d && (name = g_dir_read_name(d))) {
		char *path = g_build_filename(dir, name, NULL);

		g_unlink(path);
		g_free(path);
	}
	if (d)
		g_dir_close(d);
	g_rmdir(dir);
	g_rmdir(tmp);
	g_free(tmp);
	g_free(dir);
}

/* A writer into DIR, counting into STATS, given COUNT operations of TRACE: START gives their starts. */
static struct ct_gpu_time_writer *fed(const char *dir, struct ct_gpu_time_stats *stats,
                                      const struct ct_trace_desc *desc, size_t count,
                                      int64_t (*start)(size_t i))
{
	char error[256];
	struct ct_gpu_time_writer *w = ct_gpu_time_writer_create(dir, stats, error, sizeof(error));

	assert_non_null(w);
	ct_gpu_time_writer_set_trace(w, desc);
	give(w, 0, count, start);
	return w;
}

static void test_writes_every_stream_and_the_trace(void **unused)
{
	char *dir = new_dir();
	struct ct_gpu_time_stats stats = { 0 };
	struct ct_gpu_time_writer *w = fed(dir, &stats, trace(), OPS, in_order);
	char error[256];
	char *metadata;

	(void)unused;
	assert_int_equal(ct_gpu_time_writer_close(w, error, sizeof(error)), 0);
	assert_int_equal(stats.operations, OPS);
	assert_int_equal(stats.streams, STREAMS);
	assert_int_equal(stats.late, 0);
	assert_int_equal(stats.untimed, 0);
	ct_gpu_time_writer_destroy(w);
	assert_true(has_file(dir, "pid100-device0-stream0"));
	assert_true(has_file(dir, "pid100-device0-stream1"));
	assert_true(has_file(dir, "pid101-device0-stream2"));
	metadata = read_file(dir, "metadata");
	assert_non_null(metadata);
	assert_non_null(strstr(metadata, "cudatrace_gpu_time = 1"));
	assert_non_null(strstr(metadata, "tracer_name = \"lttng-ust\""));
	assert_non_null(strstr(metadata, "name = monotonic;"));
	assert_non_null(strstr(metadata, "freq = 1000000000;"));
	assert_non_null(strstr(metadata, "cudatrace_gpu:memset_begin"));
	g_free(metadata);
	remove_dir(dir);
}

static void test_untimed_are_counted_and_left_out(void **unused)
{
	char *dir = new_dir();
	struct ct_gpu_time_stats stats = { 0 };
	struct ct_gpu_time_writer *w = fed(dir, &stats, trace(), OPS, untimed_every_tenth);
	char error[256];

	(void)unused;
	assert_int_equal(ct_gpu_time_writer_close(w, error, sizeof(error)), 0);
	assert_int_equal(stats.untimed, OPS / 10);
	assert_int_equal(stats.operations, OPS - OPS / 10);
	ct_gpu_time_writer_destroy(w);
	remove_dir(dir);
}

/*
 * The directory a writer wrote and closed, given operations (stream,
 * start), each 100 ns long, of process 0, each in a batch of its own (what
 * a batch lets go is written before the next is taken); its figures in
 * STATS.
 */
static char *written(const int64_t (*ops)[2], size_t count, struct ct_gpu_time_stats *stats)
{
	char *dir = new_dir();
	char error[256];
	struct ct_gpu_time_writer *w = ct_gpu_time_writer_create(dir, stats, error, sizeof(error));

	assert_non_null(w);
	ct_gpu_time_writer_set_trace(w, trace());
	for (size_t i = 0; i < count; i++) {
		struct ct_gpu_time_batch *b = ct_gpu_time_writer_batch(w);
		struct ct_gpu_time_op *t = &b->ops[b->count++];

		op_at(t, 0, ops[i][1]);
		t->op.stream = (uint32_t)ops[i][0];
		t->op.end = ops[i][1] + 100;
		t->op.correlation_id = (uint32_t)i;
		ct_gpu_time_writer_give(w, b);
	}
	assert_int_equal(ct_gpu_time_writer_close(w, error, sizeof(error)), 0);
	ct_gpu_time_writer_destroy(w);
	return dir;
}

/* Stream 1's records come a second after stream 0's later ones: none is late. */
static void test_lagging_stream_loses_nothing(void **unused)
{
	static const int64_t ops[][2] = {
		{ 0, 1000000000 }, { 0, 2000000000 }, { 0, 3000000000 }, { 0, 4000000000 },
		{ 1, 1000000100 }, { 1, 1500000000 }, { 1, 2500000000 },
	};
	struct ct_gpu_time_stats stats = { 0 };
	char *dir = written(ops, G_N_ELEMENTS(ops), &stats);

	(void)unused;
	assert_int_equal(stats.operations, G_N_ELEMENTS(ops));
	assert_int_equal(stats.late, 0);
	assert_int_equal(stats.streams, 2);
	remove_dir(dir);
}

/*
 * On one stream, each operation starts before what the one before it let
 * go: the second goes into the stream's second lane, the third into its
 * third, ..., and the one past the last lane is left out, counted.
 */
static void test_out_of_order_takes_a_lane(void **unused)
{
	static const int64_t ops[][2] = {
		{ 0, 50000 }, { 0, 60000 }, /* the first leaves */
		{ 0, 40000 }, { 0, 45000 }, /* lane 2; the first of them leaves */
		{ 0, 30000 }, { 0, 35000 }, /* lane 3 */
		{ 0, 20000 }, { 0, 25000 }, /* lane 4 */
		{ 0, 10000 },               /* no lane */
	};
	struct ct_gpu_time_stats stats = { 0 };
	char *dir = written(ops, G_N_ELEMENTS(ops), &stats);

	(void)unused;
	assert_int_equal(stats.operations, G_N_ELEMENTS(ops) - 1);
	assert_int_equal(stats.late, 1);
	assert_int_equal(stats.streams, 4);
	assert_true(has_file(dir, "pid100-device0-stream0"));
	assert_true(has_file(dir, "pid100-device0-stream0-lane2"));
	assert_true(has_file(dir, "pid100-device0-stream0-lane3"));
	assert_true(has_file(dir, "pid100-device0-stream0-lane4"));
	remove_dir(dir);
}

static char *babeltrace2(const char *dir, const char *args);

/*
 * Events 2^32 ns or more after the one before them in their stream, or
 * first in their packet, have the whole timestamp; the others its low 32
 * bits: babeltrace2 reads every timestamp whole.
 */
static void test_timestamps_far_apart(void **unused)
{
	static const int64_t ops[][2] = {
		{ 0, 1000000000 },
		{ 0, 1000000100 + 4294967296 },       /* 2^32 ns after the first's end */
		{ 0, 1000000100 + 4294967296 + 300 }, /* just after */
		{ 0, 10000000000 },                   /* more than 2^32 ns after */
	};
	struct ct_gpu_time_stats stats = { 0 };
	char *dir = written(ops, G_N_ELEMENTS(ops), &stats);
	char *text = babeltrace2(dir, "--clock-cycles");
	static const uint64_t want[] = {
		1000000000, 1000000100, 5294967396,  5294967496,
		5294967696, 5294967796, 10000000000, 10000000100,
	};
	const char *at = text;

	(void)unused;
	assert_non_null(text);
	/* in order, each as --clock-cycles prints it */
	for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
		char cycles[32];

		snprintf(cycles, sizeof(cycles), "[%020" PRIu64 "] ", want[i]);
		at = strstr(at, cycles);
		assert_non_null(at);
	}
	g_free(text);
	remove_dir(dir);
}

static void test_no_clock_fails_the_close(void **unused)
{
	char *dir = new_dir();
	struct ct_gpu_time_stats stats = { 0 };
	struct ct_gpu_time_writer *w = fed(dir, &stats, NULL, 10, in_order);
	char error[256] = "";

	(void)unused;
	assert_int_equal(ct_gpu_time_writer_close(w, error, sizeof(error)), -1);
	assert_non_null(strstr(error, "no clock"));
	assert_int_equal(stats.operations, 0);
	ct_gpu_time_writer_destroy(w);
	remove_dir(dir);
}

/* An export that fails after operations were written destroys its writer unclosed. */
static void test_destroyed_unclosed_ends_its_trace(void **unused)
{
	char *dir = new_dir();
	struct ct_gpu_time_stats stats = { 0 };

	(void)unused;
	ct_gpu_time_writer_destroy(fed(dir, &stats, trace(), OPS, in_order));
	assert_true(has_file(dir, "metadata"));
	assert_true(has_file(dir, "pid100-device0-stream0"));
	remove_dir(dir);
}

/* A trace whose strings need escaping in TSDL, its clock name no identifier. */
static struct ct_trace_desc *awkward_trace(void)
{
	static struct ct_trace_env_entry env[] = {
		{ "domain", "ust", 0 },
		{ "hostname", "a \"quoted\" back\\slash\nnewline", 0 },
		{ "tracer_minor", NULL, -3 },
	};
	static struct ct_trace_desc desc = {
		.clock = { .name = "my-clock",
		           .description = "the \"clock\"",
		           .frequency = 1000000000,
		           .offset_seconds = 1700000000,
		           .has_uuid = true,
		           .uuid = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99,
		                     0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff } },
		.env = env,
		.env_count = G_N_ELEMENTS(env),
	};

	return &desc;
}

/* What babeltrace2 prints of DIR with ARGS; NULL: it failed. */
static char *babeltrace2(const char *dir, const char *args)
{
	char *command = g_strdup_printf("babeltrace2 %s '%s'", args, dir);
	char *out = NULL;
	int status = -1;

	if (!g_spawn_command_line_sync(command, &out, NULL, &status, NULL) || status != 0) {
		g_free(out);
		out = NULL;
	}
	g_free(command);
	return out;
}

/* Streams of test_many_streams_every_packet: more than the CTF writer keeps open. */
#define MANY_STREAMS 40
/* Operations on each: a kernel's two events take about 85 bytes, a packet 32 KiB. */
#define MANY_OPS 1200

static int64_t le64_at(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return (int64_t)v;
}

/*
 * The packets of the stream file NAME in DIR, walked by their sizes (CTF
 * 1.8: magic, UUID, stream id and instance, then packet_size,
 * content_size, two timestamps and packet_seq_num, 64 bits each): -1
 * unless each begins with the magic, is numbered after the one before it
 * and the last ends at the file's end.
 */
static int packets_in(const char *dir, const char *name)
{
	char *path = g_build_filename(dir, name, NULL);
	gchar *data = NULL;
	gsize len = 0, at = 0;
	int packets = 0;

	if (g_file_get_contents(path, &data, &len, NULL)) {
		while (at + 76 <= len && !memcmp(data + at, "\xc1\x1f\xfc\xc1", 4) &&
		       le64_at((uint8_t *)data + at + 68) == packets) {
			at += (gsize)le64_at((uint8_t *)data + at + 36) / 8;
			packets++;
		}
	}
	if (at != len || !data)
		packets = -1;
	g_free(data);
	g_free(path);
	return packets;
}

/*
 * More streams than the CTF writer keeps files open for, each written in
 * several packets: every packet of every stream is in its file, whole,
 * in order, the kept files' and the others'.
 */
static void test_many_streams_every_packet(void **unused)
{
	char *dir = new_dir();
	struct ct_gpu_time_stats stats = { 0 };
	char error[256];
	struct ct_gpu_time_writer *w = ct_gpu_time_writer_create(dir, &stats, error, sizeof(error));
	struct ct_gpu_time_batch *b = NULL;

	(void)unused;
	assert_non_null(w);
	ct_gpu_time_writer_set_trace(w, trace());
	for (size_t i = 0; i < MANY_STREAMS * MANY_OPS; i++) {
		if (!b)
			b = ct_gpu_time_writer_batch(w);
		op_at(&b->ops[b->count], i, in_order(i));
		b->ops[b->count].process = &processes[0];
		b->ops[b->count].op.kind = CT_GPU_OP_KERNEL;
		b->ops[b->count].op.vpid = 100;
		b->ops[b->count++].op.stream = (uint32_t)(i % MANY_STREAMS);
		if (b->count == CT_GPU_TIME_BATCH) {
			ct_gpu_time_writer_give(w, b);
			b = NULL;
		}
	}
	if (b)
		ct_gpu_time_writer_give(w, b);
	assert_int_equal(ct_gpu_time_writer_close(w, error, sizeof(error)), 0);
	ct_gpu_time_writer_destroy(w);
	assert_int_equal(stats.operations, MANY_STREAMS * MANY_OPS);
	assert_int_equal(stats.streams, MANY_STREAMS);
	for (unsigned s = 0; s < MANY_STREAMS; s++) {
		char name[64];

		snprintf(name, sizeof(name), "pid100-device0-stream%u", s);
		assert_in_range(packets_in(dir, name), 3, 10);
	}
	remove_dir(dir);
}

/*
 * Whether the trace's UUID in DETAILS (sink.text.details) is a random
 * one, version 4 and variant 1 (RFC 4122, section 4.4).
 */
static bool trace_uuid_is_random(const char *details)
{
	/* the trace's, under its first stream's beginning (the clock's is in the class) */
	const char *u = strstr(details, "Stream beginning:");

	u = u ? strstr(u, "UUID: ") : NULL;
	if (!u || strlen(u) < 6 + 36)
		return false;
	u += 6;
	return u[8] == '-' && u[13] == '-' && u[14] == '4' && u[18] == '-' &&
	       strchr("89ab", u[19]) && u[23] == '-';
}

static void test_babeltrace2_reads_it(void **unused)
{
	char *dir = new_dir();
	struct ct_gpu_time_stats stats = { 0 };
	struct ct_gpu_time_writer *w = fed(dir, &stats, awkward_trace(), OPS, in_order);
	char error[256];
	char *text, *details;
	size_t events = 0;

	(void)unused;
	assert_int_equal(ct_gpu_time_writer_close(w, error, sizeof(error)), 0);
	ct_gpu_time_writer_destroy(w);
	text = babeltrace2(dir, "--clock-cycles");
	assert_non_null(text);
	/* one line an event, but for the hostname's newline: its events' names counted */
	for (const char *p = text; (p = strstr(p, " cudatrace_gpu:")); p++)
		events++;
	assert_int_equal(events, 2 * OPS);
	/* the last kernel (2997, on stream 0), copy (2998, on stream 1) and
	 * memset (2999, on stream 2), each field with its operation's value */
	assert_non_null(strstr(text, "cudatrace_gpu:kernel_begin: { vpid = 100, procname = "
	                             "\"proc0\" }, { device = 0, context = 9, stream = 0, "
	                             "correlation_id = 2997, name = \"kernel\", duration = 500, "
	                             "grid_x = 2998, grid_y = 2, grid_z = 3, block_x = 4, "
	                             "block_y = 5, block_z = 6 }"));
	assert_non_null(strstr(text, "cudatrace_gpu:memcpy_begin: { vpid = 100, procname = "
	                             "\"proc0\" }, { device = 0, context = 9, stream = 1, "
	                             "correlation_id = 2998, name = \"memcpy HtoD\", "
	                             "duration = 500, direction = \"HtoD\", bytes = 3998 }"));
	assert_non_null(strstr(text, "cudatrace_gpu:memset_begin: { vpid = 101, procname = "
	                             "\"proc1\" }, { device = 0, context = 9, stream = 2, "
	                             "correlation_id = 2999, name = \"memcpy HtoD\", "
	                             "duration = 500, bytes = 3999, value = 171 }"));
	assert_non_null(strstr(text, "cudatrace_gpu:memset_end: { vpid = 101, procname = "
	                             "\"proc1\" }, { device = 0, context = 9, stream = 2, "
	                             "correlation_id = 2999 }"));
	details = babeltrace2(dir, "-c sink.text.details");
	assert_non_null(details);
	assert_non_null(strstr(details, "hostname: a \"quoted\" back\\slash\nnewline"));
	assert_non_null(strstr(details, "tracer_minor: -3"));
	assert_non_null(strstr(details, "Name: my_clock"));
	assert_non_null(strstr(details, "Description: the \"clock\""));
	assert_non_null(strstr(details, "Offset (s): 1,700,000,000"));
	assert_non_null(strstr(details, "UUID: 00112233-4455-6677-8899-aabbccddeeff"));
	assert_true(trace_uuid_is_random(details));
	g_free(details);
	g_free(text);
	remove_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writes_every_stream_and_the_trace),
		cmocka_unit_test(test_untimed_are_counted_and_left_out),
		cmocka_unit_test(test_lagging_stream_loses_nothing),
		cmocka_unit_test(test_out_of_order_takes_a_lane),
		cmocka_unit_test(test_timestamps_far_apart),
		cmocka_unit_test(test_no_clock_fails_the_close),
		cmocka_unit_test(test_destroyed_unclosed_ends_its_trace),
		cmocka_unit_test(test_babeltrace2_reads_it),
		cmocka_unit_test(test_many_streams_every_packet),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
