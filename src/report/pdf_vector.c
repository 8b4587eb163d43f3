/*
 * A display list (benchreport/drawing.h) as PDF vector graphics on a
 * libharu page. See pdf_vector.h.
 *
 * The figure is drawn under one transformation, [s/K 0 0 -s/K x y_top]:
 * user space is the figure's own (y down) in units of 1/K point. libharu
 * 2.3 takes dash lengths as whole numbers of user units (HPDF_UINT16,
 * 1..100), so K = 4 keeps them to a quarter point; line widths are capped
 * at 100 units (25 pt), far above what the charts use.
 *
 * cairo's model is mapped onto PDF's: the current path is buffered and
 * written only when it is painted (PDF allows no colour change between
 * path construction and painting, cairo does), FILL_PRESERVE writes it
 * twice, the one cairo colour becomes the fill or stroke colour of the
 * painting operator, and a colour with alpha < 1 selects an ExtGState.
 * The state that was asked for (cairo's) and the state last written (the
 * PDF graphics state) are both saved by SAVE and restored by RESTORE, with
 * q and Q, so nothing is written twice in a row.
 */
#include "report/pdf_vector.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "benchreport/common.h"
#include "report/pdf_text.h"

#define K 4.0

typedef struct gstate {
	/* asked for (cairo's state) */
	double rgba[4];
	double line_width;      /* figure pt */
	int dash_n;
	HPDF_UINT16 dash[4];    /* user units */
	int join;
	/* last written (PDF's state); -1 = unknown */
	double fill[3], stroke[3], alpha;
	double w_line_width;
	int w_dash_n;
	HPDF_UINT16 w_dash[4];
	int w_join;
} gstate;

typedef struct vec {
	const br_vec_target *t;
	HPDF_Page page;
	GArray *stack;          /* gstate; the last is current */
	GArray *path;           /* br_draw_op of the current path */
} vec;

static gstate *
cur(vec *v)
{
	return &g_array_index(v->stack, gstate, v->stack->len - 1);
}

static HPDF_REAL
r(double x)
{
	return isfinite(x) ? (HPDF_REAL)x : 0.0f;
}

/* alpha_gs: the document's ExtGState for alpha a (fill and stroke), or NULL. */
static HPDF_ExtGState
alpha_gs(const br_vec_target *t, double a)
{
	br_vec_alpha *c = t->alpha;
	for (int i = 0; i < c->n; i++)
		if (c->alpha[i] == a)
			return c->gs[i];
	if (c->n == BR_VEC_ALPHAS)
		return NULL;
	HPDF_ExtGState gs = HPDF_CreateExtGState(t->pdf);
	if (gs == NULL)
		return NULL;
	HPDF_ExtGState_SetAlphaFill(gs, r(a));
	HPDF_ExtGState_SetAlphaStroke(gs, r(a));
	c->alpha[c->n] = a;
	c->gs[c->n++] = gs;
	return gs;
}

/* emit_alpha: select the ExtGState of the current alpha when it changed. */
static void
emit_alpha(vec *v)
{
	gstate *g = cur(v);
	if (g->alpha == g->rgba[3])
		return;
	HPDF_ExtGState gs = alpha_gs(v->t, g->rgba[3]);
	if (gs != NULL && HPDF_Page_SetExtGState(v->page, gs) == HPDF_OK)
		g->alpha = g->rgba[3];
}

static void
emit_fill_colour(vec *v)
{
	gstate *g = cur(v);
	if (memcmp(g->fill, g->rgba, sizeof g->fill) != 0) {
		HPDF_Page_SetRGBFill(v->page, r(g->rgba[0]), r(g->rgba[1]), r(g->rgba[2]));
		memcpy(g->fill, g->rgba, sizeof g->fill);
	}
	emit_alpha(v);
}

/* emit_stroke_state: colour, width, dash and join of a stroke. */
static void
emit_stroke_state(vec *v)
{
	gstate *g = cur(v);
	if (memcmp(g->stroke, g->rgba, sizeof g->stroke) != 0) {
		HPDF_Page_SetRGBStroke(v->page, r(g->rgba[0]), r(g->rgba[1]), r(g->rgba[2]));
		memcpy(g->stroke, g->rgba, sizeof g->stroke);
	}
	emit_alpha(v);
	if (g->w_line_width != g->line_width) {
		double w = g->line_width * K;
		HPDF_Page_SetLineWidth(v->page, r(w < 0 ? 0 : w > 100 ? 100 : w));
		g->w_line_width = g->line_width;
	}
	if (g->w_dash_n != g->dash_n || memcmp(g->w_dash, g->dash, sizeof g->dash) != 0) {
		HPDF_Page_SetDash(v->page, g->dash_n ? g->dash : NULL, (HPDF_UINT)g->dash_n, 0);
		g->w_dash_n = g->dash_n;
		memcpy(g->w_dash, g->dash, sizeof g->dash);
	}
	if (g->w_join != g->join) {
		HPDF_Page_SetLineJoin(v->page, g->join ? HPDF_ROUND_JOIN : HPDF_MITER_JOIN);
		g->w_join = g->join;
	}
}

/* emit_path: write the buffered path; returns 0 when it is empty (nothing
 * may then be painted: libharu refuses a painting operator without a path). */
static int
emit_path(vec *v)
{
	int have_point = 0, any = 0;
	for (size_t i = 0; i < v->path->len; i++) {
		const br_draw_op *o = &g_array_index(v->path, br_draw_op, i);
		const double *p = o->v;
		switch (o->kind) {
		case BR_OP_MOVE_TO:
			HPDF_Page_MoveTo(v->page, r(K * p[0]), r(K * p[1]));
			have_point = any = 1;
			break;
		case BR_OP_LINE_TO:
			/* cairo: a line_to without a current point is a move_to */
			if (have_point)
				HPDF_Page_LineTo(v->page, r(K * p[0]), r(K * p[1]));
			else
				HPDF_Page_MoveTo(v->page, r(K * p[0]), r(K * p[1]));
			have_point = any = 1;
			break;
		case BR_OP_RECT:
			HPDF_Page_Rectangle(v->page, r(K * p[0]), r(K * p[1]), r(K * p[2]), r(K * p[3]));
			have_point = any = 1;
			break;
		case BR_OP_CIRCLE:
			if (p[2] > 0) {
				HPDF_Page_Circle(v->page, r(K * p[0]), r(K * p[1]), r(K * p[2]));
				have_point = any = 1;
			}
			break;
		case BR_OP_CLOSE_PATH:
			if (have_point)
				HPDF_Page_ClosePath(v->page);
			break;
		default:
			break;
		}
	}
	return any;
}

/* ------------------------------------------------------------------ */
/* text                                                                 */

typedef struct seg {
	char *text;             /* cleaned UTF-8 */
	double size, rise;      /* pt; rise upwards */
} seg;

/* unescape_into: append markup text [s, e) to out with &amp; &lt; &gt; &quot; &apos; decoded. */
static void
unescape_into(GString *out, const char *s, const char *e)
{
	static const struct { const char *ent; char c; } ents[] = {
		{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''},
	};
	while (s < e) {
		int done = 0;
		if (*s == '&') {
			for (size_t k = 0; k < sizeof ents / sizeof *ents && !done; k++) {
				size_t n = strlen(ents[k].ent);
				if ((size_t)(e - s) >= n && memcmp(s, ents[k].ent, n) == 0) {
					g_string_append_c(out, ents[k].c);
					s += n;
					done = 1;
				}
			}
		}
		if (!done)
			g_string_append_c(out, *s++);
	}
}

static void
push_seg(GArray *segs, GString *buf, double size, double rise)
{
	if (buf->len > 0) {
		char *clean = br_text_clean(buf->str);
		/* in visual order, base direction from the text as pango lays it out */
		char *vis = br_text_visual(clean, strlen(clean), 1);
		seg sg = { vis ? vis : clean, size, rise };
		if (vis)
			free(clean);
		g_array_append_val(segs, sg);
	}
	g_string_truncate(buf, 0);
}

/*
 * segments: the text as runs of one size: plain text is one run; markup is
 * split at <sup>…</sup> (pango's superscript: the size divided by 1.2,
 * raised by a third of the base size); other tags are dropped.
 */
static GArray *
segments(const br_draw_text *t)
{
	GArray *segs = g_array_new(FALSE, FALSE, sizeof(seg));
	GString *buf = g_string_new(NULL);
	if (!t->markup) {
		g_string_append(buf, t->text);
		push_seg(segs, buf, t->size_pt, 0);
	} else {
		double size = t->size_pt, rise = 0;
		const char *p = t->text;
		while (*p) {
			const char *lt = strchr(p, '<');
			const char *stop = lt ? lt : p + strlen(p);
			unescape_into(buf, p, stop);
			if (lt == NULL)
				break;
			const char *gt = strchr(lt, '>');
			if (gt == NULL) {
				unescape_into(buf, lt, lt + strlen(lt));
				break;
			}
			push_seg(segs, buf, size, rise);
			if (strncmp(lt, "<sup>", 5) == 0) {
				size = t->size_pt / 1.2;
				rise = t->size_pt / 3;
			} else if (strncmp(lt, "</sup>", 6) == 0) {
				size = t->size_pt;
				rise = 0;
			}
			p = gt + 1;
		}
		push_seg(segs, buf, size, rise);
	}
	g_string_free(buf, TRUE);
	return segs;
}

/* draw_text: t as PDF text (see drawing.h for the anchor model). */
static void
draw_text(vec *v, const br_draw_text *t)
{
	const br_vec_target *tg = v->t;
	HPDF_Font font = t->bold ? tg->bold : tg->regular;
	GArray *segs = segments(t);
	double w = 0;
	for (size_t i = 0; i < segs->len; i++) {
		const seg *sg = &g_array_index(segs, seg, i);
		w += br_text_width(font, tg->alt, sg->size, sg->text, strlen(sg->text));
	}
	double th = t->angle_deg * M_PI / 180.0, cs = cos(th), sn = sin(th);
	double u = -t->ax * w, vb = -t->ay * t->h_pt + t->baseline_pt;
	gstate *g = cur(v);
	HPDF_Page_GSave(v->page);
	double save_alpha = g->alpha;
	emit_alpha(v);
	HPDF_Page_BeginText(v->page);
	for (size_t i = 0; i < segs->len; i++) {
		const seg *sg = &g_array_index(segs, seg, i);
		double vv = vb - sg->rise;
		double fx = t->x + u * cs + vv * sn, fy = t->y - u * sn + vv * cs;
		if (isfinite(fx) && isfinite(fy))
			u += br_text_show(v->page, font, tg->alt, t->bold, sg->size, K * cs, -K * sn, -K * sn,
			    -K * cs, K * fx, K * fy, sg->text, strlen(sg->text), g->rgba[0], g->rgba[1], g->rgba[2]);
	}
	HPDF_Page_EndText(v->page);
	HPDF_Page_GRestore(v->page);
	g->alpha = save_alpha;
	for (size_t i = 0; i < segs->len; i++)
		free(g_array_index(segs, seg, i).text);
	g_array_free(segs, TRUE);
}

/* ------------------------------------------------------------------ */

/* br_pdf_draw_vector: see pdf_vector.h. */
void
br_pdf_draw_vector(const br_vec_target *t, const br_drawing *dr, double x, double y_top, double scale)
{
	if (t == NULL || t->page == NULL || dr == NULL || !(scale > 0) || !isfinite(scale) ||
	    !isfinite(x) || !isfinite(y_top) || !(dr->width_pt > 0) || !(dr->height_pt > 0))
		return;
	vec v = { .t = t, .page = t->page };
	v.stack = g_array_new(FALSE, FALSE, sizeof(gstate));
	v.path = g_array_new(FALSE, FALSE, sizeof(br_draw_op));
	/* cairo's initial state: opaque black, 2 pt lines, solid, miter joins;
	 * PDF's: black, 1 unit lines, solid, miter, alpha 1 */
	gstate g0 = { .rgba = { 0, 0, 0, 1 }, .line_width = 2.0, .join = 0,
		.fill = { 0, 0, 0 }, .stroke = { 0, 0, 0 }, .alpha = 1, .w_line_width = 1.0 / K,
		.w_join = 0 };
	g_array_append_val(v.stack, g0);
	HPDF_Page_GSave(v.page);
	HPDF_Page_Concat(v.page, r(scale / K), 0, 0, r(-scale / K), r(x), r(y_top));
	HPDF_Page_Rectangle(v.page, 0, 0, r(K * dr->width_pt), r(K * dr->height_pt));
	HPDF_Page_Clip(v.page);
	HPDF_Page_EndPath(v.page);
	for (size_t i = 0; i < dr->n_ops; i++) {
		const br_draw_op *o = &dr->ops[i];
		gstate *g = cur(&v);
		switch (o->kind) {
		case BR_OP_SAVE: {
			gstate copy = *g;
			g_array_append_val(v.stack, copy);
			HPDF_Page_GSave(v.page);
			break;
		}
		case BR_OP_RESTORE:
			if (v.stack->len > 1) {
				g_array_set_size(v.stack, v.stack->len - 1);
				HPDF_Page_GRestore(v.page);
			}
			break;
		case BR_OP_COLOR:
			memcpy(g->rgba, o->v, sizeof g->rgba);
			break;
		case BR_OP_LINE_WIDTH:
			g->line_width = o->v[0];
			break;
		case BR_OP_DASH: {
			int n = o->n == 2 || o->n == 4 ? o->n : 0;
			memset(g->dash, 0, sizeof g->dash);
			for (int k = 0; k < n; k++) {
				double d = round(o->v[k] * K);
				g->dash[k] = (HPDF_UINT16)(d < 1 ? 1 : d > 100 ? 100 : d);
			}
			g->dash_n = n;
			break;
		}
		case BR_OP_LINE_JOIN:
			g->join = o->n != 0;
			break;
		case BR_OP_NEW_PATH:
			g_array_set_size(v.path, 0);
			break;
		case BR_OP_MOVE_TO: case BR_OP_LINE_TO: case BR_OP_RECT: case BR_OP_CIRCLE:
		case BR_OP_CLOSE_PATH:
			g_array_append_val(v.path, *o);
			break;
		case BR_OP_STROKE:
			emit_stroke_state(&v);
			if (emit_path(&v))
				HPDF_Page_Stroke(v.page);
			g_array_set_size(v.path, 0);
			break;
		case BR_OP_FILL: case BR_OP_FILL_PRESERVE:
			emit_fill_colour(&v);
			if (emit_path(&v))
				HPDF_Page_Fill(v.page);
			if (o->kind == BR_OP_FILL)
				g_array_set_size(v.path, 0);
			break;
		case BR_OP_CLIP:
			if (emit_path(&v)) {
				HPDF_Page_Clip(v.page);
				HPDF_Page_EndPath(v.page);
			}
			g_array_set_size(v.path, 0);
			break;
		case BR_OP_PAINT:
			emit_fill_colour(&v);
			HPDF_Page_Rectangle(v.page, 0, 0, r(K * dr->width_pt), r(K * dr->height_pt));
			HPDF_Page_Fill(v.page);
			break;
		case BR_OP_TEXT:
			if (o->n >= 0 && (size_t)o->n < dr->n_texts)
				draw_text(&v, &dr->texts[o->n]);
			break;
		default:
			break;
		}
	}
	/* close any SAVE left open, then the figure's own q */
	for (size_t k = v.stack->len; k > 1; k--)
		HPDF_Page_GRestore(v.page);
	HPDF_Page_GRestore(v.page);
	g_array_free(v.stack, TRUE);
	g_array_free(v.path, TRUE);
}
