/* SPDX-License-Identifier: MIT */
/*
 * writer.c - the list of writers and what they share: the end of a
 * write, the value formatting.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <glib.h>

#include "log.h"
#include "writer.h"

static const struct ct_writer_class *const writers[] = {
	&ct_text_writer, &ct_csv_writer, &ct_json_writer, &ct_html_writer, NULL,
};

const struct ct_writer_class *ct_writer_find(const char *name)
{
	for (size_t i = 0; writers[i]; i++)
		if (!strcmp(writers[i]->name, name))
			return writers[i];
	return NULL;
}

int ct_writer_done(FILE *out, int failed)
{
	if (!failed && !ferror(out))
		return 0;
	ct_log_error("cannot write the report: %s", strerror(failed ? failed : errno));
	return -1;
}

/* Whether C must not reach a terminal as it is (see ct_format_text). */
static bool is_control(gunichar c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/*
 * The character at S in *C and its length in bytes, or 0 when S does not
 * start with a valid UTF-8 sequence (overlong forms, surrogates and a
 * sequence cut by the end of the string are not valid).
 */
static size_t next_char(const char *s, gunichar *c)
{
	size_t n = (size_t)g_utf8_skip[(unsigned char)*s];

	if ((unsigned char)*s < 0x80) {
		*c = (unsigned char)*s;
		return 1;
	}
	if (n < 2 || strnlen(s, n) < n || !g_utf8_validate(s, (gssize)n, NULL))
		return 0;
	*c = g_utf8_get_char(s);
	return n;
}

char *ct_format_text(const char *s, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return buf;
	while (*s) {
		char escape[16];
		const char *piece = escape;
		gunichar c = 0;
		size_t n = next_char(s, &c), piece_len;

		if (!n) {
			snprintf(escape, sizeof(escape), "\\x%02x", (unsigned char)*s);
			n = 1;
		} else if (c == '\n' || c == '\r' || c == '\t') {
			snprintf(escape, sizeof(escape), "\\%c",
			         c == '\n'   ? 'n'
			         : c == '\r' ? 'r'
			                     : 't');
		} else if (is_control(c)) {
			snprintf(escape, sizeof(escape), c < 0x80 ? "\\x%02x" : "\\u%04x",
			         (unsigned)c);
		} else {
			piece = s;
		}
		piece_len = piece == s ? n : strlen(escape);
		if (used + piece_len >= len)
			break;
		memcpy(buf + used, piece, piece_len);
		used += piece_len;
		s += n;
	}
	buf[used] = '\0';
	return buf;
}

static char *scaled(double value, const char *const units[], size_t count, double step, char *buf,
                    size_t len)
{
	size_t u = 0;
	double magnitude = fabs(value);

	while (u + 1 < count && magnitude >= step) {
		magnitude /= step;
		value /= step;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f %s", value, units[0]);
	else
		snprintf(buf, len, "%.2f %s", value, units[u]);
	return buf;
}

char *ct_format_bytes(double bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };

	return scaled(bytes, units, 5, 1024.0, buf, len);
}

char *ct_format_duration(double ns, char *buf, size_t len)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };

	if (fabs(ns) >= 60e9) {
		snprintf(buf, len, "%.1f s", ns / 1e9);
		return buf;
	}
	return scaled(ns, units, 4, 1000.0, buf, len);
}

char *ct_format_time(int64_t ns, int64_t origin_ns, char *buf, size_t len)
{
	if (origin_ns == INT64_MIN)
		snprintf(buf, len, "%" PRId64, ns);
	else
		snprintf(buf, len, "+%.6f s", (double)(ns - origin_ns) / 1e9);
	return buf;
}

static char *format_bandwidth(double bytes_per_s, char *buf, size_t len)
{
	static const char *const units[] = { "B/s", "KB/s", "MB/s", "GB/s", "TB/s" };

	return scaled(bytes_per_s, units, 5, 1000.0, buf, len);
}

char *ct_format_raw(const struct ct_node *node, char *buf, size_t len)
{
	switch (node->type) {
	case CT_NODE_U64:
		snprintf(buf, len, "%" PRIu64, node->value.u64);
		break;
	case CT_NODE_I64:
		snprintf(buf, len, "%" PRId64, node->value.i64);
		break;
	case CT_NODE_DOUBLE:
		snprintf(buf, len, "%.17g", node->value.dbl);
		break;
	case CT_NODE_STRING:
		snprintf(buf, len, "%s", node->value.str);
		break;
	case CT_NODE_BOOL:
		snprintf(buf, len, "%s", node->value.boolean ? "true" : "false");
		break;
	default:
		snprintf(buf, len, "%s", "");
		break;
	}
	return buf;
}

char *ct_format_value(const struct ct_node *node, int64_t origin_ns, char *buf, size_t len)
{
	double v = ct_node_number(node);

	if (node->type == CT_NODE_NULL) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (node->type == CT_NODE_STRING)
		return ct_format_text(node->value.str, buf, len);
	if (node->type == CT_NODE_BOOL)
		return ct_format_raw(node, buf, len);
	switch (node->unit) {
	case CT_UNIT_BYTES:
		return ct_format_bytes(v, buf, len);
	case CT_UNIT_DURATION:
		return ct_format_duration(v, buf, len);
	case CT_UNIT_TIME:
		if (node->type != CT_NODE_I64)
			return ct_format_raw(node, buf, len);
		return ct_format_time(node->value.i64, origin_ns, buf, len);
	case CT_UNIT_ADDRESS:
		snprintf(buf, len, "0x%" PRIx64, node->value.u64);
		return buf;
	case CT_UNIT_RATIO:
		snprintf(buf, len, "%.1f %%", v * 100.0);
		return buf;
	case CT_UNIT_BANDWIDTH:
		return format_bandwidth(v, buf, len);
	case CT_UNIT_NONE:
		if (node->type == CT_NODE_DOUBLE) {
			snprintf(buf, len, "%.4g", v);
			return buf;
		}
		return ct_format_raw(node, buf, len);
	default:
		return ct_format_raw(node, buf, len);
	}
}
