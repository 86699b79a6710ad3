/* SPDX-License-Identifier: MIT */
/*
 * text.c - bounded strings for event fields.
 */
#include <string.h>

#include "contract/assert.h"
#include "state.h"
#include "text.h"

/* Back len off so that it does not split a UTF-8 sequence of s. */
static size_t utf8_boundary(const char *s, size_t len)
{
	size_t cut = len;

	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	return cut;
}

uint16_t text_length(const char *s)
{
	return text_length_within(s, config.max_string);
}

uint16_t text_length_within(const char *s, size_t cap)
{
	size_t len;

	if (!s)
		return 0;
	len = strnlen(s, cap + 1);
	if (len > cap)
		len = utf8_boundary(s, cap);
	CT_ASSERT_DBG(len <= cap && cap <= UINT16_MAX);
	return (uint16_t)len;
}

/* Encode one code point; returns its length, or 0 if it does not fit. */
static size_t utf8_encode(uint32_t cp, char *out, size_t room)
{
	unsigned char *o = (unsigned char *)out;

	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = 0xfffd;
	if (cp < 0x80 && room >= 1) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800 && room >= 2) {
		o[0] = (unsigned char)(0xc0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000 && cp >= 0x800 && room >= 3) {
		o[0] = (unsigned char)(0xe0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	if (cp >= 0x10000 && room >= 4) {
		o[0] = (unsigned char)(0xf0 | (cp >> 18));
		o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (unsigned char)(0x80 | (cp & 0x3f));
		return 4;
	}
	return 0;
}

size_t text_from_wide(char *out, size_t size, const wchar_t *ws)
{
	size_t cap = size ? size - 1 : 0;
	size_t len = 0;

	if (cap > config.max_string)
		cap = config.max_string;
	for (; ws && *ws; ws++) {
		size_t n = utf8_encode((uint32_t)*ws, out + len, cap - len);

		if (n == 0)
			break;
		len += n;
	}
	if (size)
		out[len] = '\0';
	return len;
}

void text_bound_list(char *list)
{
	uint16_t n = text_length(list);
	char *comma;

	if (!list[n])
		return;
	list[n] = '\0';
	comma = strrchr(list, ',');
	if (comma)
		*comma = '\0';
}
