/* SPDX-License-Identifier: MIT */
/*
 * html-writer.c - the report as one self-contained HTML page, to share:
 * the first page (first-page.h) as it reads on a terminal, the plots
 * (plot.h) inline as SVG images, then the sections as the text report
 * shows them (table-format.h): tables with units in their headers, other
 * values as label and value. Nothing outside the file is referred to (no
 * script, no style sheet, no image file): it opens in any browser, from
 * a mail or a ticket.
 *
 * Every string is escaped for HTML after ct_table_value() made it safe
 * for a terminal: what the traced program named can neither inject markup
 * nor reach a reader as a control character. Each plot is its own SVG
 * document in a data: URL, so that the identifiers cairo gives the glyphs
 * of one never clash with another's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "first-page.h"
#include "plot.h"
#include "table-format.h"
#include "writer.h"

/* Headings go down to h6, however deep the document nests. */
#define MAX_HEADING 6

struct html {
	FILE *out;
	size_t max_rows;
	enum ct_text_detail detail;
	int64_t origin_ns;
};

static const char style[] =
    "body{font-family:sans-serif;margin:2em auto;max-width:80em;padding:0 1em;color:#222}"
    "pre.first-page{background:#f6f6f0;border:1px solid #ccc;padding:1em;"
    "white-space:pre-wrap;font-size:0.95em}"
    "table{border-collapse:collapse;margin:0.5em 0}"
    "th,td{border:1px solid #ddd;padding:0.2em 0.5em;text-align:left;vertical-align:top}"
    "th{background:#eee}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "table.kv th{background:#f4f4f4;font-weight:normal}"
    "figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}"
    "p.more{color:#666;font-style:italic}";

/* TEXT with &, <, >, " and ' as entities. */
static void put_escaped(FILE *out, const char *text)
{
	for (const char *c = text; *c; c++) {
		switch (*c) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*c, out);
		}
	}
}

/* TEXT (owned) escaped, then freed. */
static void put_owned(FILE *out, char *text)
{
	put_escaped(out, text);
	g_free(text);
}

static bool shown_at(const struct html *h, const struct ct_node *n)
{
	return ct_table_shown(n, h->detail == CT_TEXT_DETAILS);
}

static size_t shown_rows(const struct html *h, const struct ct_node *array)
{
	size_t count = ct_node_count(array);

	return h->max_rows && count > h->max_rows ? h->max_rows : count;
}

static void put_more(struct html *h, const struct ct_node *array, size_t shown)
{
	if (shown < ct_node_count(array))
		fprintf(h->out,
		        "<p class=\"more\">%zu more (--max-rows, or --format csv/json for "
		        "all)</p>\n",
		        ct_node_count(array) - shown);
}

static void put_heading(struct html *h, int level, char *title)
{
	level = level > MAX_HEADING ? MAX_HEADING : level;
	fprintf(h->out, "<h%d>", level);
	put_owned(h->out, title);
	fprintf(h->out, "</h%d>\n", level);
}

static void put_container(struct html *h, const struct ct_node *node, int level);

/* The scalar members of OBJECT, as a table of labels and values. */
static void put_scalars(struct html *h, const struct ct_node *object)
{
	bool any = false;

	for (size_t i = 0; i < ct_node_count(object); i++) {
		const struct ct_node *c = ct_node_child(object, i);

		if (!ct_table_is_scalar(c))
			continue;
		if (!any)
			fputs("<table class=\"kv\">\n", h->out);
		any = true;
		fputs("<tr><th>", h->out);
		put_owned(h->out, ct_table_label(c->key));
		fputs("</th><td>", h->out);
		put_owned(h->out, ct_table_value(c, h->origin_ns));
		fputs("</td></tr>\n", h->out);
	}
	if (any)
		fputs("</table>\n", h->out);
}

/* The NCOLS columns KEYS of ARRAY (ct_table_columns); each header says its unit. */
static void put_table(struct html *h, const struct ct_node *array, const char *const *keys,
                      size_t ncols)
{
	size_t shown = shown_rows(h, array);
	struct ct_column_unit units[CT_TABLE_MAX_COLUMNS];

	fputs("<table>\n<thead><tr>", h->out);
	for (size_t col = 0; col < ncols && col < CT_TABLE_MAX_COLUMNS; col++) {
		units[col] = ct_table_column(array, keys[col], shown, h->origin_ns);
		fputs("<th>", h->out);
		put_owned(h->out, ct_table_label(keys[col]));
		if (units[col].name) {
			fputs(" (", h->out);
			put_escaped(h->out, units[col].name);
			fputs(")", h->out);
		}
		fputs("</th>", h->out);
	}
	fputs("</tr></thead>\n<tbody>\n", h->out);
	for (size_t row = 0; row < shown; row++) {
		fputs("<tr>", h->out);
		for (size_t col = 0; col < ncols && col < CT_TABLE_MAX_COLUMNS; col++) {
			const struct ct_node *v = ct_node_get(ct_node_child(array, row), keys[col]);

			fputs(v && ct_table_right_aligned(v) ? "<td class=\"num\">" : "<td>",
			      h->out);
			put_owned(h->out, ct_table_cell(v, &units[col], h->origin_ns));
			fputs("</td>", h->out);
		}
		fputs("</tr>\n", h->out);
	}
	fputs("</tbody>\n</table>\n", h->out);
	put_more(h, array, shown);
}

static void put_array(struct html *h, const struct ct_node *array, int level);

/* The lists inside the rows of a table, as the text report shows them (text-writer.c). */
static void put_row_lists(struct html *h, const struct ct_node *array, const char *const *keys,
                          size_t ncols, int level)
{
	for (size_t row = 0; row < shown_rows(h, array); row++) {
		const struct ct_node *e = ct_node_child(array, row);

		for (size_t i = 0; i < ct_node_count(e); i++) {
			const struct ct_node *c = ct_node_child(e, i);
			char *title, *name;

			if (c->type != CT_NODE_ARRAY || !ct_node_count(c) || !shown_at(h, c))
				continue;
			title = ct_table_title(c);
			name = ct_table_row_name(e, row, keys, ncols, h->origin_ns);
			put_heading(h, level, g_strdup_printf("%s: %s", name, title));
			g_free(title);
			g_free(name);
			put_array(h, c, level + 1);
		}
	}
}

static void put_array(struct html *h, const struct ct_node *array, int level)
{
	const char *keys[CT_TABLE_MAX_COLUMNS];
	size_t shown = shown_rows(h, array);
	size_t ncols = ct_table_columns(array, h->detail == CT_TEXT_DETAILS, keys);

	if (!ct_node_count(array)) {
		fputs("<p>none</p>\n", h->out);
		return;
	}
	if (ncols) {
		put_table(h, array, keys, ncols);
		put_row_lists(h, array, keys, ncols, level);
		return;
	}
	fputs("<ul>\n", h->out);
	for (size_t i = 0; i < shown; i++) {
		const struct ct_node *e = ct_node_child(array, i);

		fputs("<li>", h->out);
		if (ct_table_is_scalar(e))
			put_owned(h->out, ct_table_value(e, h->origin_ns));
		else
			put_container(h, e, level + 1);
		fputs("</li>\n", h->out);
	}
	fputs("</ul>\n", h->out);
	put_more(h, array, shown);
}

static void put_container(struct html *h, const struct ct_node *node, int level)
{
	if (node->type == CT_NODE_ARRAY) {
		put_array(h, node, level);
		return;
	}
	put_scalars(h, node);
	for (size_t i = 0; i < ct_node_count(node); i++) {
		const struct ct_node *c = ct_node_child(node, i);

		if (ct_table_is_scalar(c) || !shown_at(h, c))
			continue;
		put_heading(h, level, ct_table_title(c));
		put_container(h, c, level + 1);
	}
}

static void put_section(struct html *h, const struct ct_node *section)
{
	fputs("<section>\n", h->out);
	put_heading(h, 2, ct_table_title(section));
	if (ct_table_is_scalar(section)) {
		fputs("<p>", h->out);
		put_owned(h->out, ct_table_value(section, h->origin_ns));
		fputs("</p>\n", h->out);
	} else {
		put_container(h, section, 3);
	}
	fputs("</section>\n", h->out);
}

/* The first page, as the text report has it. */
static int put_first_page(struct html *h, const struct ct_node *root)
{
	char *page = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&page, &len);

	if (!mem)
		return -1;
	ct_first_page_write(root, mem);
	if (fclose(mem) != 0) {
		free(page);
		return -1;
	}
	fputs("<section id=\"diagnosis\">\n<h2>Diagnosis</h2>\n<pre class=\"first-page\">", h->out);
	put_escaped(h->out, page);
	fputs("</pre>\n</section>\n", h->out);
	free(page);
	return 0;
}

static int put_plot(const char *name, const unsigned char *svg, size_t len, void *data)
{
	struct html *h = data;
	gchar *base64 = g_base64_encode(svg, len);

	fputs("<figure><img alt=\"", h->out);
	put_escaped(h->out, name);
	fputs("\" src=\"data:image/svg+xml;base64,", h->out);
	fputs(base64, h->out);
	fputs("\"><figcaption>", h->out);
	put_escaped(h->out, name);
	fputs("</figcaption></figure>\n", h->out);
	g_free(base64);
	return 0;
}

/* The title: the first process traced. */
static void put_title(struct html *h, const struct ct_node *root)
{
	const struct ct_node *procs = ct_node_get(ct_node_get(root, "trace"), "processes");
	const struct ct_node *name =
	    procs && ct_node_count(procs) ? ct_node_get(ct_node_child(procs, 0), "process") : NULL;

	fputs("cudatrace report", h->out);
	if (name && name->type == CT_NODE_STRING) {
		fputs(": ", h->out);
		put_owned(h->out, ct_table_value(name, h->origin_ns));
	}
}

static int write_html(const struct ct_node *root, const struct ct_writer_options *opts, FILE *out)
{
	struct html h = { .out = out,
		          .max_rows = opts ? opts->max_rows : 0,
		          .detail = opts ? opts->detail : CT_TEXT_MAIN,
		          .origin_ns = ct_table_origin(root) };
	int failed = 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      out);
	put_title(&h, root);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
	put_title(&h, root);
	fputs("</h1>\n", out);
	if (put_first_page(&h, root) < 0)
		failed = errno ? errno : ENOMEM;
	fputs("<section id=\"plots\">\n<h2>Plots</h2>\n", out);
	switch (ct_plot_svgs(root, put_plot, &h)) {
	case -1:
		failed = failed ? failed : EIO;
		break;
	case 0:
		fputs("<p>none: the report has no memory timeline and no copies</p>\n", out);
		break;
	default:
		break;
	}
	fputs("</section>\n", out);
	if (h.detail != CT_TEXT_BRIEF)
		for (size_t i = 0; i < ct_node_count(root); i++)
			if (shown_at(&h, ct_node_child(root, i)))
				put_section(&h, ct_node_child(root, i));
	fputs("</body>\n</html>\n", out);
	return ct_writer_done(out, failed);
}

const struct ct_writer_class ct_html_writer = {
	.name = "html",
	.write = write_html,
};
