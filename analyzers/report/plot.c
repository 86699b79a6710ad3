/* SPDX-License-Identifier: MIT */
/*
 * plot.c - the memory and transfer plots, as SVG and PNG, with cairo (see
 * plot.h). Each picture is drawn by one function on a cairo context, once
 * on an SVG surface and once on an image surface saved as PNG.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cairo-svg.h>
#include <cairo.h>

#include "analyses/framework.h"
#include "common/log.h"
#include "plot.h"

#define FONT          "DejaVu Sans"
#define MEMORY_WIDTH  1000.0
#define MEMORY_HEIGHT 520.0
#define BARS_WIDTH    1100.0
#define BARS_MAX      15
#define BAR_HEIGHT    30.0
/* Failures labelled on a memory plot; the others are only marked. */
#define FAILURES_LABELLED 4

/* Plot area inside the picture, and the data range it shows. */
struct frame {
	double left, top, width, height;
	double t0, t1; /* ns */
	double v0, v1; /* bytes */
};

/* ------------------------------------------------------- document */

static const struct ct_node *child(const struct ct_node *object, const char *key)
{
	return object ? ct_node_get(object, key) : NULL;
}

static bool number_of(const struct ct_node *object, const char *key, double *value)
{
	const struct ct_node *n = child(object, key);

	if (!n)
		return false;
	switch (n->type) {
	case CT_NODE_U64:
		*value = (double)n->value.u64;
		return true;
	case CT_NODE_I64:
		*value = (double)n->value.i64;
		return true;
	case CT_NODE_DOUBLE:
		*value = n->value.dbl;
		return true;
	default:
		return false;
	}
}

static double number(const struct ct_node *object, const char *key)
{
	double value = 0;

	number_of(object, key, &value);
	return value;
}

static const char *text_of(const struct ct_node *object, const char *key)
{
	const struct ct_node *n = child(object, key);

	return n && n->type == CT_NODE_STRING ? n->value.str : "";
}

/* ------------------------------------------------------------ units */

static const char *byte_unit(double max, double *scale)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned i = 0;

	*scale = 1;
	while (i < 4 && max >= 1024 * *scale) {
		*scale *= 1024;
		i++;
	}
	return names[i];
}

static const char *time_unit(double span_ns, double *scale)
{
	if (span_ns >= 1e9) {
		*scale = 1e9;
		return "s";
	}
	if (span_ns >= 1e6) {
		*scale = 1e6;
		return "ms";
	}
	if (span_ns >= 1e3) {
		*scale = 1e3;
		return "µs";
	}
	*scale = 1;
	return "ns";
}

static void format_bytes(double bytes, char *buf, size_t len)
{
	double scale;
	const char *unit = byte_unit(bytes, &scale);

	snprintf(buf, len, scale == 1 ? "%.0f %s" : "%.2f %s", bytes / scale, unit);
}

static void format_duration(double ns, char *buf, size_t len)
{
	double scale;
	const char *unit = time_unit(ns, &scale);

	snprintf(buf, len, scale == 1 ? "%.0f %s" : "%.2f %s", ns / scale, unit);
}

/* A step of about SPAN / 5 that is 1, 2 or 5 times a power of ten. */
static double nice_step(double span)
{
	double raw = span / 5, power, m;

	if (raw <= 0)
		return 1;
	power = pow(10, floor(log10(raw)));
	m = raw / power;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * power;
}

/* ----------------------------------------------------------- drawing */

static void set_rgb(cairo_t *cr, unsigned rgb)
{
	cairo_set_source_rgb(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
	                     (rgb & 0xff) / 255.0);
}

static void font(cairo_t *cr, double size, bool bold)
{
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
	                       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

/*
 * Text at (X, Y): ALIGN 0 left, 0.5 centred, 1 right; Y is the baseline.
 * cairo stops drawing for good at a string that is not UTF-8: S is made
 * valid first (the report's strings are, a label cut short may not be).
 */
static void text(cairo_t *cr, double x, double y, double align, const char *s)
{
	char *valid = g_utf8_make_valid(s, -1);
	cairo_text_extents_t ext;

	cairo_text_extents(cr, valid, &ext);
	cairo_move_to(cr, x - align * ext.x_advance, y);
	cairo_show_text(cr, valid);
	g_free(valid);
}

static double fx(const struct frame *f, double t)
{
	return f->left + (t - f->t0) / (f->t1 - f->t0) * f->width;
}

static double fy(const struct frame *f, double v)
{
	return f->top + f->height - (v - f->v0) / (f->v1 - f->v0) * f->height;
}

static void background(cairo_t *cr, double width, double height)
{
	set_rgb(cr, 0xffffff);
	cairo_rectangle(cr, 0, 0, width, height);
	cairo_fill(cr);
}

/* Axes, grid and tick labels; times relative to the plot's start. */
static void draw_axes(cairo_t *cr, const struct frame *f)
{
	double tscale, vscale, tstep, vstep;
	const char *tunit = time_unit(f->t1 - f->t0, &tscale);
	const char *vunit = byte_unit(f->v1, &vscale);
	char label[64];

	tstep = nice_step((f->t1 - f->t0) / tscale) * tscale;
	vstep = nice_step(f->v1 / vscale) * vscale;
	font(cr, 11, false);
	cairo_set_line_width(cr, 1);
	for (double v = 0; v <= f->v1 + vstep / 1e6; v += vstep) {
		set_rgb(cr, 0xe4e4e4);
		cairo_move_to(cr, f->left, floor(fy(f, v)) + 0.5);
		cairo_line_to(cr, f->left + f->width, floor(fy(f, v)) + 0.5);
		cairo_stroke(cr);
		set_rgb(cr, 0x333333);
		snprintf(label, sizeof(label), "%g %s", v / vscale, vunit);
		text(cr, f->left - 6, fy(f, v) + 4, 1, label);
	}
	for (double t = 0; f->t0 + t <= f->t1 + tstep / 1e6; t += tstep) {
		set_rgb(cr, 0xe4e4e4);
		cairo_move_to(cr, floor(fx(f, f->t0 + t)) + 0.5, f->top);
		cairo_line_to(cr, floor(fx(f, f->t0 + t)) + 0.5, f->top + f->height);
		cairo_stroke(cr);
		set_rgb(cr, 0x333333);
		snprintf(label, sizeof(label), "%g %s", t / tscale, tunit);
		text(cr, fx(f, f->t0 + t), f->top + f->height + 16, 0.5, label);
	}
	set_rgb(cr, 0x333333);
	cairo_rectangle(cr, f->left + 0.5, f->top + 0.5, f->width, f->height);
	cairo_stroke(cr);
	text(cr, f->left + f->width / 2, f->top + f->height + 34, 0.5,
	     "time since the first memory event");
}

/* ------------------------------------------------------ memory plot */

struct memory_point {
	double t, last, min, max;
};

/*
 * What one memory plot shows: a process's device memory on one device, or
 * its resident host memory (host). Points owned; nodes borrowed from the
 * document.
 */
struct memory_plot {
	const struct ct_node *device;    /* memory.devices[] or host_memory.processes[] element */
	const struct ct_node *failures;  /* memory.failures, or NULL */
	const struct ct_node *framework; /* framework.timeline, or NULL */
	bool host;
	int64_t pid;
	uint64_t ordinal;
	struct memory_point *points;
	size_t count;
	double bucket_ns; /* width of a time bucket: the smallest step between points */
	/* What the framework said it held on the device (framework.timeline[]): last
	 * in use, last reserved, each bucket's highest in max. */
	struct memory_point *in_use, *reserved;
	size_t framework_count;
	const char *framework_name; /* "PyTorch" */
};

static bool same_process_device(const struct ct_node *n, int64_t pid, uint64_t device)
{
	return (int64_t)number(n, "pid") == pid && (uint64_t)number(n, "device") == device;
}

/* The number of elements of ARRAY, 0 when the report has none. */
static size_t count_of(const struct ct_node *array)
{
	return array ? ct_node_count(array) : 0;
}

static void collect_points(struct memory_plot *p, const struct ct_node *timeline)
{
	/* memory.timeline[] and host_memory.timeline[] name their values apart */
	const char *last = p->host ? "rss_bytes" : "bytes";
	const char *min = p->host ? "min_rss_bytes" : "min_bytes";
	const char *max = p->host ? "max_rss_bytes" : "max_bytes";

	p->points = g_new0(struct memory_point, count_of(timeline) ? count_of(timeline) : 1);
	for (size_t i = 0; i < count_of(timeline); i++) {
		const struct ct_node *n = ct_node_child(timeline, i);

		if (p->host ? (int64_t)number(n, "pid") != p->pid
		            : !same_process_device(n, p->pid, p->ordinal))
			continue;
		p->points[p->count++] =
		    (struct memory_point){ number(n, "time_ns"), number(n, last), number(n, min),
			                   number(n, max) };
	}
	/* buckets start at multiples of their width, so the smallest step is one */
	for (size_t i = 1; i < p->count; i++) {
		double step = p->points[i].t - p->points[i - 1].t;

		if (step > 0 && (p->bucket_ns == 0 || step < p->bucket_ns))
			p->bucket_ns = step;
	}
}

/* The framework's figures for the plot's process and device, when it has any. */
static void collect_framework(struct memory_plot *p)
{
	size_t n = count_of(p->framework);

	p->in_use = g_new0(struct memory_point, n ? n : 1);
	p->reserved = g_new0(struct memory_point, n ? n : 1);
	for (size_t i = 0; i < n; i++) {
		const struct ct_node *pt = ct_node_child(p->framework, i);
		double t = number(pt, "time_ns");

		if (!same_process_device(pt, p->pid, p->ordinal))
			continue;
		p->framework_name = ct_framework_name(text_of(pt, "framework"));
		p->in_use[p->framework_count] =
		    (struct memory_point){ t, number(pt, "in_use_bytes"), 0,
			                   number(pt, "max_in_use_bytes") };
		p->reserved[p->framework_count++] =
		    (struct memory_point){ t, number(pt, "reserved_bytes"), 0,
			                   number(pt, "max_reserved_bytes") };
	}
}

/* The cgroup limit of a host memory plot's process, 0 when none is known. */
static double host_cgroup_limit(const struct memory_plot *p)
{
	if (!p->host || strcmp(text_of(p->device, "limit_of"), "cgroup"))
		return 0;
	return number(p->device, "limit_bytes");
}

/* The time and value range: the points, the peak and the failures. */
static void memory_frame(const struct memory_plot *p, struct frame *f)
{
	double peak = number(p->device, p->host ? "rss_peak_bytes" : "peak_bytes"), peak_t;

	f->t0 = p->count ? p->points[0].t : 0;
	f->t1 = p->count ? p->points[p->count - 1].t : 1;
	f->t1 += p->bucket_ns;
	f->v0 = 0;
	f->v1 = peak;
	for (size_t i = 0; i < p->count; i++)
		f->v1 = p->points[i].max > f->v1 ? p->points[i].max : f->v1;
	for (size_t i = 0; i < p->framework_count; i++)
		f->v1 = MAX(f->v1, MAX(p->in_use[i].max, p->reserved[i].max));
	if (number_of(p->device, "peak_time_ns", &peak_t) && peak_t > f->t1)
		f->t1 = peak_t;
	for (size_t i = 0; i < count_of(p->failures); i++) {
		const struct ct_node *n = ct_node_child(p->failures, i);

		if (same_process_device(n, p->pid, p->ordinal) && number(n, "time_ns") > f->t1)
			f->t1 = number(n, "time_ns");
	}
	if (f->t1 <= f->t0)
		f->t1 = f->t0 + 1;
	/* a cgroup's limit is drawn (the machine's would flatten the curve) */
	if (host_cgroup_limit(p) > f->v1)
		f->v1 = host_cgroup_limit(p);
	if (f->v1 <= 0)
		f->v1 = 1;
	/* round the top up to a tick, with room for the labels */
	{
		double scale, step;

		byte_unit(f->v1 * 1.15, &scale);
		step = nice_step(f->v1 * 1.15 / scale) * scale;
		f->v1 = ceil(f->v1 * 1.15 / step) * step;
	}
}

static void draw_series(cairo_t *cr, const struct memory_plot *p, const struct frame *f)
{
	/* the range each bucket covered: spikes survive the downsampling */
	set_rgb(cr, 0xbcd4ee);
	for (size_t i = 0; i < p->count; i++) {
		double t_end = i + 1 < p->count ? p->points[i + 1].t : f->t1;

		if (p->bucket_ns > 0 && p->points[i].t + p->bucket_ns < t_end)
			t_end = p->points[i].t + p->bucket_ns;
		cairo_rectangle(cr, fx(f, p->points[i].t), fy(f, p->points[i].max),
		                fx(f, t_end) - fx(f, p->points[i].t) + 0.5,
		                fy(f, p->points[i].min) - fy(f, p->points[i].max) + 0.5);
	}
	cairo_fill(cr);
	set_rgb(cr, 0x1f5fa8);
	cairo_set_line_width(cr, 1.8);
	for (size_t i = 0; i < p->count; i++) {
		if (i == 0)
			cairo_move_to(cr, fx(f, p->points[0].t), fy(f, p->points[0].last));
		else
			cairo_line_to(cr, fx(f, p->points[i].t), fy(f, p->points[i - 1].last));
		cairo_line_to(cr, fx(f, p->points[i].t), fy(f, p->points[i].last));
	}
	if (p->count)
		cairo_line_to(cr, fx(f, f->t1), fy(f, p->points[p->count - 1].last));
	cairo_stroke(cr);
}

/*
 * Sampled figures POINTS (COUNT) in RGB: a dot at each sample's value, and
 * a bar up to the highest the bucket held (a peak between samples). No
 * line joins them: between two samples the figure is not known, and a
 * line held until the next would show a value the framework no longer had.
 */
static void draw_samples(cairo_t *cr, const struct memory_point *points, size_t count,
                         const struct frame *f, unsigned rgb)
{
	set_rgb(cr, rgb);
	cairo_set_line_width(cr, 1.5);
	for (size_t i = 0; i < count; i++) {
		double x = fx(f, points[i].t);

		if (points[i].max > points[i].last) {
			cairo_move_to(cr, x, fy(f, points[i].last));
			cairo_line_to(cr, x, fy(f, points[i].max));
			cairo_stroke(cr);
		}
		cairo_arc(cr, x, fy(f, points[i].last), 2.8, 0, 2 * M_PI);
		cairo_fill(cr);
	}
}

static void draw_peak(cairo_t *cr, const struct memory_plot *p, const struct frame *f)
{
	double t, bytes = number(p->device, "peak_bytes");
	char size[32], label[64];

	if (!number_of(p->device, "peak_time_ns", &t) || bytes <= 0)
		return;
	set_rgb(cr, 0xd0701c);
	cairo_arc(cr, fx(f, t), fy(f, bytes), 5, 0, 2 * M_PI);
	cairo_fill(cr);
	format_bytes(bytes, size, sizeof(size));
	snprintf(label, sizeof(label), "peak %s", size);
	font(cr, 12, true);
	text(cr, fx(f, t), fy(f, bytes) - 10, fx(f, t) > f->left + f->width * 0.8 ? 1 : 0.5, label);
}

static void draw_failures(cairo_t *cr, const struct memory_plot *p, const struct frame *f)
{
	static const double dash[] = { 5, 4 };
	unsigned labelled = 0;

	for (size_t i = 0; i < count_of(p->failures); i++) {
		const struct ct_node *n = ct_node_child(p->failures, i);
		double x = fx(f, number(n, "time_ns"));
		char size[32], label[128];

		if (!same_process_device(n, p->pid, p->ordinal))
			continue;
		set_rgb(cr, 0xc0392b);
		cairo_set_line_width(cr, 1.5);
		cairo_set_dash(cr, dash, 2, 0);
		cairo_move_to(cr, x, f->top);
		cairo_line_to(cr, x, f->top + f->height);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		cairo_move_to(cr, x - 5, f->top + 3);
		cairo_line_to(cr, x + 5, f->top + 13);
		cairo_move_to(cr, x + 5, f->top + 3);
		cairo_line_to(cr, x - 5, f->top + 13);
		cairo_stroke(cr);
		if (labelled++ >= FAILURES_LABELLED)
			continue;
		format_bytes(number(n, "requested_bytes"), size, sizeof(size));
		snprintf(label, sizeof(label), "failed: %s (%s)", size, text_of(n, "verdict"));
		font(cr, 11, false);
		text(cr, x - 4, f->top + 26 + 14.0 * (labelled - 1), 1, label);
	}
}

static void legend_entry(cairo_t *cr, double x, double y, unsigned rgb, const char *label,
                         int shape)
{
	set_rgb(cr, rgb);
	if (shape == 0) {
		cairo_set_line_width(cr, 2);
		cairo_move_to(cr, x, y - 4);
		cairo_line_to(cr, x + 18, y - 4);
		cairo_stroke(cr);
	} else if (shape == 1) {
		cairo_rectangle(cr, x, y - 9, 18, 10);
		cairo_fill(cr);
	} else {
		cairo_arc(cr, x + 9, y - 4, 4, 0, 2 * M_PI);
		cairo_fill(cr);
	}
	set_rgb(cr, 0x333333);
	text(cr, x + 24, y, 0, label);
}

/* A host memory plot's cgroup limit, as a dashed line across it. */
static void draw_limit(cairo_t *cr, const struct memory_plot *p, const struct frame *f)
{
	static const double dash[] = { 8, 4 };
	double limit = host_cgroup_limit(p);
	char size[32], label[64];

	if (limit <= 0)
		return;
	set_rgb(cr, 0xc0392b);
	cairo_set_line_width(cr, 1.5);
	cairo_set_dash(cr, dash, 2, 0);
	cairo_move_to(cr, f->left, fy(f, limit));
	cairo_line_to(cr, f->left + f->width, fy(f, limit));
	cairo_stroke(cr);
	cairo_set_dash(cr, NULL, 0, 0);
	format_bytes(limit, size, sizeof(size));
	snprintf(label, sizeof(label), "cgroup limit %s", size);
	font(cr, 11, false);
	text(cr, f->left + 4, fy(f, limit) - 4, 0, label);
}

static void draw_host(cairo_t *cr, const struct memory_plot *p, struct frame *f)
{
	char title[256];

	font(cr, 15, true);
	set_rgb(cr, 0x111111);
	if (*text_of(p->device, "process"))
		snprintf(title, sizeof(title), "Host memory (resident): %s (pid %" PRId64 ")",
		         text_of(p->device, "process"), p->pid);
	else
		snprintf(title, sizeof(title), "Host memory (resident): pid %" PRId64, p->pid);
	text(cr, f->left, 30, 0, title);
	draw_axes(cr, f);
	cairo_save(cr);
	cairo_rectangle(cr, f->left, f->top, f->width, f->height);
	cairo_clip(cr);
	draw_series(cr, p, f);
	cairo_restore(cr);
	draw_limit(cr, p, f);
	font(cr, 11, false);
	legend_entry(cr, f->left, MEMORY_HEIGHT - 12, 0x1f5fa8, "resident host memory", 0);
	legend_entry(cr, f->left + 200, MEMORY_HEIGHT - 12, 0xbcd4ee, "range within a time bucket",
	             1);
	legend_entry(cr, f->left + 430, MEMORY_HEIGHT - 12, 0xc0392b, "cgroup limit", 0);
}

static void draw_memory(cairo_t *cr, const void *data)
{
	const struct memory_plot *p = data;
	struct frame f = { 90, 54, MEMORY_WIDTH - 120, MEMORY_HEIGHT - 54 - 84, 0, 0, 0, 0 };
	char title[256];

	memory_frame(p, &f);
	background(cr, MEMORY_WIDTH, MEMORY_HEIGHT);
	if (p->host) {
		draw_host(cr, p, &f);
		return;
	}
	font(cr, 15, true);
	set_rgb(cr, 0x111111);
	if (*text_of(p->device, "process"))
		snprintf(title, sizeof(title),
		         "Device memory: %s (pid %" PRId64 "), device %" PRIu64,
		         text_of(p->device, "process"), p->pid, p->ordinal);
	else
		snprintf(title, sizeof(title), "Device memory: pid %" PRId64 ", device %" PRIu64,
		         p->pid, p->ordinal);
	text(cr, f.left, 30, 0, title);
	draw_axes(cr, &f);
	cairo_save(cr);
	cairo_rectangle(cr, f.left, f.top, f.width, f.height);
	cairo_clip(cr);
	draw_series(cr, p, &f);
	draw_samples(cr, p->reserved, p->framework_count, &f, 0x8e44ad);
	draw_samples(cr, p->in_use, p->framework_count, &f, 0x27ae60);
	cairo_restore(cr);
	draw_peak(cr, p, &f);
	draw_failures(cr, p, &f);
	font(cr, 11, false);
	legend_entry(cr, f.left, MEMORY_HEIGHT - 12, 0x1f5fa8, "live device memory", 0);
	legend_entry(cr, f.left + 180, MEMORY_HEIGHT - 12, 0xbcd4ee, "range within a time bucket",
	             1);
	legend_entry(cr, f.left + 410, MEMORY_HEIGHT - 12, 0xd0701c, "peak", 2);
	legend_entry(cr, f.left + 480, MEMORY_HEIGHT - 12, 0xc0392b, "failed allocation", 0);
	if (p->framework_count) {
		char label[96];

		snprintf(label, sizeof(label), "%s in use (its count, sampled)", p->framework_name);
		legend_entry(cr, f.left, MEMORY_HEIGHT - 30, 0x27ae60, label, 2);
		snprintf(label, sizeof(label), "%s reserved (its pool, sampled)",
		         p->framework_name);
		legend_entry(cr, f.left + 270, MEMORY_HEIGHT - 30, 0x8e44ad, label, 2);
	}
}

/* --------------------------------------------------- transfers plot */

static unsigned host_color(const char *host)
{
	if (!strcmp(host, "pageable"))
		return 0xe07b24;
	if (!strcmp(host, "pinned"))
		return 0x2f78c4;
	return 0x8a8a8a;
}

/* BUF = PREFIX then as much of S as fits in LEN (LEN > 0), cut between characters. */
static void join_cut(char *buf, size_t len, const char *prefix, const char *s)
{
	size_t p = strlen(prefix), n = strlen(s);

	if (p > len - 1)
		p = len - 1;
	if (n > len - 1 - p) {
		n = len - 1 - p;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(buf, prefix, p);
	memcpy(buf + p, s, n);
	buf[p + n] = '\0';
}

/* Cuts S to fit WIDTH, with "…" in front (the innermost part of a site matters most). */
static void fit_left(cairo_t *cr, const char *s, double width, char *buf, size_t len)
{
	cairo_text_extents_t ext;
	size_t skip = 0, n = strlen(s);

	join_cut(buf, len, "", s);
	cairo_text_extents(cr, buf, &ext);
	while (ext.x_advance > width && skip < n) {
		skip++;
		while (skip < n && (s[skip] & 0xc0) == 0x80)
			skip++;
		join_cut(buf, len, "…", s + skip);
		cairo_text_extents(cr, buf, &ext);
	}
}

static size_t bars_shown(const struct ct_node *hotspots)
{
	return ct_node_count(hotspots) < BARS_MAX ? ct_node_count(hotspots) : BARS_MAX;
}

static double bars_height(const struct ct_node *hotspots)
{
	return 100 + BAR_HEIGHT * (double)bars_shown(hotspots);
}

static void draw_bar(cairo_t *cr, const struct ct_node *h, double y, double left, double width,
                     double max_cost)
{
	double cost = number(h, "cost_ns"), length = max_cost > 0 ? cost / max_cost * width : 0;
	char label[512], site[512], each[32], total[32], duration[32];
	const struct ct_node *sync = child(h, "sync");

	font(cr, 11, false);
	set_rgb(cr, 0x222222);
	fit_left(cr, text_of(h, "site"), left - 200, site, sizeof(site));
	text(cr, left - 190, y + 19, 1, site);
	snprintf(label, sizeof(label), "%s %s%s%s", text_of(h, "direction"),
	         strcmp(text_of(h, "host_memory"), "none") ? text_of(h, "host_memory") : "",
	         strcmp(text_of(h, "host_memory"), "none") ? " " : "",
	         sync && sync->type == CT_NODE_BOOL && sync->value.boolean ? "sync" : "async");
	set_rgb(cr, 0x666666);
	text(cr, left - 8, y + 19, 1, label);
	set_rgb(cr, host_color(text_of(h, "host_memory")));
	cairo_rectangle(cr, left, y + 5, length > 1 ? length : 1, BAR_HEIGHT - 10);
	cairo_fill(cr);
	format_duration(cost, duration, sizeof(duration));
	format_bytes(number(h, "mean_bytes"), each, sizeof(each));
	format_bytes(number(h, "bytes"), total, sizeof(total));
	snprintf(label, sizeof(label), "%s   %.0f × %s = %s", duration, number(h, "count"), each,
	         total);
	set_rgb(cr, 0x222222);
	text(cr, left + length + 6, y + 19, 0, label);
}

static void draw_transfers(cairo_t *cr, const void *data)
{
	const struct ct_node *hotspots = data;
	double height = bars_height(hotspots), left = 520, width = BARS_WIDTH - left - 250;
	double max_cost = 0, y = 50;
	size_t shown = bars_shown(hotspots);

	background(cr, BARS_WIDTH, height);
	font(cr, 15, true);
	set_rgb(cr, 0x111111);
	text(cr, 20, 30, 0, "Transfer hotspots, by the time they cost");
	for (size_t i = 0; i < ct_node_count(hotspots); i++) {
		const struct ct_node *h = ct_node_child(hotspots, i);

		max_cost = number(h, "cost_ns") > max_cost ? number(h, "cost_ns") : max_cost;
	}
	for (size_t i = 0; i < shown; i++) {
		draw_bar(cr, ct_node_child(hotspots, i), y, left, width, max_cost);
		y += BAR_HEIGHT;
	}
	font(cr, 11, false);
	legend_entry(cr, 20, height - 18, host_color("pageable"), "pageable host memory", 1);
	legend_entry(cr, 220, height - 18, host_color("pinned"), "pinned host memory", 1);
	legend_entry(cr, 400, height - 18, host_color("none"), "device to device", 1);
	set_rgb(cr, 0x666666);
	text(cr, BARS_WIDTH - 20, height - 18, 1,
	     "cost: host wait for blocking copies, GPU time for the others");
}

/* ------------------------------------------------------------ files */

/*
 * fontconfig, under cairo's text, loses a few hundred bytes once per
 * process while it parses its configuration; LeakSanitizer (the sanitizer
 * build) would fail every program that draws a plot. This is its hook for
 * default suppressions, and it names that library only.
 */
const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\n";
}

typedef void (*draw_fn)(cairo_t *cr, const void *data);

static int check_cairo(cairo_status_t status, const char *path)
{
	if (status == CAIRO_STATUS_SUCCESS)
		return 0;
	ct_log_error("cannot draw '%s': %s", path, cairo_status_to_string(status));
	return -1;
}

/* Draws into SURFACE, an SVG surface (NAME for messages), finishes and destroys it. */
static int draw_svg_surface(cairo_surface_t *surface, const char *name, draw_fn draw,
                            const void *data)
{
	cairo_t *cr = cairo_create(surface);
	int ret;

	draw(cr, data);
	ret = check_cairo(cairo_status(cr), name);
	cairo_destroy(cr);
	cairo_surface_finish(surface);
	if (!ret)
		ret = check_cairo(cairo_surface_status(surface), name);
	cairo_surface_destroy(surface);
	return ret;
}

static int draw_svg(const char *path, double width, double height, draw_fn draw, const void *data)
{
	return draw_svg_surface(cairo_svg_surface_create(path, width, height), path, draw, data);
}

static int draw_png(const char *path, double width, double height, draw_fn draw, const void *data)
{
	cairo_surface_t *surface =
	    cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)width, (int)height);
	cairo_t *cr = cairo_create(surface);
	int ret;

	draw(cr, data);
	ret = check_cairo(cairo_status(cr), path);
	cairo_destroy(cr);
	if (!ret)
		ret = check_cairo(cairo_surface_write_to_png(surface, path), path);
	cairo_surface_destroy(surface);
	return ret;
}

/* Where the plots go: files in a directory, or SVG documents handed to a function. */
struct sink {
	const char *dir; /* DIR/BASE.svg and DIR/BASE.png; NULL: to emit */
	ct_plot_svg_fn emit;
	void *data;
};

/* Writes DIR/BASE.svg and DIR/BASE.png. */
static int draw_both(const char *dir, const char *base, double width, double height, draw_fn draw,
                     const void *data)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s.svg", dir, base) >= (int)sizeof(path)) {
		ct_log_error("plot directory name too long: %s", dir);
		return -1;
	}
	if (draw_svg(path, width, height, draw, data) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%s.png", dir, base);
	return draw_png(path, width, height, draw, data);
}

static cairo_status_t append_bytes(void *closure, const unsigned char *data, unsigned int length)
{
	g_byte_array_append(closure, data, length);
	return CAIRO_STATUS_SUCCESS;
}

/* Draws one SVG document in memory and hands it to the sink's function. */
static int draw_emitted(const struct sink *sink, const char *base, double width, double height,
                        draw_fn draw, const void *data)
{
	GByteArray *svg = g_byte_array_new();
	int ret =
	    draw_svg_surface(cairo_svg_surface_create_for_stream(append_bytes, svg, width, height),
	                     base, draw, data);

	if (!ret)
		ret = sink->emit(base, svg->data, svg->len, sink->data);
	g_byte_array_unref(svg);
	return ret;
}

static int sink_draw(const struct sink *sink, const char *base, double width, double height,
                     draw_fn draw, const void *data)
{
	if (sink->dir)
		return draw_both(sink->dir, base, width, height, draw, data);
	return draw_emitted(sink, base, width, height, draw, data);
}

/*
 * Draws P from the points of TIMELINE as BASE in SINK, when it
 * has any. 1 when drawn, 0 when not, -1 after an error.
 */
static int draw_memory_plot(struct memory_plot *p, const struct ct_node *timeline,
                            const struct sink *sink, const char *base)
{
	int ret;

	collect_points(p, timeline);
	collect_framework(p);
	ret = p->count ? sink_draw(sink, base, MEMORY_WIDTH, MEMORY_HEIGHT, draw_memory, p) : 0;
	g_free(p->points);
	g_free(p->in_use);
	g_free(p->reserved);
	return ret < 0 ? -1 : p->count > 0;
}

static int plot_memory(const struct ct_node *root, const struct sink *sink)
{
	const struct ct_node *memory = child(root, "memory");
	const struct ct_node *devices = child(memory, "devices");
	int drawn = 0;

	for (size_t i = 0; i < count_of(devices); i++) {
		const struct ct_node *d = ct_node_child(devices, i);
		struct memory_plot p = { .device = d,
			                 .failures = child(memory, "failures"),
			                 .framework = child(child(root, "framework"), "timeline"),
			                 .pid = (int64_t)number(d, "pid"),
			                 .ordinal = (uint64_t)number(d, "device") };
		char base[96];
		int ret;

		snprintf(base, sizeof(base), "memory-%" PRId64 "-dev%" PRIu64, p.pid, p.ordinal);
		ret = draw_memory_plot(&p, child(memory, "timeline"), sink, base);
		if (ret < 0)
			return -1;
		drawn += ret;
	}
	return drawn;
}

/* One plot per process with host memory samples, beside its device memory plots. */
static int plot_host(const struct ct_node *root, const struct sink *sink)
{
	const struct ct_node *host = child(root, "host_memory");
	const struct ct_node *processes = child(host, "processes");
	int drawn = 0;

	for (size_t i = 0; i < count_of(processes); i++) {
		const struct ct_node *n = ct_node_child(processes, i);
		struct memory_plot p = { .device = n,
			                 .host = true,
			                 .pid = (int64_t)number(n, "pid") };
		char base[64];
		int ret;

		snprintf(base, sizeof(base), "host-memory-%" PRId64, p.pid);
		ret = draw_memory_plot(&p, child(host, "timeline"), sink, base);
		if (ret < 0)
			return -1;
		drawn += ret;
	}
	return drawn;
}

static int plot_transfers(const struct ct_node *root, const struct sink *sink)
{
	const struct ct_node *hotspots = child(child(root, "transfers"), "hotspots");

	if (!count_of(hotspots))
		return 0;
	if (sink_draw(sink, "transfers", BARS_WIDTH, bars_height(hotspots), draw_transfers,
	              hotspots) < 0)
		return -1;
	return 1;
}

/* Every plot of ROOT into SINK: the number drawn, or -1. */
static int plot_all(const struct ct_node *root, const struct sink *sink)
{
	int memory = plot_memory(root, sink), host = memory < 0 ? 0 : plot_host(root, sink),
	    transfers = memory < 0 || host < 0 ? 0 : plot_transfers(root, sink);

	/*
	 * Every surface is gone: drop cairo's font caches, which would
	 * otherwise stay allocated to the end and show up in leak checks.
	 */
	cairo_debug_reset_static_data();
	if (memory < 0 || host < 0 || transfers < 0)
		return -1;
	return memory + host + transfers;
}

int ct_plot_svgs(const struct ct_node *root, ct_plot_svg_fn emit, void *data)
{
	struct sink sink = { .emit = emit, .data = data };

	return plot_all(root, &sink);
}

int ct_plot_write(const struct ct_node *root, const char *dir)
{
	struct sink sink = { .dir = dir };
	struct stat st;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		ct_log_error("cannot create '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		ct_log_error("'%s' is not a directory", dir);
		return -1;
	}
	return plot_all(root, &sink);
}
