/*
 * Chart layer on the recording canvas (canvas.h): see chart.h for the model. Drawing order:
 * title, legend (above the plot), bands, grid, stacked areas, bars, lines,
 * markers, reference lines and their labels, frame, ticks, axis titles.
 */
#include "render/chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "benchreport/common.h"

#define MAX_TICKS 64

/* ------------------------------------------------------------------ */
/* palette                                                              */

/*
 * Six colours whose greyscale luminance (0.299 R + 0.587 G + 0.114 B, 0..255)
 * is spread out: navy 59, light orange 177, teal 115, light blue 191,
 * red 92, grey 127. Each index also has its own dash and marker.
 */
static const double palette[BR_PALETTE_N][3] = {
	{ 0x1f / 255.0, 0x3d / 255.0, 0x7a / 255.0 },  /* navy */
	{ 0xf5 / 255.0, 0xa4 / 255.0, 0x42 / 255.0 },  /* light orange */
	{ 0x1b / 255.0, 0x9e / 255.0, 0x77 / 255.0 },  /* teal */
	{ 0x9e / 255.0, 0xca / 255.0, 0xe1 / 255.0 },  /* light blue */
	{ 0xd6 / 255.0, 0x27 / 255.0, 0x28 / 255.0 },  /* red */
	{ 0x7f / 255.0, 0x7f / 255.0, 0x7f / 255.0 },  /* grey */
};

/* br_palette_rgb: palette colour idx (negative indices wrap too). */
void
br_palette_rgb(int idx, double rgb[3])
{
	int i = ((idx % BR_PALETTE_N) + BR_PALETTE_N) % BR_PALETTE_N;
	rgb[0] = palette[i][0];
	rgb[1] = palette[i][1];
	rgb[2] = palette[i][2];
}

/* set_color: palette colour idx as the current colour. */
static void
set_color(br_canvas *cv, int idx)
{
	double rgb[3];
	br_palette_rgb(idx, rgb);
	br_cv_rgb(cv, rgb[0], rgb[1], rgb[2]);
}

/*
 * set_dash: dash pattern idx (mod 6): solid, dashed, dotted, dash-dot,
 * long dash, short dash. Lengths in points, scaled with the line width.
 */
static void
set_dash(br_canvas *cv, int idx, double lw)
{
	static const double pat[6][4] = {
		{ 0, 0, 0, 0 }, { 4, 2, 0, 0 }, { 1, 1.5, 0, 0 },
		{ 5, 1.5, 1, 1.5 }, { 8, 2.5, 0, 0 }, { 2.5, 1.5, 0, 0 },
	};
	static const int npat[6] = { 0, 2, 2, 4, 2, 2 };
	int i = ((idx % 6) + 6) % 6;
	double d[4];
	double k = lw > 1 ? lw : 1;
	for (int j = 0; j < npat[i]; j++)
		d[j] = pat[i][j] * k;
	br_cv_dash(cv, d, npat[i]);
}

/* ------------------------------------------------------------------ */
/* ticks                                                                */

/* An automatic log axis narrower than MIN_LOG_NARROW decades (a factor
 * 1.0001) is widened to MIN_LOG_SPAN (a factor 1.5). */
#define MIN_LOG_NARROW 4.342727686266485e-05
#define MIN_LOG_SPAN 0.17609125905568124

/* br_nice_ticks: see chart.h. */
size_t
br_nice_ticks(double lo, double hi, int scale, int target, int fixed,
    double *ticks, size_t max_ticks, double *lo_out, double *hi_out)
{
	size_t n = 0;
	if (!isfinite(lo) || !isfinite(hi) || lo > hi || max_ticks == 0)
		return 0;
	if (target < 2)
		target = 2;
	if (scale == BR_SCALE_LOG10) {
		if (lo <= 0)
			return 0;
		if (lo_out)
			*lo_out = lo;
		if (hi_out)
			*hi_out = hi;
		int d0 = (int)ceil(log10(lo) - 1e-9), d1 = (int)floor(log10(hi) + 1e-9);
		int nd = d1 - d0 + 1;
		if (nd >= 3) {
			int every = (nd + target) / (target + 1);   /* ceil(nd / (target+1)) */
			if (every < 1)
				every = 1;
			for (int d = d0; d <= d1 && n < max_ticks; d += every)
				ticks[n++] = pow(10.0, d);
			return n;
		}
		/* fewer than three decades inside: 1-2-5 multiples */
		static const double m[3] = { 1, 2, 5 };
		for (int d = (int)floor(log10(lo)) ; d <= (int)ceil(log10(hi)); d++)
			for (int k = 0; k < 3; k++) {
				double v = m[k] * pow(10.0, d);
				if (v >= lo * (1 - 1e-12) && v <= hi * (1 + 1e-12) && n < max_ticks)
					ticks[n++] = v;
			}
		if (n >= 2)
			return n;
		n = 0;
		return br_nice_ticks(lo, hi, BR_SCALE_LINEAR, target > 4 ? 4 : target, 1,
		    ticks, max_ticks, NULL, NULL);
	}
	if (hi == lo) {
		if (fixed) {
			ticks[0] = lo;
			if (lo_out)
				*lo_out = lo;
			if (hi_out)
				*hi_out = hi;
			return 1;
		}
		if (lo == 0) {   /* all zero (no preemption at all): 0..1, never a negative count */
			hi = 1;
		} else {
			double d = fabs(lo) * 0.1;
			lo -= d;
			hi += d;
		}
	}
	double span = hi - lo;
	double mag = pow(10.0, floor(log10(span / target)));
	static const double mult[4] = { 1, 2, 5, 10 };
	double step = 0, a = 0, b = 0;
	for (int k = 0; k < 4; k++) {
		double pa = a, pb = b, ps = step;
		step = mult[k] * mag;
		if (fixed) {
			a = ceil(lo / step - 1e-9);
			b = floor(hi / step + 1e-9);
		} else {
			a = floor(lo / step + 1e-9);
			b = ceil(hi / step - 1e-9);
		}
		if (b - a <= target) {
			/* a fixed range that the coarser step leaves one tick (5.8 to
			 * 14.3 s: only 10) keeps the finer step's ticks (6, 8, ..., 14):
			 * an axis needs two labels to be read */
			if (fixed && b - a < 1 && k > 0 && pb - pa >= 1) {
				a = pa;
				b = pb;
				step = ps;
			}
			break;
		}
	}
	if (lo_out)
		*lo_out = fixed ? lo : a * step;
	if (hi_out)
		*hi_out = fixed ? hi : b * step;
	for (double k = a; k <= b + 0.5 && n < max_ticks; k += 1) {
		double v = k * step;
		if (fabs(v) < step * 1e-9)
			v = 0;
		ticks[n++] = v;
	}
	return n;
}

/* exp_label: v as "10<sup>e</sup>" or "m×10<sup>e</sup>" (Pango markup) into tmp. */
static void
exp_label(double v, char *tmp, size_t len)
{
	int e = (int)floor(log10(fabs(v)) + 1e-9);
	double mant = v / pow(10.0, e);
	/* a negative exponent takes the Unicode minus sign, as tick labels do */
	const char *sign = e < 0 ? "\xe2\x88\x92" : "";
	if (fabs(mant - 1) < 1e-9)
		snprintf(tmp, len, "10<sup>%s%d</sup>", sign, abs(e));
	else {
		char mb[32];
		g_ascii_formatd(mb, sizeof mb, "%.3g", mant);
		snprintf(tmp, len, "%s×10<sup>%s%d</sup>", mb, sign, abs(e));
	}
}

/* br_tick_label: see chart.h. A leading minus is the Unicode minus sign. */
int
br_tick_label(double v, double step, char *buf, size_t len)
{
	char tmp[64], fmt[16];
	int markup = 0;
	if (isnan(step)) {
		double a = fabs(v);
		if (v == 0 || (a >= 1e-3 && a < 1e5)) {
			g_ascii_formatd(tmp, sizeof tmp, "%.6g", v);
		} else {
			exp_label(v, tmp, sizeof tmp);
			markup = 1;
		}
	} else if (isfinite(step) && step >= 1e5 && fabs(v) >= step * 1e-6) {
		/* a linear axis into the millions: 5×10⁵, 10⁶, 1.5×10⁶ instead of
		 * seven digits and more (a 1e300 gauge printed 300 digits) */
		exp_label(v, tmp, sizeof tmp);
		markup = 1;
	} else {
		int dec = 0;
		if (step > 0 && isfinite(step)) {
			dec = (int)ceil(-log10(step) - 1e-9);
			if (dec < 0)
				dec = 0;
			if (dec > 9)
				dec = 9;
			if (fabs(v) < step * 1e-6)
				v = 0;
		}
		snprintf(fmt, sizeof fmt, "%%.%df", dec);
		g_ascii_formatd(tmp, sizeof tmp, fmt, v);
	}
	if (tmp[0] == '-')
		snprintf(buf, len, "\xe2\x88\x92%s", tmp + 1);
	else
		snprintf(buf, len, "%s", tmp);
	return markup;
}

/* ------------------------------------------------------------------ */
/* chart model                                                          */

/* br_chart_new: see chart.h. */
br_chart *
br_chart_new(const char *title)
{
	br_chart *c = br_xcalloc(1, sizeof *c);
	c->title = br_xstrdup(title);
	c->x.min = c->x.max = NAN;
	c->y.min = c->y.max = NAN;
	c->y2.min = c->y2.max = NAN;
	c->y3.min = c->y3.max = NAN;
	c->legend = 1;
	c->font_pt = 7.5;
	return c;
}

/* axis_free: release what an axis owns. */
static void
axis_free(br_axis *ax)
{
	free(ax->title);
	for (size_t i = 0; i < ax->n_cat; i++)
		free(ax->cat_label[i]);
	free(ax->cat_label);
	free(ax->cat_v);
}

/* br_chart_free: NULL is fine. */
void
br_chart_free(br_chart *c)
{
	if (c == NULL)
		return;
	free(c->title);
	axis_free(&c->x);
	axis_free(&c->y);
	axis_free(&c->y2);
	axis_free(&c->y3);
	for (size_t i = 0; i < c->n_series; i++) {
		free(c->series[i].label);
		free(c->series[i].x);
		free(c->series[i].y);
		free(c->series[i].err);
	}
	free(c->series);
	for (size_t i = 0; i < c->n_refs; i++)
		free(c->refs[i].label);
	free(c->refs);
	for (size_t i = 0; i < c->n_bands; i++)
		free(c->bands[i].label);
	free(c->bands);
	for (size_t i = 0; i < c->n_notes; i++)
		free(c->notes[i].text);
	free(c->notes);
	free(c);
}

/* br_axis_set: see chart.h. */
void
br_axis_set(br_axis *ax, int scale, const char *title)
{
	ax->scale = scale;
	free(ax->title);
	ax->title = br_xstrdup(title);
}

/* br_axis_set_categories: see chart.h. */
void
br_axis_set_categories(br_axis *ax, const double *v, const char *const *labels, size_t n)
{
	for (size_t i = 0; i < ax->n_cat; i++)
		free(ax->cat_label[i]);
	free(ax->cat_label);
	free(ax->cat_v);
	ax->n_cat = n;
	ax->cat_v = br_xmalloc((n ? n : 1) * sizeof *ax->cat_v);
	ax->cat_label = br_xmalloc((n ? n : 1) * sizeof *ax->cat_label);
	for (size_t i = 0; i < n; i++) {
		ax->cat_v[i] = v[i];
		ax->cat_label[i] = br_xstrdup(labels[i] ? labels[i] : "");
	}
}

/* br_chart_add: see chart.h. */
br_chart_series *
br_chart_add(br_chart *c, int kind, int side, int color, const char *label,
    const double *x, const double *y, size_t n)
{
	c->series = br_xrealloc(c->series, (c->n_series + 1) * sizeof *c->series);
	br_chart_series *s = &c->series[c->n_series++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->side = side;
	s->color = color;
	s->dash = -1;
	s->label = br_xstrdup(label);
	s->n = n;
	s->x = br_xmalloc((n ? n : 1) * sizeof(double));
	s->y = br_xmalloc((n ? n : 1) * sizeof(double));
	if (n) {
		memcpy(s->x, x, n * sizeof(double));
		memcpy(s->y, y, n * sizeof(double));
	}
	if (side == BR_SIDE_RIGHT)
		c->has_y2 = 1;
	if (side == BR_SIDE_RIGHT2)
		c->has_y3 = 1;
	return s;
}

/* br_chart_series_set_err: see chart.h. */
void
br_chart_series_set_err(br_chart_series *s, const double *err)
{
	free(s->err);
	s->err = br_xmalloc((s->n ? s->n : 1) * sizeof *s->err);
	if (s->n)
		memcpy(s->err, err, s->n * sizeof *s->err);
}

/* add_ref: append a reference line. */
static br_refline *
add_ref(br_chart *c, int vertical, int side, double v, const char *label, int color, int pos)
{
	if (!isfinite(v))
		return NULL;
	c->refs = br_xrealloc(c->refs, (c->n_refs + 1) * sizeof *c->refs);
	br_refline *r = &c->refs[c->n_refs++];
	memset(r, 0, sizeof *r);   /* label_left and later fields: 0, not the heap's leftovers */
	r->vertical = vertical;
	r->side = side;
	r->value = v;
	r->label = br_xstrdup(label);
	r->color = color;
	r->dash = -1;
	r->label_pos = pos;
	return r;
}

/* br_chart_add_vline: see chart.h. */
br_refline *
br_chart_add_vline(br_chart *c, double x, const char *label, int color, int label_pos)
{
	return add_ref(c, 1, BR_SIDE_LEFT, x, label, color, label_pos);
}

/* br_chart_add_hline: see chart.h. */
br_refline *
br_chart_add_hline(br_chart *c, int side, double y, const char *label, int color)
{
	if (side == BR_SIDE_RIGHT)
		c->has_y2 = 1;
	return add_ref(c, 0, side, y, label, color, BR_LABEL_TOP);
}

/* br_chart_add_note: see chart.h. */
br_note *
br_chart_add_note(br_chart *c, int side, double x, double y, const char *text,
    int color, double dx_pt, double dy_pt, double ax, double ay)
{
	if (!isfinite(x) || !isfinite(y) || text == NULL)
		return NULL;
	c->notes = br_xrealloc(c->notes, (c->n_notes + 1) * sizeof *c->notes);
	br_note *n = &c->notes[c->n_notes++];
	n->side = side;
	n->x = x;
	n->y = y;
	n->text = br_xstrdup(text);
	n->color = color;
	n->dx_pt = dx_pt;
	n->dy_pt = dy_pt;
	n->ax = ax;
	n->ay = ay;
	if (side == BR_SIDE_RIGHT)
		c->has_y2 = 1;
	return n;
}

/* br_chart_add_band: see chart.h. */
br_band *
br_chart_add_band(br_chart *c, double x0, double x1, const char *label)
{
	if (!isfinite(x0) || !isfinite(x1))
		return NULL;
	c->bands = br_xrealloc(c->bands, (c->n_bands + 1) * sizeof *c->bands);
	br_band *b = &c->bands[c->n_bands++];
	b->x0 = x0 < x1 ? x0 : x1;
	b->x1 = x0 < x1 ? x1 : x0;
	b->label = br_xstrdup(label);
	b->veil = 0;
	return b;
}

/* ------------------------------------------------------------------ */
/* axes at draw time                                                    */

typedef struct axrt {
	int scale;
	double lo, hi;        /* data range */
	double p0, p1;        /* device positions of lo and hi */
	double ticks[MAX_TICKS];
	size_t n_ticks;
	double step;          /* linear tick step; NAN for log */
	int decade_ticks;     /* log ticks are consecutive decades (minor ticks drawn) */
	const br_axis *ax;
} axrt;

/*
 * ax_map: device coordinate of data value v on axis a. Returns 0 (and
 * leaves *p alone) when v is not finite or not positive on a log axis.
 * Positions far outside the axis are clamped so no backend sees huge
 * coordinates (they are clipped anyway).
 */
static int
ax_map(const axrt *a, double v, double *p)
{
	double t;
	if (!isfinite(v))
		return 0;
	if (a->scale == BR_SCALE_LOG10) {
		if (v <= 0)
			return 0;
		t = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	} else {
		t = (v - a->lo) / (a->hi - a->lo);
	}
	if (!isfinite(t))
		return 0;
	if (t < -4)
		t = -4;
	if (t > 5)
		t = 5;
	*p = a->p0 + t * (a->p1 - a->p0);
	return 1;
}

/* usable: v may be placed on an axis of this scale. */
static int
usable(int scale, double v)
{
	return isfinite(v) && (scale != BR_SCALE_LOG10 || v > 0);
}

/*
 * stack_base: for stacked area series si, the sum of the earlier stacked
 * series of the same side at index j (NAN when one of them is NaN or
 * shorter). 0 for the first.
 */
static double
stack_base(const br_chart *c, size_t si, size_t j)
{
	double b = 0;
	for (size_t k = 0; k < si; k++) {
		const br_chart_series *s = &c->series[k];
		if (s->kind != BR_SERIES_AREA_STACKED || s->side != c->series[si].side)
			continue;
		if (j >= s->n || !isfinite(s->y[j]))
			return NAN;
		b += s->y[j];
	}
	return b;
}

/*
 * hstack_base: for horizontal stacked bar series si, the sum of the earlier
 * HBARS_STACKED series at index j (non-finite or missing values count as 0).
 */
static double
hstack_base(const br_chart *c, size_t si, size_t j)
{
	double b = 0;
	for (size_t k = 0; k < si; k++) {
		const br_chart_series *s = &c->series[k];
		if (s->kind == BR_SERIES_HBARS_STACKED && j < s->n && isfinite(s->x[j]))
			b += s->x[j];
	}
	return b;
}

/* widen: extend [*lo, *hi] by v when v is usable on this scale. */
static void
widen(int scale, double v, double *lo, double *hi)
{
	if (!usable(scale, v))
		return;
	if (isnan(*lo) || v < *lo)
		*lo = v;
	if (isnan(*hi) || v > *hi)
		*hi = v;
}

/*
 * data_range: range of the data placed on an axis: which 0 = x, 1 = left y,
 * 2 = right y. Includes bar extents, stacked sums, bands and reference
 * lines. NAN, NAN when nothing.
 */
static void
data_range(const br_chart *c, int which, int scale, double *lo, double *hi)
{
	*lo = *hi = NAN;
	int side = which == 3 ? BR_SIDE_RIGHT2 : which == 2 ? BR_SIDE_RIGHT : BR_SIDE_LEFT;
	for (size_t i = 0; i < c->n_series; i++) {
		const br_chart_series *s = &c->series[i];
		if (which != 0 && s->side != side)
			continue;
		double bw = s->bar_width > 0 ? s->bar_width : 0.8;
		double hw = s->bar_width > 0 ? s->bar_width : 0.6;
		for (size_t j = 0; j < s->n; j++) {
			if (!isfinite(s->x[j]) || !isfinite(s->y[j]))
				continue;
			if (s->kind == BR_SERIES_HBARS_STACKED) {
				double b = hstack_base(c, i, j);
				if (which == 0) {
					widen(scale, b, lo, hi);
					widen(scale, b + s->x[j], lo, hi);
				} else {
					widen(scale, s->y[j] - hw / 2, lo, hi);
					widen(scale, s->y[j] + hw / 2, lo, hi);
				}
				continue;
			}
			if (which == 0) {
				if (s->kind == BR_SERIES_BARS) {
					widen(scale, s->x[j] + s->bar_offset - bw / 2, lo, hi);
					widen(scale, s->x[j] + s->bar_offset + bw / 2, lo, hi);
				} else {
					widen(scale, s->x[j], lo, hi);
				}
			} else if (s->kind == BR_SERIES_AREA_STACKED) {
				double b = stack_base(c, i, j);
				widen(scale, b + s->y[j], lo, hi);
				widen(scale, b, lo, hi);
			} else {
				widen(scale, s->y[j], lo, hi);
				if (s->kind == BR_SERIES_BARS && scale == BR_SCALE_LINEAR)
					widen(scale, 0, lo, hi);
				if (s->kind == BR_SERIES_BARS && s->err && isfinite(s->err[j]) && isfinite(s->y[j])) {
					widen(scale, s->y[j] + s->err[j], lo, hi);
					if (scale == BR_SCALE_LINEAR || s->y[j] - s->err[j] > 0)
						widen(scale, s->y[j] - s->err[j], lo, hi);
				}
			}
		}
	}
	for (size_t i = 0; i < c->n_refs; i++) {
		const br_refline *r = &c->refs[i];
		if ((which == 0) == (r->vertical != 0) && (which == 0 || r->side == side))
			widen(scale, r->value, lo, hi);
	}
	if (which == 0)
		for (size_t i = 0; i < c->n_bands; i++) {
			widen(scale, c->bands[i].x0, lo, hi);
			widen(scale, c->bands[i].x1, lo, hi);
		}
	if (which == 0 && c->x.n_cat > 0)
		for (size_t i = 0; i < c->x.n_cat; i++) {
			widen(scale, c->x.cat_v[i] - 0.5, lo, hi);
			widen(scale, c->x.cat_v[i] + 0.5, lo, hi);
		}
	if (which == 1 && c->y.n_cat > 0)
		for (size_t i = 0; i < c->y.n_cat; i++) {
			widen(scale, c->y.cat_v[i] - 0.5, lo, hi);
			widen(scale, c->y.cat_v[i] + 0.5, lo, hi);
		}
	/* notes keep their anchor point inside the plot */
	for (size_t i = 0; i < c->n_notes; i++) {
		const br_note *n = &c->notes[i];
		if (which == 0)
			widen(scale, n->x, lo, hi);
		else if (n->side == side)
			widen(scale, n->y, lo, hi);
	}
}

/*
 * axis_setup: range and ticks of an axis with about `target` intervals.
 * Automatic linear ranges are widened to whole ticks (and to 0 when
 * include_zero); automatic log ranges get 3 % of the span as margin.
 */
static void
axis_setup(const br_chart *c, const br_axis *ax, int which, int target, axrt *a)
{
	memset(a, 0, sizeof *a);
	a->ax = ax;
	a->scale = ax->scale;
	double lo, hi;
	data_range(c, which, ax->scale, &lo, &hi);
	if (usable(a->scale, ax->min))
		lo = ax->min;
	if (usable(a->scale, ax->max))
		hi = ax->max;
	/* category axes keep the categories' own range (±0.5), not widened to nice ticks */
	int fixed = (usable(a->scale, ax->min) && usable(a->scale, ax->max)) || ax->n_cat > 0;
	if (a->scale == BR_SCALE_LOG10) {
		if (isnan(lo) || isnan(hi)) {
			lo = 1;
			hi = 10;
		}
		if (hi <= lo) {
			lo /= 2;
			hi *= 2;
		}
		if (!fixed) {
			double l0 = log10(lo), l1 = log10(hi), m = (l1 - l0) * 0.03;
			/* near-constant data (434.7170 ms to 434.7172 ms) would get ticks
			 * closer than their labels' six digits ("434.717 434.717"): such
			 * a range (less than 1e-4 of its values) spans a factor 1.5
			 * around its middle instead */
			if (l1 - l0 < MIN_LOG_NARROW && !usable(a->scale, ax->min) && !usable(a->scale, ax->max)) {
				double mid = (l0 + l1) / 2;
				l0 = mid - MIN_LOG_SPAN / 2;
				l1 = mid + MIN_LOG_SPAN / 2;
				m = 0;
			}
			if (!usable(a->scale, ax->min))
				lo = pow(10.0, l0 - m);
			if (!usable(a->scale, ax->max))
				hi = pow(10.0, l1 + m);
		}
		a->n_ticks = br_nice_ticks(lo, hi, a->scale, target, 1, a->ticks, MAX_TICKS, &a->lo, &a->hi);
		a->step = NAN;
		int d0 = (int)ceil(log10(lo) - 1e-9), d1 = (int)floor(log10(hi) + 1e-9);
		a->decade_ticks = d1 - d0 + 1 >= 3 && (size_t)(d1 - d0 + 1) == a->n_ticks;
		a->lo = lo;
		a->hi = hi;
	} else {
		if (isnan(lo) || isnan(hi)) {
			lo = 0;
			hi = 1;
		}
		if (ax->include_zero && !usable(a->scale, ax->min) && lo > 0)
			lo = 0;
		if (ax->include_zero && !usable(a->scale, ax->max) && hi < 0)
			hi = 0;
		/* an automatic top keeps 2 % of the span above the data, so a value
		 * on a round number (a plateau at 4 of 4, 199.4 tok/s under 200) is
		 * not drawn on the frame with its marker cut in half */
		if (!fixed && !usable(a->scale, ax->max) && hi > lo)
			hi += 0.02 * (hi - lo);
		/* a count: 4 units at least, so the nice step is a whole number */
		if (ax->whole_ticks && !fixed && !usable(a->scale, ax->max) && hi - lo < 4)
			hi = lo + 4;
		a->n_ticks = br_nice_ticks(lo, hi, a->scale, target, fixed, a->ticks, MAX_TICKS, &a->lo, &a->hi);
		if (fixed || a->hi <= a->lo) {
			a->lo = lo;
			a->hi = hi > lo ? hi : lo + 1;
		} else {
			if (usable(a->scale, ax->min))
				a->lo = ax->min;
			if (usable(a->scale, ax->max))
				a->hi = ax->max;
		}
		a->step = a->n_ticks >= 2 ? a->ticks[1] - a->ticks[0] : (a->hi - a->lo);
		/* a count never has a tick between whole numbers: a tall panel
		 * (the Chinese waveform) asked for more ticks and got 0.5 steps */
		if (ax->whole_ticks && a->n_ticks >= 2 && a->step < 1 - 1e-9 && a->hi - a->lo <= MAX_TICKS - 1) {
			size_t k = 0;
			for (double v = ceil(a->lo - 1e-9); v <= a->hi + 1e-9 && k < MAX_TICKS; v += 1)
				a->ticks[k++] = v;
			a->n_ticks = k;
			a->step = 1;
		}
		/* drop ticks pushed outside by an explicit min or max */
		size_t k = 0;
		for (size_t i = 0; i < a->n_ticks; i++)
			if (a->ticks[i] >= a->lo - 1e-9 * (a->hi - a->lo) && a->ticks[i] <= a->hi + 1e-9 * (a->hi - a->lo))
				a->ticks[k++] = a->ticks[i];
		a->n_ticks = k;
	}
	if (ax->n_cat > 0) {
		size_t k = 0;
		for (size_t i = 0; i < ax->n_cat && k < MAX_TICKS; i++)
			a->ticks[k++] = ax->cat_v[i];
		a->n_ticks = k;
	}
}

/* log_needs_exp: some tick of log axis a is below 10^-3 or from 10^5 on, so
 * every tick is written as a power of ten (no "0.001" beside "10⁻⁴"). */
static int
log_needs_exp(const axrt *a)
{
	for (size_t i = 0; i < a->n_ticks; i++) {
		double x = fabs(a->ticks[i]);
		if (x > 0 && (x < 1e-3 || x >= 1e5))
			return 1;
	}
	return 0;
}

/* tick_text: label of tick i of axis a into buf; returns 1 for markup. */
static int
tick_text(const axrt *a, size_t i, char *buf, size_t len)
{
	if (a->ax->n_cat > 0) {
		snprintf(buf, len, "%s", i < a->ax->n_cat ? a->ax->cat_label[i] : "");
		return 0;
	}
	if (isnan(a->step) && a->ticks[i] != 0 && log_needs_exp(a)) {
		exp_label(a->ticks[i], buf, len);
		return 1;
	}
	return br_tick_label(a->ticks[i], a->step, buf, len);
}

/* tick_labels_extent: widest and tallest tick label of axis a. */
static void
tick_labels_extent(br_canvas *cv, const axrt *a, double fs, double *mw, double *mh)
{
	*mw = 0;
	*mh = 0;
	for (size_t i = 0; i < a->n_ticks; i++) {
		char buf[256];
		int mk = tick_text(a, i, buf, sizeof buf);
		double w, h;
		br_text_size(cv, buf, fs, 0, mk, &w, &h);
		if (w > *mw)
			*mw = w;
		if (h > *mh)
			*mh = h;
	}
	if (*mh == 0)
		br_text_size(cv, "0", fs, 0, 0, NULL, mh);
}

/* ------------------------------------------------------------------ */
/* legend                                                               */

/* draw_marker: marker shape idx (mod 6) of radius r at (x, y), current source. */
static void
draw_marker(br_canvas *cv, int idx, double x, double y, double r)
{
	int i = ((idx % 6) + 6) % 6;
	br_cv_new_path(cv);
	br_cv_dash(cv, NULL, 0);
	br_cv_line_width(cv, 0.7);
	switch (i) {
	case 0:
		br_cv_circle(cv, x, y, r);
		br_cv_fill(cv);
		break;
	case 1:
		br_cv_rectangle(cv, x - r * 0.85, y - r * 0.85, 1.7 * r, 1.7 * r);
		br_cv_fill(cv);
		break;
	case 2:
		br_cv_move_to(cv, x, y - r * 1.1);
		br_cv_line_to(cv, x + r, y + r * 0.8);
		br_cv_line_to(cv, x - r, y + r * 0.8);
		br_cv_close_path(cv);
		br_cv_fill(cv);
		break;
	case 3:
		br_cv_move_to(cv, x, y - r * 1.2);
		br_cv_line_to(cv, x + r, y);
		br_cv_line_to(cv, x, y + r * 1.2);
		br_cv_line_to(cv, x - r, y);
		br_cv_close_path(cv);
		br_cv_fill(cv);
		break;
	case 4:
		br_cv_circle(cv, x, y, r * 0.9);
		br_cv_stroke(cv);
		break;
	default:
		br_cv_move_to(cv, x - r, y - r);
		br_cv_line_to(cv, x + r, y + r);
		br_cv_move_to(cv, x + r, y - r);
		br_cv_line_to(cv, x - r, y + r);
		br_cv_stroke(cv);
		break;
	}
}

/* series_lw: line width of a series in points. */
static double
series_lw(const br_chart_series *s)
{
	return s->line_width_pt > 0 ? s->line_width_pt : 1.1;
}

/* series_dash: dash index of a series. */
static int
series_dash(const br_chart_series *s)
{
	return s->dash >= 0 ? s->dash : s->color;
}

/* draw_swatch: the legend symbol of entry e (series index, or band when >= n_series) in a 16 × fs box. */
static void
draw_swatch(br_canvas *cv, const br_chart *c, size_t e, double x, double ymid, double fs)
{
	double sw = 16;
	br_cv_save(cv);
	if (e >= c->n_series) {
		br_cv_rgb(cv, 0.90, 0.90, 0.90);
		br_cv_rectangle(cv, x + 2, ymid - fs * 0.35, sw - 4, fs * 0.7);
		br_cv_fill(cv);
		br_cv_restore(cv);
		return;
	}
	const br_chart_series *s = &c->series[e];
	switch (s->kind) {
	case BR_SERIES_SCATTER:
		set_color(cv, s->color);
		draw_marker(cv, s->color, x + sw / 2, ymid, 2.2);
		break;
	case BR_SERIES_BARS:
	case BR_SERIES_AREA_STACKED:
	case BR_SERIES_HBARS_STACKED:
		set_color(cv, s->color);
		br_cv_rectangle(cv, x + 2, ymid - fs * 0.35, sw - 4, fs * 0.7);
		br_cv_fill_preserve(cv);
		br_cv_rgb(cv, 0.2, 0.2, 0.2);
		br_cv_line_width(cv, 0.4);
		br_cv_stroke(cv);
		break;
	default:
		set_color(cv, s->color);
		br_cv_line_width(cv, series_lw(s));
		set_dash(cv, series_dash(s), series_lw(s));
		br_cv_move_to(cv, x, ymid);
		br_cv_line_to(cv, x + sw, ymid);
		br_cv_stroke(cv);
		break;
	}
	br_cv_restore(cv);
}

/*
 * legend: lay out (and when draw, draw) the legend entries flowing left to
 * right in rows across width w from (x, y). Returns the height used (0
 * when there is no entry).
 */
static double
legend(br_canvas *cv, const br_chart *c, double x, double y, double w, double fs, int draw)
{
	double row_h = fs * 1.45, gap = fs * 1.3, sw = 16, sgap = 3;
	double cx = 0, cy = 0;
	int any = 0;
	for (size_t e = 0; e < c->n_series + c->n_bands; e++) {
		const char *label = e < c->n_series ? c->series[e].label : c->bands[e - c->n_series].label;
		if (label == NULL || label[0] == '\0')
			continue;
		double tw, th;
		br_text_size(cv, label, fs, 0, 0, &tw, &th);
		double ew = sw + sgap + tw;
		if (any && cx + ew > w) {
			cx = 0;
			cy += row_h;
		}
		if (draw) {
			draw_swatch(cv, c, e, x + cx, y + cy + row_h / 2, fs);
			br_cv_rgb(cv, 0, 0, 0);
			br_text_draw(cv, label, fs, 0, 0, x + cx + sw + sgap, y + cy + row_h / 2, 0, 0.5, 0);
		}
		cx += ew + gap;
		any = 1;
	}
	return any ? cy + row_h : 0;
}

/* ------------------------------------------------------------------ */
/* series drawing                                                       */

/* draw_lines: a line or step series; the path breaks at unusable points
 * and, when max_gap_x > 0, between points further apart than that in x. */
static void
draw_lines(br_canvas *cv, const br_chart_series *s, const axrt *xa, const axrt *ya, double max_gap_x)
{
	int pen = 0;
	double ly = 0, lx = 0;
	br_cv_new_path(cv);
	for (size_t j = 0; j < s->n; j++) {
		double px, py;
		if (!ax_map(xa, s->x[j], &px) || !ax_map(ya, s->y[j], &py)) {
			pen = 0;
			continue;
		}
		if (pen && max_gap_x > 0 && !s->no_gap_break && s->x[j] - lx > max_gap_x)
			pen = 0;
		lx = s->x[j];
		if (!pen) {
			br_cv_move_to(cv, px, py);
		} else if (s->kind == BR_SERIES_STEP) {
			br_cv_line_to(cv, px, ly);
			br_cv_line_to(cv, px, py);
		} else {
			br_cv_line_to(cv, px, py);
		}
		ly = py;
		pen = 1;
	}
	set_color(cv, s->color);
	br_cv_line_width(cv, series_lw(s));
	set_dash(cv, series_dash(s), series_lw(s));
	br_cv_line_join(cv, 1);
	br_cv_stroke(cv);
	br_cv_dash(cv, NULL, 0);
}

/* scatter_r: the marker radius of scatter series s (points), as draw_scatter draws it. */
static double
scatter_r(const br_chart_series *s)
{
	return s->line_width_pt > 0 ? s->line_width_pt * 2 : 2.2;
}

/* draw_scatter: markers at usable points. */
static void
draw_scatter(br_canvas *cv, const br_chart_series *s, const axrt *xa, const axrt *ya)
{
	set_color(cv, s->color);
	double r = scatter_r(s);
	for (size_t j = 0; j < s->n; j++) {
		double px, py;
		if (ax_map(xa, s->x[j], &px) && ax_map(ya, s->y[j], &py))
			draw_marker(cv, s->color, px, py, r);
	}
}

/* draw_bars: one bar per usable point, from 0 (log: the axis bottom). */
static void
draw_bars(br_canvas *cv, const br_chart_series *s, const axrt *xa, const axrt *ya)
{
	double bw = s->bar_width > 0 ? s->bar_width : 0.8;
	double base_v = ya->scale == BR_SCALE_LOG10 ? ya->lo : 0, pb;
	if (!ax_map(ya, base_v, &pb))
		pb = ya->p0;
	for (size_t j = 0; j < s->n; j++) {
		double xc = s->x[j] + s->bar_offset, p0, p1, py;
		if (!isfinite(xc) || !ax_map(xa, xc - bw / 2, &p0) || !ax_map(xa, xc + bw / 2, &p1) ||
		    !ax_map(ya, s->y[j], &py))
			continue;
		br_cv_rectangle(cv, p0, py < pb ? py : pb, p1 - p0, fabs(pb - py));
		set_color(cv, s->color);
		br_cv_fill_preserve(cv);
		br_cv_rgb(cv, 0.2, 0.2, 0.2);
		br_cv_line_width(cv, 0.4);
		br_cv_stroke(cv);
		double e = s->err ? s->err[j] : NAN, ya0, ya1, pc;
		if (isfinite(e) && e > 0 && ax_map(xa, xc, &pc) && ax_map(ya, s->y[j] + e, &ya1)) {
			/* the whisker: y ± err, clipped at the axis bottom on a log scale */
			if (!ax_map(ya, s->y[j] - e, &ya0))
				ya0 = pb;
			double cap = (p1 - p0) * 0.2;
			br_cv_rgb(cv, 0.1, 0.1, 0.1);
			br_cv_line_width(cv, 0.8);
			br_cv_move_to(cv, pc, ya0);
			br_cv_line_to(cv, pc, ya1);
			br_cv_move_to(cv, pc - cap, ya0);
			br_cv_line_to(cv, pc + cap, ya0);
			br_cv_move_to(cv, pc - cap, ya1);
			br_cv_line_to(cv, pc + cap, ya1);
			br_cv_stroke(cv);
		}
	}
}

/* draw_hbars: horizontal stacked bar series si (see hstack_base). */
static void
draw_hbars(br_canvas *cv, const br_chart *c, size_t si, const axrt *xa, const axrt *ya)
{
	const br_chart_series *s = &c->series[si];
	double hw = s->bar_width > 0 ? s->bar_width : 0.6;
	for (size_t j = 0; j < s->n; j++) {
		double b = hstack_base(c, si, j), p0, p1, q0, q1;
		if (!isfinite(s->x[j]) || !isfinite(s->y[j]) || !ax_map(xa, b, &p0) ||
		    !ax_map(xa, b + s->x[j], &p1) || !ax_map(ya, s->y[j] - hw / 2, &q0) ||
		    !ax_map(ya, s->y[j] + hw / 2, &q1))
			continue;
		br_cv_rectangle(cv, p0 < p1 ? p0 : p1, q0 < q1 ? q0 : q1, fabs(p1 - p0), fabs(q1 - q0));
		set_color(cv, s->color);
		br_cv_fill_preserve(cv);
		br_cv_rgb(cv, 0.2, 0.2, 0.2);
		br_cv_line_width(cv, 0.4);
		br_cv_stroke(cv);
	}
}

/* draw_area: stacked area series si, one polygon per run of usable points. */
static void
draw_area(br_canvas *cv, const br_chart *c, size_t si, const axrt *xa, const axrt *ya)
{
	const br_chart_series *s = &c->series[si];
	size_t j = 0;
	while (j < s->n) {
		/* find a run [j, k) of points where x, base and top map */
		size_t k = j;
		while (k < s->n) {
			double b = stack_base(c, si, k), px, pt, pb;
			if (!ax_map(xa, s->x[k], &px) || !ax_map(ya, b + s->y[k], &pt) || !ax_map(ya, b, &pb))
				break;
			k++;
		}
		if (k > j + 1) {
			br_cv_new_path(cv);
			for (size_t m = j; m < k; m++) {
				double px, pt;
				ax_map(xa, s->x[m], &px);
				ax_map(ya, stack_base(c, si, m) + s->y[m], &pt);
				if (m == j)
					br_cv_move_to(cv, px, pt);
				else
					br_cv_line_to(cv, px, pt);
			}
			for (size_t m = k; m-- > j;) {
				double px, pb;
				ax_map(xa, s->x[m], &px);
				ax_map(ya, stack_base(c, si, m), &pb);
				br_cv_line_to(cv, px, pb);
			}
			br_cv_close_path(cv);
			set_color(cv, s->color);
			br_cv_fill(cv);
		}
		j = k > j ? k : j + 1;
	}
}

/* ------------------------------------------------------------------ */
/* reference lines                                                      */

/* label_box: white, slightly transparent box behind a label. */
static void
label_box(br_canvas *cv, double x, double y, double w, double h)
{
	br_cv_save(cv);
	br_cv_rgba(cv, 1, 1, 1, 0.85);
	br_cv_rectangle(cv, x - 1, y, w + 2, h);
	br_cv_fill(cv);
	br_cv_restore(cv);
}

/* fill_band: band b's x interval over the plot's height (py0..py1) in the
 * band grey at opacity alpha (1: the shading behind the data; below 1: a
 * veil that mutes what was drawn in it). Nothing when an end is off the axis. */
static void
fill_band(br_canvas *cv, const br_band *b, const axrt *xa, double py0, double py1, double alpha)
{
	double b0, b1;
	if (!ax_map(xa, b->x0, &b0) || !ax_map(xa, b->x1, &b1))
		return;
	br_cv_rgba(cv, 0.94, 0.94, 0.94, alpha);
	br_cv_rectangle(cv, b0, py0, b1 - b0, py1 - py0);
	br_cv_fill(cv);
}

/* boxes_overlap: see below. */
static int boxes_overlap(const double *a, const double *b);

/* seg_len_in: the length (pt) of the segment (x0, y0)–(x1, y1) inside the
 * rectangle g (x0, y0, x1, y1), by Liang–Barsky clipping. */
static double
seg_len_in(double x0, double y0, double x1, double y1, const double *g)
{
	double dx = x1 - x0, dy = y1 - y0, t0 = 0, t1 = 1;
	const double pq[4][2] = { { -dx, x0 - g[0] }, { dx, g[2] - x0 }, { -dy, y0 - g[1] }, { dy, g[3] - y0 } };
	for (int k = 0; k < 4; k++) {
		double pk = pq[k][0], qk = pq[k][1];
		if (pk == 0) {
			if (qk < 0)
				return 0;
			continue;
		}
		double t = qk / pk;
		if (pk < 0) {
			if (t > t1)
				return 0;
			if (t > t0)
				t0 = t;
		} else {
			if (t < t0)
				return 0;
			if (t < t1)
				t1 = t;
		}
	}
	return t1 > t0 ? (t1 - t0) * hypot(dx, dy) : 0;
}

/*
 * points_in_box: how much of c's data box b (x, y, w, h in points) would
 * hide: the length (pt) of every line and step inside it, and of every
 * vertical reference line through it, plus 6 pt for each marker (scatter
 * point or bar top) within 3 pt of it.
 */
static double
points_in_box(const br_chart *c, const axrt *xa, const axrt *yl, const axrt *yr, const double *b)
{
	double n = 0;
	const double g[4] = { b[0] - 3, b[1] - 3, b[0] + b[2] + 3, b[1] + b[3] + 3 };   /* x0 y0 x1 y1 */
	const double e[4] = { b[0], b[1], b[0] + b[2], b[1] + b[3] };
	for (size_t si = 0; si < c->n_series; si++) {
		const br_chart_series *sr = &c->series[si];
		const axrt *ya = sr->side == BR_SIDE_RIGHT ? yr : yl;
		int joined = sr->kind == BR_SERIES_LINE || sr->kind == BR_SERIES_STEP;
		double px = NAN, py = NAN;
		for (size_t j = 0; j < sr->n; j++) {
			double x, y;
			if (!ax_map(xa, sr->x[j], &x) || !ax_map(ya, sr->y[j], &y)) {
				px = py = NAN;
				continue;
			}
			if (!joined)
				n += 6.0 * (x >= g[0] && x <= g[2] && y >= g[1] && y <= g[3]);
			else if (isfinite(px))
				n += sr->kind == BR_SERIES_STEP ? seg_len_in(px, py, x, py, e) + seg_len_in(x, py, x, y, e) :
				    seg_len_in(px, py, x, y, e);
			px = x;
			py = y;
		}
	}
	for (size_t i = 0; i < c->n_refs; i++) {   /* a vertical reference line through it (a knee, λ = μ) */
		double x;
		if (c->refs[i].vertical && ax_map(xa, c->refs[i].value, &x) && x >= e[0] && x <= e[2])
			n += b[3];
	}
	return n;
}

/*
 * vlabel_layout: the boxes (x, y, w, h; x NAN when the line is off the
 * plot) of the labels of vertical lines ord[0..no) (in order of x): beside
 * their line (right of it, or left when that would leave the plot), in rows
 * from the top or the bottom edge, each in the first row of that edge where
 * it does not overlap an earlier label. The edge is the one the line asks
 * for, unless the other covers fewer data points and line segments
 * (points_in_box; brk19: "A p50 21.5 ms" at the top hid the flat top of the
 * ITL curve, the bottom was clear).
 */
static void
vlabel_layout(br_canvas *cv, const br_chart *c, const size_t *ord, size_t no, const axrt *xa, const axrt *yl,
    const axrt *yr, double px0, double py0, double px1, double py1, double fs, double (*vb)[4])
{
	enum { MAXROWS = 16 };
	double row_end[2][MAXROWS];
	for (int p = 0; p < 2; p++)
		for (int r = 0; r < MAXROWS; r++)
			row_end[p][r] = -1e300;
	for (size_t k = 0; k < no; k++) {
		const br_refline *r = &c->refs[ord[k]];
		double p, tw, th;
		vb[k][0] = NAN;
		if (!ax_map(xa, r->value, &p) || p < px0 - 0.5 || p > px1 + 0.5)
			continue;
		br_text_size(cv, r->label, fs, 0, 0, &tw, &th);
		double x0 = r->label_left ? p - 2 - tw : p + 2;
		if (x0 + tw > px1 - 1)
			x0 = p - 2 - tw;
		if (x0 < px0 + 1)
			x0 = r->label_left && p + 2 + tw <= px1 - 1 ? p + 2 : px0 + 1;
		int want = r->label_pos == BR_LABEL_BOTTOM, row[2];
		double box[2][4], cover[2];
		for (int pos = 0; pos < 2; pos++) {
			row[pos] = 0;
			while (row[pos] < MAXROWS - 1 && row_end[pos][row[pos]] > x0 - 2)
				row[pos]++;
			box[pos][0] = x0;
			box[pos][1] = pos ? py1 - 2 - (row[pos] + 1) * (th + 1) : py0 + 2 + row[pos] * (th + 1);
			box[pos][2] = tw;
			box[pos][3] = th;
			cover[pos] = points_in_box(c, xa, yl, yr, box[pos]);
		}
		int pos = cover[!want] < cover[want] ? !want : want;
		row_end[pos][row[pos]] = x0 + tw;
		memcpy(vb[k], box[pos], sizeof vb[k]);
	}
}

/*
 * draw_refs: reference lines, then their labels. Vertical labels sit beside
 * their line (right of it, or left when that would leave the plot) in rows
 * from the top or bottom of the plot (vlabel_layout); each label takes the
 * first row where it does not overlap an earlier one, so close lines never
 * collide.
 */
static void
draw_refs(br_canvas *cv, const br_chart *c, const axrt *xa, const axrt *yl, const axrt *yr,
    double px0, double py0, double px1, double py1, double fs, double (*boxes)[4], size_t *n_boxes)
{
	/* lines */
	for (size_t i = 0; i < c->n_refs; i++) {
		const br_refline *r = &c->refs[i];
		double p;
		br_cv_new_path(cv);
		if (r->vertical) {
			if (!ax_map(xa, r->value, &p) || p < px0 - 0.5 || p > px1 + 0.5)
				continue;
			br_cv_move_to(cv, p, py0);
			br_cv_line_to(cv, p, py1);
		} else {
			const axrt *ya = r->side == BR_SIDE_RIGHT ? yr : yl;
			if (!ax_map(ya, r->value, &p) || p < py0 - 0.5 || p > py1 + 0.5)
				continue;
			br_cv_move_to(cv, px0, p);
			br_cv_line_to(cv, px1, p);
		}
		set_color(cv, r->color);
		br_cv_line_width(cv, 0.8);
		set_dash(cv, r->dash >= 0 ? r->dash : 1, 0.8);
		br_cv_stroke(cv);
		br_cv_dash(cv, NULL, 0);
	}
	/* vertical labels in order of x */
	size_t *ord = br_xmalloc((c->n_refs ? c->n_refs : 1) * sizeof *ord);
	size_t no = 0;
	for (size_t i = 0; i < c->n_refs; i++)
		if (c->refs[i].vertical && c->refs[i].label)
			ord[no++] = i;
	for (size_t a = 1; a < no; a++)
		for (size_t b = a; b > 0 && c->refs[ord[b]].value < c->refs[ord[b - 1]].value; b--) {
			size_t t = ord[b];
			ord[b] = ord[b - 1];
			ord[b - 1] = t;
		}
	double (*vb)[4] = br_xmalloc((no ? no : 1) * sizeof *vb);
	vlabel_layout(cv, c, ord, no, xa, yl, yr, px0, py0, px1, py1, fs, vb);
	for (size_t k = 0; k < no; k++) {
		const br_refline *r = &c->refs[ord[k]];
		if (!isfinite(vb[k][0]))
			continue;
		double x0 = vb[k][0], ty = vb[k][1], tw = vb[k][2], th = vb[k][3];
		label_box(cv, x0, ty, tw, th);
		boxes[*n_boxes][0] = x0;
		boxes[*n_boxes][1] = ty;
		boxes[*n_boxes][2] = tw;
		boxes[*n_boxes][3] = th;
		(*n_boxes)++;
		set_color(cv, r->color);
		double rgb[3];
		br_palette_rgb(r->color, rgb);
		/* light palette colours are too pale for text: darken them */
		if (0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] > 0.55)
			br_cv_rgb(cv, rgb[0] * 0.55, rgb[1] * 0.55, rgb[2] * 0.55);
		br_text_draw(cv, r->label, fs, 0, 0, x0, ty, 0, 0, 0);
	}
	free(vb);
	free(ord);
	/* horizontal labels: at the right end above the line, unless data
	 * points or an earlier label lie there and another corner of the line
	 * (left end; below it) is clearer (eighteenth breaker: "μ ≈ 3.59 req/s
	 * (plateau)" covered the 8 req/s point of the plateau it names) */
	for (size_t i = 0; i < c->n_refs; i++) {
		const br_refline *r = &c->refs[i];
		const axrt *ya = r->side == BR_SIDE_RIGHT ? yr : yl;
		double p, tw, th;
		if (r->vertical || r->label == NULL || !ax_map(ya, r->value, &p) || p < py0 - 0.5 || p > py1 + 0.5)
			continue;
		br_text_size(cv, r->label, fs, 0, 0, &tw, &th);
		double above = p - 1 - th, below = p + 1;
		if (above < py0 + 1)
			above = below;
		if (below + th > py1 - 1)
			below = above;
		const double cand[4][2] = { { px1 - 2 - tw, above }, { px0 + 2, above },
			{ px1 - 2 - tw, below }, { px0 + 2, below } };
		int best = 0;
		double best_score = INFINITY;
		for (int k = 0; k < 4; k++) {
			double b[4] = { cand[k][0], cand[k][1], tw, th };
			double score = points_in_box(c, xa, yl, yr, b);
			for (size_t q = 0; q < *n_boxes; q++)
				score += boxes_overlap(b, boxes[q]) ? 100 : 0;
			if (score < best_score) {
				best_score = score;
				best = k;
			}
		}
		double tx = cand[best][0], ty = cand[best][1];
		label_box(cv, tx, ty, tw, th);
		boxes[*n_boxes][0] = tx;
		boxes[*n_boxes][1] = ty;
		boxes[*n_boxes][2] = tw;
		boxes[*n_boxes][3] = th;
		(*n_boxes)++;
		set_color(cv, r->color);
		br_text_draw(cv, r->label, fs, 0, 0, tx, ty, 0, 0, 0);
	}
}

/* text_color: palette colour idx as the source for text (light colours darkened; -1 = black). */
static void
text_color(br_canvas *cv, int idx)
{
	if (idx < 0) {
		br_cv_rgb(cv, 0, 0, 0);
		return;
	}
	double rgb[3];
	br_palette_rgb(idx, rgb);
	double k = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] > 0.55 ? 0.55 : 1;
	br_cv_rgb(cv, rgb[0] * k, rgb[1] * k, rgb[2] * k);
}

/* boxes_overlap: the rectangles (x, y, w, h) a and b intersect (1 pt gap counts as touching). */
static int
boxes_overlap(const double *a, const double *b)
{
	return a[0] < b[0] + b[2] + 1 && b[0] < a[0] + a[2] + 1 &&
	    a[1] < b[1] + b[3] + 1 && b[1] < a[1] + a[3] + 1;
}

/*
 * draw_notes: the notes of c, each in a white box kept inside the plot. A
 * note whose box would overlap an earlier one or a reference-line label
 * (box[0..nb), room for n_notes more) is left out (its value is in the
 * figure's CSV): labels never cover each other, and a label is never moved
 * away from the thing it names.
 */
/* hits_marker: whether box b (x, y, w, h) covers a marker of a scatter
 * series of c. */
static int
hits_marker(const br_chart *c, const axrt *xa, const axrt *yl, const axrt *yr, const double *b)
{
	for (size_t i = 0; i < c->n_series; i++) {
		const br_chart_series *s = &c->series[i];
		if (s->kind != BR_SERIES_SCATTER)
			continue;
		double r = scatter_r(s) + 0.5;
		for (size_t j = 0; j < s->n; j++) {
			double px, py;
			if (!ax_map(xa, s->x[j], &px) || !ax_map(s->side == BR_SIDE_RIGHT ? yr : yl, s->y[j], &py))
				continue;
			double m[4] = { px - r, py - r, 2 * r, 2 * r };
			if (boxes_overlap(b, m))
				return 1;
		}
	}
	return 0;
}

static void
draw_notes(br_canvas *cv, const br_chart *c, const axrt *xa, const axrt *yl, const axrt *yr,
    double px0, double py0, double px1, double py1, double fs, double (*box)[4], size_t nb)
{
	for (size_t i = 0; i < c->n_notes; i++) {
		const br_note *n = &c->notes[i];
		double px, py, tw, th;
		if (!ax_map(xa, n->x, &px) || !ax_map(n->side == BR_SIDE_RIGHT ? yr : yl, n->y, &py))
			continue;
		br_text_size(cv, n->text, fs, 0, 0, &tw, &th);
		double bx = px + n->dx_pt - n->ax * tw, by0 = py + n->dy_pt - n->ay * th;
		if (bx + tw > px1 - 1)
			bx = px1 - 1 - tw;
		if (bx < px0 + 1)
			bx = px0 + 1;
		double by = by0;
		if (by + th > py1 - 1)
			by = py1 - 1 - th;
		if (by < py0 + 1)
			by = py0 + 1;
		double cand[4] = { bx, by, tw, th };
		/* a note over a scatter marker (a value above a bar where a
		 * right-axis point sits) goes to the mirror side of its anchor
		 * (inside the bar's top) when a place there is inside the plot
		 * and clear of markers; else it stays where it was */
		if (hits_marker(c, xa, yl, yr, cand)) {
			/* the mirror position, then up to 1.5 text heights further
			 * from the anchor (a marker straddling the bar's top) */
			for (int k = 0; k <= 3; k++) {
				double my = py - n->dy_pt - (1 - n->ay) * th + (n->ay >= 0.5 ? 1 : -1) * k * 0.5 * th;
				double alt[4] = { bx, my, tw, th };
				if (my >= py0 + 1 && my + th <= py1 - 1 && !hits_marker(c, xa, yl, yr, alt)) {
					cand[1] = my;
					break;
				}
			}
		}
		int placed = 1;
		for (size_t b = 0; b < nb && placed; b++)
			if (boxes_overlap(cand, box[b]))
				placed = 0;
		if (!placed)
			continue;
		memcpy(box[nb++], cand, sizeof cand);
		label_box(cv, cand[0], cand[1], tw, th);
		text_color(cv, n->color);
		br_text_draw(cv, n->text, fs, 0, 0, cand[0], cand[1], 0, 0, 0);
	}
}

/* ------------------------------------------------------------------ */
/* the chart                                                            */

/* clampi: v limited to [lo, hi]. */
static int
clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * fit_size: font size at which text fits in `avail` points (from fs down to
 * 5 pt).
 */
static double
fit_size(br_canvas *cv, const char *text, double fs, double avail)
{
	double w;
	br_text_size(cv, text, fs, 0, 0, &w, NULL);
	if (w <= avail || w <= 0)
		return fs;
	double s = fs * avail / w;
	return s < 5 ? 5 : s;
}

/* label_every: keep every k-th tick label so labels of extent `ext` at spacing `sp` do not touch. */
static size_t
label_every(double ext, double sp)
{
	if (sp <= 0)
		return 1;
	size_t k = 1;
	while (k < 64 && ext + 3 > sp * (double)k)
		k++;
	return k;
}

/*
 * x_label_select: which x tick labels to draw (keep[i] = 1) so that no two
 * touch: all of them if they fit; else, on a log axis with 1-2-5 ticks, the
 * powers of ten if they fit (a single one too: 150-7,000 ms kept 200, 500,
 * 2000 and 5000 and left 1000 unlabelled), with the 2s and 5s that fit
 * beside them; else greedily from the left.
 */
static void
x_label_select(br_canvas *cv, const axrt *a, double fs, int *keep)
{
	double l[MAX_TICKS], r[MAX_TICKS];
	int ok[MAX_TICKS];
	for (size_t i = 0; i < a->n_ticks; i++) {
		char buf[256];
		double p, w;
		ok[i] = ax_map(a, a->ticks[i], &p);
		if (!ok[i])
			continue;
		int mk = tick_text(a, i, buf, sizeof buf);
		br_text_size(cv, buf, fs, 0, mk, &w, NULL);
		l[i] = p - w / 2;
		r[i] = p + w / 2;
	}
	for (int mode = 0; mode < 3; mode++) {
		if (mode == 1 && (a->scale != BR_SCALE_LOG10 || a->decade_ticks))
			continue;
		double last = -1e300;
		int fits = 1, nsel = 0;
		for (size_t i = 0; i < a->n_ticks; i++) {
			keep[i] = 0;
			if (!ok[i])
				continue;
			if (mode == 1) {
				double e = log10(a->ticks[i]);
				if (fabs(e - round(e)) > 1e-9)
					continue;
			}
			if (l[i] < last + 3) {
				if (mode < 2) {
					fits = 0;
					break;
				}
				continue;
			}
			keep[i] = 1;
			last = r[i];
			nsel++;
		}
		if (fits && mode == 1 && nsel >= 1) {
			/* add the 2s and 5s that do not touch a chosen label */
			for (size_t i = 0; i < a->n_ticks; i++) {
				if (!ok[i] || keep[i])
					continue;
				int clash = 0;
				for (size_t j = 0; j < a->n_ticks && !clash; j++)
					if (keep[j] && l[i] < r[j] + 3 && l[j] < r[i] + 3)
						clash = 1;
				keep[i] = !clash;
			}
			return;
		}
		if (fits && mode != 1)
			return;
	}
}

/* br_chart_draw: see chart.h. */
void
br_chart_draw(const br_chart *c, br_canvas *cv, double x, double y, double w, double h)
{
	double fs = c->font_pt > 0 ? c->font_pt : 7.5;
	double tfs = fs * 1.05;               /* axis titles */
	double pad = 3, tick_len = 3;
	double top = y + pad, bottom = y + h - pad, left = x + pad, right = x + w - pad;
	br_cv_save(cv);
	br_cv_rgb(cv, 0, 0, 0);
	if (c->title && c->title[0]) {
		double th;
		br_text_size(cv, c->title, fs * 1.15, 1, 0, NULL, &th);
		br_text_draw(cv, c->title, fs * 1.15, 1, 0, x + w / 2, top, 0.5, 0, 0);
		top += th + 2;
	}
	if (c->legend) {
		double lh = legend(cv, c, left, top, right - left, fs, 1);
		if (lh > 0)
			top += lh + 3;
	}
	/* ranges and ticks: tick density from a first estimate of the plot size */
	double est_w = (right - left) - 60, est_h = (bottom - top) - 35;
	axrt xa, yl, yr;
	axis_setup(c, &c->x, 0, clampi((int)(est_w / 50), 3, 10), &xa);
	axis_setup(c, &c->y, 1, clampi((int)(est_h / 26), 3, 8), &yl);
	axis_setup(c, &c->y2, 2, clampi((int)(est_h / 26), 3, 8), &yr);
	axrt y3r;
	int has_y3 = c->has_y3 && c->has_y2;
	axis_setup(c, &c->y3, 3, clampi((int)(est_h / 26), 3, 8), &y3r);
	double xlw, xlh, ylw, ylh, rlw = 0, rlh = 0, r3w = 0, r3h = 0, th_h;
	tick_labels_extent(cv, &xa, fs, &xlw, &xlh);
	/*
	 * x category labels: rotated by 90° when the widest does not fit in the
	 * narrowest category spacing (estimated on the plot width before margins).
	 */
	int xrot = 0;
	double xfs = fs;   /* x tick label size (smaller for long rotated labels) */
	if (c->x.n_cat > 0 && xa.hi > xa.lo) {
		double mingap = xa.hi - xa.lo;
		for (size_t i = 1; i < c->x.n_cat; i++) {
			double g = fabs(c->x.cat_v[i] - c->x.cat_v[i - 1]);
			if (g > 0 && g < mingap)
				mingap = g;
		}
		if (xlw + 4 > est_w * mingap / (xa.hi - xa.lo)) {
			xrot = 1;
			double t = xlw;
			xlw = xlh;
			xlh = t;
			/* rotated labels take at most 35% of the panel's height: longer
			 * names (a sweep folder, a 90-character run name) are set in a
			 * smaller type, down to 5 pt, instead of squeezing the plot */
			if (xlh > 0.35 * h && xlh > 0) {
				xfs = fs * 0.35 * h / xlh;
				if (xfs < 5)
					xfs = 5;
				tick_labels_extent(cv, &xa, xfs, &xlh, &xlw);
			}
		}
	}
	tick_labels_extent(cv, &yl, fs, &ylw, &ylh);
	if (c->has_y2)
		tick_labels_extent(cv, &yr, fs, &rlw, &rlh);
	if (has_y3)
		tick_labels_extent(cv, &y3r, fs, &r3w, &r3h);
	br_text_size(cv, "Ag", tfs, 0, 0, NULL, &th_h);
	/* margins */
	double px0 = left + tick_len + 2 + ylw;
	if (c->y.title && c->y.title[0])
		px0 += th_h + 2;
	double px1 = right;
	/* the outer right axis: its spine sits y3_off right of the plot */
	double y3_block = 0, y3_off = 0;
	if (has_y3) {
		y3_block = 6 + tick_len + 2 + r3w + ((c->y3.title && c->y3.title[0]) ? th_h + 2 : 0);
		px1 -= y3_block;
	}
	if (c->has_y2) {
		px1 -= tick_len + 2 + rlw;
		if (c->y2.title && c->y2.title[0])
			px1 -= th_h + 2;
		y3_off = tick_len + 2 + rlw + ((c->y2.title && c->y2.title[0]) ? th_h + 2 : 0) + 6;
	} else {
		/* room for half of the last x label centred on the right edge */
		double lastw = xrot ? xlw : 0;
		if (xa.n_ticks > 0 && !xrot) {
			char buf[256];
			int mk = tick_text(&xa, xa.n_ticks - 1, buf, sizeof buf);
			br_text_size(cv, buf, fs, 0, mk, &lastw, NULL);
		}
		px1 -= lastw / 2 > 2 ? lastw / 2 : 2;
	}
	double py0 = top + ylh / 2;
	double py1 = bottom - tick_len - 1 - xlh;
	if (c->x.title && c->x.title[0])
		py1 -= th_h + 1;
	if (px1 - px0 < 20 || py1 - py0 < 20) {
		br_cv_restore(cv);
		return;                       /* no room: draw nothing rather than garbage */
	}
	xa.p0 = px0;
	xa.p1 = px1;
	yl.p0 = yr.p0 = y3r.p0 = py1;
	yl.p1 = yr.p1 = y3r.p1 = py0;

	/* plot contents, clipped */
	br_cv_save(cv);
	br_cv_rectangle(cv, px0, py0, px1 - px0, py1 - py0);
	br_cv_clip(cv);
	for (size_t i = 0; i < c->n_bands; i++)
		fill_band(cv, &c->bands[i], &xa, py0, py1, 1);
	br_cv_line_width(cv, 0.35);
	br_cv_rgb(cv, 0.80, 0.80, 0.80);
	for (size_t i = 0; i < yl.n_ticks && c->y.n_cat == 0; i++) {
		double p;
		if (ax_map(&yl, yl.ticks[i], &p)) {
			br_cv_move_to(cv, px0, p);
			br_cv_line_to(cv, px1, p);
		}
	}
	for (size_t i = 0; i < xa.n_ticks && c->x.n_cat == 0; i++) {
		double p;
		if (ax_map(&xa, xa.ticks[i], &p)) {
			br_cv_move_to(cv, p, py0);
			br_cv_line_to(cv, p, py1);
		}
	}
	br_cv_stroke(cv);
	for (size_t i = 0; i < c->n_series; i++)
		if (c->series[i].kind == BR_SERIES_AREA_STACKED)
			draw_area(cv, c, i, &xa, c->series[i].side == BR_SIDE_RIGHT ? &yr : &yl);
	for (size_t i = 0; i < c->n_series; i++)
		if (c->series[i].kind == BR_SERIES_BARS)
			draw_bars(cv, &c->series[i], &xa, c->series[i].side == BR_SIDE_RIGHT ? &yr : &yl);
	for (size_t i = 0; i < c->n_series; i++)
		if (c->series[i].kind == BR_SERIES_HBARS_STACKED)
			draw_hbars(cv, c, i, &xa, c->series[i].side == BR_SIDE_RIGHT ? &yr : &yl);
	for (size_t i = 0; i < c->n_series; i++)
		if (c->series[i].kind == BR_SERIES_LINE || c->series[i].kind == BR_SERIES_STEP)
			draw_lines(cv, &c->series[i], &xa, c->series[i].side == BR_SIDE_RIGHT2 ?
			    (has_y3 ? &y3r : &yr) : c->series[i].side == BR_SIDE_RIGHT ? &yr : &yl, c->max_gap_x);
	for (size_t i = 0; i < c->n_series; i++)
		if (c->series[i].kind == BR_SERIES_SCATTER)
			draw_scatter(cv, &c->series[i], &xa, c->series[i].side == BR_SIDE_RIGHT ? &yr : &yl);
	for (size_t i = 0; i < c->n_bands; i++)   /* muted bands: a veil over what was drawn in them */
		if (c->bands[i].veil)
			fill_band(cv, &c->bands[i], &xa, py0, py1, 0.55);
	double (*boxes)[4] = br_xmalloc((c->n_refs + c->n_notes + 1) * sizeof *boxes);
	size_t n_boxes = 0;
	draw_refs(cv, c, &xa, &yl, &yr, px0, py0, px1, py1, fs * 0.93, boxes, &n_boxes);
	draw_notes(cv, c, &xa, &yl, &yr, px0, py0, px1, py1, fs * 0.93, boxes, n_boxes);
	free(boxes);
	br_cv_restore(cv);

	/* frame */
	br_cv_rgb(cv, 0.15, 0.15, 0.15);
	br_cv_line_width(cv, 0.6);
	br_cv_rectangle(cv, px0, py0, px1 - px0, py1 - py0);
	br_cv_stroke(cv);

	/* ticks and tick labels */
	char buf[256];
	double sp;
	size_t every;
	/* x */
	int keep[MAX_TICKS];
	x_label_select(cv, &xa, fs, keep);
	if (xrot) {
		/* rotated labels stand one line height wide: where categories
		 * crowd (2, 2.5, 3, 3.5, 4 on a log axis) one that would touch the
		 * last kept is left out, the last category ("inf") always kept */
		double lh;
		br_text_size(cv, "Ag", xfs, 0, 0, NULL, &lh);
		/* taken left to right: categories need not come in the order of
		 * their positions (a campaign puts its calibration runs last, so
		 * "lowkv" stands left of "cal16"; in tick order the calibration
		 * labels all looked crowded and were dropped, brk23) */
		double pos[MAX_TICKS], last_p = NAN;
		size_t ord[MAX_TICKS], no = 0;
		long last_i = -1;
		for (size_t i = 0; i < xa.n_ticks; i++) {
			keep[i] = 0;
			if (!ax_map(&xa, xa.ticks[i], &pos[i]) || pos[i] < px0 - 0.5 || pos[i] > px1 + 0.5)
				continue;
			size_t j = no++;   /* insertion by position, stable */
			while (j > 0 && pos[ord[j - 1]] > pos[i]) {
				ord[j] = ord[j - 1];
				j--;
			}
			ord[j] = i;
		}
		if (no > 0) {
			last_i = (long)ord[no - 1];
			last_p = pos[ord[no - 1]];
		}
		double prev = -INFINITY;
		for (size_t q = 0; q < no; q++) {
			size_t i = ord[q];
			if ((long)i == last_i || (pos[i] - prev >= 1.4 * lh && last_p - pos[i] >= 1.4 * lh)) {
				keep[i] = 1;
				prev = pos[i];
			}
		}
	}
	for (size_t i = 0; i < xa.n_ticks; i++) {
		double p;
		if (!ax_map(&xa, xa.ticks[i], &p) || p < px0 - 0.5 || p > px1 + 0.5)
			continue;
		br_cv_move_to(cv, p, py1);
		br_cv_line_to(cv, p, py1 + tick_len);
		br_cv_stroke(cv);
		if (!keep[i])
			continue;
		int mk = tick_text(&xa, i, buf, sizeof buf);
		if (xrot)
			br_text_draw(cv, buf, xfs, 0, mk, p, py1 + tick_len + 1, 1, 0.5, 90);
		else
			br_text_draw(cv, buf, fs, 0, mk, p, py1 + tick_len + 1, 0.5, 0, 0);
	}
	if (xa.scale == BR_SCALE_LOG10 && xa.decade_ticks && xa.n_ticks <= 8) {
		br_cv_line_width(cv, 0.4);
		for (double d = floor(log10(xa.lo)); d <= ceil(log10(xa.hi)); d += 1)
			for (int m = 2; m <= 9; m++) {
				double v = m * pow(10.0, d), p;
				if (v < xa.lo || v > xa.hi || !ax_map(&xa, v, &p))
					continue;
				br_cv_move_to(cv, p, py1);
				br_cv_line_to(cv, p, py1 + tick_len * 0.6);
			}
		br_cv_stroke(cv);
		br_cv_line_width(cv, 0.6);
	}
	/* y left, right and outer right */
	for (int side = 0; side < 3; side++) {
		const axrt *ya = side == 2 ? &y3r : side ? &yr : &yl;
		if ((side == 1 && !c->has_y2) || (side == 2 && !has_y3))
			continue;
		double lh = side == 2 ? r3h : side ? rlh : ylh;
		if (side == 2) {
			br_cv_move_to(cv, px1 + y3_off, py0);
			br_cv_line_to(cv, px1 + y3_off, py1);
			br_cv_stroke(cv);
		}
		sp = 1e9;
		if (ya->n_ticks >= 2) {
			double a, b;
			if (ax_map(ya, ya->ticks[0], &a) && ax_map(ya, ya->ticks[1], &b))
				sp = fabs(b - a);
		}
		every = label_every(lh, sp);
		double ex = side == 2 ? px1 + y3_off : side ? px1 : px0, dir = side ? 1 : -1;
		for (size_t i = 0; i < ya->n_ticks; i++) {
			double p;
			if (!ax_map(ya, ya->ticks[i], &p) || p < py0 - 0.5 || p > py1 + 0.5)
				continue;
			br_cv_move_to(cv, ex, p);
			br_cv_line_to(cv, ex + dir * tick_len, p);
			br_cv_stroke(cv);
			if (i % every)
				continue;
			int mk = tick_text(ya, i, buf, sizeof buf);
			br_text_draw(cv, buf, fs, 0, mk, ex + dir * (tick_len + 1.5), p, side ? 0 : 1, 0.5, 0);
		}
	}
	/* axis titles */
	br_cv_rgb(cv, 0, 0, 0);
	if (c->x.title && c->x.title[0]) {
		double s = fit_size(cv, c->x.title, tfs, px1 - px0);
		br_text_draw(cv, c->x.title, s, 0, 0, (px0 + px1) / 2, bottom, 0.5, 1, 0);
	}
	if (c->y.title && c->y.title[0]) {
		double s = fit_size(cv, c->y.title, tfs, py1 - py0 + 10);
		br_text_draw(cv, c->y.title, s, 0, 0, left, (py0 + py1) / 2, 0.5, 0, 90);
	}
	if (c->has_y2 && c->y2.title && c->y2.title[0]) {
		double s = fit_size(cv, c->y2.title, tfs, py1 - py0 + 10);
		br_text_draw(cv, c->y2.title, s, 0, 0, right - y3_block, (py0 + py1) / 2, 0.5, 1, 90);
	}
	if (has_y3 && c->y3.title && c->y3.title[0]) {
		double s = fit_size(cv, c->y3.title, tfs, py1 - py0 + 10);
		br_text_draw(cv, c->y3.title, s, 0, 0, right, (py0 + py1) / 2, 0.5, 1, 90);
	}
	br_cv_restore(cv);
}

/* br_chart_has_data: see chart.h. */
int
br_chart_has_data(const br_chart *c)
{
	for (size_t i = 0; i < c->n_series; i++) {
		const br_chart_series *s = &c->series[i];
		int xs = c->x.scale, ys = s->side == BR_SIDE_RIGHT2 ? c->y3.scale :
		    s->side == BR_SIDE_RIGHT ? c->y2.scale : c->y.scale;
		for (size_t j = 0; j < s->n; j++)
			if (usable(xs, s->x[j]) && usable(ys, s->y[j]))
				return 1;
	}
	return 0;
}
