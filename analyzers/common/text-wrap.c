/* SPDX-License-Identifier: MIT */
/*
 * text-wrap.c - text cut into lines (text-wrap.h).
 */
#include <string.h>

#include <glib.h>

#include "text-wrap.h"

size_t ct_text_width(const char *text)
{
	return (size_t)g_utf8_strlen(text, -1);
}

/* Characters a middle cut to WIDTH keeps from the start: two thirds, "…" aside. */
static size_t middle_head(size_t width)
{
	return (width - 1) * 2 / 3;
}

char *ct_text_cut_middle(const char *text, size_t width)
{
	size_t n = ct_text_width(text), head, tail;

	if (n <= width || width < 3)
		return g_strdup(text);
	head = middle_head(width);
	tail = width - 1 - head;
	return g_strdup_printf("%.*s…%s", (int)(g_utf8_offset_to_pointer(text, (glong)head) - text),
	                       text, g_utf8_offset_to_pointer(text, (glong)(n - tail)));
}

/* The characters of TEXT from FROM up to TO (offsets), appended to OUT. */
static void append_chars(GString *out, const char *text, size_t from, size_t to)
{
	const char *a = g_utf8_offset_to_pointer(text, (glong)from);

	g_string_append_len(out, a, g_utf8_offset_to_pointer(a, (glong)(to - from)) - a);
}

char *ct_text_cut_showing(const char *text, size_t width, size_t at)
{
	size_t n = ct_text_width(text), head, window, start;
	GString *out;

	/* what the middle cut keeps: its head from the start, the rest from the end */
	if (n <= width || width < CT_TEXT_CUT_SHOWING_MIN || at < middle_head(width) ||
	    at >= n - (width - 1 - middle_head(width)))
		return ct_text_cut_middle(text, width);
	/* a third from the start, "…", a window with AT a third of the way in, "…" */
	head = (width - 2) / 3;
	window = width - 2 - head;
	start = MAX(at - MIN(at, window / 3), head + 1);
	if (start + window + 1 >= n) {
		/* the window reaches the end: one "…" */
		start = n - (window + 1);
		window++;
	}
	out = g_string_new(NULL);
	append_chars(out, text, 0, head);
	g_string_append(out, "…");
	append_chars(out, text, start, start + window);
	if (start + window < n)
		g_string_append(out, "…");
	return g_string_free(out, FALSE);
}

/*
 * Where the line that starts at S and holds at most ROOM characters ends:
 * at the last blank that fits, else ROOM characters in (CUT_WORDS) or at
 * the end of its first word.
 */
static const char *line_end(const char *s, size_t room, bool cut_words)
{
	const char *end, *cut = NULL;

	if (ct_text_width(s) <= room)
		return s + strlen(s);
	end = g_utf8_offset_to_pointer(s, (glong)room);
	for (const char *c = s; c <= end; c = g_utf8_next_char(c))
		if (*c == ' ')
			cut = c;
	if (cut && cut > s)
		return cut;
	if (cut_words)
		return end;
	return s + strcspn(s, " ");
}

char **ct_text_wrap(const char *text, size_t first, size_t rest, bool cut_words)
{
	GPtrArray *lines = g_ptr_array_new();
	const char *s = text;
	size_t room = first ? first : 1;

	do {
		const char *end = line_end(s, room, cut_words);

		g_ptr_array_add(lines, g_strndup(s, (gsize)(end - s)));
		s = end;
		while (*s == ' ')
			s++;
		room = rest ? rest : 1;
	} while (*s);
	g_ptr_array_add(lines, NULL);
	return (char **)g_ptr_array_free(lines, FALSE);
}
