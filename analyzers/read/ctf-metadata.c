/* SPDX-License-Identifier: MIT */
/*
 * ctf-metadata.c - a trace's metadata checked, its packet layout computed
 * (see ctf-metadata.h).
 *
 * The packetized form (CTF 1.8, "Metadata"): packets of a 37-byte header
 * (magic 0x75d11d57, UUID, checksum, content and packet sizes in bits as
 * 32-bit integers, compression, encryption and checksum schemes, major
 * and minor version) then the text. The text form starts with a
 * "/" "* CTF 1.8" comment.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf-metadata.h"
#include "tsdl-enums.h"
#include "tsdl-lexer.h"

#define TSDL_MAGIC    UINT32_C(0x75d11d57)
#define PACKET_HEADER 37
#define SIGNATURE     "/* CTF 1.8 */\n"

/* ------------------------------------------------------------ the text */

/*
 * The length of TEXT's complete top-level declarations (up to the ';' that
 * ends the last one at depth 0); -1 when it nests deeper than
 * CT_METADATA_MAX_DEPTH. *CLEAN is set when nothing follows them but
 * blanks and comments.
 */
static long complete_length(const char *text, size_t n, bool *clean)
{
	struct ct_tsdl_lexer lx = { text, text + n };
	bool pending = false; /* tokens since the last complete declaration */
	long complete = 0;
	int depth = 0;

	*clean = false;
	for (;;) {
		struct ct_tsdl_token tk;

		ct_tsdl_next(&lx, &tk);
		if (tk.type == CT_TOK_END) {
			*clean = !pending;
			break;
		}
		if (tk.type == CT_TOK_BAD)
			break;
		pending = true;
		if (tk.type != CT_TOK_PUNCT || tk.len != 1)
			continue;
		if (strchr("{[(", tk.text[0]) && ++depth > CT_METADATA_MAX_DEPTH)
			return -1;
		if (strchr("}])", tk.text[0]) && --depth < 0)
			break; /* malformed from here on */
		if (tk.text[0] == ';' && depth == 0) {
			complete = lx.p - text;
			pending = false;
		}
	}
	return complete;
}

/* Whether TEXT starts with the signature babeltrace2 looks for ("/" "* CTF 1.8"). */
static bool has_signature(const char *text, size_t n)
{
	const char *p = text, *end = text + n;

	if (n < 2 || p[0] != '/' || p[1] != '*')
		return false;
	for (p += 2; p < end && g_ascii_isspace(*p); p++)
		;
	if (end - p < 3 || strncmp(p, "CTF", 3))
		return false;
	for (p += 3; p < end && g_ascii_isspace(*p); p++)
		;
	return end - p >= 3 && !strncmp(p, "1.8", 3) && (end - p == 3 || !ct_tsdl_digit(p[3]));
}

/* A brace's scope, for screen_members(). */
struct scope {
	bool compound;             /* a structure's or a variant's body */
	bool variant;              /* a variant's body */
	bool rooted;               /* within a scope's structure ("event.fields := struct {") */
	bool assigned;             /* the current statement has a ':=' */
	GHashTable *names;         /* compound: the member names so far, less one '_', owned */
	GHashTable *written;       /* compound: the same names as written, owned */
	const char *opened;        /* '[': the text after it */
	const char *tag;           /* the text after a variant's '<'; NULL: none open */
	struct ct_tsdl_token last; /* the last identifier of the current member at this depth */
	bool named;                /* the member's name is known (a '[' followed it) */
	bool declaration;          /* the current statement is a typealias or typedef */
	const char *keyword;       /* the last type keyword of the current statement */
	int dynamic;               /* rooted: the dynamic scope (dynamic_scopes[]), -1: not known */
	char block[8];             /* depth 1: the top-level block ("trace", "stream", "event") */
	char target[32];           /* depth 1: the current statement's words before ':=' */
};

/*
 * The dynamic scopes in the order CTF 1.8 reads them (section 7.3.2): a
 * field may name one of its own scope or of one before it, never after
 * (babeltrace2 2.0 aborts on some that do), as each block's entry and as
 * a path's prefix.
 */
static const struct {
	const char *block, *entry, *path;
} dynamic_scopes[] = {
	{ "trace", "packet.header", "trace.packet.header." },
	{ "stream", "packet.context", "stream.packet.context." },
	{ "stream", "event.header", "stream.event.header." },
	{ "stream", "event.context", "stream.event.context." },
	{ "event", "context", "event.context." },
	{ "event", "fields", "event.fields." },
};

/* The dynamic scope a path of TEXT (LEN bytes) starts with, blanks ignored; -1: none. */
static int dynamic_scope_of(const char *text, size_t len)
{
	char path[64];
	size_t n = 0;

	for (size_t i = 0; i < len && n + 1 < sizeof(path); i++)
		if (!g_ascii_isspace(text[i]))
			path[n++] = text[i];
	path[n] = '\0';
	for (int i = 0; i < (int)G_N_ELEMENTS(dynamic_scopes); i++)
		if (g_str_has_prefix(path, dynamic_scopes[i].path))
			return i;
	return -1;
}

/* Appends TK's text to BUF (SIZE bytes), if it fits. */
static void add_word(char *buf, size_t size, const struct ct_tsdl_token *tk)
{
	size_t n = strlen(buf);

	if (n + tk->len < size) {
		memcpy(buf + n, tk->text, tk->len);
		buf[n + tk->len] = '\0';
	}
}

/* The dynamic scope SC's statement assigns (at depth 1 of BLOCK); -1: none. */
static int assigned_scope(const struct scope *sc)
{
	for (int i = 0; i < (int)G_N_ELEMENTS(dynamic_scopes); i++)
		if (!strcmp(sc->block, dynamic_scopes[i].block) &&
		    !strcmp(sc->target, dynamic_scopes[i].entry))
			return i;
	return -1;
}

static bool is_keyword(const struct ct_tsdl_token *tk, const char **which)
{
	static const char *const keywords[] = { "struct",  "variant",        "enum",
		                                "integer", "floating_point", "string" };

	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (ct_tsdl_is(tk, keywords[i]))
			return *which = keywords[i], true;
	return false;
}

static void scope_free(struct scope *sc)
{
	if (sc->names)
		g_hash_table_destroy(sc->names);
	if (sc->written)
		g_hash_table_destroy(sc->written);
	sc->names = sc->written = NULL;
}

/* Adds the member name SC holds to its structure's; -1 with WHY when it is there already. */
static int add_name(struct scope *sc, char *why, size_t len)
{
	/* CTF drops one leading underscore */
	size_t under = sc->last.len > 1 && sc->last.text[0] == '_';
	char *name = g_strndup(sc->last.text + under, sc->last.len - under);

	g_hash_table_add(sc->written, g_strndup(sc->last.text, sc->last.len));
	if (g_hash_table_add(sc->names, name))
		return 0;
	snprintf(why, len,
	         "its metadata is not valid CTF: a structure or variant has two members "
	         "named '%.64s'",
	         name);
	return -1;
}

/* Whether variant option OPTION is a label of one of ENUMS: 0, or -1 with WHY. */
static int labelled(const struct ct_tsdl_enums *enums, const struct ct_tsdl_token *option,
                    char *why, size_t len)
{
	char *name = g_strndup(option->text, option->len);
	int ret = 0;

	if (!ct_tsdl_enums_has_label(enums, name)) {
		snprintf(why, len,
		         "its metadata is not valid CTF: a variant's option '%.64s' is no label "
		         "of an enumeration, so no tag selects it",
		         name);
		ret = -1;
	}
	g_free(name);
	return ret;
}

/* Whether REF (LEN bytes, blanks around it) is a plain identifier; its bounds in *AT, *N. */
static bool plain_name(const char *ref, size_t len, const char **at, size_t *n)
{
	const char *end = ref + len;

	while (ref < end && g_ascii_isspace(*ref))
		ref++;
	while (end > ref && g_ascii_isspace(end[-1]))
		end--;
	if (ref == end || !ct_tsdl_ident_start(*ref))
		return false;
	for (const char *c = ref; c < end; c++)
		if (!ct_tsdl_ident_start(*c) && !ct_tsdl_digit(*c))
			return false;
	*at = ref;
	*n = (size_t)(end - ref);
	return true;
}

/*
 * Whether the sequence length or variant tag REF (LEN bytes), met at
 * DEPTH of SCOPES, names a member declared before it in a structure
 * around it: 0, or -1 with WHY. CTF 1.8 (section 7.3.2, "Dynamic
 * scope") resolves a relative name in the structures around it, among
 * the fields before it, and babeltrace2 2.0 aborts on some that name
 * none. Only plain names inside a scope's structure are checked: a
 * dotted path or a named structure's body resolves where it is used.
 */
static int declared_before(const struct scope *scopes, int depth, const char *ref, size_t len,
                           const char *what, char *why, size_t why_len)
{
	int later = dynamic_scope_of(ref, len);
	const char *name;
	size_t n;

	if (scopes[depth].rooted && scopes[depth].dynamic >= 0 && later > scopes[depth].dynamic) {
		const char *own = dynamic_scopes[scopes[depth].dynamic].path;
		const char *other = dynamic_scopes[later].path;

		/* the paths less their final '.' */
		snprintf(why, why_len,
		         "its metadata is not valid CTF: a %s in %.*s names a field of %.*s, a "
		         "scope read after it",
		         what, (int)strlen(own) - 1, own, (int)strlen(other) - 1, other);
		return -1;
	}
	if (!scopes[depth].rooted || !plain_name(ref, len, &name, &n))
		return 0;
	char *key = g_strndup(name, n);
	bool found = false;

	for (int d = depth; d >= 0 && scopes[d].rooted && !found; d--)
		found = scopes[d].written && g_hash_table_contains(scopes[d].written, key);
	if (!found)
		snprintf(why, why_len,
		         "its metadata is not valid CTF: a %s names '%.64s', which no field "
		         "before it declares",
		         what, key);
	g_free(key);
	return found ? 0 : -1;
}

/*
 * Whether every structure and variant of TEXT names its members once,
 * and every sequence length and variant tag names a member before it
 * (declared_before()): babeltrace2 aborts on a name given twice, and it
 * takes "_x" for "x" (CTF drops one leading underscore). And whether each
 * variant's options are labels of the enumerations of ENUMS, their ranges
 * apart (tsdl-enums.h). 0, or -1 with WHY.
 */
static int screen_members(const char *text, size_t n, const struct ct_tsdl_enums *enums, char *why,
                          size_t len)
{
	struct scope scopes[CT_METADATA_MAX_DEPTH + 2] = { { .dynamic = -1 } };
	struct ct_tsdl_lexer lx = { text, text + n };
	int depth = 0, ret = 0;
	struct ct_tsdl_token tk;

	for (ct_tsdl_next(&lx, &tk); tk.type != CT_TOK_END && tk.type != CT_TOK_BAD && !ret;
	     ct_tsdl_next(&lx, &tk)) {
		struct scope *sc = &scopes[depth];
		const char *keyword;

		if (sc->tag) {
			if (ct_tsdl_is(&tk, ">")) {
				ret = declared_before(scopes, depth, sc->tag,
				                      (size_t)(tk.text - sc->tag), "variant's tag",
				                      why, len);
				sc->tag = NULL;
			}
		} else if (ct_tsdl_is(&tk, "<")) {
			if (sc->keyword && !strcmp(sc->keyword, "variant"))
				sc->tag = tk.text + tk.len;
		} else if (ct_tsdl_is(&tk, ":=")) {
			sc->assigned = true;
			if (depth == 1)
				sc->dynamic = assigned_scope(sc);
		} else if (ct_tsdl_is(&tk, "{") || ct_tsdl_is(&tk, "[") || ct_tsdl_is(&tk, "(")) {
			if (ct_tsdl_is(&tk, "[") && sc->last.len)
				sc->named = true;
			if (depth + 1 >= (int)G_N_ELEMENTS(scopes))
				break;
			depth++;
			scopes[depth] = (struct scope){ .dynamic = sc->dynamic };
			scopes[depth].rooted = !sc->declaration && (sc->rooted || sc->assigned);
			if (depth == 1 && sc->last.len < sizeof(scopes[1].block))
				snprintf(scopes[1].block, sizeof(scopes[1].block), "%.*s",
				         (int)sc->last.len, sc->last.text);
			scopes[depth].compound =
			    ct_tsdl_is(&tk, "{") && sc->keyword &&
			    (!strcmp(sc->keyword, "struct") || !strcmp(sc->keyword, "variant"));
			scopes[depth].variant =
			    scopes[depth].compound && !strcmp(sc->keyword, "variant");
			if (scopes[depth].compound) {
				scopes[depth].names =
				    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
				scopes[depth].written =
				    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
			}
			if (ct_tsdl_is(&tk, "["))
				scopes[depth].opened = tk.text + tk.len;
			sc->keyword = NULL;
		} else if (ct_tsdl_is(&tk, "}") || ct_tsdl_is(&tk, "]") || ct_tsdl_is(&tk, ")")) {
			if (!depth)
				break;
			if (ct_tsdl_is(&tk, "]") && sc->opened)
				ret = declared_before(scopes, depth - 1, sc->opened,
				                      (size_t)(tk.text - sc->opened),
				                      "sequence's length", why, len);
			if (!ret && sc->variant)
				ret = ct_tsdl_enums_options_apart(enums, sc->written, why, len);
			scope_free(sc);
			depth--;
		} else if (ct_tsdl_is(&tk, ";") || ct_tsdl_is(&tk, ",")) {
			if (sc->compound && !sc->declaration && sc->last.len)
				ret = add_name(sc, why, len);
			if (!ret && sc->variant && !sc->declaration && sc->last.len)
				ret = labelled(enums, &sc->last, why, len);
			sc->last = (struct ct_tsdl_token){ 0 };
			sc->named = false;
			if (ct_tsdl_is(&tk, ";")) {
				sc->declaration = false;
				sc->assigned = false;
				sc->keyword = NULL;
				sc->target[0] = '\0';
				if (depth == 1)
					sc->dynamic = -1;
			}
		} else if (ct_tsdl_is(&tk, ".")) {
			if (depth == 1 && !sc->assigned)
				add_word(sc->target, sizeof(sc->target), &tk);
		} else if (tk.type == CT_TOK_IDENT) {
			if (depth == 1 && !sc->assigned)
				add_word(sc->target, sizeof(sc->target), &tk);
			if (ct_tsdl_is(&tk, "typealias") || ct_tsdl_is(&tk, "typedef"))
				sc->declaration = true;
			if (is_keyword(&tk, &keyword))
				sc->keyword = keyword;
			else if (!sc->named)
				sc->last = tk;
		}
	}
	for (; depth >= 0; depth--)
		scope_free(&scopes[depth]);
	return ret;
}

/*
 * Whether TEXT declares no pointer: babeltrace2 aborts on a pointer
 * declarator after a type of its own ("integer { ... } *x"), and no
 * tracer writes one. A '*' outside comments and strings is one. 0, or -1
 * with WHY.
 */
static int no_pointers(const char *text, size_t n, char *why, size_t len)
{
	struct ct_tsdl_lexer lx = { text, text + n };
	struct ct_tsdl_token tk;

	for (ct_tsdl_next(&lx, &tk); tk.type != CT_TOK_END && tk.type != CT_TOK_BAD;
	     ct_tsdl_next(&lx, &tk)) {
		if (ct_tsdl_is(&tk, "*")) {
			snprintf(why, len,
			         "its metadata is not valid CTF: it declares a pointer (the '*' at "
			         "byte %zu of its text)",
			         (size_t)(tk.text - text));
			return -1;
		}
	}
	return 0;
}

/* -1, with why in WHY: the clock at byte AT of the text has WHAT. */
static int clock_refused(const char *what, size_t at, char *why, size_t len)
{
	snprintf(why, len,
	         "its metadata gives a clock %s (the clock at byte %zu of its text), which "
	         "babeltrace2 cannot read",
	         what, at);
	return -1;
}

/*
 * Whether every clock of TEXT gives a frequency above 0: babeltrace2
 * divides by it, and dies of SIGFPE on a clock without one (CTF 1.8 makes
 * it optional; every tracer writes it). And whether none gives a
 * precision of 2^64 - 1 (or more), babeltrace2 2.0's "unknown", on which
 * it aborts. The clock blocks are the top-level "clock { ... }"; their
 * "freq = N;" and "precision = N;" at their own depth. 0, or -1 with WHY.
 */
static int clocks_readable(const char *text, size_t n, char *why, size_t len)
{
	struct ct_tsdl_lexer lx = { text, text + n };
	struct ct_tsdl_token tk, prev = { .type = CT_TOK_END };
	int depth = 0, clock_depth = -1;
	bool freq = false;

	for (ct_tsdl_next(&lx, &tk); tk.type != CT_TOK_END && tk.type != CT_TOK_BAD;
	     prev = tk, ct_tsdl_next(&lx, &tk)) {
		if (ct_tsdl_is(&tk, "{")) {
			if (depth == 0 && ct_tsdl_is(&prev, "clock")) {
				clock_depth = 1;
				freq = false;
			}
			depth++;
		} else if (ct_tsdl_is(&tk, "}")) {
			if (depth == clock_depth && !freq)
				return clock_refused("no frequency", (size_t)(tk.text - text), why,
				                     len);
			if (depth == clock_depth)
				clock_depth = -1;
			depth = depth > 0 ? depth - 1 : 0;
		} else if (depth == clock_depth && ct_tsdl_is(&prev, "freq") &&
		           ct_tsdl_is(&tk, "=")) {
			ct_tsdl_next(&lx, &tk);
			freq = tk.type == CT_TOK_NUMBER && tk.value > 0;
		} else if (depth == clock_depth && ct_tsdl_is(&prev, "precision") &&
		           ct_tsdl_is(&tk, "=")) {
			ct_tsdl_next(&lx, &tk);
			if (tk.type == CT_TOK_NUMBER && tk.value == UINT64_MAX)
				return clock_refused("a precision of 2^64 - 1 or more",
				                     (size_t)(tk.text - text), why, len);
		}
	}
	return 0;
}

/* ------------------------------------------------------------ the file */

static uint32_t get_u32(const uint8_t *b, bool big_endian)
{
	return big_endian
	           ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
	           : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

/* Sets MD's damage (the first found is kept). */
static void damaged(struct ct_metadata *md, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void damaged(struct ct_metadata *md, const char *fmt, ...)
{
	va_list ap;

	md->rewritten = true;
	if (md->damage[0])
		return;
	va_start(ap, fmt);
	vsnprintf(md->damage, sizeof(md->damage), fmt, ap);
	va_end(ap);
}

/*
 * The text of the packets of DATA (SIZE bytes) into MD; 0, or -1 with WHY
 * when not even the first packet can be read.
 */
static int read_packets(const uint8_t *data, size_t size, struct ct_metadata *md, char *why,
                        size_t len)
{
	bool big = get_u32(data, true) == TSDL_MAGIC;
	uint8_t uuid[16];

	for (size_t at = 0; at < size;) {
		const uint8_t *h = data + at;
		uint32_t content, packet;

		if (size - at < PACKET_HEADER) {
			damaged(md, "ends in a partial packet header (at byte %zu)", at);
			break;
		}
		content = get_u32(h + 24, big);
		packet = get_u32(h + 28, big);
		if (get_u32(h, big) != TSDL_MAGIC || (at && memcmp(uuid, h + 4, 16))) {
			damaged(md, "has a corrupt packet at byte %zu (magic number or UUID)", at);
			break;
		}
		if (get_u32(h + 20, big) || h[32] || h[33] || h[34] || h[35] != 1 || h[36] != 8) {
			if (!at) {
				snprintf(
				    why, len,
				    "its metadata is not plain CTF 1.8 (checksum, compression, "
				    "encryption or version %u.%u)",
				    h[35], h[36]);
				return -1;
			}
			damaged(md, "has a corrupt packet at byte %zu (version or scheme)", at);
			break;
		}
		if (content % 8 || packet % 8 || content / 8 < PACKET_HEADER || content > packet) {
			if (!at) {
				snprintf(
				    why, len,
				    "its first metadata packet is corrupt (content size %u bits, "
				    "packet size %u bits)",
				    content, packet);
				return -1;
			}
			damaged(md, "has a corrupt packet at byte %zu (sizes)", at);
			break;
		}
		if (!at)
			memcpy(uuid, h + 4, 16);
		if (content / 8 > size - at) {
			g_string_append_len(md->text, (const char *)h + PACKET_HEADER,
			                    (gssize)(size - at - PACKET_HEADER));
			damaged(md, "is cut short inside its packet at byte %zu", at);
			break;
		}
		g_string_append_len(md->text, (const char *)h + PACKET_HEADER,
		                    (gssize)(content / 8 - PACKET_HEADER));
		at += packet / 8;
	}
	return 0;
}

/* The file's bytes, at most CT_METADATA_MAX_BYTES + 1; NULL with WHY. */
static uint8_t *read_file(const char *path, size_t *size, char *why, size_t len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint8_t *data;
	size_t n = 0;

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, len, "cannot read its metadata: %s",
		         fd < 0 || errno ? strerror(errno) : "not a file");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if ((uint64_t)st.st_size > CT_METADATA_MAX_BYTES) {
		snprintf(why, len,
		         "its metadata is %.1f MiB, more than the %u MiB cudatrace reads (the "
		         "declarations of a trace are much smaller: the file is not one)",
		         (double)st.st_size / (1 << 20), CT_METADATA_MAX_BYTES >> 20);
		close(fd);
		return NULL;
	}
	data = g_malloc((size_t)st.st_size + 1);
	while (n < (size_t)st.st_size) {
		ssize_t got = read(fd, data + n, (size_t)st.st_size - n);

		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	*size = n;
	return data;
}

/* The text of DATA (SIZE bytes, a metadata file's) into MD, checked. */
static enum ct_metadata_status check_file(const uint8_t *data, size_t size, struct ct_metadata *md,
                                          char *why, size_t len)
{
	size_t nul;
	struct ct_tsdl_enums *enums;
	bool clean;
	int screened;
	long complete;

	md->packetized =
	    size >= 4 && (get_u32(data, false) == TSDL_MAGIC || get_u32(data, true) == TSDL_MAGIC);
	if (md->packetized) {
		if (read_packets(data, size, md, why, len) < 0)
			return CT_METADATA_UNREADABLE;
	} else if (!has_signature((const char *)data, size)) {
		snprintf(why, len,
		         "its metadata is not CTF 1.8 (no packet header, no \"/* CTF "
		         "1.8\" signature)");
		return CT_METADATA_UNREADABLE;
	} else {
		g_string_append_len(md->text, (const char *)data, (gssize)size);
	}
	/* babeltrace2 reads the text up to a NUL: that alone needs no copy */
	nul = strlen(md->text->str);
	if (nul < md->text->len) {
		bool rewritten = md->rewritten;

		g_string_truncate(md->text, nul);
		damaged(md, "holds a NUL byte after %zu bytes of text", nul);
		md->rewritten = rewritten;
	}
	complete = complete_length(md->text->str, md->text->len, &clean);
	if (complete < 0) {
		snprintf(why, len, "its metadata nests declarations more than %d deep",
		         CT_METADATA_MAX_DEPTH);
		return CT_METADATA_UNREADABLE;
	}
	if (!clean) {
		g_string_truncate(md->text, (gsize)complete);
		damaged(md, "is cut short or corrupt after %ld bytes of text", complete);
	}
	if (!complete) {
		snprintf(why, len, "its metadata holds no complete declaration%s%s%s",
		         md->damage[0] ? " (it " : "", md->damage, md->damage[0] ? ")" : "");
		return CT_METADATA_UNREADABLE;
	}
	enums = ct_tsdl_enums_scan(md->text->str, md->text->len, why, len);
	if (!enums)
		return CT_METADATA_UNREADABLE;
	screened = screen_members(md->text->str, md->text->len, enums, why, len);
	ct_tsdl_enums_destroy(enums);
	if (screened < 0 || no_pointers(md->text->str, md->text->len, why, len) < 0 ||
	    clocks_readable(md->text->str, md->text->len, why, len) < 0)
		return CT_METADATA_UNREADABLE;
	if (md->rewritten && !has_signature(md->text->str, md->text->len))
		g_string_prepend(md->text, SIGNATURE);
	return md->damage[0] ? CT_METADATA_DAMAGED : CT_METADATA_OK;
}

/*
 * The last file checked and what was made of it. A pass reads each trace
 * in groups of its stream files (stream-groups.h), and each group's view
 * links to the same metadata file: checking it is some milliseconds on
 * the pass's thread before any decoding starts, once is enough. Keyed by
 * the file's bytes, so a file that changed (a live trace's) is checked
 * again.
 */
static struct {
	GMutex lock;
	GBytes *data; /* NULL: none yet */
	enum ct_metadata_status status;
	struct ct_metadata md;
	char why[256];
} checked_last;

/* The result of DATA (SIZE bytes) if it is the last file checked: true, MD and WHY set. */
static bool last_take(const uint8_t *data, size_t size, struct ct_metadata *md,
                      enum ct_metadata_status *status, char *why, size_t len)
{
	bool same;

	g_mutex_lock(&checked_last.lock);
	/* an empty file's bytes are no pointer to compare */
	same = checked_last.data && g_bytes_get_size(checked_last.data) == size &&
	       (!size || !memcmp(g_bytes_get_data(checked_last.data, NULL), data, size));
	if (same) {
		*status = checked_last.status;
		g_string_assign(md->text, checked_last.md.text->str);
		md->packetized = checked_last.md.packetized;
		md->rewritten = checked_last.md.rewritten;
		memcpy(md->damage, checked_last.md.damage, sizeof(md->damage));
		snprintf(why, len, "%s", checked_last.why);
	}
	g_mutex_unlock(&checked_last.lock);
	return same;
}

/* Keeps DATA (SIZE bytes) and what was made of it as the last file checked. */
static void last_keep(const uint8_t *data, size_t size, const struct ct_metadata *md,
                      enum ct_metadata_status status, const char *why)
{
	g_mutex_lock(&checked_last.lock);
	if (checked_last.data)
		g_bytes_unref(checked_last.data);
	if (checked_last.md.text)
		g_string_free(checked_last.md.text, TRUE);
	checked_last.data = g_bytes_new(data, size);
	checked_last.status = status;
	checked_last.md = *md;
	checked_last.md.text = g_string_new_len(md->text->str, (gssize)md->text->len);
	snprintf(checked_last.why, sizeof(checked_last.why), "%s",
	         status == CT_METADATA_UNREADABLE ? why : "");
	g_mutex_unlock(&checked_last.lock);
}

enum ct_metadata_status ct_metadata_read(const char *path, struct ct_metadata *md, char *why,
                                         size_t len)
{
	enum ct_metadata_status status;
	size_t size = 0;
	uint8_t *data;

	*md = (struct ct_metadata){ .text = g_string_new(NULL) };
	data = read_file(path, &size, why, len);
	if (!data)
		return CT_METADATA_UNREADABLE;
	if (!last_take(data, size, md, &status, why, len)) {
		status = check_file(data, size, md, why, len);
		last_keep(data, size, md, status, why);
	}
	g_free(data);
	return status;
}

void ct_metadata_release(struct ct_metadata *md)
{
	if (md->text)
		g_string_free(md->text, TRUE);
	md->text = NULL;
}

/* ------------------------------------------------------------ layout */

enum type_kind {
	T_INT,    /* an integer, or an enumeration of one */
	T_STRUCT, /* a structure */
	T_OTHER,  /* a float, an array: a size, no field of interest */
};

enum byte_order { ORDER_TRACE, ORDER_LE, ORDER_BE };

/* A declared type. Sizes and offsets in bits; VARIABLE when not fixed. */
#define VARIABLE UINT64_MAX

/* What a type holds, at any depth: babeltrace2 2.0 cannot read some scopes that hold these. */
enum holds {
	HOLDS_SEQUENCE = 1,
	HOLDS_VARIANT = 2,
};

struct type {
	enum type_kind kind;
	uint64_t size;
	uint64_t align;
	enum byte_order order; /* T_INT */
	GArray *members;       /* T_STRUCT: struct member, owned */
	unsigned holds;        /* enum holds */
};

struct member {
	char name[64];
	uint64_t offset; /* from the structure's start, VARIABLE when not fixed */
	const struct type *type;
};

struct stream_decl {
	bool has_id;
	uint64_t id;
	const struct type *context;  /* NULL: none */
	bool variable_event_context; /* its event.context has no fixed layout */
};

/* An event class's stream class: stream_id, when it names one. */
struct event_decl {
	bool has_stream_id;
	uint64_t stream_id;
};

struct parser {
	const char *text; /* the metadata text, borrowed */
	struct ct_tsdl_lexer lx;
	struct ct_tsdl_token tk;
	GHashTable *aliases; /* owned name -> const struct type *: typealiases, typedefs */
	GHashTable *structs; /* owned name -> const struct type * */
	GHashTable *enums;   /* owned name -> const struct type *: the container */
	GPtrArray *types;    /* struct type *, owned */
	enum byte_order trace_order;
	const struct type *header; /* NULL: none */
	bool has_trace;
	GArray *streams; /* struct stream_decl */
	GArray *events;  /* struct event_decl */
	int depth;
	bool failed;
	char why[160];
};

static const struct type variable_type = { .kind = T_OTHER, .size = VARIABLE, .align = 1 };
static const struct type string_type = { .kind = T_OTHER, .size = VARIABLE, .align = 8 };
static const struct type variant_type = {
	.kind = T_OTHER, .size = VARIABLE, .align = 1, .holds = HOLDS_VARIANT
};

static void fail(struct parser *p, const char *why)
{
	if (!p->failed)
		snprintf(p->why, sizeof(p->why), "its metadata has %s at byte %zu", why,
		         (size_t)((p->tk.text ? p->tk.text : p->lx.p) - p->text));
	p->failed = true;
}

static void advance(struct parser *p)
{
	ct_tsdl_next(&p->lx, &p->tk);
	if (p->tk.type == CT_TOK_BAD)
		fail(p, "an unterminated comment or string");
}

static bool at(const struct parser *p, const char *text)
{
	return ct_tsdl_is(&p->tk, text);
}

static bool accept(struct parser *p, const char *text)
{
	if (!at(p, text))
		return false;
	advance(p);
	return true;
}

static void expect(struct parser *p, const char *text)
{
	if (!accept(p, text))
		fail(p, "an unexpected token");
}

static bool usable(const struct parser *p)
{
	return !p->failed && p->tk.type != CT_TOK_END;
}

/*
 * Skips a balanced group starting at the current '{', '[', '(' or '<'. A
 * '<' holds a variant's tag and ends at the next '>'; the others nest as
 * complete_length() counts them, so that a stray '>' elsewhere (in
 * corrupt metadata) cannot end a group early.
 */
static void skip_group(struct parser *p)
{
	bool tag = at(p, "<");
	const char *open = tag ? "<" : "{[(", *close = tag ? ">" : "}])";
	int depth = 0;

	do {
		if (p->tk.type == CT_TOK_PUNCT && p->tk.len == 1 && strchr(open, p->tk.text[0]))
			depth++;
		else if (p->tk.type == CT_TOK_PUNCT && p->tk.len == 1 &&
		         strchr(close, p->tk.text[0]))
			depth--;
		advance(p);
	} while (depth > 0 && usable(p));
}

/* Skips up to and past the ';' that ends the current entry. */
static void skip_entry(struct parser *p)
{
	while (usable(p) && !at(p, ";") && !at(p, "}")) {
		if (at(p, "{") || at(p, "[") || at(p, "("))
			skip_group(p);
		else
			advance(p);
	}
	accept(p, ";");
}

static struct type *new_type(struct parser *p, enum type_kind kind)
{
	struct type *t = g_new0(struct type, 1);

	t->kind = kind;
	t->align = 1;
	g_ptr_array_add(p->types, t);
	return t;
}

static uint64_t align_up(uint64_t offset, uint64_t align)
{
	if (offset == VARIABLE || align <= 1)
		return offset;
	return offset > VARIABLE - align ? VARIABLE : (offset + align - 1) / align * align;
}

static bool power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* "name = value;" entries of an integer or floating_point block, the current token its '{'. */
static void number_block(struct parser *p, uint64_t *size, uint64_t *align, uint64_t *exp,
                         enum byte_order *order)
{
	expect(p, "{");
	while (usable(p) && !at(p, "}")) {
		struct ct_tsdl_token name = p->tk;

		advance(p);
		if (!accept(p, "=")) {
			fail(p, "an attribute without a value");
			return;
		}
		if (ct_tsdl_is(&name, "size") && p->tk.type == CT_TOK_NUMBER)
			*size = p->tk.value;
		else if ((ct_tsdl_is(&name, "mant_dig")) && p->tk.type == CT_TOK_NUMBER)
			*size = p->tk.value;
		else if (ct_tsdl_is(&name, "exp_dig") && p->tk.type == CT_TOK_NUMBER)
			*exp = p->tk.value;
		else if (ct_tsdl_is(&name, "align") && p->tk.type == CT_TOK_NUMBER)
			*align = p->tk.value;
		else if (ct_tsdl_is(&name, "byte_order"))
			*order = at(p, "be") || at(p, "network") ? ORDER_BE
			         : at(p, "le")                   ? ORDER_LE
			                                         : ORDER_TRACE;
		skip_entry(p);
	}
	expect(p, "}");
}

static const struct type *integer_type(struct parser *p, bool floating)
{
	uint64_t size = 0, align = 0, exp = 0;
	enum byte_order order = ORDER_TRACE;
	struct type *t;

	number_block(p, &size, &align, &exp, &order);
	size += floating ? exp : 0;
	if (!size || size > 64 || (align && !power_of_two(align))) {
		fail(p, "an integer or float of a size or alignment babeltrace2 does not take");
		return &variable_type;
	}
	t = new_type(p, floating ? T_OTHER : T_INT);
	t->size = size;
	t->align = align ? align : (size % 8 ? 1 : 8);
	t->order = order;
	return t;
}

static const struct type *type_spec(struct parser *p);

/*
 * Identifiers as a type's name ("unsigned long") into BUF, the last one in
 * LAST: a declaration "unsigned long events_discarded;" names its member
 * last.
 */
static void words(struct parser *p, char *buf, size_t len, char *last, size_t last_len)
{
	buf[0] = '\0';
	last[0] = '\0';
	while (p->tk.type == CT_TOK_IDENT && usable(p)) {
		if (last[0]) {
			g_strlcat(buf, buf[0] ? " " : "", len);
			g_strlcat(buf, last, len);
		}
		snprintf(last, last_len, "%.*s", (int)p->tk.len, p->tk.text);
		advance(p);
	}
}

/* The identifiers from the current token on, joined by a blank (a type's name), into BUF. */
static void joined_name(struct parser *p, char *buf, size_t size)
{
	buf[0] = '\0';
	while (p->tk.type == CT_TOK_IDENT && usable(p)) {
		ct_tsdl_join(buf, size, &p->tk);
		advance(p);
	}
}

static const struct type *lookup(GHashTable *table, const char *name)
{
	const struct type *t = g_hash_table_lookup(table, name);

	return t ? t : &variable_type;
}

/* The dimensions of a declarator, [N] (an array) or [field] (a sequence), after its name. */
static const struct type *dimensions(struct parser *p, const struct type *type)
{
	while (at(p, "[") && usable(p)) {
		struct type *array = new_type(p, T_OTHER);

		advance(p);
		array->align = type->align;
		array->holds = type->holds | (p->tk.type == CT_TOK_NUMBER ? 0 : HOLDS_SEQUENCE);
		if (p->tk.type == CT_TOK_NUMBER && type->size != VARIABLE &&
		    (!p->tk.value || type->size <= VARIABLE / 2 / p->tk.value)) {
			array->size = type->size * p->tk.value;
			advance(p);
		} else {
			array->size = VARIABLE; /* a sequence */
			while (usable(p) && !at(p, "]"))
				advance(p);
		}
		expect(p, "]");
		type = array;
	}
	return type;
}

/* A declarator after its type: NAME (into NAME_BUF), then its dimensions. */
static const struct type *declarator(struct parser *p, const struct type *type, char *name,
                                     size_t len)
{
	if (p->tk.type != CT_TOK_IDENT) {
		fail(p, "a declaration without a name");
		return type;
	}
	snprintf(name, len, "%.*s", (int)p->tk.len, p->tk.text);
	advance(p);
	return dimensions(p, type);
}

/* Adds member NAME of TYPE to structure T, whose members end at *OFFSET. */
static void add_member(struct type *t, uint64_t *offset, const char *name, const struct type *type)
{
	struct member m = { .type = type };

	snprintf(m.name, sizeof(m.name), "%s", name);
	m.offset = align_up(*offset, type->align);
	*offset = m.offset == VARIABLE || type->size == VARIABLE || type->size > VARIABLE - m.offset
	              ? VARIABLE
	              : m.offset + type->size;
	if (type->align > t->align)
		t->align = type->align;
	t->holds |= type->holds;
	g_array_append_val(t->members, m);
}

static bool is_type_keyword(const struct parser *p)
{
	return at(p, "struct") || at(p, "enum") || at(p, "variant") || at(p, "integer") ||
	       at(p, "floating_point") || at(p, "string");
}

static void typealias(struct parser *p);

/* The members of a structure, the current token its '{'. */
static void struct_body(struct parser *p, struct type *t)
{
	uint64_t offset = 0;

	expect(p, "{");
	while (usable(p) && !at(p, "}")) {
		const struct type *type;
		char name[64];

		if (at(p, "typealias")) {
			typealias(p);
			continue;
		}
		if (p->tk.type == CT_TOK_IDENT && !is_type_keyword(p)) {
			char type_name[256];

			words(p, type_name, sizeof(type_name), name, sizeof(name));
			if (!type_name[0]) {
				fail(p, "a member without a type");
				return;
			}
			type = lookup(p->aliases, type_name);
			add_member(t, &offset, name, dimensions(p, type));
		} else {
			type = type_spec(p);
			if (accept(p, ";")) /* a type defined in the structure, no member */
				continue;
			add_member(t, &offset, name, declarator(p, type, name, sizeof(name)));
		}
		while (accept(p, ",") && usable(p))
			add_member(t, &offset, name, declarator(p, type, name, sizeof(name)));
		expect(p, ";");
	}
	expect(p, "}");
	t->size = offset;
}

static const struct type *struct_type(struct parser *p)
{
	char name[128] = "";
	struct type *t;

	if (p->tk.type == CT_TOK_IDENT) {
		snprintf(name, sizeof(name), "%.*s", (int)p->tk.len, p->tk.text);
		advance(p);
	}
	if (!at(p, "{"))
		return lookup(p->structs, name);
	if (++p->depth > CT_METADATA_MAX_DEPTH) {
		fail(p, "structures nested too deep");
		return &variable_type;
	}
	t = new_type(p, T_STRUCT);
	t->members = g_array_new(FALSE, TRUE, sizeof(struct member));
	struct_body(p, t);
	p->depth--;
	if (accept(p, "align")) {
		expect(p, "(");
		if (p->tk.type == CT_TOK_NUMBER && power_of_two(p->tk.value) &&
		    p->tk.value > t->align)
			t->align = p->tk.value;
		advance(p);
		expect(p, ")");
	}
	if (name[0])
		g_hash_table_replace(p->structs, g_strdup(name), t);
	return t;
}

static const struct type *enum_type(struct parser *p)
{
	const struct type *container = NULL;
	char name[128] = "";

	if (p->tk.type == CT_TOK_IDENT) {
		snprintf(name, sizeof(name), "%.*s", (int)p->tk.len, p->tk.text);
		advance(p);
	}
	if (accept(p, ":")) {
		if (at(p, "integer")) {
			advance(p);
			container = integer_type(p, false);
		} else {
			char alias[256];

			joined_name(p, alias, sizeof(alias));
			container = lookup(p->aliases, alias);
		}
	}
	if (!at(p, "{"))
		return container ? container : lookup(p->enums, name);
	skip_group(p);
	if (!container)
		container = lookup(p->aliases, "int");
	if (name[0])
		g_hash_table_replace(p->enums, g_strdup(name), (gpointer)container);
	return container;
}

/* A type that starts with a keyword; an alias's name is read by the caller. */
static const struct type *type_spec(struct parser *p)
{
	if (accept(p, "integer"))
		return integer_type(p, false);
	if (accept(p, "floating_point"))
		return integer_type(p, true);
	if (accept(p, "struct"))
		return struct_type(p);
	if (accept(p, "enum"))
		return enum_type(p);
	if (at(p, "string") || at(p, "variant")) {
		bool variant = at(p, "variant");

		advance(p);
		while (usable(p) && p->tk.type == CT_TOK_IDENT)
			advance(p);
		if (at(p, "<"))
			skip_group(p);
		if (at(p, "{"))
			skip_group(p);
		return variant ? &variant_type : &string_type;
	}
	fail(p, "a type that is not one");
	return &variable_type;
}

/* A type, a keyword's or a name's (all the identifiers that follow). */
static const struct type *any_type(struct parser *p)
{
	char name[256];

	if (p->tk.type != CT_TOK_IDENT || is_type_keyword(p))
		return type_spec(p);
	joined_name(p, name, sizeof(name));
	return lookup(p->aliases, name);
}

/* typealias TYPE := NAME; (the current token "typealias") */
static void typealias(struct parser *p)
{
	const struct type *type;
	char name[256];

	advance(p);
	type = any_type(p);
	while (usable(p) && !at(p, ":=") && !at(p, ";"))
		advance(p); /* a declarator of the abstract type: not needed */
	expect(p, ":=");
	joined_name(p, name, sizeof(name));
	if (name[0])
		g_hash_table_replace(p->aliases, g_strdup(name), (gpointer)type);
	skip_entry(p);
}

/* typedef TYPE NAME; (the current token "typedef") */
static void type_def(struct parser *p)
{
	const struct type *type;
	char name[64] = "";

	advance(p);
	if (p->tk.type == CT_TOK_IDENT && !is_type_keyword(p)) {
		char type_name[256];

		words(p, type_name, sizeof(type_name), name, sizeof(name));
		type = dimensions(p, lookup(p->aliases, type_name));
	} else {
		type = declarator(p, type_spec(p), name, sizeof(name));
	}
	if (name[0])
		g_hash_table_replace(p->aliases, g_strdup(name), (gpointer)type);
	skip_entry(p);
}

/*
 * A block "{ ENTRY; ... };", the current token its '{': ENTRY reads the
 * start of each entry (with DATA), whose rest is skipped; typealiases
 * are read wherever they are.
 */
static void block(struct parser *p, void (*entry)(struct parser *p, void *data), void *data)
{
	expect(p, "{");
	while (usable(p) && !at(p, "}")) {
		if (at(p, "typealias")) {
			typealias(p);
			continue;
		}
		entry(p, data);
		skip_entry(p);
	}
	expect(p, "}");
	skip_entry(p);
}

/*
 * The type a dynamic scope is given (the current token its ":="). CTF 1.8
 * makes each a structure (section 7.3.2), and babeltrace2 2.0 dies of
 * SIGSEGV on one that is an integer, a string or another type: that
 * fails. A name not declared is left to babeltrace2, which says so.
 */
static const struct type *scope_type(struct parser *p)
{
	const struct type *type;

	expect(p, ":=");
	type = any_type(p);
	if (type->kind != T_STRUCT && type != &variable_type)
		fail(p,
		     "a scope whose type is not a structure, which babeltrace2 2.0 cannot read,");
	return type;
}

/* An entry of trace { ... }: the packet header and the byte order. */
static void trace_entry(struct parser *p, void *data)
{
	(void)data;
	if (accept(p, "packet")) {
		expect(p, ".");
		if (accept(p, "header"))
			p->header = scope_type(p);
	} else if (accept(p, "byte_order")) {
		expect(p, "=");
		p->trace_order = at(p, "be") || at(p, "network") ? ORDER_BE : ORDER_LE;
	}
}

/* KEY = NUMBER: the number in *VALUE and *HAS set, if it is one; false at another entry. */
static bool number_entry(struct parser *p, const char *key, bool *has, uint64_t *value)
{
	if (!accept(p, key))
		return false;
	expect(p, "=");
	if (p->tk.type == CT_TOK_NUMBER) {
		*has = true;
		*value = p->tk.value;
	}
	return true;
}

/*
 * An entry of stream { ... } into DATA, a struct stream_decl: its id, its
 * packet context, whether its event context has a fixed layout. An event
 * header that holds a sequence fails: babeltrace2 2.0 dies of SIGSEGV on
 * one (CTF 1.8 allows it).
 */
static void stream_entry(struct parser *p, void *data)
{
	struct stream_decl *s = data;

	if (number_entry(p, "id", &s->has_id, &s->id))
		return;
	if (accept(p, "packet")) {
		expect(p, ".");
		if (accept(p, "context"))
			s->context = scope_type(p);
	} else if (accept(p, "event")) {
		expect(p, ".");
		if (accept(p, "context")) {
			s->variable_event_context = scope_type(p)->size == VARIABLE;
		} else if (accept(p, "header")) {
			if (scope_type(p)->holds & HOLDS_SEQUENCE)
				fail(p,
				     "an event header that holds a sequence, which babeltrace2 2.0 "
				     "cannot read,");
		}
	}
}

/*
 * An entry of event { ... } into DATA, a struct event_decl: its stream
 * class. A context of the event class's own that holds a sequence or a
 * variant fails: babeltrace2 2.0 aborts on one (CTF 1.8 allows it).
 */
static void event_entry(struct parser *p, void *data)
{
	struct event_decl *e = data;

	if (number_entry(p, "stream_id", &e->has_stream_id, &e->stream_id))
		return;
	if (accept(p, "context")) {
		if (scope_type(p)->holds)
			fail(p, "an event class whose context holds a sequence or a variant, which "
			        "babeltrace2 2.0 cannot read,");
	} else if (accept(p, "fields")) {
		scope_type(p);
	}
}

static void declarations(struct parser *p)
{
	advance(p);
	while (usable(p)) {
		if (at(p, "typealias")) {
			typealias(p);
		} else if (at(p, "typedef")) {
			type_def(p);
		} else if (accept(p, "trace")) {
			p->has_trace = true;
			block(p, trace_entry, NULL);
		} else if (accept(p, "stream")) {
			struct stream_decl s = { 0 };

			block(p, stream_entry, &s);
			g_array_append_val(p->streams, s);
		} else if (accept(p, "event")) {
			struct event_decl e = { 0 };

			block(p, event_entry, &e);
			g_array_append_val(p->events, e);
		} else if (at(p, "struct") || at(p, "enum") || at(p, "variant")) {
			type_spec(p);
			skip_entry(p);
		} else if (at(p, "}")) {
			/* skip_entry() stops there: the loop would never end */
			fail(p, "a '}' that closes nothing");
		} else {
			skip_entry(p);
		}
	}
}

/* ------------------------------------------------------------ the result */

/* FIELD of STRUCTURE at BASE bits into OUT; false when it is there but cannot be read. */
static bool field(const struct parser *p, const struct type *structure, uint64_t base,
                  const char *name, struct ct_packet_field *out)
{
	*out = (struct ct_packet_field){ 0 };
	if (!structure || structure->kind != T_STRUCT)
		return true;
	for (guint i = 0; i < structure->members->len; i++) {
		const struct member *m = &g_array_index(structure->members, struct member, i);

		if (strcmp(m->name, name))
			continue;
		if (m->type->kind != T_INT || m->offset == VARIABLE || (base + m->offset) % 8 ||
		    (m->type->size != 8 && m->type->size != 16 && m->type->size != 32 &&
		     m->type->size != 64))
			return false;
		out->present = true;
		out->size = (uint8_t)m->type->size;
		out->offset = base + m->offset;
		out->big_endian =
		    (m->type->order == ORDER_TRACE ? p->trace_order : m->type->order) == ORDER_BE;
		return true;
	}
	return true;
}

/*
 * Whether an event class of P is in stream class ID: one that names it, or
 * one that names none when there is one stream class (CTF 1.8, 7.3.5).
 */
static bool has_event_class(const struct parser *p, uint64_t id)
{
	for (guint i = 0; i < p->events->len; i++) {
		const struct event_decl *e = &g_array_index(p->events, struct event_decl, i);

		if (e->has_stream_id ? e->stream_id == id : p->streams->len == 1)
			return true;
	}
	return false;
}

static int layout_of(const struct parser *p, struct ct_packet_layout *layout, char *why, size_t len)
{
	uint64_t header_size = p->header ? p->header->size : 0;

	if (!p->has_trace || !p->streams->len) {
		snprintf(why, len, "its metadata declares no trace or no stream");
		return -1;
	}
	if (header_size == VARIABLE || !field(p, p->header, 0, "magic", &layout->magic) ||
	    !field(p, p->header, 0, "stream_id", &layout->stream_id) ||
	    !field(p, p->header, 0, "stream_instance_id", &layout->stream_instance_id) ||
	    (layout->magic.present && layout->magic.size != 32)) {
		snprintf(why, len, "its packet header has no fixed layout");
		return -1;
	}
	if (p->streams->len > 1 && !layout->stream_id.present) {
		snprintf(why, len, "its stream classes have no stream id in the packet header");
		return -1;
	}
	for (guint i = 0; i < p->streams->len; i++) {
		const struct stream_decl *d = &g_array_index(p->streams, struct stream_decl, i);
		struct ct_stream_layout s = { .id = d->has_id ? d->id : 0 };
		uint64_t start = align_up(header_size, d->context ? d->context->align : 1);

		if (d->context && (d->context->kind != T_STRUCT || d->context->size == VARIABLE ||
		                   start == VARIABLE || d->context->size > VARIABLE - start)) {
			snprintf(why, len, "its packet context has no fixed layout");
			return -1;
		}
		s.context_end = start + (d->context ? d->context->size : 0);
		if (!field(p, d->context, start, "content_size", &s.content_size) ||
		    !field(p, d->context, start, "packet_size", &s.packet_size) ||
		    !field(p, d->context, start, "timestamp_begin", &s.timestamp_begin) ||
		    !field(p, d->context, start, "timestamp_end", &s.timestamp_end) ||
		    !field(p, d->context, start, "events_discarded", &s.events_discarded) ||
		    !field(p, d->context, start, "packet_seq_num", &s.packet_seq_num)) {
			snprintf(why, len, "its packet context's sizes have no fixed layout");
			return -1;
		}
		s.no_event_class = d->variable_event_context && !has_event_class(p, s.id);
		g_array_append_val(layout->streams, s);
	}
	return 0;
}

static int parse_layout(const char *text, struct ct_packet_layout *layout, char *why, size_t len)
{
	struct parser p = {
		.text = text,
		.lx = { text, text + strlen(text) },
		.aliases = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
		.structs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
		.enums = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
		.types = g_ptr_array_new(),
		.trace_order = ORDER_LE,
		.streams = g_array_new(FALSE, TRUE, sizeof(struct stream_decl)),
		.events = g_array_new(FALSE, TRUE, sizeof(struct event_decl)),
	};
	int ret;

	*layout = (struct ct_packet_layout){ .streams = g_array_new(
		                                 FALSE, TRUE, sizeof(struct ct_stream_layout)) };
	declarations(&p);
	if (p.failed) {
		snprintf(why, len, "%s", p.why);
		ret = -1;
	} else {
		ret = layout_of(&p, layout, why, len);
	}
	layout->known = ret == 0;
	for (guint i = 0; i < p.types->len; i++) {
		struct type *t = g_ptr_array_index(p.types, i);

		if (t->members)
			g_array_free(t->members, TRUE);
		g_free(t);
	}
	g_ptr_array_free(p.types, TRUE);
	g_hash_table_destroy(p.aliases);
	g_hash_table_destroy(p.structs);
	g_hash_table_destroy(p.enums);
	g_array_free(p.streams, TRUE);
	g_array_free(p.events, TRUE);
	return ret;
}

void ct_packet_layout_release(struct ct_packet_layout *layout)
{
	if (layout->streams)
		g_array_free(layout->streams, TRUE);
	layout->streams = NULL;
}

/*
 * The last text whose layout was computed, and what came of it: each
 * group's view of a trace has the same metadata (checked_last), and
 * parsing its declarations again took as long as checking them, for each
 * group. Keyed by the text.
 */
static struct {
	GMutex lock;
	char *text; /* owned; NULL: none yet */
	int ret;
	struct ct_packet_layout layout;
	char why[256];
} parsed_last;

static void layout_copy(struct ct_packet_layout *to, const struct ct_packet_layout *from)
{
	*to = *from;
	to->streams = g_array_copy(from->streams);
}

int ct_packet_layout_parse(const char *text, struct ct_packet_layout *layout, char *why, size_t len)
{
	int ret;

	g_mutex_lock(&parsed_last.lock);
	if (parsed_last.text && strcmp(parsed_last.text, text) == 0) {
		layout_copy(layout, &parsed_last.layout);
		ret = parsed_last.ret;
		if (ret < 0)
			snprintf(why, len, "%s", parsed_last.why);
		g_mutex_unlock(&parsed_last.lock);
		return ret;
	}
	g_mutex_unlock(&parsed_last.lock);
	ret = parse_layout(text, layout, why, len);
	g_mutex_lock(&parsed_last.lock);
	g_free(parsed_last.text);
	ct_packet_layout_release(&parsed_last.layout);
	parsed_last.text = g_strdup(text);
	layout_copy(&parsed_last.layout, layout);
	parsed_last.ret = ret;
	snprintf(parsed_last.why, sizeof(parsed_last.why), "%s", ret < 0 ? why : "");
	g_mutex_unlock(&parsed_last.lock);
	return ret;
}

unsigned ct_metadata_add_event_classes(struct ct_metadata *md,
                                       const struct ct_packet_layout *layout)
{
	unsigned added = 0;

	for (guint i = 0; layout->known && i < layout->streams->len; i++) {
		const struct ct_stream_layout *s =
		    &g_array_index(layout->streams, struct ct_stream_layout, i);

		if (!s->no_event_class)
			continue;
		/* babeltrace2 reads an id as a signed 64-bit number; headers hold 32 bits at most */
		g_string_append_printf(md->text,
		                       "\nevent {\n\tname = \"cudatrace:no_event_class\";\n"
		                       "\tid = %" PRId64 ";\n",
		                       INT64_MAX);
		/* with one stream class, its own id may be implicit */
		if (layout->streams->len > 1)
			g_string_append_printf(md->text, "\tstream_id = %" PRIu64 ";\n", s->id);
		g_string_append(md->text, "};\n");
		added++;
	}
	if (added && !has_signature(md->text->str, md->text->len))
		g_string_prepend(md->text, SIGNATURE);
	md->rewritten |= added > 0;
	return added;
}

const struct ct_stream_layout *ct_packet_layout_stream(const struct ct_packet_layout *layout,
                                                       uint64_t id)
{
	for (guint i = 0; i < layout->streams->len; i++) {
		const struct ct_stream_layout *s =
		    &g_array_index(layout->streams, struct ct_stream_layout, i);

		if (s->id == id)
			return s;
	}
	return NULL;
}
