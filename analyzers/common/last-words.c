/* SPDX-License-Identifier: MIT */
/*
 * last-words.c - an uncaught exception and a framework's out-of-memory
 * message in a program's last lines (last-words.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "last-words.h"

/* A traceback further up than this many lines from the end does not end the output. */
#define TRACEBACK_REACH 400
/* How far up from the end a framework's out-of-memory message is looked for. */
#define OOM_REACH 2000

/* A size as the frameworks print it. */
#define SIZE "([0-9]+(?:\\.[0-9]+)? ?(?:bytes|[KMGTP]iB|B))"

size_t ct_parse_size(const char *text, uint64_t *bytes, bool *rounded)
{
	static const struct {
		const char *unit;
		int shift;
	} units[] = { { "bytes", 0 }, { "KiB", 10 }, { "MiB", 20 }, { "GiB", 30 },
		      { "TiB", 40 },  { "PiB", 50 }, { "B", 0 } };
	const char *p = text;
	char *end;
	double value;

	if (*p < '0' || *p > '9')
		return 0;
	value = g_ascii_strtod(p, &end);
	p = end;
	if (*p == ' ')
		p++;
	for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
		size_t n = strlen(units[i].unit);

		if (strncmp(p, units[i].unit, n))
			continue;
		value = ldexp(value, units[i].shift);
		*bytes = value >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)llround(value);
		*rounded = units[i].shift != 0;
		return (size_t)(p + n - text);
	}
	return 0;
}

/* ---------------------------------------------------------- the traceback */

static bool is_type_name(const char *s, size_t len)
{
	if (!len || !(g_ascii_isalpha(s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!(g_ascii_isalnum(s[i]) || s[i] == '_' || s[i] == '.'))
			return false;
	return true;
}

/* Where the last traceback that ends the output starts; COUNT when none. */
static size_t last_traceback(const struct ct_stderr_log *log)
{
	size_t reach = log->count > TRACEBACK_REACH ? log->count - TRACEBACK_REACH : 0;

	for (size_t i = log->count; i-- > reach;) {
		const char *before = i ? log->lines[i - 1].text : "";

		if (strcmp(log->lines[i].text, "Traceback (most recent call last):"))
			continue;
		/* a thread's, or one Python ignored: the program went on */
		if (g_str_has_prefix(before, "Exception in thread") ||
		    g_str_has_prefix(before, "Exception ignored in"))
			return log->count;
		return i;
	}
	return log->count;
}

/* A library's frame (installed packages, the standard library, Python's own). */
static bool is_library(const char *file)
{
	return strstr(file, "/site-packages/") || strstr(file, "/dist-packages/") ||
	       g_str_has_prefix(file, "<frozen ") || strstr(file, "/lib/python3") ||
	       strstr(file, "/lib64/python3");
}

/*
 * `  File "PATH", line N, in F`: its path (g_free), line and function
 * (g_free, NULL when not said); NULL when TEXT is not one.
 */
static char *frame_of(const char *text, int *line, char **function)
{
	const char *start, *end, *in;
	char *file;

	if (!g_str_has_prefix(text, "  File \""))
		return NULL;
	start = text + 8;
	end = strstr(start, "\", line ");
	if (!end)
		return NULL;
	file = g_strndup(start, (size_t)(end - start));
	*line = atoi(end + 8);
	in = strstr(end + 8, ", in ");
	*function = in ? g_strdup(in + 5) : NULL;
	return file;
}

static void read_exception(const struct ct_stderr_log *log, struct ct_last_words *w)
{
	size_t start = last_traceback(log), i;
	char *user = NULL, *any = NULL, *user_function = NULL, *any_function = NULL;
	int user_line = 0, any_line = 0;
	const char *text, *colon;

	if (start == log->count)
		return;
	/* frames, their source lines and carets: indented; the exception is not */
	for (i = start + 1; i < log->count && log->lines[i].text[0] == ' '; i++) {
		int line;
		char *function, *file = frame_of(log->lines[i].text, &line, &function);

		if (!file)
			continue;
		g_free(any);
		g_free(any_function);
		any = g_strdup(file);
		any_function = g_strdup(function);
		any_line = line;
		if (!is_library(file)) {
			g_free(user);
			g_free(user_function);
			user = file;
			user_function = function;
			user_line = line;
		} else {
			g_free(file);
			g_free(function);
		}
	}
	text = i < log->count ? log->lines[i].text : "";
	colon = strstr(text, ": ");
	if (!is_type_name(text, colon ? (size_t)(colon - text) : strlen(text))) {
		g_free(user);
		g_free(any);
		g_free(user_function);
		g_free(any_function);
		return;
	}
	w->has_exception = true;
	w->exception.type = colon ? g_strndup(text, (size_t)(colon - text)) : g_strdup(text);
	w->exception.message = g_strdup(colon ? colon + 2 : "");
	w->exception.file = user ? user : any;
	w->exception.line = user ? user_line : any_line;
	w->exception.function = user ? user_function : any_function;
	w->exception.first = start;
	w->exception.last = i;
	if (user) {
		g_free(any);
		g_free(any_function);
	} else {
		g_free(user_function);
	}
}

/* ------------------------------------------------- the frameworks' messages */

struct matcher {
	GRegex *pt_new, *pt_process, *pt_allowed, *pt_pool, *pt_old;
	GRegex *tf_bfc, *tf_oom, *tf_stat, *xla;
};

static GRegex *compile(const char *pattern)
{
	GRegex *re = g_regex_new(pattern, G_REGEX_OPTIMIZE, 0, NULL);

	g_assert(re);
	return re;
}

static void matcher_init(struct matcher *m)
{
	m->pt_new = compile("CUDA out of memory\\. Tried to allocate " SIZE "\\. GPU ([0-9]+) has "
	                    "a total capacity of " SIZE " of which " SIZE " is free\\.");
	m->pt_process = compile("this process has " SIZE " memory in use");
	/* only with torch.cuda.set_per_process_memory_fraction: the share of the device */
	m->pt_allowed = compile("memory in use\\. " SIZE " allowed;");
	m->pt_pool = compile("Of the allocated memory " SIZE " is allocated by PyTorch, "
	                     "(?:with " SIZE " allocated in private pools[^)]*\\), )?and " SIZE
	                     " is reserved by PyTorch but unallocated");
	m->pt_old =
	    compile("CUDA out of memory\\. Tried to allocate " SIZE " \\(GPU ([0-9]+); " SIZE
	            " total capacity; " SIZE " already allocated; " SIZE " free; " SIZE
	            " reserved in total by PyTorch\\)");
	m->tf_bfc = compile("Allocator \\(([^)]*)\\) ran out of memory trying to allocate " SIZE
	                    "(?: \\(rounded to ([0-9]+)\\))?");
	m->tf_oom = compile("OOM when allocating tensor with shape ?\\[([0-9, ]*)\\] and type "
	                    "([a-z0-9_]+) on \\S*?(?:GPU:([0-9]+))?(?:\\s|$)");
	/* bytes (TensorFlow 2.x), or a size (2.16 on, tsl's HumanReadableNumBytes) */
	m->tf_stat = compile("^\\s*(Limit|InUse):\\s+(?:([0-9]+)|" SIZE ")\\s*$");
	m->xla = compile("Out of memory (?:while trying to allocate|allocating) " SIZE);
}

static void matcher_clear(struct matcher *m)
{
	GRegex **all[] = { &m->pt_new, &m->pt_process, &m->pt_allowed, &m->pt_pool, &m->pt_old,
		           &m->tf_bfc, &m->tf_oom,     &m->tf_stat,    &m->xla };

	for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
		g_regex_unref(*all[i]);
}

/* Group N of INFO as a size, added to *BYTES; rounded noted in OOM. */
static void size_of(GMatchInfo *info, int n, uint64_t *bytes, struct ct_said_oom *oom)
{
	char *s = g_match_info_fetch(info, n);
	uint64_t value;
	bool rounded;

	if (s && ct_parse_size(s, &value, &rounded)) {
		*bytes += value;
		oom->rounded |= rounded;
	}
	g_free(s);
}

static int int_of(GMatchInfo *info, int n)
{
	char *s = g_match_info_fetch(info, n);
	int value = s && s[0] ? atoi(s) : -1;

	g_free(s);
	return value;
}

static bool pytorch(const struct matcher *m, const char *text, struct ct_said_oom *oom)
{
	GMatchInfo *info;
	bool found;

	if (g_regex_match(m->pt_new, text, 0, &info)) {
		size_of(info, 1, &oom->requested_bytes, oom);
		oom->device = int_of(info, 2);
		size_of(info, 3, &oom->device_total_bytes, oom);
		size_of(info, 4, &oom->device_free_bytes, oom);
		/* with no fraction of it set (pt_allowed), PyTorch may use all the device */
		oom->limit_bytes = oom->device_total_bytes;
		g_match_info_free(info);
		if (g_regex_match(m->pt_process, text, 0, &info))
			size_of(info, 1, &oom->process_bytes, oom);
		g_match_info_free(info);
		if (g_regex_match(m->pt_allowed, text, 0, &info)) {
			oom->limit_bytes = 0;
			size_of(info, 1, &oom->limit_bytes, oom);
		}
		g_match_info_free(info);
		/* reserved: in use (private pools in it) and reserved but unallocated */
		if (g_regex_match(m->pt_pool, text, 0, &info)) {
			size_of(info, 1, &oom->in_use_bytes, oom);
			size_of(info, 3, &oom->reserved_unused_bytes, oom);
			oom->reserved_bytes = oom->in_use_bytes + oom->reserved_unused_bytes;
		}
		g_match_info_free(info);
		return true;
	}
	g_match_info_free(info);
	found = g_regex_match(m->pt_old, text, 0, &info);
	if (found) {
		size_of(info, 1, &oom->requested_bytes, oom);
		oom->device = int_of(info, 2);
		size_of(info, 3, &oom->device_total_bytes, oom);
		oom->limit_bytes = oom->device_total_bytes;
		size_of(info, 4, &oom->in_use_bytes, oom);
		size_of(info, 5, &oom->device_free_bytes, oom);
		size_of(info, 6, &oom->reserved_bytes, oom);
		if (oom->reserved_bytes >= oom->in_use_bytes)
			oom->reserved_unused_bytes = oom->reserved_bytes - oom->in_use_bytes;
	}
	g_match_info_free(info);
	return found;
}

/* The size of one element of TensorFlow's TYPE, 0 when not known. */
static unsigned element_size(const char *type)
{
	static const struct {
		const char *name;
		unsigned size;
	} types[] = { { "float", 4 }, { "double", 8 },    { "half", 2 },       { "bfloat16", 2 },
		      { "int8", 1 },  { "uint8", 1 },     { "int16", 2 },      { "uint16", 2 },
		      { "int32", 4 }, { "uint32", 4 },    { "int64", 8 },      { "uint64", 8 },
		      { "bool", 1 },  { "complex64", 8 }, { "complex128", 16 } };

	for (size_t i = 0; i < G_N_ELEMENTS(types); i++)
		if (!strcmp(type, types[i].name))
			return types[i].size;
	return 0;
}

/* SHAPE ("8192,8192") of TYPE in bytes; 0 when not known. */
static uint64_t tensor_bytes(const char *shape, const char *type)
{
	uint64_t bytes = element_size(type);
	char **dims = g_strsplit(shape, ",", -1);

	for (char **d = dims; bytes && *d; d++) {
		uint64_t n = g_ascii_strtoull(g_strstrip(*d), NULL, 10);

		bytes = n && bytes > UINT64_MAX / n ? 0 : bytes * n;
	}
	g_strfreev(dims);
	return bytes;
}

/* TensorFlow's "OOM when allocating tensor": the tensor's size and device. */
static bool tf_tensor(const struct matcher *m, const char *text, struct ct_said_oom *oom)
{
	GMatchInfo *info;
	bool found = g_regex_match(m->tf_oom, text, 0, &info);

	if (found) {
		char *shape = g_match_info_fetch(info, 1), *type = g_match_info_fetch(info, 2);

		oom->requested_bytes = tensor_bytes(shape, type);
		if (oom->device < 0)
			oom->device = int_of(info, 3);
		g_free(shape);
		g_free(type);
	}
	g_match_info_free(info);
	return found;
}

/* The BFC allocator's "ran out of memory" (TensorFlow's, and XLA's in JAX). */
static bool bfc(const struct matcher *m, const char *text, struct ct_said_oom *oom)
{
	GMatchInfo *info;
	bool found = g_regex_match(m->tf_bfc, text, 0, &info);

	if (found) {
		char *name = g_match_info_fetch(info, 1), *exact = g_match_info_fetch(info, 3);
		const char *gpu = strstr(name, "GPU_");

		if (exact && exact[0]) {
			oom->requested_bytes = g_ascii_strtoull(exact, NULL, 10);
		} else {
			oom->requested_bytes = 0;
			size_of(info, 2, &oom->requested_bytes, oom);
		}
		if (gpu)
			oom->device = atoi(gpu + 4);
		g_free(name);
		g_free(exact);
	}
	g_match_info_free(info);
	return found;
}

static bool xla(const struct matcher *m, const char *text, struct ct_said_oom *oom)
{
	GMatchInfo *info;
	bool found = g_regex_match(m->xla, text, 0, &info);

	if (found)
		size_of(info, 1, &oom->requested_bytes, oom);
	g_match_info_free(info);
	return found;
}

/* The allocator's last Limit: and InUse: lines, before its message or after. */
static void tf_stats(const struct matcher *m, const struct ct_stderr_log *log,
                     struct ct_said_oom *oom)
{
	bool limit = false, in_use = false;

	for (size_t i = log->count; i-- > 0 && !(limit && in_use);) {
		GMatchInfo *info;

		if (g_regex_match(m->tf_stat, log->lines[i].text, 0, &info)) {
			char *key = g_match_info_fetch(info, 1),
			     *value = g_match_info_fetch(info, 2);
			bool is_limit = !strcmp(key, "Limit");
			uint64_t bytes = 0;

			if (value && value[0])
				bytes = g_ascii_strtoull(value, NULL, 10);
			else
				size_of(info, 3, &bytes, oom);
			if (is_limit && !limit)
				oom->limit_bytes = bytes;
			else if (!is_limit && !in_use)
				oom->in_use_bytes = bytes;
			limit |= is_limit;
			in_use |= !is_limit;
			g_free(key);
			g_free(value);
		}
		g_match_info_free(info);
	}
}

/* JAX rather than TensorFlow: the exception or the message names XLA or JAX. */
static bool says_jax(const struct ct_last_words *w, const char *text)
{
	const char *type = w->has_exception ? w->exception.type : "";

	return strstr(type, "jax") || strstr(type, "Jax") || strstr(type, "Xla") ||
	       strstr(text, "xla/") || strstr(text, "jax");
}

/*
 * The framework's figures from line I, TensorFlow's from the lines around
 * it too: its tensor's shape, its allocator's message and statistics.
 */
static bool oom_at(const struct matcher *m, const struct ct_stderr_log *log, size_t i,
                   struct ct_last_words *w)
{
	struct ct_said_oom *oom = &w->oom;
	const char *text = log->lines[i].text;

	*oom = (struct ct_said_oom){ .device = -1, .line = i };
	if (pytorch(m, text, oom)) {
		oom->framework = CT_FRAMEWORK_PYTORCH;
		return true;
	}
	if (xla(m, text, oom)) {
		oom->framework = CT_FRAMEWORK_JAX;
		return true;
	}
	if (tf_tensor(m, text, oom) || bfc(m, text, oom)) {
		struct ct_said_oom other = { .device = -1 };

		oom->framework = says_jax(w, text) ? CT_FRAMEWORK_JAX : CT_FRAMEWORK_TENSORFLOW;
		/* the tensor's size is what was asked; the allocator's, the rounded size */
		for (size_t j = log->count; !oom->requested_bytes && j-- > 0;)
			if (tf_tensor(m, log->lines[j].text, &other) && other.requested_bytes)
				oom->requested_bytes = other.requested_bytes;
		for (size_t j = log->count; (!oom->requested_bytes || oom->device < 0) && j-- > 0;)
			if (bfc(m, log->lines[j].text, &other)) {
				if (!oom->requested_bytes)
					oom->requested_bytes = other.requested_bytes;
				if (oom->device < 0)
					oom->device = other.device;
				oom->rounded |= other.rounded;
				break;
			}
		tf_stats(m, log, oom);
		return true;
	}
	return false;
}

/*
 * The last message, among the last OOM_REACH lines; after an uncaught
 * exception, within its traceback (its message says it): one caught
 * before did not end the program.
 */
static void read_oom(const struct ct_stderr_log *log, struct ct_last_words *w)
{
	size_t reach = log->count > OOM_REACH ? log->count - OOM_REACH : 0;

	if (w->has_exception)
		reach = MAX(reach, w->exception.first);
	struct matcher m;

	matcher_init(&m);
	for (size_t i = log->count; i-- > reach && !w->has_oom;)
		w->has_oom = oom_at(&m, log, i, w);
	matcher_clear(&m);
}

void ct_last_words_read(const struct ct_stderr_log *log, struct ct_last_words *w)
{
	memset(w, 0, sizeof(*w));
	read_exception(log, w);
	read_oom(log, w);
}

void ct_last_words_clear(struct ct_last_words *w)
{
	g_free(w->exception.type);
	g_free(w->exception.message);
	g_free(w->exception.file);
	g_free(w->exception.function);
	memset(w, 0, sizeof(*w));
}
