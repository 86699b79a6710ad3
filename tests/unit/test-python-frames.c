/* SPDX-License-Identifier: MIT */
/*
 * test-python-frames - libtrace/python-frames.c inside a real CPython,
 * embedded (the test, not the tracer, links libpython): Python code calls
 * back into C through ctypes, which releases the GIL as it does around a
 * CUDA call, and the frames python_frames_format() read there must be
 * the ones the interpreter itself gives (sys._getframe: f_lineno,
 * co_qualname, co_filename), from methods, generators, threads, names
 * outside ASCII, bounded by depth and by the buffer; and the keys
 * python_frames_key() gives there: the same for the same line reached by
 * the same path, another for another line or path.
 *
 * make check builds it against the python3-dev installed; to check
 * another version, build it against that version's headers and library,
 * e.g. for pyenv's 3.9 (likewise 3.10 to 3.13):
 *   P=~/.pyenv/versions/3.9.18
 *   cc -Ilibtrace -I$P/include/python3.9 tests/unit/test-python-frames.c \
 *      libtrace/python-frames.c -L$P/lib -lpython3.9 -Wl,-rpath,$P/lib \
 *      -lcmocka -o test-python-frames-3.9 && ./test-python-frames-3.9
 */
#include <Python.h>

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "python-frames.h"

static char captured[8192];
static size_t captured_len;
static size_t capture_size = sizeof(captured);

/* The keys of the frames at each capture since the last reset. */
static uint64_t keys[16];
static size_t key_count;

/* Called from Python through ctypes, without the GIL. */
static void capture(unsigned depth)
{
	captured_len = python_frames_format(captured, capture_size, depth);
	if (key_count < sizeof(keys) / sizeof(keys[0]))
		keys[key_count++] = python_frames_key(depth);
}

/* truth(): the caller's frames as the interpreter gives them, in
 * python-frames.h's format. Each call of cap() is on the line of a truth()
 * call, so both see the same lines. */
static const char script[] =
    "import ctypes, sys, threading\n"
    "cap = ctypes.CFUNCTYPE(None, ctypes.c_uint)(CAPTURE)\n"
    "def truth():\n"
    "    f, out = sys._getframe(1), []\n"
    "    while f:\n"
    "        name = getattr(f.f_code, 'co_qualname', f.f_code.co_name)\n"
    "        out.append('%d\\t%s\\t%s\\n' % (f.f_lineno or 0, name, f.f_code.co_filename))\n"
    "        f = f.f_back\n"
    "    return ''.join(out)\n"
    "def leaf(depth):\n"
    "    cap(depth); return truth()\n"
    "class Model:\n"
    "    def step(self, depth):\n"
    "        return leaf(depth)\n"
    "def gen(depth):\n"
    "    yield Model().step(depth)\n"
    "def recurse(n, depth):\n"
    "    return recurse(n - 1, depth) if n else next(gen(depth))\n"
    "def función_λ(depth):\n"
    "    cap(depth); return truth()\n"
    "def in_thread(depth):\n"
    "    result = []\n"
    "    t = threading.Thread(target=lambda: result.append(leaf(depth)))\n"
    "    t.start(); t.join()\n"
    "    return result[0]\n"
    "def loop(depth):\n"
    "    for _ in range(2):\n"
    "        cap(depth)\n"
    "    cap(depth)\n"
    "def two_paths(depth):\n"
    "    loop(depth)\n"
    "    loop(depth)\n"
    "    return ''\n";

static PyObject *globals;

/* EXPR's value, a str, run where the script's functions are. */
static char *eval(const char *expr)
{
	PyObject *value = PyRun_String(expr, Py_eval_input, globals, globals);
	const char *text;

	if (!value) {
		PyErr_Print();
		fail_msg("%s raised", expr);
	}
	text = PyUnicode_AsUTF8(value);
	assert_non_null(text);
	char *copy = strdup(text);
	Py_DECREF(value);
	return copy;
}

/* A method's name as the code object gives it: qualified from 3.11
 * (co_qualname), bare before (co_name). */
#if PY_VERSION_HEX >= 0x030B0000
#define METHOD(class, name) class "." name
#else
#define METHOD(class, name) name
#endif

static void expect_captured(const char *want, size_t want_len)
{
	assert_int_equal(captured_len, want_len);
	assert_memory_equal(captured, want, want_len);
}

/* A method called from a generator, 5 recursions deep: every frame, as
 * the interpreter names and numbers it. */
static void test_matches_interpreter(void **state)
{
	(void)state;
	char *want = eval("recurse(5, 64)");

	expect_captured(want, strlen(want));
	assert_non_null(strstr(want, "\t" METHOD("Model", "step") "\t<string>\n"));
	assert_non_null(strstr(want, "\tgen\t<string>\n"));
	free(want);
}

/* At most DEPTH frames, the innermost. */
static void test_depth(void **state)
{
	(void)state;
	char *want = eval("recurse(40, 8)");
	char *end = want;

	for (int i = 0; i < 8; i++)
		end = strchr(end, '\n') + 1;
	expect_captured(want, (size_t)(end - want));
	free(want);
}

/* A buffer too small for all frames holds those that fit, whole. */
static void test_small_buffer(void **state)
{
	(void)state;
	char *want;
	size_t first;

	/* "12\tleaf\t<string>\n" fits, "14\tModel.step\t<string>\n" ("step"
	 * before 3.11) after it in part */
	capture_size = 30;
	want = eval("recurse(3, 64)");
	capture_size = sizeof(captured);
	first = (size_t)(strchr(want, '\n') + 1 - want);
	assert_true(first <= 30 && strchr(want + first, '\n') + 1 - want > 30);
	expect_captured(want, first);
	free(want);
}

/* Names outside ASCII are written as UTF-8. */
static void test_unicode(void **state)
{
	(void)state;
	char *want = eval("función_λ(64)");

	expect_captured(want, strlen(want));
	assert_non_null(strstr(captured, "\tfunción_λ\t"));
	free(want);
}

/* Another Python thread: its own frames, down to threading's. */
static void test_thread(void **state)
{
	(void)state;
	char *want = eval("in_thread(64)");

	expect_captured(want, strlen(want));
	assert_non_null(strstr(want, "\t" METHOD("Thread", "run") "\t"));
	free(want);
}

/* A loop's line gives one key at each turn; another line, or the same
 * line reached from another, another key; DEPTH 1 sees the line alone. */
static void test_keys(void **state)
{
	(void)state;

	key_count = 0;
	free(eval("two_paths(64)"));
	assert_int_equal(key_count, 6);
	for (size_t i = 0; i < key_count; i++)
		assert_true(keys[i] != 0);
	assert_true(keys[0] == keys[1] && keys[3] == keys[4]);
	assert_true(keys[0] != keys[2] && keys[3] != keys[5]);
	assert_true(keys[0] != keys[3] && keys[2] != keys[5]);
	key_count = 0;
	free(eval("two_paths(1)"));
	assert_true(keys[0] == keys[3] && keys[2] == keys[5] && keys[0] != keys[2]);
}

static void *no_python(void *arg)
{
	char buf[256];

	*(size_t *)arg = python_frames_format(buf, sizeof(buf), 32) + (python_frames_key(32) != 0);
	return NULL;
}

/* A thread the interpreter does not know has no Python frames. */
static void test_thread_without_python(void **state)
{
	(void)state;
	pthread_t t;
	size_t n = 1;

	assert_int_equal(pthread_create(&t, NULL, no_python, &n), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(n, 0);
}

/*
 * LeakSanitizer's own suppressions, when the test is built with it:
 * CPython keeps some of its allocations past Py_Finalize by design
 * (interned strings, type and code caches: "Bugs and caveats" of
 * Py_FinalizeEx in the C API reference), which are no leaks of the
 * tracer's.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpython\n";
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_interpreter),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_small_buffer),
		cmocka_unit_test(test_unicode),
		cmocka_unit_test(test_thread),
		cmocka_unit_test(test_thread_without_python),
		cmocka_unit_test(test_keys),
	};
	char code[sizeof(script) + 32];
	const char *at = strstr(script, "CAPTURE");
	int failed;

	cmocka_set_message_output(CM_OUTPUT_TAP);
	snprintf(code, sizeof(code), "%.*s%#jx%s", (int)(at - script), script,
	         (uintmax_t)(uintptr_t)capture, at + strlen("CAPTURE"));
	Py_Initialize();
	globals = PyDict_New();
	PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins());
	if (!PyRun_String(code, Py_file_input, globals, globals)) {
		PyErr_Print();
		return 1;
	}
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	Py_DECREF(globals);
	Py_Finalize();
	return failed;
}
