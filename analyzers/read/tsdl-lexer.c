/* SPDX-License-Identifier: MIT */
/*
 * tsdl-lexer.c - the tokens of a CTF 1.8 trace's metadata text (see
 * tsdl-lexer.h).
 */
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "tsdl-lexer.h"

/* Skips blanks and comments; false at an unterminated comment. */
static bool skip_blank(struct ct_tsdl_lexer *lx)
{
	while (lx->p < lx->end) {
		if (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n' || *lx->p == '\r' ||
		    *lx->p == '\f' || *lx->p == '\v') {
			lx->p++;
		} else if (lx->end - lx->p >= 2 && lx->p[0] == '/' && lx->p[1] == '*') {
			const char *close = g_strstr_len(lx->p + 2, lx->end - lx->p - 2, "*/");

			if (!close)
				return false;
			lx->p = close + 2;
		} else if (lx->end - lx->p >= 2 && lx->p[0] == '/' && lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else {
			break;
		}
	}
	return true;
}

static uint64_t digit_value(char c)
{
	if (ct_tsdl_digit(c))
		return (uint64_t)(c - '0');
	return (uint64_t)((c | 0x20) - 'a' + 10);
}

static void number(struct ct_tsdl_lexer *lx, struct ct_tsdl_token *tk)
{
	unsigned base = 10;

	if (lx->end - lx->p >= 2 && lx->p[0] == '0' && (lx->p[1] | 0x20) == 'x') {
		base = 16;
		lx->p += 2;
	} else if (*lx->p == '0') {
		base = 8;
	}
	tk->value = 0;
	while (lx->p < lx->end &&
	       (ct_tsdl_digit(*lx->p) || (base == 16 && g_ascii_isxdigit(*lx->p)))) {
		uint64_t d = digit_value(*lx->p);

		tk->value = tk->value > (UINT64_MAX - d) / base ? UINT64_MAX : tk->value * base + d;
		lx->p++;
	}
	while (lx->p < lx->end && strchr("uUlL", *lx->p))
		lx->p++;
}

/* A string or character literal ending with QUOTE; false when unterminated. */
static bool literal(struct ct_tsdl_lexer *lx, char quote)
{
	for (lx->p++; lx->p < lx->end; lx->p++) {
		if (*lx->p == '\\' && lx->p + 1 < lx->end)
			lx->p++;
		else if (*lx->p == quote)
			return ++lx->p, true;
	}
	return false;
}

void ct_tsdl_next(struct ct_tsdl_lexer *lx, struct ct_tsdl_token *tk)
{
	*tk = (struct ct_tsdl_token){ .type = CT_TOK_END };
	if (!skip_blank(lx)) {
		tk->type = CT_TOK_BAD;
		return;
	}
	if (lx->p >= lx->end)
		return;
	tk->text = lx->p;
	if (ct_tsdl_ident_start(*lx->p)) {
		while (lx->p < lx->end && (ct_tsdl_ident_start(*lx->p) || ct_tsdl_digit(*lx->p)))
			lx->p++;
		tk->type = CT_TOK_IDENT;
	} else if (ct_tsdl_digit(*lx->p)) {
		number(lx, tk);
		tk->type = CT_TOK_NUMBER;
	} else if (*lx->p == '"' || *lx->p == '\'') {
		tk->type = literal(lx, *lx->p) ? CT_TOK_STRING : CT_TOK_BAD;
	} else if (lx->end - lx->p >= 2 && lx->p[0] == ':' && lx->p[1] == '=') {
		lx->p += 2;
		tk->type = CT_TOK_PUNCT;
	} else if (lx->end - lx->p >= 3 && !strncmp(lx->p, "...", 3)) {
		lx->p += 3;
		tk->type = CT_TOK_PUNCT;
	} else {
		lx->p++;
		tk->type = CT_TOK_PUNCT;
	}
	tk->len = (size_t)(lx->p - tk->text);
}

void ct_tsdl_join(char *buf, size_t size, const struct ct_tsdl_token *tk)
{
	char word[64];

	snprintf(word, sizeof(word), "%.*s", (int)tk->len, tk->text);
	g_strlcat(buf, buf[0] ? " " : "", size);
	g_strlcat(buf, word, size);
}
