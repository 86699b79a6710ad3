/* SPDX-License-Identifier: MIT */
/*
 * test-last-words.c - a program's standard error as record keeps it
 * (common/stderr-log.h): the first 4 KiB and the last 64 KiB, each piece
 * with its time, written and read back as the lines a terminal shows;
 * damaged files refused. And what its last lines say
 * (common/last-words.h): the uncaught exception of a traceback that ends
 * them, with the innermost frame of the program's own code, and the
 * frameworks' out-of-memory messages, in their own formats (PyTorch's two,
 * TensorFlow's tensor and allocator messages with its statistics, XLA's),
 * with the figures they print.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <glib.h>

#include "common/last-words.h"
#include "common/stderr-log.h"

#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)

static char *dir;

static int make_dir(void **unused)
{
	(void)unused;
	dir = g_dir_make_tmp("test-last-words-XXXXXX", NULL);
	return dir ? 0 : -1;
}

static int remove_dir(void **unused)
{
	char *path = g_build_filename(dir, CT_STDERR_FILE, NULL);

	(void)unused;
	unlink(path);
	rmdir(dir);
	g_free(path);
	g_free(dir);
	return 0;
}

/* CAPTURE written into the test's directory, and read back into LOG. */
static void round_trip(const struct ct_stderr_capture *capture, struct ct_stderr_log *log)
{
	char *path = g_build_filename(dir, CT_STDERR_FILE, NULL);

	assert_int_equal(ct_stderr_capture_write(capture, path, 42, true), 0);
	assert_int_equal(ct_stderr_log_read(dir, log), CT_STDERR_OK);
	g_free(path);
}

/* TEXT as one piece at time 1000, read back as lines. */
static void log_of(const char *text, struct ct_stderr_log *log)
{
	struct ct_stderr_capture *c = ct_stderr_capture_new();

	ct_stderr_capture_add(c, 1000, text, strlen(text));
	round_trip(c, log);
	ct_stderr_capture_free(c);
}

/* What TEXT's lines say, into W. */
static void words_of(const char *text, struct ct_last_words *w)
{
	struct ct_stderr_log log;

	log_of(text, &log);
	ct_last_words_read(&log, w);
	ct_stderr_log_clear(&log);
}

static void test_sizes(void **unused)
{
	uint64_t bytes;
	bool rounded;

	(void)unused;
	assert_int_equal(ct_parse_size("1.25 GiB.", &bytes, &rounded), 8);
	assert_true(bytes == 5 * GIB / 4 && rounded);
	assert_int_equal(ct_parse_size("256.00MiB", &bytes, &rounded), 9);
	assert_true(bytes == 256 * MIB && rounded);
	assert_int_equal(ct_parse_size("268435456 bytes.", &bytes, &rounded), 15);
	assert_true(bytes == 268435456 && !rounded);
	assert_int_equal(ct_parse_size("123B", &bytes, &rounded), 4);
	assert_true(bytes == 123 && !rounded);
	assert_int_equal(ct_parse_size("0 bytes is free", &bytes, &rounded), 7);
	assert_true(bytes == 0);
	assert_int_equal(ct_parse_size("lots", &bytes, &rounded), 0);
	assert_int_equal(ct_parse_size("12 apples", &bytes, &rounded), 0);
}

/* Lines as a terminal shows them: a progress bar's last state, no colours. */
static void test_lines(void **unused)
{
	struct ct_stderr_capture *c = ct_stderr_capture_new();
	struct ct_stderr_log log;
	const char *one = "first\n\x1b[31mred\x1b[0m\n 10%\r 50%\r100%\r\n";

	(void)unused;
	ct_stderr_capture_add(c, 100, one, strlen(one));
	/* a millisecond later: a piece of its own; the line it starts is its time */
	ct_stderr_capture_add(c, 2000100, "\xff\x01tail", 6);
	round_trip(c, &log);
	assert_int_equal(log.pid, 42);
	assert_true(log.tty);
	assert_int_equal(log.bytes, strlen(one) + 6);
	assert_int_equal(log.skipped, 0);
	assert_int_equal(log.count, 4);
	assert_string_equal(log.lines[0].text, "first");
	assert_string_equal(log.lines[1].text, "red");
	assert_string_equal(log.lines[2].text, "100%");
	assert_int_equal(log.lines[2].ns, 100);
	assert_false(log.lines[2].unfinished);
	/* invalid UTF-8 replaced, the control byte left out, no newline at the end */
	assert_string_equal(log.lines[3].text, "\xef\xbf\xbdtail");
	assert_int_equal(log.lines[3].ns, 2000100);
	assert_true(log.lines[3].unfinished);
	ct_stderr_log_clear(&log);
	ct_stderr_capture_free(c);
}

/* The first 4 KiB and the last 64 KiB are kept, the rest counted; piece by piece too. */
static void test_bounds(void **unused)
{
	struct ct_stderr_capture *c = ct_stderr_capture_new();
	struct ct_stderr_log log;
	char line[100];
	size_t total = 0;

	(void)unused;
	for (int i = 0; i < 20000; i++) {
		int n = snprintf(line, sizeof(line), "line %d\n", i);

		/* a piece each 2 ms: one chunk each, more than the tail's count of them */
		ct_stderr_capture_add(c, (int64_t)i * 2000000, line, (size_t)n);
		total += (size_t)n;
	}
	assert_int_equal(ct_stderr_capture_bytes(c), total);
	round_trip(c, &log);
	assert_int_equal(log.bytes, total);
	assert_int_equal(log.skipped, total - CT_STDERR_HEAD_BYTES - CT_STDERR_TAIL_BYTES);
	assert_string_equal(log.lines[0].text, "line 0");
	assert_int_equal(log.lines[0].ns, 0);
	assert_string_equal(log.lines[log.count - 1].text, "line 19999");
	for (size_t i = 1; i < log.count; i++)
		if (log.lines[i].after_gap) {
			/* the head's cut line ends before the gap; the tail's starts within one */
			assert_true(strlen(log.lines[i].text) <= strlen("line 19999"));
			assert_false(log.lines[i - 1].after_gap);
		}
	ct_stderr_log_clear(&log);
	ct_stderr_capture_free(c);
}

/* One piece larger than all that is kept: its first and last bytes. */
static void test_one_large_piece(void **unused)
{
	struct ct_stderr_capture *c = ct_stderr_capture_new();
	size_t size = 300000;
	char *big = g_malloc(size);
	struct ct_stderr_log log;

	(void)unused;
	memset(big, 'x', size);
	memcpy(big + size - 4, "end\n", 4);
	ct_stderr_capture_add(c, 5, big, size);
	round_trip(c, &log);
	assert_int_equal(log.skipped, size - CT_STDERR_HEAD_BYTES - CT_STDERR_TAIL_BYTES);
	assert_int_equal(log.count, 2);
	assert_int_equal(strlen(log.lines[0].text), CT_STDERR_HEAD_BYTES);
	assert_true(log.lines[1].after_gap);
	assert_int_equal(strlen(log.lines[1].text), CT_STDERR_TAIL_BYTES - 1);
	assert_true(g_str_has_suffix(log.lines[1].text, "xend"));
	ct_stderr_log_clear(&log);
	ct_stderr_capture_free(c);
	g_free(big);
}

/* PATH's contents become TEXT. */
static void write_file(const char *text)
{
	char *path = g_build_filename(dir, CT_STDERR_FILE, NULL);

	assert_true(g_file_set_contents(path, text, -1, NULL));
	g_free(path);
}

static void test_damaged(void **unused)
{
	static const char *const bad[] = {
		"",
		"cudatrace-stderr 2\n",
		"cudatrace-stderr 1\nclock monotonic\npid 1\ntty 0\nbytes 3\nskipped 0\n",
		"cudatrace-stderr 1\nclock monotonic\npid 1\ntty 0\nbytes 3\nskipped 0\nchunk 1 "
		"9\nabc\nend\n",
		"cudatrace-stderr 1\nclock monotonic\npid 1\ntty 0\nbytes 3\nskipped 0\nchunk 1 "
		"18446744073709551615\nabc\nend\n",
		"cudatrace-stderr 1\nclock monotonic\npid 1\ntty 0\nbytes 3\nskipped 0\nchunk 1 "
		"3\nabcX",
		"cudatrace-stderr 1\nclock monotonic\npid x\ntty 0\nbytes 3\nskipped 0\nend\n",
		"cudatrace-stderr 1\nclock monotonic\npid 1\ntty 0\nbytes 3\nskipped "
		"0\nsomething\n",
	};
	struct ct_stderr_log log;
	char *empty;

	(void)unused;
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		write_file(bad[i]);
		assert_int_equal(ct_stderr_log_read(dir, &log), CT_STDERR_BAD);
		assert_int_equal(log.count, 0);
	}
	write_file("cudatrace-stderr 1\nclock monotonic\npid 1\ntty 0\nbytes 3\nskipped 0\nchunk 1 "
	           "3\nabc\nend\n");
	assert_int_equal(ct_stderr_log_read(dir, &log), CT_STDERR_OK);
	assert_string_equal(log.lines[0].text, "abc");
	ct_stderr_log_clear(&log);
	empty = g_dir_make_tmp("test-last-words-empty-XXXXXX", NULL);
	assert_int_equal(ct_stderr_log_read(empty, &log), CT_STDERR_NONE);
	rmdir(empty);
	g_free(empty);
}

#define TRACEBACK                                                                               \
	"Traceback (most recent call last):\n"                                                  \
	"  File \"/home/u/train.py\", line 40, in <module>\n"                                   \
	"    main()\n"                                                                          \
	"  File \"/home/u/train.py\", line 12, in main\n"                                       \
	"    out = model(batch)\n"                                                              \
	"          ^^^^^^^^^^^^\n"                                                              \
	"  File \"/venv/lib/python3.12/site-packages/torch/nn/modules/module.py\", line 1736, " \
	"in _wrapped_call_impl\n"                                                               \
	"    return self._call_impl(*args, **kwargs)\n"

static void test_exception(void **unused)
{
	struct ct_last_words w;

	(void)unused;
	words_of("loading\n" TRACEBACK "ValueError: bad shape: (3, 224)\n", &w);
	assert_true(w.has_exception);
	assert_string_equal(w.exception.type, "ValueError");
	assert_string_equal(w.exception.message, "bad shape: (3, 224)");
	/* the innermost frame of the program's code, not the library's */
	assert_string_equal(w.exception.file, "/home/u/train.py");
	assert_int_equal(w.exception.line, 12);
	assert_string_equal(w.exception.function, "main");
	assert_int_equal(w.exception.first, 1);
	assert_int_equal(w.exception.last, 9);
	assert_false(w.has_oom);
	ct_last_words_clear(&w);

	/* no message; only library frames: the innermost of them */
	words_of("Traceback (most recent call last):\n"
	         "  File \"/usr/lib/python3.12/json/decoder.py\", line 9, in f\n"
	         "MemoryError\n",
	         &w);
	assert_string_equal(w.exception.type, "MemoryError");
	assert_string_equal(w.exception.message, "");
	assert_int_equal(w.exception.line, 9);
	ct_last_words_clear(&w);

	/* chained: the last traceback is the one that ended it */
	words_of(TRACEBACK "KeyError: 'x'\n\nDuring handling of the above exception, another "
	                   "exception occurred:\n\nTraceback (most recent call last):\n"
	                   "  File \"/home/u/eval.py\", line 3, in <module>\n"
	                   "RuntimeError: again\n",
	         &w);
	assert_string_equal(w.exception.type, "RuntimeError");
	assert_string_equal(w.exception.file, "/home/u/eval.py");
	ct_last_words_clear(&w);

	/* a thread's exception does not end the program; nor does text that is no traceback */
	words_of("Exception in thread Thread-1:\n" TRACEBACK "ValueError: in a thread\n", &w);
	assert_false(w.has_exception);
	ct_last_words_clear(&w);
	words_of(TRACEBACK "this is not an exception line\n", &w);
	assert_false(w.has_exception);
	ct_last_words_clear(&w);
	words_of("all went well\n", &w);
	assert_false(w.has_exception || w.has_oom);
	ct_last_words_clear(&w);
}

static void test_pytorch(void **unused)
{
	struct ct_last_words w;

	(void)unused;
	words_of(TRACEBACK
	         "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB. "
	         "GPU 1 has a total capacity of 4.00 GiB of which 20.00 MiB is free. "
	         "Including non-PyTorch memory, this process has 3.97 GiB memory in use. "
	         "Of the allocated memory 704.00 MiB is allocated by PyTorch, and 2.50 GiB "
	         "is reserved by PyTorch but unallocated. If reserved but unallocated "
	         "memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_"
	         "segments:True to avoid fragmentation.\n",
	         &w);
	assert_true(w.has_exception && w.has_oom);
	assert_string_equal(w.exception.type, "torch.OutOfMemoryError");
	assert_int_equal(w.oom.framework, CT_FRAMEWORK_PYTORCH);
	assert_int_equal(w.oom.line, 8);
	assert_int_equal(w.oom.device, 1);
	assert_int_equal(w.oom.requested_bytes, 5 * GIB / 4);
	assert_int_equal(w.oom.device_total_bytes, 4 * GIB);
	assert_int_equal(w.oom.limit_bytes, 4 * GIB);
	assert_int_equal(w.oom.device_free_bytes, 20 * MIB);
	assert_int_equal(w.oom.in_use_bytes, 704 * MIB);
	assert_int_equal(w.oom.reserved_unused_bytes, 5 * GIB / 2);
	assert_int_equal(w.oom.reserved_bytes, 704 * MIB + 5 * GIB / 2);
	assert_int_equal(w.oom.process_bytes, (uint64_t)(3.97 * GIB + 0.5));
	assert_true(w.oom.rounded);
	ct_last_words_clear(&w);

	/* private pools: in the allocated figure already */
	words_of("CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of "
	         "8.00 GiB of which 0 bytes is free. Process 7 has 8.00 GiB memory in use. Of the "
	         "allocated memory 6.00 GiB is allocated by PyTorch, with 1.00 GiB allocated in "
	         "private pools (e.g., CUDA Graphs), and 1.00 GiB is reserved by PyTorch but "
	         "unallocated.\n",
	         &w);
	assert_false(w.has_exception);
	assert_int_equal(w.oom.in_use_bytes, 6 * GIB);
	assert_int_equal(w.oom.reserved_bytes, 7 * GIB);
	assert_int_equal(w.oom.device_free_bytes, 0);
	assert_int_equal(w.oom.process_bytes, 0);
	ct_last_words_clear(&w);

	/* torch.cuda.set_per_process_memory_fraction: the share it may use, as PyTorch 2.x says it */
	words_of("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB. GPU 0 "
	         "has a total capacity of 4.00 GiB of which 2.71 GiB is free. Including "
	         "non-PyTorch memory, this process has 1.29 GiB memory in use. 1024.00 MiB "
	         "allowed; Of the allocated memory 1024.00 MiB is allocated by PyTorch, and 0 "
	         "bytes is reserved by PyTorch but unallocated.\n",
	         &w);
	assert_int_equal(w.oom.device_total_bytes, 4 * GIB);
	assert_int_equal(w.oom.limit_bytes, GIB);
	assert_int_equal(w.oom.process_bytes, (uint64_t)(1.29 * GIB + 0.5));
	assert_int_equal(w.oom.in_use_bytes, GIB);
	assert_int_equal(w.oom.reserved_bytes, GIB);
	ct_last_words_clear(&w);

	/* before 2.1 */
	words_of("RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 7.93 GiB "
	         "total capacity; 130.35 MiB already allocated; 47.06 MiB free; 188.00 MiB "
	         "reserved in total by PyTorch) If reserved memory is >> allocated memory try "
	         "setting max_split_size_mb to avoid fragmentation.\n",
	         &w);
	assert_int_equal(w.oom.framework, CT_FRAMEWORK_PYTORCH);
	assert_int_equal(w.oom.requested_bytes, 36 * MIB);
	assert_int_equal(w.oom.reserved_bytes, 188 * MIB);
	assert_int_equal(w.oom.device_free_bytes, (uint64_t)(47.06 * MIB + 0.5));
	assert_int_equal(w.oom.in_use_bytes, (uint64_t)(130.35 * MIB + 0.5));
	assert_int_equal(w.oom.reserved_unused_bytes, 188 * MIB - (uint64_t)(130.35 * MIB + 0.5));
	ct_last_words_clear(&w);
}

static void test_tensorflow(void **unused)
{
	struct ct_last_words w;

	(void)unused;
	words_of("W tensorflow/core/common_runtime/bfc_allocator.cc:479] Allocator (GPU_0_bfc) "
	         "ran out of memory trying to allocate 1.20GiB (rounded to 1288490240)requested by "
	         "op MatMul\nStats: \nLimit:    3087007744\nInUse:      2952790016\n" TRACEBACK
	         "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when "
	         "allocating tensor with shape[8192,8192] and type float on /job:localhost/"
	         "replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:MatMul]\n",
	         &w);
	assert_int_equal(w.oom.framework, CT_FRAMEWORK_TENSORFLOW);
	/* the tensor's size, not the allocator's rounded one */
	assert_int_equal(w.oom.requested_bytes, 8192 * 8192 * 4);
	assert_int_equal(w.oom.device, 0);
	assert_int_equal(w.oom.limit_bytes, 3087007744u);
	assert_int_equal(w.oom.in_use_bytes, 2952790016u);
	assert_false(w.oom.rounded);
	ct_last_words_clear(&w);

	/* the allocator's message alone: its rounded size, exact */
	words_of("Allocator (GPU_2_bfc) ran out of memory trying to allocate 1.20GiB (rounded to "
	         "1288490240)requested by op MatMul\n",
	         &w);
	assert_int_equal(w.oom.framework, CT_FRAMEWORK_TENSORFLOW);
	assert_int_equal(w.oom.requested_bytes, 1288490240u);
	assert_int_equal(w.oom.device, 2);
	ct_last_words_clear(&w);

	/* TensorFlow 2.16 on prints its statistics as sizes (tsl's
	 * HumanReadableNumBytes), TensorFlow 2.21's words here */
	words_of("W0000 00:00:1796309675.446220   16485 bfc_allocator.cc:501] Allocator "
	         "(GPU_0_bfc) ran out of memory trying to allocate 20.00MiB (rounded to 20971520)"
	         "requested by op Fill\nIf the cause is memory fragmentation maybe the environment "
	         "variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' will improve the situation. \n"
	         "Current allocation summary follows.\n"
	         "Limit:                        64.00MiB\nInUse:                        24.00MiB\n"
	         "MaxInUse:                     48.00MiB\nNumAllocs:                          10\n"
	         "LargestFreeBlock:                   0B\n" TRACEBACK
	         "tensorflow.python.framework.errors_impl.ResourceExhaustedError: {{function_node "
	         "__wrapped__Fill_device_/job:localhost/replica:0/task:0/device:GPU:0}} OOM when "
	         "allocating tensor with shape[5242880] and type float on /job:localhost/replica:0/"
	         "task:0/device:GPU:0 by allocator GPU_0_bfc [Op:Fill] name: \n",
	         &w);
	assert_int_equal(w.oom.framework, CT_FRAMEWORK_TENSORFLOW);
	assert_int_equal(w.oom.requested_bytes, 20 * MIB);
	assert_int_equal(w.oom.limit_bytes, 64 * MIB);
	assert_int_equal(w.oom.in_use_bytes, 24 * MIB);
	assert_true(w.oom.rounded);
	ct_last_words_clear(&w);
}

static void test_jax(void **unused)
{
	struct ct_last_words w;

	(void)unused;
	words_of(TRACEBACK "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of "
	                   "memory while trying to allocate 268435456 bytes.\n",
	         &w);
	assert_int_equal(w.oom.framework, CT_FRAMEWORK_JAX);
	assert_int_equal(w.oom.requested_bytes, 268435456);
	assert_false(w.oom.rounded);
	ct_last_words_clear(&w);

	/* XLA's BFC allocator says it as TensorFlow's does: the exception names JAX */
	words_of(
	    "W external/xla/xla/tsl/framework/bfc_allocator.cc:497] Allocator (GPU_0_bfc) "
	    "ran out of memory trying to allocate 16.00GiB (rounded to 17179869184)\n" TRACEBACK
	    "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to "
	    "allocate 16.00GiB.\n",
	    &w);
	assert_int_equal(w.oom.framework, CT_FRAMEWORK_JAX);
	assert_int_equal(w.oom.requested_bytes, 16 * GIB);
	assert_string_equal(ct_framework_label(w.oom.framework), "jax");
	ct_last_words_clear(&w);
}

/* An out-of-memory message the program survived does not explain another exception. */
static void test_survived_oom(void **unused)
{
	struct ct_last_words w;

	(void)unused;
	words_of("CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of "
	         "4.00 GiB of which 0 bytes is free.\nretrying with a smaller batch\n" TRACEBACK
	         "KeyError: 'label'\n",
	         &w);
	assert_true(w.has_exception);
	assert_false(w.has_oom);
	ct_last_words_clear(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),   cmocka_unit_test(test_lines),
		cmocka_unit_test(test_bounds),  cmocka_unit_test(test_one_large_piece),
		cmocka_unit_test(test_damaged), cmocka_unit_test(test_exception),
		cmocka_unit_test(test_pytorch), cmocka_unit_test(test_tensorflow),
		cmocka_unit_test(test_jax),     cmocka_unit_test(test_survived_oom),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
