/* SPDX-License-Identifier: MIT */
/*
 * tsdl-lexer.h - the tokens of a CTF 1.8 trace's metadata text (TSDL,
 * CTF 1.8 section 7): identifiers, numbers, strings and punctuation,
 * comments skipped, for the screens and the layout parser of
 * ctf-metadata.c and the enumerations of tsdl-enums.c.
 *
 *	struct ct_tsdl_lexer lx = { text, text + n };
 *	struct ct_tsdl_token tk;
 *
 *	for (ct_tsdl_next(&lx, &tk); tk.type != CT_TOK_END && tk.type != CT_TOK_BAD;
 *	     ct_tsdl_next(&lx, &tk))
 *		if (ct_tsdl_is(&tk, "enum"))
 *			...
 */
#ifndef CUDATRACE_ANALYZERS_TSDL_LEXER_H
#define CUDATRACE_ANALYZERS_TSDL_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum ct_tsdl_token_type {
	CT_TOK_END,
	CT_TOK_IDENT,
	CT_TOK_NUMBER,
	CT_TOK_STRING,
	CT_TOK_PUNCT,
	CT_TOK_BAD, /* an unterminated comment, string or character */
};

struct ct_tsdl_token {
	enum ct_tsdl_token_type type;
	const char *text; /* its characters (CT_TOK_IDENT, CT_TOK_PUNCT) */
	size_t len;
	uint64_t value; /* CT_TOK_NUMBER, saturated */
};

struct ct_tsdl_lexer {
	const char *p, *end;
};

/*
 * The tests below are inline: the lexer and the parsers call them for
 * every character and token, and across files a call cost more than the
 * test (the text is read several times before babeltrace2 reads it).
 */

/* Whether C starts an identifier (a letter or '_'). */
static inline bool ct_tsdl_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Whether C is a decimal digit. */
static inline bool ct_tsdl_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The token at LX into TK, LX moved past it: CT_TOK_END at the end of the text. */
void ct_tsdl_next(struct ct_tsdl_lexer *lx, struct ct_tsdl_token *tk);

/* Whether TK is the identifier or punctuation TEXT (most often a literal, its length known). */
static inline bool ct_tsdl_is(const struct ct_tsdl_token *tk, const char *text)
{
	size_t len = strlen(text);

	return (tk->type == CT_TOK_IDENT || tk->type == CT_TOK_PUNCT) && tk->len == len &&
	       !memcmp(tk->text, text, len);
}

/*
 * Appends TK's text to BUF (SIZE bytes, a string), after a blank when BUF
 * is not empty: the words of a type's name ("unsigned long"), each cut at
 * 63 bytes, all at what BUF holds.
 */
void ct_tsdl_join(char *buf, size_t size, const struct ct_tsdl_token *tk);

#endif
