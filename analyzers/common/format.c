/* SPDX-License-Identifier: MIT */
/*
 * format.c - values as text for people: strings made safe for a terminal,
 * bytes, durations, times and bandwidths in units.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "contract/events.h"
#include "format.h"

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

char *ct_format_bandwidth(double bytes_per_s, char *buf, size_t len)
{
	static const char *const units[] = { "B/s", "KB/s", "MB/s", "GB/s", "TB/s" };

	return scaled(bytes_per_s, units, 5, 1000.0, buf, len);
}

char *ct_format_device(uint64_t device, char *buf, size_t len)
{
	if (device == CT_DEVICE_NONE)
		snprintf(buf, len, "no device");
	else
		snprintf(buf, len, "device %" PRIu64, device);
	return buf;
}
