/*
 * The preemption figures of one run (DESIGN.md §4 figures 4 and 5), from the
 * metrics series and the preemption events of the analysis (§3.5):
 *
 * fig4-preemption-loop: 140 s of the run window zoomed. Left axis:
 *   requests running; right axis: KV-cache usage (%), the preemption
 *   instants (markers at the KV usage of the sample before, dotted vertical
 *   lines) and the trigger level (mean KV usage before a preemption) as a
 *   labelled horizontal line. The first 140 s; when the first preemption
 *   comes later than 100 s into the window the zoom starts 20 s before it,
 *   and when the preemptions cluster later (1.5 times as many in another
 *   140 s) it moves there (both said in the caption). Both axes zoom to the
 *   band the loop moves in (their titles and the caption say from where).
 * fig5-preemption-staircase: cumulative preemptions against time since the
 *   window start (a step at each event sample), with the straight line of
 *   the mean rate over the window.
 *
 * Both need events (preemptions.available, at least one event); the loop
 * also needs the KV column.
 *
 * Text: templates/report.LANG.json "figtext.fig4-preemption-loop.*" (title,
 * x_axis, y_running, y_kv, y_kv_from {from}, legend_running, legend_kv,
 * legend_preemption, legend_trigger {pct}, caption {from, to, zoom, samples,
 * preemptions}, caption_zoom, caption_zoom_busiest, caption_trigger {pct},
 * y_running_from {from}, caption_axes_zoom {running, kv}) and
 * "figtext.fig5-preemption-staircase.*" (title, x_axis, y_axis, legend_rate
 * {rate}, legend_cumulative, caption {preemptions, samples, window, rate},
 * caption_multi {samples, max}).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "benchreport/model.h"
#include "benchreport/stats.h"
#include "render/figure_io.h"

#define LOOP_ZOOM_S 140.0

/* window_start: epoch start of the run window (preemptions block, else residency), or NAN. */
static double
window_start(const br_analysis *a)
{
	if (isfinite(a->preemptions.window_start_t_s))
		return a->preemptions.window_start_t_s;
	if (a->residency.available && isfinite(a->residency.window_start_t_s))
		return a->residency.window_start_t_s;
	return NAN;
}

/* series_ok: the run has a 1 Hz metrics series with times. */
static int
series_ok(const br_run *run)
{
	return run && run->metrics && run->metrics->t_s && run->metrics->n_rows >= 3 &&
	    (run->metrics_kind == BR_METRICS_CSV || run->metrics_kind == BR_METRICS_SNAPSHOTS);
}

/* events_in: how many preemption events (by their own time since the
 * window start) lie in [a, b]. */
static size_t
events_in(const br_preemptions *P, double a, double b)
{
	size_t n = 0;
	for (size_t k = 0; k < P->n_events; k++) {
		double t = P->events[k].t_since_start_s;
		n += isfinite(t) && t >= a && t <= b;
	}
	return n;
}

/* br_fig_preemption_loop: see figure_io.h. */
int
br_fig_preemption_loop(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause)
{
	const br_preemptions *P = &a->preemptions;
	if (!P->available || P->n_events == 0 || P->events == NULL || !series_ok(a->run))
		return 0;
	double ws = window_start(a);
	if (!isfinite(ws))
		return 0;
	const br_series *s = a->run->metrics;
	const double *kv = br_role_col(s, BR_ROLE_KV_USAGE_FRAC);
	const double *running = br_role_col(s, BR_ROLE_RUNNING);
	if (kv == NULL)
		return 0;

	/* the zoom: [z0, z1] seconds since the window start */
	double first = NAN;
	for (size_t k = 0; k < P->n_events; k++)
		if (isfinite(P->events[k].t_since_start_s) && P->events[k].t_since_start_s >= 0) {
			first = P->events[k].t_since_start_s;
			break;
		}
	if (!isfinite(first))
		return 0;
	double z0 = 0;
	if (first > 100)
		z0 = floor((first - 20) / 10) * 10;
	/* preemptions clustered later (brk23: 2 of 17 in the first 140 s, the
	 * rest at 157-218 s): the 140 s from 20 s before an event that hold 1.5
	 * times as many events or more, the most of them, are zoomed instead */
	int busiest = 0;
	{
		size_t n0 = events_in(P, z0, z0 + LOOP_ZOOM_S), best = n0;
		for (size_t k = 0; k < P->n_events; k++) {
			double t = P->events[k].t_since_start_s;
			if (!isfinite(t) || t < 0)
				continue;
			double s0 = t < 100 ? 0 : floor((t - 20) / 10) * 10;
			size_t nk = events_in(P, s0, s0 + LOOP_ZOOM_S);
			if (nk > best && 2 * nk >= 3 * n0) {
				best = nk;
				z0 = s0;
				busiest = 1;
			}
		}
	}
	double z1 = z0 + LOOP_ZOOM_S;
	if (isfinite(P->window_s) && P->window_s > z0 && P->window_s < z1)
		z1 = P->window_s;

	size_t n = s->n_rows, m = 0;
	double *t = br_xmalloc(n * sizeof *t), *kvp = br_xmalloc(n * sizeof *kvp),
	       *run = br_xmalloc(n * sizeof *run), *cnt = br_xmalloc(n * sizeof *cnt),
	       *kvb = br_xmalloc(n * sizeof *kvb), *tu = br_xmalloc(n * sizeof *tu);
	size_t kvn = 0;
	for (size_t i = 0; i < n; i++) {
		double x = s->t_s[i] - ws;
		if (!isfinite(x) || x < z0 - 1e-9 || x > z1 + 1e-9)
			continue;
		t[m] = x;
		tu[m] = s->t_s[i];
		kvp[m] = kv[i] * 100;
		kvn += isfinite(kvp[m]) != 0;
		run[m] = running ? running[i] : NAN;
		cnt[m] = 0;
		kvb[m] = NAN;
		for (size_t k = 0; k < P->n_events; k++)
			if (P->events[k].row == i) {
				cnt[m] = P->events[k].count;
				kvb[m] = P->events[k].kv_before_frac * 100;
			}
		m++;
	}
	/* events inside the zoom (by their own time; the marker sits at the KV usage before) */
	double *ex = br_xmalloc(P->n_events * sizeof *ex), *ey = br_xmalloc(P->n_events * sizeof *ey);
	size_t ne = 0;
	double ezoom = 0;
	for (size_t k = 0; k < P->n_events; k++) {
		const br_preemption_event *e = &P->events[k];
		if (!isfinite(e->t_since_start_s) || e->t_since_start_s < z0 || e->t_since_start_s > z1)
			continue;
		ex[ne] = e->t_since_start_s;
		ey[ne] = e->kv_before_frac * 100;
		ezoom += isfinite(e->count) ? e->count : 0;
		ne++;
	}

	int rc = 0;
	if (kvn >= 2) {
		br_chart *c = br_chart_new(NULL);
		c->max_gap_x = br_fig_series_max_gap_s(s);   /* missing samples: a break, not a line */
		br_axis_set(&c->x, BR_SCALE_LINEAR, br_ft(ft, "fig4-preemption-loop.x_axis"));
		c->x.min = z0;
		c->x.max = z1;
		/*
		 * Both axes zoom to the band the loop moves in once it runs (from the
		 * first preemption on), so the teeth are readable (issue 10: the
		 * reference's sawtooth runs in 92-99.6 %, running walks 13 -> 10):
		 * KV usage from below its 10th percentile there, placed in the upper
		 * half of the plot; running from one below its lowest value there,
		 * in the lower half. The ramp before and the deepest dips run off the
		 * bottom, and the axis titles say where each axis starts. Without two
		 * events in the zoom, or with KV usage low, both axes start at 0.
		 */
		double first_ev = ne > 0 ? ex[0] : NAN;
		for (size_t k = 1; k < ne; k++)
			if (ex[k] < first_ev)
				first_ev = ex[k];
		double *band = br_xmalloc((m + 1) * sizeof *band);
		size_t nb = 0;
		double rmin = NAN, rmax = NAN, kmax = NAN;
		for (size_t i = 0; i < m; i++) {
			if (isfinite(run[i]) && (isnan(rmax) || run[i] > rmax))
				rmax = run[i];
			if (t[i] < first_ev)
				continue;
			if (isfinite(kvp[i])) {
				band[nb++] = kvp[i];
				if (isnan(kmax) || kvp[i] > kmax)
					kmax = kvp[i];
			}
			if (isfinite(run[i]) && (isnan(rmin) || run[i] < rmin))
				rmin = run[i];
		}
		br_sort_doubles(band, nb);
		double k10 = br_percentile_sorted(band, nb, 10);
		free(band);
		for (size_t k = 0; k < ne; k++)
			if (isfinite(ey[k]) && !(ey[k] <= kmax))
				kmax = ey[k];
		if (isfinite(P->trigger_kv_frac) && !(P->trigger_kv_frac * 100 <= kmax))
			kmax = P->trigger_kv_frac * 100;
		int zoom = ne >= 2 && isfinite(k10) && k10 >= 50 && isfinite(kmax) && kmax > k10;
		double y2max = zoom ? kmax + 0.12 * (kmax - k10) + 0.5 : 104;
		double y2min = zoom ? floor((2 * k10 - y2max) / 5) * 5 : 0;   /* k10 halfway up */
		if (y2min < 0)
			y2min = 0;
		br_axis_set(&c->y, BR_SCALE_LINEAR, br_ft(ft, "fig4-preemption-loop.y_running"));
		double ylo = zoom && isfinite(rmin) && rmin >= 2 ? floor(rmin) - 1 : 0;
		c->y.include_zero = ylo == 0;
		c->y.min = ylo;
		if (isfinite(rmax) && rmax > ylo)   /* running in the lower half when zoomed; else 4 % above the peak */
			c->y.max = zoom ? 2 * rmax - ylo : rmax * 1.04;
		if (ylo > 0) {
			char from[32];
			br_fig_num(from, sizeof from, "%.0f", ylo);
			br_axis_set(&c->y, BR_SCALE_LINEAR, br_ftp(ft, "fig4-preemption-loop.y_running_from", "{s:s}", "from", from));
		}
		if (y2min > 0) {
			char from[32];
			br_fig_num(from, sizeof from, "%.0f", y2min);
			br_axis_set(&c->y2, BR_SCALE_LINEAR, br_ftp(ft, "fig4-preemption-loop.y_kv_from", "{s:s}", "from", from));
		} else
			br_axis_set(&c->y2, BR_SCALE_LINEAR, br_ft(ft, "fig4-preemption-loop.y_kv"));
		c->y2.min = y2min;
		c->y2.max = y2max;
		c->has_y2 = 1;
		/* colours as fig2: running navy (0), KV teal (2), preemptions red (4) */
		if (running)
			br_chart_add(c, BR_SERIES_STEP, BR_SIDE_LEFT, 0, br_ft(ft, "fig4-preemption-loop.legend_running"), t, run, m);
		br_chart_series *ks = br_chart_add(c, BR_SERIES_LINE, BR_SIDE_RIGHT, 2, br_ft(ft, "fig4-preemption-loop.legend_kv"), t, kvp, m);
		ks->dash = 0;
		ks->line_width_pt = 1.0;
		for (size_t k = 0; k < ne; k++) {
			br_refline *r = br_chart_add_vline(c, ex[k], NULL, 4, BR_LABEL_TOP);
			if (r)
				r->dash = 2;
		}
		if (ne > 0) {
			br_chart_series *ps = br_chart_add(c, BR_SERIES_SCATTER, BR_SIDE_RIGHT, 4,
			    br_ft(ft, "fig4-preemption-loop.legend_preemption"), ex, ey, ne);
			ps->line_width_pt = 1.2;
		}
		char trig[32] = "";
		if (isfinite(P->trigger_kv_frac)) {
			br_fig_num(trig, sizeof trig, "%.2f", P->trigger_kv_frac * 100);
			/*
			 * The trigger is a horizontal line drawn as a 2-point series so
			 * its label goes into the legend: a label on the line itself
			 * would sit on the KV curve, which runs along it.
			 */
			const char *lab = br_ftp(ft, "fig4-preemption-loop.legend_trigger", "{s:s}", "pct", trig);
			double tx[2] = { z0, z1 }, ty[2] = { P->trigger_kv_frac * 100, P->trigger_kv_frac * 100 };
			br_chart_series *tl = br_chart_add(c, BR_SERIES_LINE, BR_SIDE_RIGHT, 4, lab, tx, ty, 2);
			tl->dash = 1;
			tl->line_width_pt = 0.8;
			tl->no_gap_break = 1;   /* two end points: the chart's gap rule would leave it undrawn */
		}
		GString *csv = g_string_new("t_since_window_start_s,t_unix_s,running_requests,kv_cache_usage_pct,"
		    "preemptions_in_sample_count,kv_before_preemption_pct,trigger_kv_pct\n");
		for (size_t i = 0; i < m; i++) {
			br_csv_num(csv, t[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, tu[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, run[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, kvp[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, cnt[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, kvb[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, P->trigger_kv_frac * 100);
			g_string_append_c(csv, '\n');
		}
		char zs[32], ze[32], ez[32];
		br_fig_num(zs, sizeof zs, "%.0f", z0);
		br_fig_num(ze, sizeof ze, "%.0f", z1);
		br_fig_num(ez, sizeof ez, "%.0f", ezoom);
		GString *cap = g_string_new(NULL);
		g_string_append(cap, br_ftp(ft, "fig4-preemption-loop.caption", "{s:s,s:s,s:s,s:I,s:s}", "from", zs, "to", ze,
		    "zoom", busiest ? br_ft(ft, "fig4-preemption-loop.caption_zoom_busiest") :
		    z0 > 0 ? br_ft(ft, "fig4-preemption-loop.caption_zoom") : "", "samples", (json_int_t)ne,
		    "preemptions", ez));
		if (trig[0])
			g_string_append(cap, br_ftp(ft, "fig4-preemption-loop.caption_trigger", "{s:s}", "pct", trig));
		const char *zoom_note = NULL;
		if (ylo > 0 && y2min > 0) {
			char rf[32], kf[32];
			br_fig_num(rf, sizeof rf, "%.0f", ylo);
			br_fig_num(kf, sizeof kf, "%.0f", y2min);
			zoom_note = br_ftp(ft, "fig4-preemption-loop.caption_axes_zoom", "{s:s,s:s}", "running", rf, "kv", kf);
			g_string_append(cap, zoom_note);
		}
		rc = br_figure_write_single(out_dir, "fig4-preemption-loop", br_ft(ft, "fig4-preemption-loop.title"),
		    cap->str, c, csv, out, cause);
		if (rc > 0 && zoom_note)
			out->caption_note = br_xstrdup(zoom_note);
		g_string_free(cap, TRUE);
		g_string_free(csv, TRUE);
		br_chart_free(c);
	}
	free(t);
	free(kvp);
	free(run);
	free(cnt);
	free(kvb);
	free(tu);
	free(ex);
	free(ey);
	return rc;
}

/* br_fig_preemption_staircase: see figure_io.h. */
int
br_fig_preemption_staircase(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause)
{
	const br_preemptions *P = &a->preemptions;
	if (!P->available || P->n_events == 0 || P->events == NULL ||
	    !(isfinite(P->window_s) && P->window_s > 0))
		return 0;
	size_t n = P->n_events + 2, m = 0;
	double *x = br_xmalloc(n * sizeof *x), *y = br_xmalloc(n * sizeof *y),
	       *k = br_xmalloc(n * sizeof *k), *tu = br_xmalloc(n * sizeof *tu);
	double ws = window_start(a), cum = 0;
	x[m] = 0;
	y[m] = 0;
	k[m] = 0;
	tu[m] = ws;
	m++;
	for (size_t i = 0; i < P->n_events; i++) {
		const br_preemption_event *e = &P->events[i];
		if (!isfinite(e->t_since_start_s) || !isfinite(e->count))
			continue;
		cum += e->count;
		x[m] = e->t_since_start_s;
		y[m] = cum;
		k[m] = e->count;
		tu[m] = e->t_epoch_s;
		m++;
	}
	int rc = 0;
	if (m < 2)
		goto done;
	double last_t = x[m - 1] > P->window_s ? x[m - 1] : P->window_s;
	x[m] = last_t;
	y[m] = cum;
	k[m] = 0;
	tu[m] = isfinite(ws) ? ws + last_t : NAN;
	m++;
	/*
	 * The mean rate: the analysis' rate_per_min (Δcounter over the window);
	 * computed here from the summed event counts when the analysis has none.
	 */
	double rate = P->rate_per_min;
	if (!isfinite(rate))
		rate = cum / P->window_s * 60;
	double rx[2] = { 0, P->window_s }, ry[2] = { 0, rate / 60 * P->window_s };

	br_chart *c = br_chart_new(NULL);
	br_axis_set(&c->x, BR_SCALE_LINEAR, br_ft(ft, "fig5-preemption-staircase.x_axis"));
	br_axis_set(&c->y, BR_SCALE_LINEAR, br_ft(ft, "fig5-preemption-staircase.y_axis"));
	c->y.whole_ticks = 1;
	c->x.include_zero = 1;
	c->y.include_zero = 1;
	char rs[32];
	br_fig_num(rs, sizeof rs, "%.1f", rate);
	br_chart_series *rl = br_chart_add(c, BR_SERIES_LINE, BR_SIDE_LEFT, 5,
	    br_ftp(ft, "fig5-preemption-staircase.legend_rate", "{s:s}", "rate", rs), rx, ry, 2);
	rl->dash = 1;
	br_chart_series *st = br_chart_add(c, BR_SERIES_STEP, BR_SIDE_LEFT, 4,
	    br_ft(ft, "fig5-preemption-staircase.legend_cumulative"), x, y, m);
	st->dash = 0;
	st->line_width_pt = 1.3;

	GString *csv = g_string_new("t_since_window_start_s,t_unix_s,preemptions_in_sample_count,"
	    "preemptions_cumulative_count,mean_rate_line_count\n");
	for (size_t i = 0; i < m; i++) {
		br_csv_num(csv, x[i]);
		g_string_append_c(csv, ',');
		br_csv_num(csv, tu[i]);
		g_string_append_c(csv, ',');
		br_csv_num(csv, k[i]);
		g_string_append_c(csv, ',');
		br_csv_num(csv, y[i]);
		g_string_append_c(csv, ',');
		br_csv_num(csv, x[i] <= P->window_s ? rate / 60 * x[i] : NAN);
		g_string_append_c(csv, '\n');
	}
	char tot[32], win[32];
	br_fig_num(tot, sizeof tot, "%.0f", cum);
	br_fig_num(win, sizeof win, "%.0f", P->window_s);
	GString *cap = g_string_new(NULL);
	g_string_append(cap, br_ftp(ft, "fig5-preemption-staircase.caption", "{s:s,s:I,s:s,s:s}", "preemptions", tot,
	    "samples", (json_int_t)(m - 2), "window", win, "rate", rs));
	if (P->n_multi_events > 0) {
		char mx[32];
		br_fig_num(mx, sizeof mx, "%.0f", P->max_per_event);
		g_string_append(cap, br_ftp(ft, "fig5-preemption-staircase.caption_multi", "{s:I,s:s}",
		    "samples", (json_int_t)P->n_multi_events, "max", mx));
	}
	br_chart *charts[1] = { c };
	br_fig_spec spec = {
		.id = "fig5-preemption-staircase",
		.title = br_ft(ft, "fig5-preemption-staircase.title"),
		.caption = cap->str,
		.width_pt = BR_FIG_W_PT, .height_pt = BR_FIG_H_PT * 0.85,
		.charts = charts, .n_charts = 1, .cols = 1,
		.csv = csv->str, .csv_len = csv->len,
	};
	rc = br_figure_write(out_dir, &spec, out, cause) == 0 ? 1 : -1;
	g_string_free(cap, TRUE);
	g_string_free(csv, TRUE);
	br_chart_free(c);
done:
	free(x);
	free(y);
	free(k);
	free(tu);
	return rc;
}
