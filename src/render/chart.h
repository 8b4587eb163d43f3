/*
 * A small chart layer, private to src/render/.
 *
 * A chart is drawn into a rectangle of a canvas (src/render/canvas.h, which
 * records the drawing for the cairo and libharu backends; units: PostScript
 * points). It has a title, a legend placed above the plot area (outside it,
 * so it never hides data), an x axis, a left y axis and an optional right y
 * axis (dual axes), each linear or log10 with "nice" ticks (1-2-5 steps,
 * log decades) and a title that carries the unit. Data are series (lines,
 * step lines, scatter markers, bars, stacked areas) plus vertical or
 * horizontal reference lines with labels and shaded x bands.
 *
 * Text is measured by pango (font "DejaVu Sans", fontconfig falls back to
 * a CJK font for glyphs DejaVu lacks), so labels may hold any UTF-8.
 * Non-finite coordinates (NaN, ±Inf) and non-positive values on log axes
 * are skipped (lines break there); nothing non-finite reaches a backend.
 *
 * Colours: a fixed palette whose entries differ in lightness as well as hue,
 * and each colour index has its own dash pattern and marker shape, so the
 * series stay distinguishable when printed in grey.
 *
 * Ownership: br_chart owns copies of everything passed in; br_chart_free.
 */
#ifndef BR_RENDER_CHART_H
#define BR_RENDER_CHART_H

#include <stddef.h>
#include "render/canvas.h"

enum br_scale { BR_SCALE_LINEAR = 0, BR_SCALE_LOG10 };

enum br_series_kind {
	BR_SERIES_LINE = 0,     /* straight segments between points */
	BR_SERIES_STEP,         /* horizontal then vertical (value holds until the next x) */
	BR_SERIES_SCATTER,      /* markers only */
	BR_SERIES_BARS,         /* bars from 0 (log: from the axis bottom) to y */
	BR_SERIES_AREA_STACKED, /* filled, stacked on the previous stacked series of the same side */
	BR_SERIES_HBARS_STACKED /* horizontal bars: at y[j] (thickness bar_width in y units, 0 = 0.6),
	                           from the sum of the earlier HBARS_STACKED series at index j
	                           (non-finite parts count as 0) to that sum + x[j]; x[j] >= 0 */
};

/* BR_SIDE_RIGHT2: a second right axis, drawn outside the first (e.g. a count
 * beside a percentage) */
enum br_side { BR_SIDE_LEFT = 0, BR_SIDE_RIGHT, BR_SIDE_RIGHT2 };
enum br_label_pos { BR_LABEL_TOP = 0, BR_LABEL_BOTTOM };

#define BR_PALETTE_N 6

typedef struct br_axis {
	int scale;              /* enum br_scale */
	double min, max;        /* NAN = automatic (linear: extended to nice ticks) */
	int include_zero;       /* linear automatic range always contains 0 */
	int whole_ticks;        /* (added) linear automatic range of a count: ticks on whole
	                           numbers only (the range spans at least 4 units) */
	char *title;            /* with unit, e.g. "time since first sample (s)" */
	/* Category ticks (bar charts): when n_cat > 0 these replace the numeric ticks.
	 * x category labels that do not fit side by side are drawn rotated by 90°. */
	size_t n_cat;
	double *cat_v;
	char **cat_label;
} br_axis;

typedef struct br_chart_series {
	int kind;               /* enum br_series_kind */
	int side;               /* enum br_side: which y axis */
	int color;              /* palette index (mod BR_PALETTE_N) */
	int dash;               /* dash pattern index; -1 = the colour's own */
	char *label;            /* legend text; NULL = not in the legend */
	double *x, *y;          /* owned copies, n points */
	size_t n;
	double line_width_pt;   /* 0 = default (1.1 pt) */
	double bar_width;       /* bars: width in x data units (0 = 0.8) */
	double bar_offset;      /* bars: shift in x data units (grouped bars) */
	double *err;            /* (added) bars: NULL, or n half-lengths in y units of a whisker
	                           y ± err[j] (e.g. the sd over repeats); NaN = none. Owned;
	                           set with br_chart_series_set_err */
	int no_gap_break;       /* (added) 1: drawn through x gaps wider than the chart's max_gap_x
	                           (a reference line given as its two end points) */
	int uncounted;          /* (added) 1: the series redraws, as a summary, points another
	                           series of the chart draws (a line through the means of
	                           repeats): its missing points are not counted as not drawn */
} br_chart_series;

typedef struct br_refline {
	int vertical;           /* 1: x = value; 0: y = value on `side` */
	int side;
	double value;
	char *label;            /* drawn next to the line; NULL = none */
	int color, dash;        /* dash -1 = dashed */
	int label_pos;          /* vertical lines: enum br_label_pos */
	int label_left;         /* (added) vertical lines: the label left of the line (else right;
	                           either flips when it would leave the plot) */
} br_refline;

/* A text note at a data point (values on bars, a labelled point). */
typedef struct br_note {
	int side;               /* y axis of (x, y) */
	double x, y;            /* anchor in data units */
	char *text;
	int color;              /* palette index (light colours are darkened); -1 = black */
	double dx_pt, dy_pt;    /* offset of the text anchor from the point, points (y down) */
	double ax, ay;          /* text anchor fractions as br_text_draw (0.5, 1 = centred above) */
} br_note;

typedef struct br_band {
	double x0, x1;          /* shaded x interval (data units) */
	char *label;            /* legend text; NULL = none */
	int veil;               /* (added) 1: what is drawn inside the band (bars, lines, markers) is
	                           muted under a translucent white veil, so runs that are not part of
	                           the comparison (calibration runs) read as background */
} br_band;

typedef struct br_chart {
	char *title;            /* drawn above the legend; NULL = none */
	br_axis x, y, y2, y3;
	int has_y2;             /* draw the right axis */
	int has_y3;             /* draw the outer right axis (BR_SIDE_RIGHT2; needs has_y2) */
	br_chart_series *series;
	size_t n_series;
	br_refline *refs;
	size_t n_refs;
	br_band *bands;
	size_t n_bands;
	br_note *notes;         /* drawn last, inside the plot; a note that would overlap an
	                           earlier note or a reference-line label is left out */
	size_t n_notes;
	int legend;             /* 1: legend above the plot area (default) */
	double font_pt;         /* tick label size; titles are scaled from it (default 7.5) */
	double max_gap_x;       /* (added) > 0: a line or step series breaks where consecutive x
	                           lie further apart (a time series' missing samples are not drawn
	                           as a straight line across the gap); 0 = never */
} br_chart;

/* br_chart_new: an empty chart, linear axes, legend on. Free with br_chart_free. */
br_chart *br_chart_new(const char *title);
void br_chart_free(br_chart *c);

/* br_axis_set: scale and title (copied) of an axis. */
void br_axis_set(br_axis *ax, int scale, const char *title);

/* br_axis_set_categories: category ticks (values and labels are copied). */
void br_axis_set_categories(br_axis *ax, const double *v, const char *const *labels, size_t n);

/*
 * br_chart_add: add a series (x, y copied; may contain NaN, skipped when
 * drawn). Returns the series so the caller can adjust dash, width, bars.
 */
br_chart_series *br_chart_add(br_chart *c, int kind, int side, int color,
    const char *label, const double *x, const double *y, size_t n);

/* br_chart_series_set_err: whiskers y[j] ± err[j] (y units, n = the
 * series' n; NaN = no whisker) for a BARS series; the array is copied. */
void br_chart_series_set_err(br_chart_series *s, const double *err);

/* br_chart_add_vline / _hline: reference lines (ignored when value is not finite). */
br_refline *br_chart_add_vline(br_chart *c, double x, const char *label, int color, int label_pos);
br_refline *br_chart_add_hline(br_chart *c, int side, double y, const char *label, int color);

/*
 * br_chart_add_note: a text note anchored at data point (x, y) of axis
 * `side`, offset by (dx_pt, dy_pt) points, text anchor (ax, ay) as
 * br_text_draw. Ignored when x or y is not finite. Returns the note.
 */
br_note *br_chart_add_note(br_chart *c, int side, double x, double y, const char *text,
    int color, double dx_pt, double dy_pt, double ax, double ay);

/* br_chart_add_band: shaded x interval (ignored when an end is not finite:
 * returns NULL). Returns the band, owned by the chart (set veil on it). */
br_band *br_chart_add_band(br_chart *c, double x0, double x1, const char *label);

/* br_chart_has_data: 1 when at least one series has a drawable point. */
int br_chart_has_data(const br_chart *c);

/*
 * br_chart_draw: draw the chart into the rectangle (x, y, w, h) of cv
 * (points). The graphics state is saved and restored.
 */
void br_chart_draw(const br_chart *c, br_canvas *cv, double x, double y, double w, double h);

/*
 * br_nice_ticks: tick values for the data range [lo, hi].
 * Linear: a 1-2-5 step giving at most `target` intervals; the range is
 * widened to multiples of the step unless `fixed` (then only ticks inside).
 * Log10: the decades inside [lo, hi] (every 2nd/3rd… decade when there are
 * more than target+1; 1-2-5 ticks when fewer than two decades fit); the
 * range is not widened. lo > 0 required for log.
 * Out: ticks[0..return) ascending (at most max_ticks), *lo_out and *hi_out the
 * axis range (may be NULL). Returns the number of ticks (0 when lo/hi are
 * not finite or lo > hi).
 */
size_t br_nice_ticks(double lo, double hi, int scale, int target, int fixed,
    double *ticks, size_t max_ticks, double *lo_out, double *hi_out);

/*
 * br_tick_label: text of a tick value into buf (locale independent, '.'
 * decimal point). `step` is the linear tick spacing (decides the decimals;
 * NAN for log ticks, which print as plain numbers from 0.001 to 99999 and
 * as 10^k in pango markup beyond; linear ticks of a step of 10^5 or more
 * print as m×10^k too). Returns 1 when buf is pango markup.
 */
int br_tick_label(double v, double step, char *buf, size_t len);

/* br_palette_rgb: colour `idx` (mod BR_PALETTE_N) as r, g, b in 0..1. */
void br_palette_rgb(int idx, double rgb[3]);

#endif
