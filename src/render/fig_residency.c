/*
 * fig3-residency "Where requests are": requests running (in the batch) and
 * waiting (queued) as stacked areas against time since the first metrics
 * sample, so the top edge is everything the server holds. The run window is
 * shaded as in fig2, and the requested concurrency C (closed loop) is a
 * reference line: running + waiting sits at C while the client is saturated.
 * Needs a 1 Hz series (CSV or snapshots folder) with both columns.
 *
 * Text: templates/report.LANG.json "figtext.fig3-residency.*" (title, x_axis,
 * y_axis, legend_running, legend_waiting, ref_concurrency {c}, caption,
 * caption_means {running_mean, running_peak, waiting_mean, waiting_peak},
 * caption_window, caption_concurrency), "figtext.common.benchmark_window".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "benchreport/model.h"
#include "render/figure_io.h"

/* finite_count: number of finite values in v[0..n) (0 for NULL). */
static size_t
finite_count(const double *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; v && i < n; i++)
		k += isfinite(v[i]) != 0;
	return k;
}

/* br_fig_residency: see figure_io.h. */
int
br_fig_residency(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause)
{
	const br_run *run = a->run;
	if (run == NULL || run->metrics == NULL ||
	    !br_metrics_is_series(run->metrics_kind))
		return 0;
	const br_series *s = run->metrics;
	size_t n = s->n_rows;
	if (n < 3 || s->t_s == NULL || finite_count(s->t_s, n) < 3)
		return 0;
	const double *running = br_role_col(s, BR_ROLE_RUNNING);
	const double *waiting = br_role_col(s, BR_ROLE_WAITING);
	if (finite_count(running, n) < 2 || finite_count(waiting, n) < 2)
		return 0;

	double t0;
	double *t = br_fig_series_time(s, &t0);

	br_chart *c = br_chart_new(NULL);
	br_axis_set(&c->x, BR_SCALE_LINEAR, br_ft(ft, "fig3-residency.x_axis"));
	br_axis_set(&c->y, BR_SCALE_LINEAR, br_ft(ft, "fig3-residency.y_axis"));
	c->y.include_zero = 1;
	/* same colours as fig2: running navy (0), waiting light orange (1) */
	br_chart_add(c, BR_SERIES_AREA_STACKED, BR_SIDE_LEFT, 0, br_ft(ft, "fig3-residency.legend_running"), t, running, n);
	br_chart_add(c, BR_SERIES_AREA_STACKED, BR_SIDE_LEFT, 1, br_ft(ft, "fig3-residency.legend_waiting"), t, waiting, n);
	int window = br_fig_add_run_window(c, ft, a, t0);
	double C = run->bench.n > 0 ? run->bench.runs[0].max_concurrency : NAN;
	if (!(isfinite(C) && C > 0))
		C = NAN;
	/* fewer prompts than max_concurrency: no more than N were ever in
	 * flight, so the line is drawn at min(C, N) and says why */
	double C_cap = C;
	double C_eff = run->bench.n > 0 ? br_effective_concurrency(&run->bench.runs[0], NULL) : NAN;
	int by_prompts = isfinite(C) && isfinite(C_eff) && C_eff < C;
	if (by_prompts)
		C = C_eff;
	char c_num[32] = "", cap_num[32] = "";
	if (isfinite(C)) {
		br_fig_num(c_num, sizeof c_num, "%.0f", C);
		br_fig_num(cap_num, sizeof cap_num, "%.0f", C_cap);
		const char *lab = by_prompts ?
		    br_ftp(ft, "fig3-residency.ref_concurrency_prompts", "{s:s,s:s}", "n", c_num, "cap", cap_num) :
		    br_ftp(ft, "fig3-residency.ref_concurrency", "{s:s}", "c", c_num);
		br_refline *r = br_chart_add_hline(c, BR_SIDE_LEFT, C, lab, 5);
		if (r)
			r->dash = 1;
	}

	int rc = 0;
	if (br_chart_has_data(c)) {
		GString *csv = g_string_new("t_s,t_unix_s,running_requests,waiting_requests,running_plus_waiting_requests\n");
		for (size_t i = 0; i < n; i++) {
			br_csv_num(csv, t[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, s->t_s[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, running[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, waiting[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, running[i] + waiting[i]);
			g_string_append_c(csv, '\n');
		}
		GString *cap = g_string_new(br_ft(ft, "fig3-residency.caption"));
		const br_residency *r = &a->residency;
		if (r->available && isfinite(r->running_mean) && isfinite(r->waiting_mean)) {
			char rm[32], wm[32], rp[32], wp[32];
			br_fig_num(rm, sizeof rm, "%.2f", r->running_mean);
			br_fig_num(wm, sizeof wm, "%.1f", r->waiting_mean);
			br_fig_num(rp, sizeof rp, "%.0f", r->running_peak);
			br_fig_num(wp, sizeof wp, "%.0f", r->waiting_peak);
			g_string_append(cap, br_ftp(ft, "fig3-residency.caption_means", "{s:s,s:s,s:s,s:s}",
			    "running_mean", rm, "running_peak", rp, "waiting_mean", wm, "waiting_peak", wp));
		}
		if (window)
			g_string_append(cap, br_ft(ft, "fig3-residency.caption_window"));
		if (by_prompts)
			g_string_append(cap, br_ftp(ft, "fig3-residency.caption_concurrency_prompts", "{s:s,s:s}",
			    "n", c_num, "cap", cap_num));
		else if (isfinite(C))
			g_string_append(cap, br_ft(ft, br_capped_open_loop(&run->bench.runs[0]) ?
			    "fig3-residency.caption_concurrency_cap" : "fig3-residency.caption_concurrency"));
		rc = br_figure_write_single(out_dir, "fig3-residency", br_ft(ft, "fig3-residency.title"),
		    cap->str, c, csv, out, cause);
		g_string_free(cap, TRUE);
		g_string_free(csv, TRUE);
	}
	br_chart_free(c);
	free(t);
	return rc;
}
