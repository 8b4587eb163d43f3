/*
 * fig9-budget "Wall-clock budget" (DESIGN.md §3.9): one horizontal bar of
 * the run's duration split into decode, prefill, recompute and the rest,
 * each part in the legend with seconds and % of the duration, and the
 * measured duration as a vertical line. Only the parts that are numbers are
 * drawn (the caption says which are missing and why). A negative rest (the
 * estimated parts add up to more than the duration) is never drawn as a
 * bar: the parts then overshoot the duration line, and a second line at
 * their sum says by how much.
 *
 * Text: templates/report.LANG.json "figtext.fig9-budget.*" (title, decode,
 * prefill, recompute, rest, x_axis, category, legend {part, s, pct},
 * note_share {pct}, ref_duration {s}, ref_sum {sum, rest, pct}, caption {s},
 * caption_prefill, caption_recompute, caption_rest, caption_end,
 * caption_missing {part, why}, not_computed, caption_rest_negative,
 * caption_no_rest). The reason a part is missing ({why}) is the analysis'
 * own English text (br_budget.prefill_missing, recompute_missing); the CSV
 * keeps its English part names and notes.
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
	const char *name[4] = { "decode", "prefill", "recompute", "rest" };   /* CSV: stable English */
	const char *label[4] = { br_ft(ft, "fig9-budget.decode"), br_ft(ft, "fig9-budget.prefill"),
		br_ft(ft, "fig9-budget.recompute"), br_ft(ft, "fig9-budget.rest") };
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
	br_axis_set(&c->x, BR_SCALE_LINEAR, br_ft(ft, "fig9-budget.x_axis"));
	c->x.include_zero = 1;
	const double cat_v[1] = { 0 };
	const char *cat_l[1] = { br_ft(ft, "fig9-budget.category") };
	br_axis_set_categories(&c->y, cat_v, cat_l, 1);
	const double y0[1] = { 0 };
	for (int i = 0; i < 4; i++) {
		if (!drawn[i])
			continue;
		char s[32], p[32];
		br_fig_num(s, sizeof s, "%.1f", v[i]);
		br_fig_num(p, sizeof p, "%.1f", v[i] / dur * 100);
		const char *lab = br_ftp(ft, "fig9-budget.legend", "{s:s,s:s,s:s}", "part", label[i], "s", s, "pct", p);
		br_chart_series *bs = br_chart_add(c, BR_SERIES_HBARS_STACKED, BR_SIDE_LEFT, color[i], lab, &v[i], y0, 1);
		bs->bar_width = 0.5;
		/* the share inside the segment when it is wide enough for the text */
		if (v[i] / (sum > dur ? sum : dur) >= 0.08) {
			double base = 0;
			for (int j = 0; j < i; j++)
				if (drawn[j])
					base += v[j];
			br_chart_add_note(c, BR_SIDE_LEFT, base + v[i] / 2, 0, br_ftp(ft, "fig9-budget.note_share", "{s:s}", "pct", p),
			    -1, 0, 0, 0.5, 0.5);
		}
	}
	char ds[32];
	br_fig_num(ds, sizeof ds, "%.1f", dur);
	br_refline *r = br_chart_add_vline(c, dur, br_ftp(ft, "fig9-budget.ref_duration", "{s:s}", "s", ds), 5, BR_LABEL_TOP);
	if (r)
		r->dash = 1;
	if (rest_neg) {
		char ss[32], rs[32], rp[32];
		br_fig_num(ss, sizeof ss, "%.1f", sum);
		br_fig_num(rs, sizeof rs, "%.1f", v[3]);
		br_fig_num(rp, sizeof rp, "%.1f", v[3] / dur * 100);
		const char *sl = br_ftp(ft, "fig9-budget.ref_sum", "{s:s,s:s,s:s}", "sum", ss, "rest", rs, "pct", rp);
		r = br_chart_add_vline(c, sum, sl, 4, BR_LABEL_BOTTOM);
		if (r)
			r->dash = 3;
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
		g_string_append(cap, br_ftp(ft, B->decode_in_gaps ? BR_FT_KEY("fig9-budget.caption_gaps") :
		    BR_FT_KEY("fig9-budget.caption"), "{s:s}", "s", ds));
		if (drawn[1])
			g_string_append(cap, br_ft(ft, "fig9-budget.caption_prefill"));
		if (drawn[2])
			g_string_append(cap, br_ft(ft, "fig9-budget.caption_recompute"));
		if (drawn[3])
			g_string_append(cap, br_ft(ft, "fig9-budget.caption_rest"));
		g_string_append(cap, br_ft(ft, "fig9-budget.caption_end"));
		/* why[i] is the analysis' own reason (src/analysis/budget.c, English) */
		for (int i = 1; i < 3; i++)
			if (!drawn[i])
				g_string_append(cap, br_ftp(ft, "fig9-budget.caption_missing", "{s:s,s:s}", "part", label[i],
				    "why", why[i] ? why[i] : br_ft(ft, "fig9-budget.not_computed")));
		if (rest_neg)
			g_string_append(cap, br_ft(ft, "fig9-budget.caption_rest_negative"));
		else if (!isfinite(v[3]))
			g_string_append(cap, br_ft(ft, "fig9-budget.caption_no_rest"));
		br_chart *charts[1] = { c };
		br_fig_spec spec = {
			.id = "fig9-budget",
			.title = br_ft(ft, drawn[0] && drawn[1] && drawn[2] && drawn[3] ? "fig9-budget.title" :
			    "fig9-budget.title_partial"),   /* names only what is drawn */
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
