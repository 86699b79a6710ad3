/* SPDX-License-Identifier: MIT */
/*
 * html-writer.c - the report as one self-contained HTML page, to share:
 * the first page (first-page.h) laid out to read: what was traced, then
 * each finding as a block coloured by its severity, with the plot
 * (plot.h, inline as an SVG image) it belongs to beside it; the other
 * plots; then the sections as the text report
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
#include <inttypes.h>
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

/*
 * The severities' colours (critical red, warning amber, advice blue) are
 * the border and badge of a finding; the badge says the word too, for a
 * page read without colour.
 */
static const char style[] =
    "body{font-family:sans-serif;margin:2em auto;max-width:80em;padding:0 1em;color:#222}"
    "header.traced{font-size:1.1em;margin-bottom:1em}header.traced p{margin:0.3em 0}"
    ".label{font-weight:bold}"
    "article.finding{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start;"
    "border:1px solid #ddd;border-left:0.6em solid #888;border-radius:4px;"
    "padding:0.5em 1em;margin:1em 0}"
    "article.finding .finding-text{flex:1 1 26em;min-width:0}"
    "article.finding h3{margin:0.4em 0}article.finding p{margin:0.4em 0}"
    "article.finding figure{flex:1 1 36em;margin:0.5em 0}"
    ".badge{display:inline-block;padding:0.1em 0.5em;border-radius:3px;font-size:0.85em;"
    "letter-spacing:0.05em;color:#fff;vertical-align:middle}"
    "article.critical{border-left-color:#c62828;background:#fdf0ef}"
    "article.critical .badge{background:#c62828}"
    "article.warning{border-left-color:#f0a800;background:#fff8e6}"
    "article.warning .badge{background:#f0a800;color:#222}"
    "article.advice{border-left-color:#1565c0;background:#eef4fc}"
    "article.advice .badge{background:#1565c0}"
    "p.nothing{border-left:0.6em solid #2e7d32;padding:0.5em 1em;background:#f0f7f0}"
    "table{border-collapse:collapse;margin:0.5em 0}"
    "th,td{border:1px solid #ddd;padding:0.2em 0.5em;text-align:left;vertical-align:top}"
    "th{background:#eee}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "table.kv th{background:#f4f4f4;font-weight:normal}"
    "figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd;background:#fff}"
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

/* A plot, drawn before the page is written: beside a finding, or with the others. */
struct plot {
	char *name;   /* "memory-42-dev0", "host-memory-42", "transfers" */
	gchar *svg64; /* the SVG document, in base64 */
	int beside;   /* the rank of the finding it is beside; 0: in the Plots section */
};

static void plot_free(gpointer data)
{
	struct plot *plot = data;

	g_free(plot->name);
	g_free(plot->svg64);
	g_free(plot);
}

static int keep_plot(const char *name, const unsigned char *svg, size_t len, void *data)
{
	GPtrArray *plots = data;
	struct plot *plot = g_new0(struct plot, 1);

	plot->name = g_strdup(name);
	plot->svg64 = g_base64_encode(svg, len);
	g_ptr_array_add(plots, plot);
	return 0;
}

static void put_plot(struct html *h, const struct plot *plot)
{
	fputs("<figure class=\"plot\" id=\"plot-", h->out);
	put_escaped(h->out, plot->name);
	fputs("\"><img alt=\"", h->out);
	put_escaped(h->out, plot->name);
	fputs("\" src=\"data:image/svg+xml;base64,", h->out);
	fputs(plot->svg64, h->out);
	fputs("\"><figcaption>", h->out);
	put_escaped(h->out, plot->name);
	fputs("</figcaption></figure>\n", h->out);
}

static const char *finding_str(const struct ct_node *f, const char *key)
{
	const struct ct_node *n = ct_node_get(f, key);

	return n && n->type == CT_NODE_STRING && n->value.str[0] ? n->value.str : NULL;
}

static bool finding_int(const struct ct_node *f, const char *key, int64_t *value)
{
	const struct ct_node *n = ct_node_get(f, key);

	if (n && n->type == CT_NODE_U64 && n->value.u64 <= INT64_MAX)
		*value = (int64_t)n->value.u64;
	else if (n && n->type == CT_NODE_I64)
		*value = n->value.i64;
	else
		return false;
	return true;
}

/*
 * The plot FINDING belongs to, as ct_plot_svgs() names it: the device
 * memory of its process and device for a failed allocation, a growth or
 * a leak (a growth of a range of the process has no device: its process's
 * first; a growing site has one), the transfers for a hotspot, the host memory of its process for
 * a death; NULL for the others.
 */
static struct plot *plot_of(GPtrArray *plots, const struct ct_node *finding)
{
	const char *kind = finding_str(finding, "kind");
	const struct ct_node *where = ct_node_get(finding, "where");
	bool prefix = false;
	int64_t pid, device;
	char name[64] = "";

	if (!g_strcmp0(kind, "transfer_hotspot")) {
		snprintf(name, sizeof(name), "transfers");
	} else if (!g_strcmp0(kind, "allocation_failure") || !g_strcmp0(kind, "memory_growth") ||
	           !g_strcmp0(kind, "site_growth") || !g_strcmp0(kind, "leak")) {
		if (finding_int(where, "pid", &pid) && finding_int(where, "device", &device))
			snprintf(name, sizeof(name), "memory-%" PRId64 "-dev%" PRId64, pid, device);
		else if ((prefix = finding_int(where, "pid", &pid)))
			snprintf(name, sizeof(name), "memory-%" PRId64 "-dev", pid);
	} else if (!g_strcmp0(kind, "process_death") && finding_int(where, "pid", &pid)) {
		snprintf(name, sizeof(name), "host-memory-%" PRId64, pid);
	}
	for (guint i = 0; name[0] && i < plots->len; i++) {
		struct plot *plot = plots->pdata[i];

		if (prefix ? g_str_has_prefix(plot->name, name) : !strcmp(plot->name, name))
			return plot;
	}
	return NULL;
}

/* "<p class=CLASS><span class=label>LABEL</span> TEXT</p>", TEXT (owned) escaped. */
static void put_labelled(struct html *h, const char *class, const char *label, char *text)
{
	fprintf(h->out, "<p class=\"%s\"><span class=\"label\">%s</span> ", class, label);
	put_owned(h->out, text);
	fputs("</p>\n", h->out);
}

static const char *severity_class(const char *severity)
{
	if (!g_strcmp0(severity, "critical") || !g_strcmp0(severity, "warning"))
		return severity;
	return "advice";
}

/*
 * Finding RANK as a block coloured by its severity, headed by its
 * summary, with why, where, what to do and how sure; beside it, the plot
 * it belongs to (or where that plot is, beside an earlier finding).
 */
static void put_finding(struct html *h, const struct ct_node *f, int rank, GPtrArray *plots)
{
	const char *severity = severity_class(finding_str(f, "severity"));
	struct plot *plot = plot_of(plots, f);
	char *where = ct_first_page_where(f, h->origin_ns);
	char *caveat = ct_first_page_caveat(f);

	fprintf(h->out, "<article class=\"finding %s\" id=\"finding-%d\" data-severity=\"%s\"",
	        severity, rank, severity);
	if (finding_str(f, "kind")) {
		fputs(" data-kind=\"", h->out);
		put_escaped(h->out, finding_str(f, "kind"));
		fputs("\"", h->out);
	}
	fputs(">\n", h->out);
	fprintf(h->out,
	        "<div class=\"finding-text\">\n<h3><span class=\"rank\">%d.</span> "
	        "<span class=\"badge\">%s</span> <span class=\"summary\">",
	        rank, ct_first_page_label(severity));
	put_owned(h->out, ct_first_page_sentence(finding_str(f, "summary")));
	fputs("</span></h3>\n", h->out);
	if (finding_str(f, "explanation"))
		put_labelled(h, "why",
		             "Why:", ct_first_page_sentence(finding_str(f, "explanation")));
	if (where[0])
		put_labelled(h, "where", "Where:", where);
	else
		g_free(where);
	if (finding_str(f, "advice"))
		put_labelled(h, "advice",
		             "What to do:", ct_first_page_sentence(finding_str(f, "advice")));
	if (caveat)
		put_labelled(h, "caveat", "Note:", caveat);
	if (plot && plot->beside) {
		fputs("<p class=\"plot-ref\"><span class=\"label\">Plot:</span> <a href=\"#plot-",
		      h->out);
		put_escaped(h->out, plot->name);
		fputs("\">", h->out);
		put_escaped(h->out, plot->name);
		fprintf(h->out, "</a>, beside finding %d</p>\n", plot->beside);
	}
	fputs("</div>\n", h->out);
	if (plot && !plot->beside) {
		plot->beside = rank;
		put_plot(h, plot);
	}
	fputs("</article>\n", h->out);
}

static void put_loss(const char *label, const char *text, void *data)
{
	struct html *h = data;

	fprintf(h->out, "<p class=\"loss\"><span class=\"label\">%s:</span> ", label);
	put_escaped(h->out, text);
	fputs("</p>\n", h->out);
}

/*
 * The first page, to read: what was traced, then each finding (all of
 * them: a page has no screen to fit), most severe first.
 */
static void put_first_page(struct html *h, const struct ct_node *root, GPtrArray *plots)
{
	const struct ct_node *trace = ct_node_get(root, "trace");
	const struct ct_node *findings = ct_node_get(root, "findings");
	const struct ct_node *complete = ct_node_get(trace, "complete");
	size_t count = findings ? ct_node_count(findings) : 0;

	fputs("<section id=\"diagnosis\">\n<h2>Diagnosis</h2>\n<header class=\"traced\">\n"
	      "<p class=\"traced\">",
	      h->out);
	put_owned(h->out, ct_first_page_traced(trace));
	fputs("</p>\n", h->out);
	if (complete && complete->type == CT_NODE_BOOL && complete->value.boolean)
		fputs("<p class=\"complete\"><span class=\"label\">Complete:</span> the trace was "
		      "read to its end, nothing cut short</p>\n",
		      h->out);
	ct_first_page_losses(trace, put_loss, h);
	ct_first_page_bounds(root, put_loss, h);
	fputs("</header>\n", h->out);
	if (!count) {
		fputs("<p class=\"nothing\">", h->out);
		put_owned(h->out, ct_first_page_nothing(root));
		fputs("</p>\n", h->out);
	}
	for (size_t i = 0; i < count; i++)
		put_finding(h, ct_node_child(findings, i), (int)i + 1, plots);
	fputs("</section>\n", h->out);
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
	GPtrArray *plots = g_ptr_array_new_with_free_func(plot_free);
	int failed = 0, drawn, beside = 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      out);
	put_title(&h, root);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
	put_title(&h, root);
	fputs("</h1>\n", out);
	drawn = ct_plot_svgs(root, keep_plot, plots);
	if (drawn < 0)
		failed = EIO;
	put_first_page(&h, root, plots);
	fputs("<section id=\"plots\">\n<h2>Plots</h2>\n", out);
	for (guint i = 0; i < plots->len; i++)
		if (!((struct plot *)plots->pdata[i])->beside)
			put_plot(&h, plots->pdata[i]);
		else
			beside++;
	if (drawn == 0)
		fputs("<p>none: the report has no memory timeline and no copies</p>\n", out);
	else if (beside)
		fprintf(out, "<p class=\"more\">%d beside the findings they belong to, above</p>\n",
		        beside);
	fputs("</section>\n", out);
	if (h.detail != CT_TEXT_BRIEF)
		for (size_t i = 0; i < ct_node_count(root); i++)
			if (shown_at(&h, ct_node_child(root, i)))
				put_section(&h, ct_node_child(root, i));
	fputs("</body>\n</html>\n", out);
	g_ptr_array_free(plots, TRUE);
	return ct_writer_done(out, failed);
}

const struct ct_writer_class ct_html_writer = {
	.name = "html",
	.write = write_html,
};
