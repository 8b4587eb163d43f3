/*
 * fig2-waveform: the whole run from the metrics series. Left axis: requests
 * running and waiting. Right axis: KV-cache usage in %. Outer right axis:
 * the cumulative preemptions since the first sample (a step line; counter
 * resets handled), on a count scale of its own.
 * x: seconds since the first timed sample. The run window from the
 * residency analysis is shaded.
 *
 * Text: templates/report.LANG.json "figtext.fig2-waveform.*" (title and its
 * variants title_no_preemptions, title_requests, title_generic, x_axis,
 * y_requests, y_kv, y_preemptions, legend_running, legend_waiting,
 * legend_kv {side}, legend_preemptions {side}, caption, caption_left,
 * caption_kv_right, caption_kv_only, caption_preemptions {side},
 * caption_window) and "figtext.common.side_left|side_right|side_outer_right",
 * "figtext.common.benchmark_window".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "benchreport/model.h"
#include "render/figure_io.h"

/* n_finite: number of finite values in v[0..n) (0 for NULL). */
static size_t
n_finite(const double *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; v && i < n; i++)
		k += isfinite(v[i]) != 0;
	return k;
}

/*
 * cumulate_counter: increase of a counter since its first finite value,
 * reset-aware (a drop means the counter restarted from 0, so the new value
 * itself is the increase). NaN where the counter is NaN.
 */
static void
cumulate_counter(const double *c, size_t n, double *out)
{
	double prev = NAN, sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(c[i])) {
			out[i] = NAN;
			continue;
		}
		if (isfinite(prev))
			sum += c[i] >= prev ? c[i] - prev : c[i];
		prev = c[i];
		out[i] = sum;
	}
}

/* br_fig_waveform: see figure_io.h. */
int
br_fig_waveform(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause)
{
	const br_run *run = a->run;
	if (run == NULL || run->metrics == NULL ||
	    !br_metrics_is_series(run->metrics_kind))
		return 0;
	const br_series *s = run->metrics;
	size_t n = s->n_rows;
	if (n < 3 || s->t_s == NULL || n_finite(s->t_s, n) < 3)
		return 0;
	const double *running = br_role_col(s, BR_ROLE_RUNNING);
	const double *waiting = br_role_col(s, BR_ROLE_WAITING);
	const double *kv = br_role_col(s, BR_ROLE_KV_USAGE_FRAC);
	const double *pre = br_role_col(s, BR_ROLE_PREEMPTIONS);
	if (n_finite(running, n) < 2) running = NULL;
	if (n_finite(waiting, n) < 2) waiting = NULL;
	if (n_finite(kv, n) < 2) kv = NULL;
	if (n_finite(pre, n) < 2) pre = NULL;
	if (!running && !waiting && !kv && !pre)
		return 0;

	double t0;
	double *t = br_fig_series_time(s, &t0), *kvp = br_xmalloc(n * sizeof *kvp),
	       *pc = br_xmalloc(n * sizeof *pc);
	for (size_t i = 0; i < n; i++)
		kvp[i] = kv ? kv[i] * 100 : NAN;
	if (pre)
		cumulate_counter(pre, n, pc);
	else
		for (size_t i = 0; i < n; i++)
			pc[i] = NAN;

	/*
	 * Axes: requests on the left; KV % on the right; the preemption count on
	 * an axis of its own (the outer right one when the other two are taken),
	 * so neither the 0–100 % scale nor the count is bent to fit the other.
	 */
	br_chart *c = br_chart_new(NULL);
	br_axis_set(&c->x, BR_SCALE_LINEAR, br_ft(ft, "fig2-waveform.x_axis"));
	c->max_gap_x = br_fig_series_max_gap_s(s);   /* missing samples: a break, not a line */
	int left_used = running || waiting;
	int kv_side = left_used ? BR_SIDE_RIGHT : BR_SIDE_LEFT;
	int pre_side = !left_used && !kv ? BR_SIDE_LEFT : (left_used && kv) ? BR_SIDE_RIGHT2 : BR_SIDE_RIGHT;
	static const char *const side_key[3] = { BR_FT_KEY("common.side_left"), BR_FT_KEY("common.side_right"),
		BR_FT_KEY("common.side_outer_right") };
	if (left_used) {
		br_axis_set(&c->y, BR_SCALE_LINEAR, br_ft(ft, "fig2-waveform.y_requests"));
		c->y.include_zero = 1;
	}
	if (kv) {
		br_axis *ka = kv_side == BR_SIDE_LEFT ? &c->y : &c->y2;
		br_axis_set(ka, BR_SCALE_LINEAR, br_ft(ft, "fig2-waveform.y_kv"));
		ka->include_zero = 1;
		double kmax = 0;
		for (size_t i = 0; i < n; i++)
			if (isfinite(kvp[i]) && kvp[i] > kmax)
				kmax = kvp[i];
		if (kmax <= 100) {   /* the pool's own scale, 0–100 %, and 4 % above so a full pool is not the frame */
			ka->min = 0;
			ka->max = 104;
		}
	}
	if (pre) {
		br_axis *pa = pre_side == BR_SIDE_LEFT ? &c->y : pre_side == BR_SIDE_RIGHT ? &c->y2 : &c->y3;
		br_axis_set(pa, BR_SCALE_LINEAR, br_ft(ft, "fig2-waveform.y_preemptions"));
		pa->include_zero = 1;
		pa->whole_ticks = 1;
	}
	if (running)
		br_chart_add(c, BR_SERIES_LINE, BR_SIDE_LEFT, 0, br_ft(ft, "fig2-waveform.legend_running"), t, running, n);
	if (waiting)
		br_chart_add(c, BR_SERIES_LINE, BR_SIDE_LEFT, 1, br_ft(ft, "fig2-waveform.legend_waiting"), t, waiting, n);
	if (kv) {
		const char *lab = br_ftp(ft, "fig2-waveform.legend_kv", "{s:s}", "side", br_ft(ft, side_key[kv_side]));
		br_chart_series *ks = br_chart_add(c, BR_SERIES_LINE, kv_side, 2, lab, t, kvp, n);
		ks->line_width_pt = 0.9;
		ks->dash = 0;
	}
	if (pre) {
		const char *lab = br_ftp(ft, "fig2-waveform.legend_preemptions", "{s:s}", "side",
		    br_ft(ft, side_key[pre_side]));
		br_chart_add(c, BR_SERIES_STEP, pre_side, 4, lab, t, pc, n);
	}
	int window = br_fig_add_run_window(c, ft, a, t0);

	int rc = 0;
	if (br_chart_has_data(c)) {
		GString *csv = g_string_new(
		    "t_s,t_unix_s,running_requests,waiting_requests,kv_cache_usage_pct,preemptions_cumulative_count\n");
		for (size_t i = 0; i < n; i++) {
			br_csv_num(csv, t[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, s->t_s[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, running ? running[i] : NAN);
			g_string_append_c(csv, ',');
			br_csv_num(csv, waiting ? waiting[i] : NAN);
			g_string_append_c(csv, ',');
			br_csv_num(csv, kvp[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, pc[i]);
			g_string_append_c(csv, '\n');
		}
		GString *cap = g_string_new(NULL);
		g_string_append(cap, br_ft(ft, "fig2-waveform.caption"));
		if (left_used)
			g_string_append(cap, br_ft(ft, "fig2-waveform.caption_left"));
		if (kv)
			g_string_append(cap, left_used ? br_ft(ft, "fig2-waveform.caption_kv_right") :
			    br_ft(ft, "fig2-waveform.caption_kv_only"));
		if (pre)
			g_string_append(cap, br_ftp(ft, "fig2-waveform.caption_preemptions", "{s:s}", "side",
			    br_ft(ft, side_key[pre_side])));
		if (window)
			g_string_append(cap, br_ft(ft, "fig2-waveform.caption_window"));
		/* the title names only what is drawn (a llama-server has no
		 * preemption counter, some builds no KV usage) */
		const char *title_key = left_used && kv && pre ? "fig2-waveform.title" :
		    left_used && kv ? "fig2-waveform.title_no_preemptions" :
		    left_used && !pre ? "fig2-waveform.title_requests" : "fig2-waveform.title_generic";
		rc = br_figure_write_single(out_dir, "fig2-waveform", br_ft(ft, title_key), cap->str, c, csv, out, cause);
		g_string_free(cap, TRUE);
		g_string_free(csv, TRUE);
	}
	br_chart_free(c);
	free(t);
	free(kvp);
	free(pc);
	return rc;
}
