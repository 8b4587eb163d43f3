/*
 * Figures of `benchreport compare` (DESIGN.md §4 "A/B overlays"): A and B
 * drawn on shared axes, A always in palette colour 0 (solid navy), B in
 * colour 1 (orange, its own dash), so the pair reads the same in every
 * figure and in grey print.
 *
 *   figC1-compare-waveform    three panels stacked (running, waiting, KV
 *                             usage %) against time since each run's
 *                             window start; one shared x range
 *   figC2-compare-latency-cdf TTFT, ITL, E2EL CDFs of A and B, one panel
 *                             per metric, p50 of each marked
 *   figC3-compare-ttft-split  queue, prefill, frontend of A vs B, bars
 *                             side by side on one log axis
 *
 * Text: templates/compare.LANG.json "figtext.figC.*" (a, b: the run letters;
 * ab_label {run, name}), "figtext.figC1-compare-waveform.*" (title, x_axis,
 * panel_running|waiting|kv, y_running|waiting|kv, caption, caption_missing
 * {run}), "figtext.figC2-compare-latency-cdf.*" (title, ttft, itl, e2el,
 * x_ttft, x_itl, x_e2el, panel_title {metric, n_a, n_b}, x_axis {name, unit},
 * y_axis, ref_p50 {run, value, unit}, caption {name_a, name_b},
 * caption_missing {run}) and "figtext.figC3-compare-ttft-split.*" (title,
 * queue, prefill, frontend, y_axis, note_s {v}, note_us {v}, note_negative
 * {run, v}, caption, caption_negative, caption_missing {run}). The CSVs keep
 * "A"/"B" and their English names.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "benchreport/model.h"
#include "benchreport/compare.h"
#include "render/figure_io.h"

#define CDF_MAX_POINTS 2000   /* per metric and run, in the plot and the CSV */
#define CMP_COLOR_A 0
#define CMP_COLOR_B 1

/* One run's waveform over its window: t since window start, running, waiting, KV %. */
typedef struct wave {
	size_t n;
	double *t, *y[3];
	int has[3];
	double t_end;
} wave;

/*
 * wave_get: the samples of a run inside its run window (residency window,
 * else br_run_window, else the whole series). Returns 1 when the run has a
 * 1 Hz series with at least one of the three columns, else 0.
 */
static int
wave_get(const br_analysis *a, wave *w)
{
	memset(w, 0, sizeof *w);
	const br_run *run = a->run;
	if (run == NULL || run->metrics == NULL || run->metrics->t_s == NULL ||
	    !br_metrics_is_series(run->metrics_kind))
		return 0;
	const br_series *s = run->metrics;
	if (s->n_rows < 3)
		return 0;
	static const br_role roles[3] = { BR_ROLE_RUNNING, BR_ROLE_WAITING, BR_ROLE_KV_USAGE_FRAC };
	const double *c[3];
	int any = 0;
	for (int k = 0; k < 3; k++) {
		c[k] = br_role_col(s, roles[k]);
		any |= c[k] != NULL;
	}
	if (!any)
		return 0;
	double t0 = NAN, t1 = NAN;
	if (a->residency.available && isfinite(a->residency.window_start_t_s) &&
	    isfinite(a->residency.window_end_t_s)) {
		t0 = a->residency.window_start_t_s;
		t1 = a->residency.window_end_t_s;
	} else {
		size_t i0, i1;
		if (br_run_window(s, &i0, &i1) == 0) {
			t0 = s->t_s[i0];
			t1 = s->t_s[i1];
		}
	}
	if (!isfinite(t0) || !isfinite(t1)) {
		for (size_t i = 0; i < s->n_rows; i++)
			if (isfinite(s->t_s[i])) {
				if (!isfinite(t0))
					t0 = s->t_s[i];
				t1 = s->t_s[i];
			}
	}
	if (!isfinite(t0) || !(t1 > t0))
		return 0;
	w->t = br_xmalloc(s->n_rows * sizeof *w->t);
	for (int k = 0; k < 3; k++)
		w->y[k] = br_xmalloc(s->n_rows * sizeof *w->y[k]);
	for (size_t i = 0; i < s->n_rows; i++) {
		double t = s->t_s[i];
		if (!isfinite(t) || t < t0 - 1e-9 || t > t1 + 1e-9)
			continue;
		w->t[w->n] = t - t0;
		for (int k = 0; k < 3; k++) {
			double v = c[k] ? c[k][i] : NAN;
			w->y[k][w->n] = k == 2 && isfinite(v) ? v * 100 : v;
			w->has[k] |= isfinite(v);
		}
		w->n++;
	}
	w->t_end = t1 - t0;
	return w->n >= 2;
}

static void
wave_free(wave *w)
{
	free(w->t);
	for (int k = 0; k < 3; k++)
		free(w->y[k]);
}

/* ab: the letter of run r (0 = A, 1 = B) as the template spells it. */
static const char *
ab(br_ftx *ft, int r)
{
	return r == 0 ? br_ft(ft, "figC.a") : br_ft(ft, "figC.b");
}

/* legend label "A: name" (owned by ft). */
static const char *
ab_label(br_ftx *ft, int r, const char *name)
{
	return br_ftp(ft, "figC.ab_label", "{s:s,s:s}", "run", ab(ft, r), "name", name ? name : "?");
}

/* fig_waveform: figC1. */
static int
fig_waveform(const br_analysis *a, const br_analysis *b, br_ftx *ft, const char *la, const char *lb,
    const char *out_dir, br_figure *out, char **cause)
{
	wave w[2];
	int ok[2] = { wave_get(a, &w[0]), wave_get(b, &w[1]) };
	int rc = 0;
	if (!ok[0] && !ok[1])
		goto done;
	const char *const title[3] = { br_ft(ft, "figC1-compare-waveform.panel_running"),
		br_ft(ft, "figC1-compare-waveform.panel_waiting"), br_ft(ft, "figC1-compare-waveform.panel_kv") };
	const char *const ytitle[3] = { br_ft(ft, "figC1-compare-waveform.y_running"),
		br_ft(ft, "figC1-compare-waveform.y_waiting"), br_ft(ft, "figC1-compare-waveform.y_kv") };
	double xmax = 0;
	for (int r = 0; r < 2; r++)
		if (ok[r] && w[r].t_end > xmax)
			xmax = w[r].t_end;
	br_chart *charts[3];
	size_t nc = 0;
	const char *labels[2] = { la, lb };
	for (int k = 0; k < 3; k++) {
		if (!(ok[0] && w[0].has[k]) && !(ok[1] && w[1].has[k]))
			continue;
		br_chart *c = br_chart_new(title[k]);
		br_axis_set(&c->x, BR_SCALE_LINEAR, k == 2 ? br_ft(ft, "figC1-compare-waveform.x_axis") : NULL);
		c->x.min = 0;
		c->x.max = xmax;
		br_axis_set(&c->y, BR_SCALE_LINEAR, ytitle[k]);
		c->y.include_zero = 1;
		if (k == 2) {
			c->y.min = 0;
			c->y.max = 100;
		}
		c->legend = 1;   /* on every panel: the panels keep equal plot heights */
		for (int r = 0; r < 2; r++) {
			if (!ok[r] || !w[r].has[k])
				continue;
			br_chart_series *s = br_chart_add(c, BR_SERIES_LINE, BR_SIDE_LEFT,
			    r == 0 ? CMP_COLOR_A : CMP_COLOR_B, ab_label(ft, r, labels[r]), w[r].t, w[r].y[k], w[r].n);
			s->line_width_pt = r == 0 ? 1.0 : 1.2;
		}
		charts[nc++] = c;
	}
	if (nc > 0) {
		GString *csv = g_string_new("run,t_since_window_start_s,running_requests,waiting_requests,kv_cache_usage_pct\n");
		for (int r = 0; r < 2; r++)
			for (size_t i = 0; ok[r] && i < w[r].n; i++) {
				g_string_append(csv, r == 0 ? "A" : "B");
				g_string_append_c(csv, ',');
				br_csv_num(csv, w[r].t[i]);
				for (int k = 0; k < 3; k++) {
					g_string_append_c(csv, ',');
					br_csv_num(csv, w[r].y[k][i]);
				}
				g_string_append_c(csv, '\n');
			}
		GString *cap = g_string_new(br_ft(ft, "figC1-compare-waveform.caption"));
		for (int r = 0; r < 2; r++)
			if (!ok[r])
				g_string_append(cap, br_ftp(ft, "figC1-compare-waveform.caption_missing", "{s:s}", "run", ab(ft, r)));
		br_fig_spec spec = {
			.id = "figC1-compare-waveform",
			.title = br_ft(ft, "figC1-compare-waveform.title"),
			.caption = cap->str,
			.width_pt = BR_FIG_W_PT, .height_pt = BR_FIG_H_PT * 2.0,
			.charts = charts, .n_charts = nc, .cols = 1,
			.csv = csv->str, .csv_len = csv->len,
		};
		rc = br_figure_write(out_dir, &spec, out, cause) == 0 ? 1 : -1;
		g_string_free(cap, TRUE);
		g_string_free(csv, TRUE);
	}
	for (size_t i = 0; i < nc; i++)
		br_chart_free(charts[i]);
done:
	for (int r = 0; r < 2; r++)
		if (ok[r] || w[r].t)
			wave_free(&w[r]);
	return rc;
}

/* fmt3: 3 significant figures, locale independent. */
static void
fmt3(double v, char *buf, size_t len)
{
	double x = fabs(v);
	br_fig_num(buf, len, x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : x >= 1 ? "%.2f" : x >= 0.001 || x == 0 ? "%.3f" : "%.2g", v);
}

/* fmt_count: a count with thousands separators ("262,016"), malloc'd. */
static char *
fmt_count(size_t n)
{
	char raw[32];
	snprintf(raw, sizeof raw, "%zu", n);
	size_t len = strlen(raw), o = 0;
	char out[48];
	for (size_t i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = raw[i];
	}
	out[o] = '\0';
	return br_xstrdup(out);
}

/* fig_latency: figC2. */
static int
fig_latency(const br_analysis *a, const br_analysis *b, br_ftx *ft, const char *la, const char *lb,
    const char *out_dir, br_figure *out, char **cause)
{
	static const int metric[3] = { BR_TTFT, BR_ITL, BR_E2EL };
	static const char *const label[3] = { "TTFT", "ITL", "E2EL" };   /* CSV: stable names */
	const char *const shown[3] = { br_ft(ft, "figC2-compare-latency-cdf.ttft"), br_ft(ft, "figC2-compare-latency-cdf.itl"),
		br_ft(ft, "figC2-compare-latency-cdf.e2el") };
	const char *const longname[3] = { br_ft(ft, "figC2-compare-latency-cdf.x_ttft"),
		br_ft(ft, "figC2-compare-latency-cdf.x_itl"), br_ft(ft, "figC2-compare-latency-cdf.x_e2el") };
	const br_analysis *run[2] = { a, b };
	const char *labels[2] = { la, lb };
	br_chart *charts[3];
	size_t nc = 0;
	int missing[2] = { 0, 0 };
	GString *csv = g_string_new("run,metric,value_ms,cdf\n");
	for (int k = 0; k < 3; k++) {
		const br_ranked *v[2];
		br_ranked *own[2];
		double *copy[2];
		size_t n[2];
		double med = NAN;
		for (int r = 0; r < 2; r++) {
			own[r] = NULL;
			copy[r] = NULL;
			v[r] = run[r]->latency.from_arrays ?
			    br_latency_ranked(&run[r]->latency, metric[k], &own[r], &copy[r]) : NULL;
			n[r] = br_ranked_count(v[r]);
			double mid;
			size_t rk = n[r] / 2;
			if (v[r] == NULL)
				missing[r] = 1;
			else if (br_ranked_at(v[r], &rk, 1, &mid), !(mid <= med))
				med = mid;
		}
		if (v[0] == NULL && v[1] == NULL)
			continue;
		int in_s = med >= 1000;
		double div = in_s ? 1000 : 1;
		const char *unit = in_s ? "s" : "ms";
		char *n0 = fmt_count(n[0]), *n1 = fmt_count(n[1]);
		br_chart *c = br_chart_new(br_ftp(ft, "figC2-compare-latency-cdf.panel_title", "{s:s,s:s,s:s}", "metric", shown[k],
		    "n_a", n0, "n_b", n1));
		free(n0);
		free(n1);
		br_axis_set(&c->x, BR_SCALE_LOG10, br_ftp(ft, "figC2-compare-latency-cdf.x_axis", "{s:s,s:s}", "name", longname[k],
		    "unit", unit));
		br_axis_set(&c->y, BR_SCALE_LINEAR, nc == 0 ? br_ft(ft, "figC2-compare-latency-cdf.y_axis") : NULL);
		c->y.min = 0;
		c->y.max = 1;
		c->legend = 1;   /* short labels on every panel: equal plot heights */
		/* where each p50 label goes: right of its median a CDF is >= 0.5,
		 * left of it <= 0.5. The larger median's label goes bottom right
		 * (its own curve high, the other's near 1 there), the smaller's top
		 * left (its own curve low, the other's near 0 there): no label
		 * hides a curve */
		double med_r[2] = { NAN, NAN };
		for (int r = 0; r < 2; r++) {
			const br_describe_t *d = &run[r]->latency.m[metric[k]];
			if (v[r] != NULL && d->count > 0)
				med_r[r] = d->median;
		}
		int b_larger = !(med_r[1] < med_r[0]);   /* B's median is the larger (or ties) */
		for (int r = 0; r < 2; r++) {
			if (v[r] == NULL)
				continue;
			/* points on the empirical CDF, evenly spaced in rank, the
			 * largest value always included (br_ranked_cdf, no exact tail) */
			double *x, *y;
			size_t np = br_ranked_cdf(v[r], CDF_MAX_POINTS, 0, &x, &y);
			for (size_t i = 0; i < np; i++) {
				g_string_append_printf(csv, "%s,%s,", r == 0 ? "A" : "B", label[k]);
				br_csv_num(csv, x[i]);
				g_string_append_c(csv, ',');
				br_csv_num(csv, y[i]);
				g_string_append_c(csv, '\n');
				x[i] /= div;
			}
			br_chart_series *s = br_chart_add(c, BR_SERIES_STEP, BR_SIDE_LEFT,
			    r == 0 ? CMP_COLOR_A : CMP_COLOR_B, ab(ft, r), x, y, np);
			s->line_width_pt = 1.2;
			const br_describe_t *d = &run[r]->latency.m[metric[k]];
			if (d->count > 0 && isfinite(d->median)) {
				char num[32];
				fmt3(d->median / div, num, sizeof num);
				const char *rl = br_ftp(ft, "figC2-compare-latency-cdf.ref_p50", "{s:s,s:s,s:s}", "run", ab(ft, r),
				    "value", num, "unit", unit);
				int larger = r == 1 ? b_larger : !b_larger;
				br_refline *ref = br_chart_add_vline(c, d->median / div, rl,
				    r == 0 ? CMP_COLOR_A : CMP_COLOR_B, larger ? BR_LABEL_BOTTOM : BR_LABEL_TOP);
				if (ref) {
					ref->dash = 3;
					ref->label_left = !larger;
				}
			}
			free(x);
			free(y);
		}
		for (int r = 0; r < 2; r++) {
			br_ranked_free(own[r]);
			free(copy[r]);
		}
		charts[nc++] = c;
	}
	int rc = 0;
	if (nc > 0) {
		GString *cap = g_string_new(NULL);
		g_string_append(cap, br_ftp(ft, "figC2-compare-latency-cdf.caption", "{s:s,s:s}", "name_a",
		    labels[0] ? labels[0] : "?", "name_b", labels[1] ? labels[1] : "?"));
		for (int r = 0; r < 2; r++)
			if (missing[r])
				g_string_append(cap, br_ftp(ft, "figC2-compare-latency-cdf.caption_missing", "{s:s}", "run", ab(ft, r)));
		br_fig_spec spec = {
			.id = "figC2-compare-latency-cdf",
			.title = br_ft(ft, "figC2-compare-latency-cdf.title"),
			.caption = cap->str,
			.width_pt = BR_FIG_W_PT, .height_pt = BR_FIG_H_PT,
			.charts = charts, .n_charts = nc, .cols = (int)nc,
			.csv = csv->str, .csv_len = csv->len,
		};
		rc = br_figure_write(out_dir, &spec, out, cause) == 0 ? 1 : -1;
		g_string_free(cap, TRUE);
	}
	for (size_t i = 0; i < nc; i++)
		br_chart_free(charts[i]);
	g_string_free(csv, TRUE);
	return rc;
}

/* fig_ttft_split: figC3 (grouped bars on a log axis; see fig_campaign.c for why not stacked). */
static int
fig_ttft_split(const br_analysis *a, const br_analysis *b, br_ftx *ft, const char *la, const char *lb,
    const char *out_dir, br_figure *out, char **cause)
{
	const br_ttft_split *t[2] = { &a->ttft_split, &b->ttft_split };
	/* a side with the queue mean only (SGLang: no prefill histogram) draws its queue bar */
	int q[2] = { t[0]->available || br_isnum(t[0]->queue_s), t[1]->available || br_isnum(t[1]->queue_s) };
	if (!q[0] && !q[1])
		return 0;
	double xs[3] = { 0, 1, 2 }, v[2][3], plot[2][3];
	double minpos = NAN, top = NAN;
	int n_neg = 0;
	for (int r = 0; r < 2; r++) {
		v[r][0] = q[r] ? t[r]->queue_s : NAN;
		v[r][1] = t[r]->available ? t[r]->prefill_s : NAN;
		v[r][2] = t[r]->available ? t[r]->frontend_s : NAN;
		for (int k = 0; k < 3; k++) {
			plot[r][k] = isfinite(v[r][k]) && v[r][k] > 0 ? v[r][k] : NAN;
			if (isfinite(plot[r][k])) {
				if (isnan(minpos) || plot[r][k] < minpos)
					minpos = plot[r][k];
				if (isnan(top) || plot[r][k] > top)
					top = plot[r][k];
			} else if (isfinite(v[r][k])) {
				n_neg++;
			}
		}
	}
	if (isnan(minpos))
		return 0;
	const char *const cat[3] = { br_ft(ft, "figC3-compare-ttft-split.queue"), br_ft(ft, "figC3-compare-ttft-split.prefill"),
		br_ft(ft, "figC3-compare-ttft-split.frontend") };
	static const char *const key[3] = { "queue", "prefill", "frontend" };   /* CSV: stable names */
	br_chart *ch = br_chart_new(NULL);
	br_axis_set_categories(&ch->x, xs, cat, 3);
	br_axis_set(&ch->y, BR_SCALE_LOG10, br_ft(ft, "figC3-compare-ttft-split.y_axis"));
	const char *labels[2] = { la, lb };
	for (int r = 0; r < 2; r++) {
		br_chart_series *s = br_chart_add(ch, BR_SERIES_BARS, BR_SIDE_LEFT,
		    r == 0 ? CMP_COLOR_A : CMP_COLOR_B, ab_label(ft, r, labels[r]), xs, plot[r], 3);
		s->bar_width = 0.36;
		s->bar_offset = r == 0 ? -0.19 : 0.19;
	}
	ch->y.min = minpos / 2.5;
	ch->y.max = top * 3;
	for (int r = 0; r < 2; r++) {
		double off = r == 0 ? -0.19 : 0.19;
		if (!q[r])
			continue;   /* the caption says which side has no split (a note would sit on the other's bars) */
		for (int k = 0; k < 3; k++) {
			char num[32];
			fmt3(v[r][k], num, sizeof num);
			if (isfinite(plot[r][k])) {
				/* below a millisecond in µs: "3.74 µs", not "3.7e-06 s" */
				const char *txt = fabs(v[r][k]) < 0.001 ?
				    (fmt3(v[r][k] * 1e6, num, sizeof num), br_ftp(ft, "figC3-compare-ttft-split.note_us", "{s:s}", "v", num)) :
				    br_ftp(ft, "figC3-compare-ttft-split.note_s", "{s:s}", "v", num);
				br_chart_add_note(ch, BR_SIDE_LEFT, xs[k] + off, plot[r][k], txt, -1, 0, -1.5, 0.5, 1);
			} else if (isfinite(v[r][k])) {
				const char *txt = br_ftp(ft, "figC3-compare-ttft-split.note_negative", "{s:s,s:s}", "run", ab(ft, r), "v", num);
				br_chart_add_note(ch, BR_SIDE_LEFT, xs[k] + off, ch->y.min, txt, 4, 0, -2, 0.5, 1);
			}
		}
	}
	GString *csv = g_string_new("run,part,mean_s\n");
	for (int r = 0; r < 2; r++)
		for (int k = 0; k < 3; k++) {
			g_string_append_printf(csv, "%s,%s,", r == 0 ? "A" : "B", key[k]);
			br_csv_num(csv, v[r][k]);
			g_string_append_c(csv, '\n');
		}
	GString *cap = g_string_new(br_ft(ft, "figC3-compare-ttft-split.caption"));
	if (n_neg > 0)
		g_string_append(cap, br_ft(ft, "figC3-compare-ttft-split.caption_negative"));
	for (int r = 0; r < 2; r++)
		if (!t[r]->available)
			g_string_append(cap, br_ftp(ft, q[r] ? BR_FT_KEY("figC3-compare-ttft-split.caption_queue_only") :
			    BR_FT_KEY("figC3-compare-ttft-split.caption_missing"), "{s:s}", "run", ab(ft, r)));
	int rc = br_figure_write_single(out_dir, "figC3-compare-ttft-split", br_ft(ft, "figC3-compare-ttft-split.title"),
	    cap->str, ch, csv, out, cause);
	g_string_free(cap, TRUE);
	g_string_free(csv, TRUE);
	br_chart_free(ch);
	return rc;
}

typedef int (*cmp_fig_fn)(const br_analysis *, const br_analysis *, br_ftx *, const char *, const char *,
    const char *, br_figure *, char **);

/* br_fig_compare: see compare.h. */
int
br_fig_compare(const br_analysis *a, const br_analysis *b, const br_template *t,
    const char *label_a, const char *label_b, const char *out_dir, br_figure **figs, size_t *n, char **cause)
{
	static const cmp_fig_fn fns[] = { fig_waveform, fig_latency, fig_ttft_split };
	size_t nf = sizeof fns / sizeof fns[0];
	br_figure *v = br_xcalloc(nf, sizeof *v);
	size_t k = 0;
	*figs = NULL;
	*n = 0;
	if (br_mkdir_p(out_dir, cause) != 0) {
		free(v);
		return -1;
	}
	br_ftx *ft = br_ftx_new(t);
	for (size_t i = 0; i < nf; i++) {
		int rc = fns[i](a, b, ft, label_a, label_b, out_dir, &v[k], cause);
		if (rc < 0) {
			br_ftx_free(ft);
			br_fig_wait(NULL);
			br_figures_free(v, k);
			return -1;
		}
		if (rc > 0)
			k++;
	}
	br_ftx_free(ft);
	*figs = v;
	*n = k;
	return 0;
}
