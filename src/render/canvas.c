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

/* br_drawing_cairo: see canvas.h. */
void
br_drawing_cairo(const br_drawing *d, cairo_t *cr)
{
	cairo_save(cr);
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
		case BR_OP_NEW_PATH: cairo_new_path(cr); break;
		case BR_OP_MOVE_TO: cairo_move_to(cr, v[0], v[1]); break;
		case BR_OP_LINE_TO: cairo_line_to(cr, v[0], v[1]); break;
		case BR_OP_RECT: cairo_rectangle(cr, v[0], v[1], v[2], v[3]); break;
		case BR_OP_CIRCLE:
			cairo_new_sub_path(cr);
			cairo_arc(cr, v[0], v[1], v[2], 0, 2 * M_PI);
			break;
		case BR_OP_CLOSE_PATH: cairo_close_path(cr); break;
		case BR_OP_STROKE: cairo_stroke(cr); break;
		case BR_OP_FILL: cairo_fill(cr); break;
		case BR_OP_FILL_PRESERVE: cairo_fill_preserve(cr); break;
		case BR_OP_CLIP: cairo_clip(cr); break;
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
