/* SPDX-License-Identifier: MIT */
/*
 * stderr-log.c - the program's standard error kept within bounds, its
 * file written and read back as lines (stderr-log.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "stderr-log.h"

/* Pieces closer in time than this share a chunk: lines are placed to the millisecond. */
#define COALESCE_NS 1000000
/* The most chunks the tail keeps: a program writing a byte at a time stays small. */
#define TAIL_CHUNKS 4096u
/* A file larger than this was not written by record: the bounds above keep it smaller. */
#define FILE_MAX (4u << 20)

struct chunk {
	int64_t ns;
	GByteArray *data;
};

struct ct_stderr_capture {
	GArray *head; /* struct chunk, CT_STDERR_HEAD_BYTES in all at most */
	size_t head_bytes;
	GQueue *tail; /* struct chunk *, oldest first */
	size_t tail_bytes;
	uint64_t bytes, skipped;
};

struct ct_stderr_capture *ct_stderr_capture_new(void)
{
	struct ct_stderr_capture *c = g_new0(struct ct_stderr_capture, 1);

	c->head = g_array_new(FALSE, FALSE, sizeof(struct chunk));
	c->tail = g_queue_new();
	return c;
}

static void free_chunk(gpointer p)
{
	struct chunk *ch = p;

	g_byte_array_unref(ch->data);
	g_free(ch);
}

void ct_stderr_capture_free(struct ct_stderr_capture *c)
{
	if (!c)
		return;
	for (guint i = 0; i < c->head->len; i++)
		g_byte_array_unref(g_array_index(c->head, struct chunk, i).data);
	g_array_free(c->head, TRUE);
	g_queue_free_full(c->tail, free_chunk);
	g_free(c);
}

uint64_t ct_stderr_capture_bytes(const struct ct_stderr_capture *c)
{
	return c->bytes;
}

/* The head's first bytes, as long as there is room in it; what did not fit is returned. */
static size_t add_head(struct ct_stderr_capture *c, int64_t ns, const char *buf, size_t len)
{
	size_t take = MIN(len, CT_STDERR_HEAD_BYTES - c->head_bytes);
	struct chunk *last =
	    c->head->len ? &g_array_index(c->head, struct chunk, c->head->len - 1) : NULL;

	if (!take)
		return 0;
	if (last && ns - last->ns < COALESCE_NS) {
		g_byte_array_append(last->data, (const guint8 *)buf, (guint)take);
	} else {
		struct chunk ch = { .ns = ns, .data = g_byte_array_new() };

		g_byte_array_append(ch.data, (const guint8 *)buf, (guint)take);
		g_array_append_val(c->head, ch);
	}
	c->head_bytes += take;
	return take;
}

/* The oldest of the tail goes until it holds CT_STDERR_TAIL_BYTES and TAIL_CHUNKS at most. */
static void trim_tail(struct ct_stderr_capture *c)
{
	while (c->tail_bytes > CT_STDERR_TAIL_BYTES) {
		struct chunk *old = g_queue_peek_head(c->tail);
		size_t excess = c->tail_bytes - CT_STDERR_TAIL_BYTES;

		if (old->data->len <= excess) {
			c->tail_bytes -= old->data->len;
			c->skipped += old->data->len;
			free_chunk(g_queue_pop_head(c->tail));
			continue;
		}
		g_byte_array_remove_range(old->data, 0, (guint)excess);
		c->tail_bytes -= excess;
		c->skipped += excess;
	}
	while (g_queue_get_length(c->tail) > TAIL_CHUNKS) {
		struct chunk *first = g_queue_pop_head(c->tail);
		struct chunk *second = g_queue_peek_head(c->tail);

		/* the two oldest become one, at the older one's time */
		g_byte_array_prepend(second->data, first->data->data, first->data->len);
		second->ns = first->ns;
		free_chunk(first);
	}
}

static void add_tail(struct ct_stderr_capture *c, int64_t ns, const char *buf, size_t len)
{
	struct chunk *last = g_queue_peek_tail(c->tail);

	if (len > CT_STDERR_TAIL_BYTES) {
		c->skipped += len - CT_STDERR_TAIL_BYTES;
		buf += len - CT_STDERR_TAIL_BYTES;
		len = CT_STDERR_TAIL_BYTES;
	}
	if (last && ns - last->ns < COALESCE_NS) {
		g_byte_array_append(last->data, (const guint8 *)buf, (guint)len);
	} else {
		struct chunk *ch = g_new(struct chunk, 1);

		ch->ns = ns;
		ch->data = g_byte_array_sized_new((guint)len);
		g_byte_array_append(ch->data, (const guint8 *)buf, (guint)len);
		g_queue_push_tail(c->tail, ch);
	}
	c->tail_bytes += len;
	trim_tail(c);
}

void ct_stderr_capture_add(struct ct_stderr_capture *c, int64_t ns, const char *buf, size_t len)
{
	size_t taken = add_head(c, ns, buf, len);

	c->bytes += len;
	if (taken < len)
		add_tail(c, ns, buf + taken, len - taken);
}

static int write_chunk(FILE *f, const struct chunk *ch)
{
	if (fprintf(f, "chunk %" PRId64 " %u\n", ch->ns, ch->data->len) < 0)
		return -1;
	if (ch->data->len && fwrite(ch->data->data, 1, ch->data->len, f) != ch->data->len)
		return -1;
	return fputc('\n', f) == EOF ? -1 : 0;
}

static int write_all(const struct ct_stderr_capture *c, FILE *f, int pid, bool tty)
{
	int ret = fprintf(f,
	                  "cudatrace-stderr 1\nclock monotonic\npid %d\ntty %d\nbytes %" PRIu64
	                  "\nskipped %" PRIu64 "\n",
	                  pid, tty ? 1 : 0, c->bytes, c->skipped) < 0
	              ? -1
	              : 0;

	for (guint i = 0; !ret && i < c->head->len; i++)
		ret = write_chunk(f, &g_array_index(c->head, struct chunk, i));
	if (!ret && c->skipped && fprintf(f, "gap %" PRIu64 "\n", c->skipped) < 0)
		ret = -1;
	for (GList *l = c->tail->head; !ret && l; l = l->next)
		ret = write_chunk(f, l->data);
	if (!ret && fputs("end\n", f) == EOF)
		ret = -1;
	return ret;
}

int ct_stderr_capture_write(const struct ct_stderr_capture *c, const char *path, int pid, bool tty)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FILE *f;
	int ret, err;

	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	ret = write_all(c, f, pid, tty);
	err = errno;
	if (fclose(f) != 0 && !ret) {
		err = errno;
		ret = -1;
	}
	errno = err;
	return ret;
}

/* ------------------------------------------------------------ reading */

/* The file as pieces: where each line's bytes came from, and when. */
struct parser {
	const char *p, *end;
};

/* The next header or piece line, without its newline, into LINE (at most LEN). */
static bool next_line(struct parser *ps, char *line, size_t len)
{
	const char *nl = ps->p < ps->end ? memchr(ps->p, '\n', (size_t)(ps->end - ps->p)) : NULL;
	size_t n;

	if (!nl || (size_t)(nl - ps->p) >= len)
		return false;
	n = (size_t)(nl - ps->p);
	memcpy(line, ps->p, n);
	line[n] = '\0';
	ps->p = nl + 1;
	return true;
}

/* What is being made of the bytes: the line under way, and the lines done. */
struct liner {
	GArray *lines; /* struct ct_stderr_line */
	GString *line;
	int64_t ns;
	bool open, after_gap;
};

/*
 * RAW as a terminal shows it: what follows the last carriage return that
 * has text after it (a progress bar's last state), without escape
 * sequences and control characters, tabs kept, as valid UTF-8.
 */
static char *shown(const char *raw, size_t len)
{
	GString *out = g_string_sized_new(len);
	char *text;

	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)raw[i];

		if (ch == '\r') {
			if (i + 1 < len)
				g_string_truncate(out, 0);
		} else if (ch == 0x1b && i + 1 < len && raw[i + 1] == '[') {
			/* CSI: parameters, then a final byte from @ to ~ */
			for (i += 2; i < len && !((unsigned char)raw[i] >= 0x40 &&
			                          (unsigned char)raw[i] <= 0x7e);
			     i++)
				;
		} else if (ch == 0x1b && i + 1 < len && raw[i + 1] == ']') {
			/* OSC (a window title): up to BEL or ESC \ */
			for (i += 2; i < len && raw[i] != '\a' && raw[i] != 0x1b; i++)
				;
			if (i + 1 < len && raw[i] == 0x1b)
				i++;
		} else if (ch == 0x1b) {
			i++; /* a two-byte escape */
		} else if (ch >= 0x20 || ch == '\t') {
			g_string_append_c(out, (char)ch);
		}
	}
	text = g_utf8_make_valid(out->str, (gssize)out->len);
	g_string_free(out, TRUE);
	return text;
}

static void end_line(struct liner *lr, bool unfinished)
{
	struct ct_stderr_line l = {
		.ns = lr->ns,
		.text = shown(lr->line->str, lr->line->len),
		.after_gap = lr->after_gap,
		.unfinished = unfinished,
	};

	g_array_append_val(lr->lines, l);
	g_string_truncate(lr->line, 0);
	lr->open = lr->after_gap = false;
}

static void add_bytes(struct liner *lr, int64_t ns, const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (!lr->open) {
			lr->open = true;
			lr->ns = ns;
		}
		if (data[i] == '\n')
			end_line(lr, false);
		else
			g_string_append_c(lr->line, data[i]);
	}
}

static bool header_u64(const char *line, const char *key, uint64_t *out)
{
	size_t n = strlen(key);
	char *end;

	if (strncmp(line, key, n) || line[n] != ' ')
		return false;
	errno = 0;
	*out = strtoull(line + n + 1, &end, 10);
	return !errno && end != line + n + 1 && !*end;
}

static bool read_header(struct parser *ps, struct ct_stderr_log *log)
{
	char line[128];
	uint64_t pid, tty;

	if (!next_line(ps, line, sizeof(line)) || strcmp(line, "cudatrace-stderr 1") ||
	    !next_line(ps, line, sizeof(line)) || strcmp(line, "clock monotonic"))
		return false;
	if (!next_line(ps, line, sizeof(line)) || !header_u64(line, "pid", &pid) ||
	    !next_line(ps, line, sizeof(line)) || !header_u64(line, "tty", &tty) ||
	    !next_line(ps, line, sizeof(line)) || !header_u64(line, "bytes", &log->bytes) ||
	    !next_line(ps, line, sizeof(line)) || !header_u64(line, "skipped", &log->skipped))
		return false;
	log->pid = (int)MIN(pid, (uint64_t)INT32_MAX);
	log->tty = tty != 0;
	return true;
}

/* One piece line (LINE) and its bytes. False when damaged. */
static bool read_piece(struct parser *ps, const char *line, struct liner *lr)
{
	long long ns;
	unsigned long long len, gap;
	int used = 0;

	if (sscanf(line, "chunk %lld %llu%n", &ns, &len, &used) == 2 && !line[used]) {
		if (len >= (unsigned long long)(ps->end - ps->p) || ps->p[len] != '\n')
			return false;
		add_bytes(lr, (int64_t)ns, ps->p, (size_t)len);
		ps->p += len + 1;
		return true;
	}
	if (sscanf(line, "gap %llu%n", &gap, &used) == 1 && !line[used]) {
		if (lr->open)
			end_line(lr, false);
		lr->after_gap = true;
		return true;
	}
	return false;
}

static bool parse(const char *data, size_t size, struct ct_stderr_log *log)
{
	struct parser ps = { data, data + size };
	struct liner lr = { .lines = g_array_new(FALSE, FALSE, sizeof(struct ct_stderr_line)),
		            .line = g_string_new(NULL) };
	char line[128];
	bool ok = read_header(&ps, log);

	while (ok && (ok = next_line(&ps, line, sizeof(line))) && strcmp(line, "end"))
		ok = read_piece(&ps, line, &lr);
	if (ok && lr.open)
		end_line(&lr, true);
	g_string_free(lr.line, TRUE);
	log->count = lr.lines->len;
	log->lines = (struct ct_stderr_line *)g_array_free(lr.lines, FALSE);
	return ok;
}

enum ct_stderr_status ct_stderr_log_read(const char *dir, struct ct_stderr_log *log)
{
	char *path = g_build_filename(dir, CT_STDERR_FILE, NULL);
	enum ct_stderr_status status = CT_STDERR_OK;
	GMappedFile *map;
	GError *error = NULL;
	struct stat st;

	memset(log, 0, sizeof(*log));
	if (stat(path, &st) != 0) {
		status = errno == ENOENT ? CT_STDERR_NONE : CT_STDERR_ERROR;
		goto end;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > FILE_MAX) {
		status = CT_STDERR_BAD;
		goto end;
	}
	map = g_mapped_file_new(path, FALSE, &error);
	if (!map) {
		g_clear_error(&error);
		status = CT_STDERR_ERROR;
		goto end;
	}
	if (!parse(g_mapped_file_get_contents(map), g_mapped_file_get_length(map), log))
		status = CT_STDERR_BAD;
	g_mapped_file_unref(map);
end:
	g_free(path);
	if (status != CT_STDERR_OK)
		ct_stderr_log_clear(log);
	return status;
}

void ct_stderr_log_clear(struct ct_stderr_log *log)
{
	for (size_t i = 0; i < log->count; i++)
		g_free(log->lines[i].text);
	g_free(log->lines);
	memset(log, 0, sizeof(*log));
}
