/*
 * fig9-budget "Wall-clock budget" (DESIGN.md §3.9): one horizontal bar of
 * the run's duration split into decode, prefill, recompute and the rest,
 * each part in the legend with seconds and % of the duration, and the
 * measured duration as a vertical line. Only the parts that are numbers are
 * drawn (the caption says which are missing and why). A negative rest (the
 * estimated parts add up to more than the duration) is never drawn as a
 * bar: the parts then overshoot the duration line, and a second line at
 * their sum says by how much.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "render/figure_io.h"

/* br_fig_budget: see figure_io.h. */
int
br_fig_budget(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause)
{
	const br_budget *B = &a->budget;
	if (!B->available || !(isfinite(B->duration_s) && B->duration_s > 0) ||
	    !(isfinite(B->decode_s) && B->decode_s >= 0))
		return 0;
	const double dur = B->duration_s;
	const char *name[4] = { "decode", "prefill", "recompute", "rest" };
	const double v[4] = { B->decode_s, B->prefill_s, B->recompute_s, B->rest_s };
	const char *why[4] = { NULL, B->prefill_missing, B->recompute_missing, NULL };
	/* colours: decode navy (0), prefill teal (2), recompute red (4, preemptions in fig2), rest light blue (3) */
	static const int color[4] = { 0, 2, 4, 3 };
	int drawn[4];
	double sum = 0;
	for (int i = 0; i < 4; i++) {
		drawn[i] = isfinite(v[i]) && v[i] >= 0;
		if (drawn[i] && i < 3)
			sum += v[i];
	}
	int rest_neg = isfinite(v[3]) && v[3] < 0;

	br_chart *c = br_chart_new(NULL);
	br_axis_set(&c->x, BR_SCALE_LINEAR, "wall-clock time of the run (s)");
	c->x.include_zero = 1;
	const double cat_v[1] = { 0 };
	const char *cat_l[1] = { "run" };
	br_axis_set_categories(&c->y, cat_v, cat_l, 1);
	const double y0[1] = { 0 };
	for (int i = 0; i < 4; i++) {
		if (!drawn[i])
			continue;
		char s[32], p[32];
		br_fig_num(s, sizeof s, "%.1f", v[i]);
		br_fig_num(p, sizeof p, "%.1f", v[i] / dur * 100);
		char *lab = br_xasprintf("%s %s s (%s %%)", name[i], s, p);
		br_chart_series *bs = br_chart_add(c, BR_SERIES_HBARS_STACKED, BR_SIDE_LEFT, color[i], lab, &v[i], y0, 1);
		bs->bar_width = 0.5;
		free(lab);
		/* the share inside the segment when it is wide enough for the text */
		if (v[i] / (sum > dur ? sum : dur) >= 0.08) {
			double base = 0;
			for (int j = 0; j < i; j++)
				if (drawn[j])
					base += v[j];
			char *t = br_xasprintf("%s %%", p);
			br_chart_add_note(c, BR_SIDE_LEFT, base + v[i] / 2, 0, t, -1, 0, 0, 0.5, 0.5);
			free(t);
		}
	}
	char ds[32];
	br_fig_num(ds, sizeof ds, "%.1f", dur);
	char *dl = br_xasprintf("measured duration %s s", ds);
	br_refline *r = br_chart_add_vline(c, dur, dl, 5, BR_LABEL_TOP);
	if (r)
		r->dash = 1;
	free(dl);
	if (rest_neg) {
		char ss[32], rs[32], rp[32];
		br_fig_num(ss, sizeof ss, "%.1f", sum);
		br_fig_num(rs, sizeof rs, "%.1f", v[3]);
		br_fig_num(rp, sizeof rp, "%.1f", v[3] / dur * 100);
		char *sl = br_xasprintf("sum of the parts %s s: rest %s s (%s %%), the estimates overlap", ss, rs, rp);
		r = br_chart_add_vline(c, sum, sl, 4, BR_LABEL_BOTTOM);
		if (r)
			r->dash = 3;
		free(sl);
	}

	int rc = 0;
	if (br_chart_has_data(c)) {
		GString *csv = g_string_new("part,time_s,share_of_duration_pct,drawn,note\n");
		for (int i = 0; i < 4; i++) {
			g_string_append_printf(csv, "%s,", name[i]);
			br_csv_num(csv, v[i]);
			g_string_append_c(csv, ',');
			br_csv_num(csv, v[i] / dur * 100);
			g_string_append_printf(csv, ",%d,", drawn[i]);
			if (i == 3 && rest_neg)
				br_csv_str(csv, "negative: the estimated parts add up to more than the duration");
			else if (!drawn[i] && why[i])
				br_csv_str(csv, why[i]);
			else if (!drawn[i])
				br_csv_str(csv, "not computed");
			g_string_append_c(csv, '\n');
		}
		g_string_append(csv, "duration,");
		br_csv_num(csv, dur);
		g_string_append(csv, ",100,0,bench file duration\n");
		GString *cap = g_string_new(NULL);
		g_string_append_printf(cap, "The run's wall-clock duration (%s s, dashed line) split into estimated parts, "
		    "in seconds and %% of the duration: decode = Σ(output − 1) / mean running × ITL p50", ds);
		if (drawn[1])
			g_string_append(cap, "; prefill = Σ input tokens × calibrated cost per token ÷ the p95 FLOP rate");
		if (drawn[2])
			g_string_append(cap, "; recompute = excess FLOPs of the FLOPs ledger ÷ the p95 FLOP rate");
		if (drawn[3])
			g_string_append(cap, "; rest = duration − the other parts (scheduling, sampling, idle)");
		g_string_append(cap, ".");
		for (int i = 1; i < 3; i++)
			if (!drawn[i])
				g_string_append_printf(cap, " No %s part: %s.", name[i], why[i] ? why[i] : "not computed");
		if (rest_neg)
			g_string_append(cap, " The rest is negative, so it is not drawn: the parts overshoot the duration "
			    "(red line at their sum), which means the estimates overlap (decode and prefill share steps).");
		else if (!isfinite(v[3]))
			g_string_append(cap, " No rest: it needs every other part.");
		br_chart *charts[1] = { c };
		br_fig_spec spec = {
			.id = "fig9-budget",
			.title = "Wall-clock budget: decode, prefill, recompute, rest",
			.caption = cap->str,
			.width_pt = BR_FIG_W_PT, .height_pt = 60.0 / 25.4 * 72.0,
			.charts = charts, .n_charts = 1, .cols = 1,
			.csv = csv->str, .csv_len = csv->len,
		};
		rc = br_figure_write(out_dir, &spec, out, cause) == 0 ? 1 : -1;
		g_string_free(cap, TRUE);
		g_string_free(csv, TRUE);
	}
	br_chart_free(c);
	return rc;
}
