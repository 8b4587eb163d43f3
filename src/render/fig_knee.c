/*
 * Knee figures (DESIGN.md §4 "the knee curves"): throughput and SLO
 * percentiles vs the swept x (offered request rate, or max_concurrency for
 * closed-loop sweeps, never mixed), one curve per group, knee marked, SLO
 * line drawn. See include/benchreport/knee.h (br_fig_knee).
 *
 * Text: templates/knee.LANG.json "figtext.figK.*" (shared: x_rate,
 * x_concurrency, knee {x}, curve {n}, curve_suffix {n, suffix}, achieved,
 * goodput, mu_curve {n, mu}, mu_plateau {mu}, lambda_mu, lambda_mu_at {mu},
 * list_sep, caption_curves, caption_repeats), "figtext.figK-throughput.*"
 * (title_rate, title_concurrency, panel_requests, panel_output, y_requests,
 * y_output, legend_ideal, caption_rate | caption_concurrency {title, slo,
 * curves, repeats}) and "figtext.figK-latency.*" (title_rate,
 * title_concurrency, y_axis {metric, p}, y2_axis, legend_waiting, ref_slo
 * {limit}, note_no_queue, caption_no_panel {terms}, caption_rate |
 * caption_concurrency {title, terms, curves, repeats, no_panel}). The x tick
 * "inf", the SLO term text and the metric names are symbols, not words.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "benchreport/knee.h"
#include "render/figure_io.h"

/* fmt_x: an x value as tick text ("4", "0.5", "inf"). */
static void
fmt_x(double x, char *buf, size_t len)
{
	if (isinf(x))
		snprintf(buf, len, "inf");
	else
		g_ascii_formatd(buf, len, "%.4g", x);
}

/* inf_position: where "inf" is drawn: log2 of twice the largest finite x of the kind (1 when none). */
static double
inf_position(const br_knee_result *r, int kind)
{
	double mx = NAN;
	for (size_t g = 0; g < r->n_groups; g++) {
		if (r->groups[g].kind != kind)
			continue;
		for (size_t i = 0; i < r->groups[g].n; i++) {
			double x = r->groups[g].pts[i].x;
			if (isfinite(x) && x > 0 && !(x <= mx))
				mx = x;
		}
	}
	return isfinite(mx) ? log2(mx) + 1 : 1;
}

/*
 * xpos: plotted position of x: log2(x) on a linear axis (so doublings are
 * evenly spaced and category labels never collide), inf at infpos.
 */
static double
xpos(double x, double infpos)
{
	return isinf(x) ? infpos : x > 0 ? log2(x) : NAN;
}

/*
 * set_x_axis: log x axis with a category tick at every distinct x of the
 * kind (so "inf" gets its label), titled by kind.
 */
static void
set_x_axis(br_chart *c, br_ftx *ft, const br_knee_result *r, int kind, double infpos)
{
	br_axis_set(&c->x, BR_SCALE_LINEAR, kind == BR_KNEE_RATE ? br_ft(ft, "figK.x_rate") : br_ft(ft, "figK.x_concurrency"));
	br_dvec v = { 0 };
	for (size_t g = 0; g < r->n_groups; g++) {
		if (r->groups[g].kind != kind)
			continue;
		for (size_t i = 0; i < r->groups[g].n; i++) {
			double x = r->groups[g].pts[i].x;
			if (!(x > 0))
				continue;
			double p = xpos(x, infpos);
			size_t k;
			for (k = 0; k < v.n; k++)
				if (v.v[k] == p)
					break;
			if (k == v.n)
				br_dvec_push(&v, p);
		}
	}
	/* ascending */
	for (size_t i = 1; i < v.n; i++)
		for (size_t j = i; j > 0 && v.v[j - 1] > v.v[j]; j--) {
			double t = v.v[j];
			v.v[j] = v.v[j - 1];
			v.v[j - 1] = t;
		}
	char **lab = br_xcalloc(v.n ? v.n : 1, sizeof *lab);
	int has_inf = 0;
	for (size_t g = 0; g < r->n_groups; g++)
		for (size_t i = 0; i < r->groups[g].n; i++)
			if (r->groups[g].kind == kind && isinf(r->groups[g].pts[i].x))
				has_inf = 1;
	for (size_t i = 0; i < v.n; i++) {
		char buf[32];
		if (has_inf && v.v[i] == infpos)
			snprintf(buf, sizeof buf, "inf");
		else
			fmt_x(exp2(v.v[i]), buf, sizeof buf);
		lab[i] = br_xstrdup(buf);
	}
	if (v.n > 0) {
		br_axis_set_categories(&c->x, v.v, (const char *const *)lab, v.n);
		c->x.min = v.v[0] - 0.5;
		c->x.max = v.v[v.n - 1] + 0.5;
	}
	for (size_t i = 0; i < v.n; i++)
		free(lab[i]);
	free(lab);
	br_dvec_free(&v);
}

/* mark_knee: a vertical line at each group's knee (group colour). */
static void
mark_knee(br_chart *c, br_ftx *ft, const br_knee_result *r, int kind, double infpos, int with_label)
{
	size_t gi = 0;
	for (size_t g = 0; g < r->n_groups; g++) {
		const br_knee_group *G = &r->groups[g];
		if (G->kind != kind)
			continue;
		if (G->knee_idx >= 0) {
			char buf[32];
			const char *lab = NULL;
			fmt_x(G->pts[G->knee_idx].x, buf, sizeof buf);
			if (with_label)
				lab = br_ftp(ft, "figK.knee", "{s:s}", "x", buf);
			br_refline *rl = br_chart_add_vline(c, xpos(G->pts[G->knee_idx].x, infpos), lab, (int)gi,
			    BR_LABEL_TOP);
			if (rl)
				rl->dash = 1;
		}
		gi++;
	}
}

/* group_series: x positions and one value per point of G via get(). */
static void
group_xy(const br_knee_group *G, double infpos, double (*get)(const br_knee_point *, const void *),
    const void *arg, double *x, double *y)
{
	for (size_t i = 0; i < G->n; i++) {
		x[i] = xpos(G->pts[i].x, infpos);
		y[i] = get(&G->pts[i], arg);
	}
}

/*
 * add_curve: one curve of n points (x ascending, repeats at one x side by
 * side) onto ch in colour gi: a line (dash pattern `dash`), and with
 * `markers` a marker at every point. Repeats at one x are joined through
 * their mean (a vertical segment between two repeats would read as a
 * curve); their markers stay apart, and the markers carry the count of
 * points not drawn. Returns the line series.
 */
static br_chart_series *
add_curve(br_chart *ch, int gi, const char *label, const double *x, const double *y, size_t n,
    int dash, int markers)
{
	double *lx = br_xmalloc((n ? n : 1) * sizeof *lx), *ly = br_xmalloc((n ? n : 1) * sizeof *ly);
	size_t m = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i, k = 0;
		double sum = 0;
		for (; j < n && (x[j] == x[i] || (isnan(x[j]) && isnan(x[i]))); j++)
			if (isfinite(y[j])) {
				sum += y[j];
				k++;
			}
		lx[m] = x[i];
		ly[m++] = k ? sum / (double)k : NAN;
		i = j;
	}
	br_chart_series *s = br_chart_add(ch, BR_SERIES_LINE, BR_SIDE_LEFT, gi, label, lx, ly, m);
	s->dash = dash;
	s->uncounted = markers && m < n;
	free(lx);
	free(ly);
	if (markers)
		br_chart_add(ch, BR_SERIES_SCATTER, BR_SIDE_LEFT, gi, NULL, x, y, n);
	return s;
}

/* repeats_note: the caption sentence on repeats when a curve of `kind` has some, else "". */
static const char *
repeats_note(br_ftx *ft, const br_knee_result *r, int kind)
{
	for (size_t g = 0; g < r->n_groups; g++)
		if (r->groups[g].kind == kind && r->groups[g].has_repeats)
			return br_ft(ft, "figK.caption_repeats");
	return "";
}

static double get_achieved(const br_knee_point *p, const void *a) { (void)a; return p->achieved_rps; }
static double get_goodput(const br_knee_point *p, const void *a) { (void)a; return p->goodput_rps; }
static double get_output(const br_knee_point *p, const void *a) { (void)a; return p->output_tps; }
static double get_term(const br_knee_point *p, const void *a) { return p->slo_value_ms[*(const size_t *)a]; }

/*
 * curve_label: legend text of group g (0-based index into r->groups):
 * "curve N" (the numbering of the report's Curves section, where each
 * curve's settings are spelled out; the settings themselves are too long
 * for a legend), followed by " suffix" when suffix is given. With a single
 * curve of the kind: the suffix alone, or NULL when there is none.
 */
static char *
curve_label(br_ftx *ft, size_t g, size_t n_of_kind, const char *suffix)
{
	if (n_of_kind <= 1)
		return suffix ? br_xstrdup(suffix) : NULL;
	return br_xstrdup(suffix ? br_ftp(ft, "figK.curve_suffix", "{s:I,s:s}", "n", (json_int_t)(g + 1), "suffix", suffix) :
	    br_ftp(ft, "figK.curve", "{s:I}", "n", (json_int_t)(g + 1)));
}

/* n_groups_of: number of groups of a kind. */
static size_t
n_groups_of(const br_knee_result *r, int kind)
{
	size_t n = 0;
	for (size_t g = 0; g < r->n_groups; g++)
		n += r->groups[g].kind == kind;
	return n;
}

/* nice125_below / nice125_above: the largest 1-2-5 × 10^k value at or below
 * v / 1.08, the smallest at or above v × 1.08 (v > 0): log-axis ends that
 * leave a margin and carry a tick label each. */
static double
nice125_below(double v)
{
	static const double m[3] = { 5, 2, 1 };
	v /= 1.08;
	for (int d = (int)ceil(log10(v)); d > -12; d--)
		for (int k = 0; k < 3; k++) {
			double t = m[k] * pow(10.0, d - 1);
			if (t <= v * (1 + 1e-12))
				return t;
		}
	return v;
}

static double
nice125_above(double v)
{
	static const double m[3] = { 1, 2, 5 };
	v *= 1.08;
	for (int d = (int)floor(log10(v)); d < 12; d++)
		for (int k = 0; k < 3; k++) {
			double t = m[k] * pow(10.0, d);
			if (t >= v * (1 - 1e-12))
				return t;
		}
	return v;
}

/*
 * log_range_125: range of a log axis holding every positive finite value
 * of v[0..n) (and `extra`, e.g. the SLO limit): ends on 1-2-5 values, so
 * the axis always has a labelled tick at or below the smallest value and
 * at or above the largest, even when the data span less than a decade
 * (the chart layer labels only the 1-2-5 values inside the range; with
 * three or more decades inside it labels decades only, so the ends are
 * then decades too).
 * *lo = *hi = NAN when nothing is positive.
 */
static void
log_range_125(const double *v, size_t n, double extra, double *lo, double *hi)
{
	double mn = NAN, mx = NAN;
	for (size_t i = 0; i <= n; i++) {
		double x = i < n ? v[i] : extra;
		if (!(isfinite(x) && x > 0))
			continue;
		if (!(x >= mn))
			mn = x;
		if (!(x <= mx))
			mx = x;
	}
	if (isnan(mn)) {
		*lo = *hi = NAN;
		return;
	}
	*lo = nice125_below(mn);
	*hi = nice125_above(mx);
	int d0 = (int)ceil(log10(*lo) - 1e-9), d1 = (int)floor(log10(*hi) + 1e-9);
	if (d1 - d0 + 1 >= 3) {
		/* the chart labels decades only here: end on decades */
		*lo = pow(10.0, floor(log10(mn / 1.08)));
		*hi = pow(10.0, ceil(log10(mx * 1.08)));
	}
}

/* kind_name: file/title word for a kind. */
static const char *
kind_word(int kind)
{
	return kind == BR_KNEE_RATE ? "rate" : "concurrency";
}

/*
 * mu_lines: Little's law on the achieved-rate panel (Little 1961; knee
 * tutorial §3.3): per rate curve with a μ (the plateau of its achieved
 * rate) a horizontal line at μ and, where it meets the achieved = offered
 * diagonal (offered = μ), a ring marker: the λ = μ knee. The y axis is
 * bounded at 1.35 × the largest plotted rate so the diagonal, which runs on
 * up to the largest offered rate, does not flatten the curves (it is
 * clipped at the top).
 */
static void
mu_lines(br_chart *c, br_ftx *ft, const br_knee_result *r, double infpos)
{
	size_t nk = n_groups_of(r, BR_KNEE_RATE), gi = 0;
	double ymax = NAN;
	for (size_t g = 0; g < r->n_groups; g++) {
		const br_knee_group *G = &r->groups[g];
		if (G->kind != BR_KNEE_RATE)
			continue;
		for (size_t i = 0; i < G->n; i++) {
			const double v[2] = { G->pts[i].achieved_rps, G->pts[i].goodput_rps };
			for (int k = 0; k < 2; k++)
				if (isfinite(v[k]) && isfinite(G->pts[i].x) && !(v[k] <= ymax))
					ymax = v[k];
		}
		if (isfinite(G->mu_rps)) {
			if (!(G->mu_rps <= ymax))
				ymax = G->mu_rps;
			int col = nk > 1 ? (int)gi : 2;
			char num[32];
			br_fig_num(num, sizeof num, "%.2f", G->mu_rps);
			const char *lab = nk > 1 ? br_ftp(ft, "figK.mu_curve", "{s:I,s:s}", "n", (json_int_t)(g + 1), "mu", num)
			                         : br_ftp(ft, "figK.mu_plateau", "{s:s}", "mu", num);
			br_refline *h = br_chart_add_hline(c, BR_SIDE_LEFT, G->mu_rps, lab, col);
			if (h)
				h->dash = 0;
			/* the crossing with offered = achieved, inside the x range */
			double cx = xpos(G->mu_rps, infpos), cy = G->mu_rps;
			if (isfinite(cx) && cx >= c->x.min && cx <= c->x.max) {
				br_chart_series *m = br_chart_add(c, BR_SERIES_SCATTER, BR_SIDE_LEFT, 4,
				    gi == 0 ? br_ft(ft, "figK.lambda_mu") : NULL, &cx, &cy, 1);
				m->uncounted = 1;
				/* and down to the offered rate where it happens */
				br_refline *v = br_chart_add_vline(c, cx, br_ftp(ft, "figK.lambda_mu_at", "{s:s}", "mu", num), 4,
				    BR_LABEL_BOTTOM);
				if (v)
					v->dash = 2;
			}
		}
		gi++;
	}
	if (isfinite(ymax) && ymax > 0) {
		c->y.min = 0;
		c->y.max = 1.35 * ymax;
	}
}

/*
 * fig_throughput: achieved and goodput req/s (left panel) and output tok/s
 * (right panel) vs x for the groups of `kind`. 1 made, 0 no data, -1 error.
 */
static int
fig_throughput(const br_knee_result *r, br_ftx *ft, int kind, const char *out_dir, const char *id,
    br_figure *out, char **cause)
{
	double infpos = inf_position(r, kind);
	br_chart *c1 = br_chart_new(br_ft(ft, "figK-throughput.panel_requests"));
	br_chart *c2 = br_chart_new(br_ft(ft, "figK-throughput.panel_output"));
	set_x_axis(c1, ft, r, kind, infpos);
	set_x_axis(c2, ft, r, kind, infpos);
	br_axis_set(&c1->y, BR_SCALE_LINEAR, br_ft(ft, "figK-throughput.y_requests"));
	br_axis_set(&c2->y, BR_SCALE_LINEAR, br_ft(ft, "figK-throughput.y_output"));
	c1->y.include_zero = 1;
	c2->y.include_zero = 1;
	GString *csv = g_string_new("group,x,x_label,achieved_rps,goodput_rps,output_tps,total_tps,mu_rps\n");
	size_t gi = 0, nk = n_groups_of(r, kind);
	double xmin = NAN, xmax = NAN;
	for (size_t g = 0; g < r->n_groups; g++) {
		const br_knee_group *G = &r->groups[g];
		if (G->kind != kind)
			continue;
		double *x = br_xmalloc((G->n ? G->n : 1) * sizeof *x), *y = br_xmalloc((G->n ? G->n : 1) * sizeof *y);
		/* legend: achieved (solid) and goodput (dashed) of each curve */
		char *lab_a = curve_label(ft, g, nk, br_ft(ft, "figK.achieved"));
		char *lab_g = curve_label(ft, g, nk, br_ft(ft, "figK.goodput"));
		char *lab = curve_label(ft, g, nk, NULL);
		group_xy(G, infpos, get_achieved, NULL, x, y);
		add_curve(c1, (int)gi, lab_a, x, y, G->n, 0, 1);
		group_xy(G, infpos, get_goodput, NULL, x, y);
		add_curve(c1, (int)gi, lab_g, x, y, G->n, 1, 0);
		group_xy(G, infpos, get_output, NULL, x, y);
		add_curve(c2, (int)gi, lab, x, y, G->n, 0, 1);
		free(lab_a);
		free(lab_g);
		free(lab);
		for (size_t i = 0; i < G->n; i++) {
			const br_knee_point *p = &G->pts[i];
			char xb[32];
			fmt_x(p->x, xb, sizeof xb);
			g_string_append_printf(csv, "%zu,", g + 1);
			br_csv_num(csv, x[i]);
			g_string_append_printf(csv, ",%s,", xb);
			br_csv_num(csv, p->achieved_rps);
			g_string_append_c(csv, ',');
			br_csv_num(csv, p->goodput_rps);
			g_string_append_c(csv, ',');
			br_csv_num(csv, p->output_tps);
			g_string_append_c(csv, ',');
			br_csv_num(csv, p->total_tps);
			g_string_append_c(csv, ',');
			br_csv_num(csv, G->mu_rps);
			g_string_append_c(csv, '\n');
			if (isfinite(p->x) && p->x > 0) {
				if (!(p->x >= xmin))
					xmin = p->x;
				if (!(p->x <= xmax))
					xmax = p->x;
			}
		}
		free(x);
		free(y);
		gi++;
	}
	if (kind == BR_KNEE_RATE && isfinite(xmin)) {
		/* the ideal: achieved = offered */
		double ix[64], iy[64];
		size_t ni = 0;
		for (double v = xmin; v <= xmax * 1.0000001 && ni < 64; v *= 1.25, ni++) {
			ix[ni] = log2(v);
			iy[ni] = v;
		}
		br_chart_series *s = br_chart_add(c1, BR_SERIES_LINE, BR_SIDE_LEFT, 5, br_ft(ft, "figK-throughput.legend_ideal"), ix, iy, ni);
		s->dash = 3;
		s->line_width_pt = 0.7;
	}
	if (kind == BR_KNEE_RATE)
		mu_lines(c1, ft, r, infpos);
	mark_knee(c1, ft, r, kind, infpos, 1);
	mark_knee(c2, ft, r, kind, infpos, 0);
	c1->legend = 1;
	c2->legend = gi > 1;
	int rc = 0;
	if (gi > 0 && br_chart_has_data(c1)) {
		br_chart *charts[2] = { c1, c2 };
		int rate = kind == BR_KNEE_RATE;
		const char *title = rate ? br_ft(ft, "figK-throughput.title_rate") : br_ft(ft, "figK-throughput.title_concurrency");
		const char *caption = br_ftp(ft, rate ? BR_FT_KEY("figK-throughput.caption_rate") :
		    BR_FT_KEY("figK-throughput.caption_concurrency"), "{s:s,s:s,s:s,s:s}", "title", title, "slo", r->slo.text,
		    "curves", nk > 1 ? br_ft(ft, "figK.caption_curves") : "", "repeats", repeats_note(ft, r, kind));
		br_fig_spec spec = {
			.id = id, .title = title, .caption = caption,
			.width_pt = BR_FIG_W_PT, .height_pt = BR_FIG_H_PT,
			.charts = charts, .n_charts = 2, .cols = 2,
			.csv = csv->str, .csv_len = csv->len,
		};
		rc = br_figure_write(out_dir, &spec, out, cause) == 0 ? 1 : -1;
	}
	br_chart_free(c1);
	br_chart_free(c2);
	g_string_free(csv, TRUE);
	return rc;
}

/* latency_drawn: a panel's latency (left-axis) series has a finite point: the
 * queue signal on the right axis alone is no panel (one-token outputs have
 * no TPOT: twelfth breaker saw an empty TPOT axis beside the SLO line) */
static int
latency_drawn(const br_chart *c)
{
	for (size_t i = 0; i < c->n_series; i++)
		if (c->series[i].side == BR_SIDE_LEFT)
			for (size_t j = 0; j < c->series[i].n; j++)
				if (isfinite(c->series[i].y[j]) && c->series[i].y[j] > 0)
					return 1;
	return 0;
}

/*
 * fig_latency: one panel per SLO term: that percentile vs x, log y, the
 * SLO limit as a horizontal line, knees marked. 1 made, 0 no data, -1 error.
 */
static int
fig_latency(const br_knee_result *r, br_ftx *ft, int kind, const char *out_dir, const char *id,
    br_figure *out, char **cause)
{
	double infpos = inf_position(r, kind);
	const br_slo *slo = &r->slo;
	br_chart *charts[BR_SLO_MAX_TERMS];
	size_t nc = 0;
	GString *csv = g_string_new("term,group,x,x_label,value_ms,limit_ms,waiting_share_frac\n");
	size_t n_queue = 0;      /* points with a queue signal (waiting share) */
	for (size_t g = 0; g < r->n_groups; g++)
		if (r->groups[g].kind == kind)
			n_queue += r->groups[g].n_queue_known;
	GString *drawn = g_string_new(NULL), *empty = g_string_new(NULL);  /* terms with and without a panel */
	for (size_t k = 0; k < slo->n; k++) {
		const br_slo_term *t = &slo->terms[k];
		char pct[16];
		g_ascii_formatd(pct, sizeof pct, "%g", t->percentile);
		char *title = br_xasprintf("%s", t->text);
		br_chart *c = br_chart_new(title);
		free(title);
		set_x_axis(c, ft, r, kind, infpos);
		/* the metric's name upper-cased ("TTFT"): a symbol, the same in every language */
		char *mn = br_xstrdup(br_slo_metric_name(t->metric));
		for (char *q = mn; *q; q++)
			*q = (char)(*q >= 'a' && *q <= 'z' ? *q - 32 : *q);
		br_axis_set(&c->y, BR_SCALE_LOG10, br_ftp(ft, "figK-latency.y_axis", "{s:s,s:s}", "metric", mn, "p", pct));
		free(mn);
		size_t gi = 0, nk = n_groups_of(r, kind);
		br_dvec all = { 0 };
		for (size_t g = 0; g < r->n_groups; g++) {
			const br_knee_group *G = &r->groups[g];
			if (G->kind != kind)
				continue;
			double *x = br_xmalloc((G->n ? G->n : 1) * sizeof *x), *y = br_xmalloc((G->n ? G->n : 1) * sizeof *y);
			group_xy(G, infpos, get_term, &k, x, y);
			for (size_t i = 0; i < G->n; i++)
				if (isfinite(x[i]))
					br_dvec_push(&all, y[i]);
			char *lab = curve_label(ft, g, nk, NULL);
			add_curve(c, (int)gi, nc == 0 ? lab : NULL, x, y, G->n, 0, 1);
			free(lab);
			for (size_t i = 0; i < G->n; i++) {
				char xb[32];
				fmt_x(G->pts[i].x, xb, sizeof xb);
				g_string_append_printf(csv, "%s,%zu,", t->text, g + 1);
				br_csv_num(csv, x[i]);
				g_string_append_printf(csv, ",%s,", xb);
				br_csv_num(csv, y[i]);
				g_string_append_c(csv, ',');
				br_csv_num(csv, t->limit_ms);
				g_string_append_c(csv, ',');
				br_csv_num(csv, G->pts[i].waiting_share_frac);
				g_string_append_c(csv, '\n');
			}
			if (n_queue > 0) {
				/* the queue signal: % of samples with waiting > 0, right axis */
				double *q = br_xmalloc((G->n ? G->n : 1) * sizeof *q);
				for (size_t i = 0; i < G->n; i++)
					q[i] = 100.0 * G->pts[i].waiting_share_frac;
				const char *ql = gi == 0 ? br_ft(ft, "figK-latency.legend_waiting") : NULL;   /* every panel: equal heights */
				br_chart_series *qs = br_chart_add(c, BR_SERIES_LINE, BR_SIDE_RIGHT, 5, NULL, x, q, G->n);
				qs->dash = 2;
				qs->line_width_pt = 0.7;
				qs->uncounted = 1;
				br_chart_add(c, BR_SERIES_SCATTER, BR_SIDE_RIGHT, 5, ql, x, q, G->n)->uncounted = 1;
				free(q);
			}
			free(x);
			free(y);
			gi++;
		}
		char lim[32];
		g_ascii_formatd(lim, sizeof lim, "%g", t->limit_ms);
		br_refline *h = br_chart_add_hline(c, BR_SIDE_LEFT, t->limit_ms,
		    br_ftp(ft, "figK-latency.ref_slo", "{s:s}", "limit", lim), 4);
		if (h)
			h->dash = 2;
		mark_knee(c, ft, r, kind, infpos, 1);
		/* y range on 1-2-5 values around the data and the limit: labelled ticks
		 * cover the points even when they span less than a decade */
		log_range_125(all.v, all.n, t->limit_ms, &c->y.min, &c->y.max);
		br_dvec_free(&all);
		if (n_queue > 0) {
			br_axis_set(&c->y2, BR_SCALE_LINEAR, br_ft(ft, "figK-latency.y2_axis"));
			c->y2.min = -4;    /* 4 points beyond 0 and 100 %: a marker there is not cut by the frame */
			c->y2.max = 104;
		} else {
			/* no series anywhere: the queue signal is unknown, never drawn as 0 */
			br_chart_add_note(c, BR_SIDE_LEFT, c->x.min, c->y.min, br_ft(ft, "figK-latency.note_no_queue"),
			    5, 4, -4, 0, 1);
		}
		c->legend = (nc == 0 && gi > 1) || n_queue > 0;   /* the queue entry on every panel: equal heights */
		if (gi > 0 && latency_drawn(c)) {
			charts[nc++] = c;
			g_string_append_printf(drawn, "%s%s", drawn->len ? br_ft(ft, "figK.list_sep") : "", t->text);
		} else {
			br_chart_free(c);
			g_string_append_printf(empty, "%s%s", empty->len ? br_ft(ft, "figK.list_sep") : "", t->text);
		}
	}
	int rc = 0;
	if (nc > 0) {
		int rate = kind == BR_KNEE_RATE;
		const char *title = rate ? br_ft(ft, "figK-latency.title_rate") : br_ft(ft, "figK-latency.title_concurrency");
		size_t nk = n_groups_of(r, kind);
		const char *no_panel = empty->len ? br_ftp(ft, "figK-latency.caption_no_panel", "{s:s}", "terms", empty->str) : "";
		const char *caption = br_ftp(ft, rate ? BR_FT_KEY("figK-latency.caption_rate") :
		    BR_FT_KEY("figK-latency.caption_concurrency"), "{s:s,s:s,s:s,s:s,s:s}", "title", title, "terms", drawn->str,
		    "curves", nk > 1 ? br_ft(ft, "figK.caption_curves") : "", "repeats", repeats_note(ft, r, kind),
		    "no_panel", no_panel);
		br_fig_spec spec = {
			.id = id, .title = title, .caption = caption,
			.width_pt = BR_FIG_W_PT,
			.height_pt = nc > 2 ? BR_FIG_H_PT * 1.6 : BR_FIG_H_PT,
			.charts = charts, .n_charts = nc, .cols = nc > 2 ? 2 : (int)nc,
			.csv = csv->str, .csv_len = csv->len,
		};
		rc = br_figure_write(out_dir, &spec, out, cause) == 0 ? 1 : -1;
	}
	for (size_t i = 0; i < nc; i++)
		br_chart_free(charts[i]);
	g_string_free(csv, TRUE);
	g_string_free(drawn, TRUE);
	g_string_free(empty, TRUE);
	return rc;
}

/* br_fig_knee: see knee.h. */
int
br_fig_knee(const br_knee_result *r, const br_template *t, const char *out_dir, br_figure **figs, size_t *n, char **cause)
{
	br_ftx *ft = br_ftx_new(t);
	*figs = br_xcalloc(4, sizeof **figs);
	*n = 0;
	int fig_no = 1;
	for (int kind = BR_KNEE_RATE; kind <= BR_KNEE_CONCURRENCY; kind++) {
		int present = 0;
		for (size_t g = 0; g < r->n_groups; g++)
			present |= r->groups[g].kind == kind;
		if (!present)
			continue;
		char id[64];
		snprintf(id, sizeof id, "figK%d-%s-throughput", fig_no++, kind_word(kind));
		int rc = fig_throughput(r, ft, kind, out_dir, id, &(*figs)[*n], cause);
		if (rc < 0)
			goto fail;
		*n += (size_t)rc;
		snprintf(id, sizeof id, "figK%d-%s-latency", fig_no++, kind_word(kind));
		rc = fig_latency(r, ft, kind, out_dir, id, &(*figs)[*n], cause);
		if (rc < 0)
			goto fail;
		*n += (size_t)rc;
	}
	br_ftx_free(ft);
	return 0;
fail:
	br_ftx_free(ft);
	br_fig_wait(NULL);
	br_figures_free(*figs, *n);
	*figs = NULL;
	*n = 0;
	return -1;
}
