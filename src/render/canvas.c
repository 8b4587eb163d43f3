/*
 * Canvas: records the chart layer's drawing into a br_drawing and replays
 * it onto cairo. See canvas.h and benchreport/drawing.h.
 */
#include "render/canvas.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include <pango/pangocairo.h>

#include "benchreport/common.h"

#define FONT_FAMILY "DejaVu Sans"

struct br_canvas {
	double w_pt, h_pt;
	GArray *ops;                 /* br_draw_op */
	GArray *texts;               /* br_draw_text */
	cairo_surface_t *measure_surface;
	cairo_t *measure;            /* pango measures on this context */
};

/* br_drawing_free: see drawing.h. */
void
br_drawing_free(br_drawing *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->n_texts; i++)
		free(d->texts[i].text);
	free(d->texts);
	free(d->ops);
	free(d);
}

/* br_canvas_new: see canvas.h. The measuring context is a recording
 * surface, which has no device resolution of its own. */
br_canvas *
br_canvas_new(double w_pt, double h_pt)
{
	br_canvas *cv = br_xcalloc(1, sizeof *cv);
	cv->w_pt = w_pt;
	cv->h_pt = h_pt;
	cv->ops = g_array_new(FALSE, FALSE, sizeof(br_draw_op));
	cv->texts = g_array_new(FALSE, FALSE, sizeof(br_draw_text));
	cairo_rectangle_t ext = { 0, 0, w_pt > 1 ? w_pt : 1, h_pt > 1 ? h_pt : 1 };
	cv->measure_surface = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &ext);
	cv->measure = cairo_create(cv->measure_surface);
	return cv;
}

/* br_canvas_finish: see canvas.h. */
br_drawing *
br_canvas_finish(br_canvas *cv)
{
	br_drawing *d = br_xcalloc(1, sizeof *d);
	d->width_pt = cv->w_pt;
	d->height_pt = cv->h_pt;
	d->n_ops = cv->ops->len;
	d->ops = (br_draw_op *)g_array_free(cv->ops, FALSE);
	d->n_texts = cv->texts->len;
	d->texts = (br_draw_text *)g_array_free(cv->texts, FALSE);
	cairo_destroy(cv->measure);
	cairo_surface_destroy(cv->measure_surface);
	free(cv);
	return d;
}

/* op: append an operation with n values (all finite, else dropped). */
static void
op(br_canvas *cv, int kind, int n_arg, const double *v, int nv)
{
	br_draw_op o = { .kind = kind, .n = n_arg };
	for (int i = 0; i < nv; i++) {
		if (!isfinite(v[i]))
			return;
		o.v[i] = v[i];
	}
	g_array_append_val(cv->ops, o);
}

void br_cv_save(br_canvas *cv) { op(cv, BR_OP_SAVE, 0, NULL, 0); }
void br_cv_restore(br_canvas *cv) { op(cv, BR_OP_RESTORE, 0, NULL, 0); }
void br_cv_new_path(br_canvas *cv) { op(cv, BR_OP_NEW_PATH, 0, NULL, 0); }
void br_cv_close_path(br_canvas *cv) { op(cv, BR_OP_CLOSE_PATH, 0, NULL, 0); }
void br_cv_stroke(br_canvas *cv) { op(cv, BR_OP_STROKE, 0, NULL, 0); }
void br_cv_fill(br_canvas *cv) { op(cv, BR_OP_FILL, 0, NULL, 0); }
void br_cv_fill_preserve(br_canvas *cv) { op(cv, BR_OP_FILL_PRESERVE, 0, NULL, 0); }
void br_cv_clip(br_canvas *cv) { op(cv, BR_OP_CLIP, 0, NULL, 0); }
void br_cv_paint(br_canvas *cv) { op(cv, BR_OP_PAINT, 0, NULL, 0); }
void br_cv_line_join(br_canvas *cv, int round) { op(cv, BR_OP_LINE_JOIN, round != 0, NULL, 0); }

void
br_cv_rgba(br_canvas *cv, double r, double g, double b, double alpha)
{
	double v[4] = { r, g, b, alpha };
	op(cv, BR_OP_COLOR, 0, v, 4);
}

void
br_cv_rgb(br_canvas *cv, double r, double g, double b)
{
	br_cv_rgba(cv, r, g, b, 1.0);
}

void
br_cv_line_width(br_canvas *cv, double w_pt)
{
	op(cv, BR_OP_LINE_WIDTH, 0, &w_pt, 1);
}

void
br_cv_dash(br_canvas *cv, const double *lengths_pt, int n)
{
	if (n < 0 || n > 4)
		n = 0;
	op(cv, BR_OP_DASH, n, lengths_pt, n);
}

void
br_cv_move_to(br_canvas *cv, double x, double y)
{
	double v[2] = { x, y };
	op(cv, BR_OP_MOVE_TO, 0, v, 2);
}

void
br_cv_line_to(br_canvas *cv, double x, double y)
{
	double v[2] = { x, y };
	op(cv, BR_OP_LINE_TO, 0, v, 2);
}

void
br_cv_rectangle(br_canvas *cv, double x, double y, double w, double h)
{
	double v[4] = { x, y, w, h };
	op(cv, BR_OP_RECT, 0, v, 4);
}

void
br_cv_circle(br_canvas *cv, double x, double y, double r)
{
	double v[3] = { x, y, r };
	op(cv, BR_OP_CIRCLE, 0, v, 3);
}

/* ------------------------------------------------------------------ */
/* text (pango)                                                         */

/*
 * layout_new: a pango layout for `text` in DejaVu Sans at size_pt (absolute
 * size in user units, so 1 unit = 1 pt), metrics unhinted and glyph
 * positions not rounded to whole units (pango >= 1.44 rounds them by
 * default, which at 7.5 pt widens "100" from 14.3 to 15 pt), so the layout
 * is the same at every output resolution and matches the PDF's text,
 * measured with the same font's advance widths.
 */
static PangoLayout *
layout_new(cairo_t *cr, const char *text, double size_pt, int bold, int markup)
{
	PangoLayout *l = pango_cairo_create_layout(cr);
	PangoContext *ctx = pango_layout_get_context(l);
	cairo_font_options_t *fo = cairo_font_options_create();
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	pango_cairo_context_set_font_options(ctx, fo);
	cairo_font_options_destroy(fo);
	pango_context_set_round_glyph_positions(ctx, FALSE);
	pango_layout_context_changed(l);
	PangoFontDescription *fd = pango_font_description_from_string(FONT_FAMILY);
	pango_font_description_set_absolute_size(fd, size_pt * PANGO_SCALE);
	if (bold)
		pango_font_description_set_weight(fd, PANGO_WEIGHT_BOLD);
	pango_layout_set_font_description(l, fd);
	pango_font_description_free(fd);
	if (markup) {
		/* <sup> as an explicit size and rise (the PDF backend's: size / 1.2,
		 * raised by a third of the size): pango 1.50 scales its own <sup>
		 * from the device-space font, so under the 300 dpi PNG's scale the
		 * exponent of "10<sup>-6</sup>" came out four times too large */
		/* span sizes are points at the context's resolution (96 dpi unless
		 * set), the layout's units are figure points; rise is in units */
		double res = pango_cairo_context_get_resolution(ctx);
		double pt_per_unit = res > 0 ? 72.0 / res : 0.75;
		char *open = br_xasprintf("<span size=\"%d\" rise=\"%d\">",
		    (int)(size_pt / 1.2 * pt_per_unit * PANGO_SCALE + 0.5), (int)(size_pt / 3 * PANGO_SCALE + 0.5));
		GString *m = g_string_new(NULL);
		for (const char *p = text; *p;) {
			if (strncmp(p, "<sup>", 5) == 0) {
				g_string_append(m, open);
				p += 5;
			} else if (strncmp(p, "</sup>", 6) == 0) {
				g_string_append(m, "</span>");
				p += 6;
			} else
				g_string_append_c(m, *p++);
		}
		pango_layout_set_markup(l, m->str, -1);
		g_string_free(m, TRUE);
		free(open);
	} else
		pango_layout_set_text(l, text, -1);
	return l;
}

/* br_text_size: see canvas.h. */
void
br_text_size(br_canvas *cv, const char *text, double size_pt, int bold, int markup,
    double *w, double *h)
{
	PangoLayout *l = layout_new(cv->measure, text, size_pt, bold, markup);
	PangoRectangle lr;
	pango_layout_get_extents(l, NULL, &lr);
	if (w)
		*w = lr.width / (double)PANGO_SCALE;
	if (h)
		*h = lr.height / (double)PANGO_SCALE;
	g_object_unref(l);
}

/* br_text_draw: see canvas.h. */
void
br_text_draw(br_canvas *cv, const char *text, double size_pt, int bold, int markup,
    double x, double y, double ax, double ay, double angle_deg)
{
	double v[5] = { x, y, ax, ay, angle_deg };
	for (int i = 0; i < 5; i++)
		if (!isfinite(v[i]))
			return;
	if (!isfinite(size_pt) || size_pt <= 0 || text == NULL)
		return;
	PangoLayout *l = layout_new(cv->measure, text, size_pt, bold, markup);
	PangoRectangle lr;
	pango_layout_get_extents(l, NULL, &lr);
	br_draw_text t = {
		.text = br_xstrdup(text), .size_pt = size_pt, .bold = bold != 0, .markup = markup != 0,
		.x = x, .y = y, .ax = ax, .ay = ay, .angle_deg = angle_deg,
		.w_pt = lr.width / (double)PANGO_SCALE, .h_pt = lr.height / (double)PANGO_SCALE,
		.baseline_pt = (pango_layout_get_baseline(l) - lr.y) / (double)PANGO_SCALE,
	};
	g_object_unref(l);
	g_array_append_val(cv->texts, t);
	op(cv, BR_OP_TEXT, (int)(cv->texts->len - 1), NULL, 0);
}

/* ------------------------------------------------------------------ */
/* replay onto cairo                                                    */

/* cairo_text: t laid out again by pango on cr, anchored as recorded. */
static void
cairo_text(cairo_t *cr, const br_draw_text *t)
{
	cairo_save(cr);
	cairo_translate(cr, t->x, t->y);
	cairo_rotate(cr, -t->angle_deg * M_PI / 180.0);
	PangoLayout *l = layout_new(cr, t->text, t->size_pt, t->bold, t->markup);
	PangoRectangle lr;
	pango_layout_get_extents(l, NULL, &lr);
	double w = lr.width / (double)PANGO_SCALE, h = lr.height / (double)PANGO_SCALE;
	cairo_move_to(cr, -t->ax * w - lr.x / (double)PANGO_SCALE, -t->ay * h - lr.y / (double)PANGO_SCALE);
	pango_cairo_update_layout(cr, l);
	pango_cairo_show_layout(cr, l);
	g_object_unref(l);
	cairo_restore(cr);
}

/*
 * Long polylines on an image surface are stroked in pieces. cairo turns one
 * stroke into one polygon and scan-converts it whole, so a 3,400-point
 * waveform that zig-zags between 0 and 64 requests, or its dashed queue
 * line, puts hundreds of edges on every scan line. Stroked STROKE_PIECE
 * segments at a time (16 to 48 measured alike), the 5,000 x 1,000 run's
 * fig2 PNG at 300 dpi costs 66 ms of CPU instead of 111 ms, its six figure
 * files 204 ms instead of 252 ms (bench/targets_bench.sh input, BR_TIMING).
 *
 * The pieces overlap by one segment: a piece ending at vertex b leaves the
 * join at b to the next piece, which starts at b-1 (its butt cap lies inside
 * the segment the previous piece drew). The dash pattern continues: each
 * piece's dash offset is the subpath's length up to its first vertex, as
 * cairo measures it (dash_len; cairo restarts the pattern at every move-to,
 * so per subpath is exact). Only an
 * opaque solid source is split (the doubled segment is painted twice: its
 * anti-aliased edge pixels are a shade darker, its inside the same colour);
 * a path with curves or closed subpaths, or a translucent source, is stroked
 * whole, as are SVG and PDF output (vectors, not pixels).
 */
#define STROKE_PIECE 32

/* path_op / state_op: an op that adds to the path (move-to, line-to), or
 * one that changes only the graphics state (colour, width, dash, join,
 * save, restore: cairo keeps the path across them). */
static int
path_op(int kind)
{
	return kind == BR_OP_MOVE_TO || kind == BR_OP_LINE_TO;
}

static int
state_op(int kind)
{
	return kind == BR_OP_COLOR || kind == BR_OP_LINE_WIDTH || kind == BR_OP_DASH ||
	    kind == BR_OP_LINE_JOIN || kind == BR_OP_SAVE || kind == BR_OP_RESTORE;
}

/* stroke_pieceable: ops [from, to) hold move-tos, line-tos (more than
 * STROKE_PIECE) and state changes only, and the source of cr is opaque and
 * solid. */
static int
stroke_pieceable(const br_drawing *d, size_t from, size_t to, cairo_t *cr)
{
	size_t lines = 0;
	for (size_t k = from; k < to; k++) {
		if (d->ops[k].kind == BR_OP_LINE_TO)
			lines++;
		else if (!path_op(d->ops[k].kind) && !state_op(d->ops[k].kind))
			return 0;
	}
	double r, g, b, a;
	return lines > STROKE_PIECE && cairo_pattern_get_rgba(cairo_get_source(cr), &r, &g, &b, &a) ==
	    CAIRO_STATUS_SUCCESS && a >= 1.0;
}

/* dash_len: the length of segment (x0, y0)-(x1, y1) as cairo's dasher
 * measures it: between the points rounded to its fixed-point device grid
 * (1/256 pixel), taken back to user space (points). Lengths summed from the
 * unrounded points drifted off cairo's by up to a dash, over 32 segments. */
static double
dash_len(cairo_t *cr, double x0, double y0, double x1, double y1)
{
	cairo_user_to_device(cr, &x0, &y0);
	cairo_user_to_device(cr, &x1, &y1);
	double dx = round(x1 * 256) / 256 - round(x0 * 256) / 256, dy = round(y1 * 256) / 256 - round(y0 * 256) / 256;
	cairo_device_to_user_distance(cr, &dx, &dy);
	return hypot(dx, dy);
}

/* stroke_run: stroke vertices v[0..n) (x, y pairs, one subpath) in
 * overlapping pieces, each with the dash offset of its first vertex. */
static void
stroke_run(cairo_t *cr, const double *v, size_t n, const double *dash, int nd, double dash0)
{
	size_t a = 0;
	double len_a = 0;   /* subpath length up to vertex a (points) */
	for (;;) {
		size_t b = a + STROKE_PIECE < n - 1 ? a + STROKE_PIECE : n - 1;
		if (nd > 0)
			cairo_set_dash(cr, dash, nd, dash0 + len_a);
		cairo_move_to(cr, v[2 * a], v[2 * a + 1]);
		for (size_t j = a + 1; j <= b; j++)
			cairo_line_to(cr, v[2 * j], v[2 * j + 1]);
		cairo_stroke(cr);
		if (b >= n - 1)
			return;
		for (size_t j = a + 1; nd > 0 && j < b; j++)
			len_a += dash_len(cr, v[2 * j - 2], v[2 * j - 1], v[2 * j], v[2 * j + 1]);
		a = b - 1;
	}
}

/* stroke_pieces: stroke the path of ops [from, to) on cr, subpath by
 * subpath, in pieces (see above); cr's path is cleared and its dash left as
 * it was. */
static void
stroke_pieces(const br_drawing *d, size_t from, size_t to, cairo_t *cr)
{
	int nd = cairo_get_dash_count(cr);
	double dash[8], dash0 = 0;
	if (nd > 8)
		nd = 8;   /* never: br_cv_dash records at most 4 lengths */
	if (nd > 0)
		cairo_get_dash(cr, dash, &dash0);
	cairo_new_path(cr);
	double *v = br_xmalloc(2 * (to - from) * sizeof *v);
	size_t n = 0;
	for (size_t k = from; k <= to; k++) {
		int kind = k < to ? d->ops[k].kind : BR_OP_MOVE_TO;
		if (kind == BR_OP_MOVE_TO && n > 0) {   /* a subpath ends */
			if (n >= 2)
				stroke_run(cr, v, n, dash, nd, dash0);
			n = 0;
		}
		if (k < to && path_op(kind)) {
			v[2 * n] = d->ops[k].v[0];
			v[2 * n + 1] = d->ops[k].v[1];
			n++;
		}
	}
	free(v);
	if (nd > 0)
		cairo_set_dash(cr, dash, nd, dash0);
}

/* br_drawing_cairo: see canvas.h. */
void
br_drawing_cairo(const br_drawing *d, cairo_t *cr)
{
	cairo_save(cr);
	int pixels = cairo_surface_get_type(cairo_get_target(cr)) == CAIRO_SURFACE_TYPE_IMAGE;
	size_t path_from = 0;   /* ops since the last new-path */
	for (size_t i = 0; i < d->n_ops; i++) {
		const br_draw_op *o = &d->ops[i];
		const double *v = o->v;
		switch (o->kind) {
		case BR_OP_SAVE: cairo_save(cr); break;
		case BR_OP_RESTORE: cairo_restore(cr); break;
		case BR_OP_COLOR:
			if (v[3] >= 1.0)
				cairo_set_source_rgb(cr, v[0], v[1], v[2]);
			else
				cairo_set_source_rgba(cr, v[0], v[1], v[2], v[3]);
			break;
		case BR_OP_LINE_WIDTH: cairo_set_line_width(cr, v[0]); break;
		case BR_OP_DASH: cairo_set_dash(cr, o->n > 0 ? v : NULL, o->n, 0); break;
		case BR_OP_LINE_JOIN:
			cairo_set_line_join(cr, o->n ? CAIRO_LINE_JOIN_ROUND : CAIRO_LINE_JOIN_MITER);
			break;
		case BR_OP_NEW_PATH: cairo_new_path(cr); path_from = i + 1; break;
		case BR_OP_MOVE_TO: cairo_move_to(cr, v[0], v[1]); break;
		case BR_OP_LINE_TO: cairo_line_to(cr, v[0], v[1]); break;
		case BR_OP_RECT: cairo_rectangle(cr, v[0], v[1], v[2], v[3]); break;
		case BR_OP_CIRCLE:
			cairo_new_sub_path(cr);
			cairo_arc(cr, v[0], v[1], v[2], 0, 2 * M_PI);
			break;
		case BR_OP_CLOSE_PATH: cairo_close_path(cr); break;
		case BR_OP_STROKE:
			if (pixels && stroke_pieceable(d, path_from, i, cr))
				stroke_pieces(d, path_from, i, cr);
			else
				cairo_stroke(cr);
			path_from = i + 1;
			break;
		case BR_OP_FILL: cairo_fill(cr); path_from = i + 1; break;
		case BR_OP_FILL_PRESERVE: cairo_fill_preserve(cr); break;
		case BR_OP_CLIP: cairo_clip(cr); path_from = i + 1; break;
		case BR_OP_PAINT: cairo_paint(cr); break;
		case BR_OP_TEXT:
			if (o->n >= 0 && (size_t)o->n < d->n_texts)
				cairo_text(cr, &d->texts[o->n]);
			break;
		default: break;
		}
	}
	cairo_restore(cr);
}
