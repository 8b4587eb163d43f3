/*
 * figL-latency-cdf: empirical CDFs of TTFT, ITL and E2EL, one panel each,
 * log x axis in ms (or s when the median is 1 s or more; the x axis is logarithmic), p50 / p99 / p99.9
 * marked. Needs the per-request arrays (latency.from_arrays); drawn from the
 * CDF points the analysis kept (latency.cdf_*), not from the samples.
 *
 * Text: templates/report.LANG.json "figtext.figL-latency-cdf.*" (title,
 * ttft, itl, e2el, x_ttft, x_itl, x_e2el, panel_title {metric, n},
 * x_axis {name, unit}, y_axis, ref_p50 | ref_p99 | ref_p999 {value, unit},
 * list_sep, caption {metrics, max_points, tail_points}). Units stay "ms"/"s".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "render/figure_io.h"


/* fmt_value: a latency in the panel's unit with 3 significant figures (locale independent). */
static void
fmt_value(double v, char *buf, size_t len)
{
	char fmt[8];
	double a = fabs(v);
	int dec = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
	snprintf(fmt, sizeof fmt, "%%.%df", dec);
	g_ascii_formatd(buf, len, fmt, v);
}

/* br_fig_latency: see figure_io.h. */
int
br_fig_latency(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause)
{
	static const int metric[3] = { BR_TTFT, BR_ITL, BR_E2EL };
	static const char *const label_key[3] = { BR_FT_KEY("figL-latency-cdf.ttft"), BR_FT_KEY("figL-latency-cdf.itl"),
		BR_FT_KEY("figL-latency-cdf.e2el") };
	static const char *const key[3] = { "ttft", "itl", "e2el" };   /* CSV: stable English */
	static const char *const longname_key[3] = { BR_FT_KEY("figL-latency-cdf.x_ttft"),
		BR_FT_KEY("figL-latency-cdf.x_itl"), BR_FT_KEY("figL-latency-cdf.x_e2el") };
	const br_latency *L = &a->latency;
	if (!L->from_arrays)
		return 0;
	br_chart *charts[3];
	size_t nc = 0;
	GString *csv = g_string_new("metric,value_ms,cdf\n");
	GString *names = g_string_new(NULL);
	GString *off_axis = g_string_new(NULL);   /* "ITL 50.2%": values of 0 or less, off the log axis */
	for (int k = 0; k < 3; k++) {
		int m = metric[k];
		const char *label = br_ft(ft, label_key[k]);
		size_t nf = L->cdf_count[m], np = L->cdf_n[m];
		if (nf == 0 || np == 0)
			continue;
		int in_s = L->cdf_mid_ms[m] >= 1000;
		double div = in_s ? 1000 : 1;
		const char *unit = in_s ? "s" : "ms";
		const double *y = L->cdf_share[m];
		double *x = br_xmalloc(np * sizeof *x);   /* the values in the panel's unit */
		GString *part = g_string_new(NULL);
		for (size_t i = 0; i < np; i++) {
			g_string_append_printf(part, "%s,", key[k]);
			br_csv_num(part, L->cdf_x_ms[m][i]);
			g_string_append_c(part, ',');
			br_csv_num(part, y[i]);
			g_string_append_c(part, '\n');
			x[i] = L->cdf_x_ms[m][i] / div;
		}
		/* n with thousands separators: 4,995,000 */
		char digits[32], count[48];
		snprintf(digits, sizeof digits, "%zu", nf);
		size_t nd = strlen(digits), o = 0;
		for (size_t i = 0; i < nd; i++) {
			count[o++] = digits[i];
			if ((nd - i - 1) % 3 == 0 && i + 1 < nd)
				count[o++] = ',';
		}
		count[o] = '\0';
		br_chart *c = br_chart_new(br_ftp(ft, "figL-latency-cdf.panel_title", "{s:s,s:s}", "metric", label, "n", count));
		br_axis_set(&c->x, BR_SCALE_LOG10, br_ftp(ft, BR_FT_KEY("figL-latency-cdf.x_axis"), "{s:s,s:s}",
		    "name", br_ft(ft, longname_key[k]), "unit", unit));
		br_axis_set(&c->y, BR_SCALE_LINEAR, nc == 0 ? br_ft(ft, "figL-latency-cdf.y_axis") : NULL);
		c->y.min = 0;
		c->y.max = 1;
		c->legend = 0;
		br_chart_series *cs = br_chart_add(c, BR_SERIES_STEP, BR_SIDE_LEFT, 0, label, x, y, np);
		cs->dash = 0;
		cs->line_width_pt = 1.2;
		/* percentile lines from the latency analysis (absent → no line) */
		const br_describe_t *d = &L->m[m];
		const double pv[3] = { d->median, d->p99, d->p999 };
		static const char *const pn[3] = { BR_FT_KEY("figL-latency-cdf.ref_p50"), BR_FT_KEY("figL-latency-cdf.ref_p99"),
			BR_FT_KEY("figL-latency-cdf.ref_p999") };
		static const int pc[3] = { 5, 4, 2 };
		for (int j = 0; j < 3; j++) {
			if (d->count == 0 || !isfinite(pv[j]))
				continue;
			char num[32];
			fmt_value(pv[j] / div, num, sizeof num);
			const char *lab = br_ftp(ft, pn[j], "{s:s,s:s}", "value", num, "unit", unit);
			br_refline *r = br_chart_add_vline(c, pv[j] / div, lab, pc[j], BR_LABEL_BOTTOM);
			if (r)
				r->dash = j == 0 ? 5 : j == 1 ? 1 : 3;
		}
		/* the share at or below 0: those values have no place on a log
		 * axis, and the curve starts at it (the points are ascending) */
		double zero_share = 0;
		for (size_t i = 0; i < np && L->cdf_x_ms[m][i] <= 0; i++)
			zero_share = y[i];
		if (zero_share > 0 && br_chart_has_data(c)) {
			char pct[32];
			g_ascii_formatd(pct, sizeof pct, "%.1f", 100 * zero_share);
			g_string_append_printf(off_axis, "%s%s %s%%", off_axis->len ? br_ft(ft, "figL-latency-cdf.list_sep") : "",
			    label, pct);
		}
		if (br_chart_has_data(c)) {
			charts[nc++] = c;
			g_string_append_len(csv, part->str, (gssize)part->len);
			g_string_append_printf(names, "%s%s", names->len ? br_ft(ft, "figL-latency-cdf.list_sep") : "", label);
		} else {
			br_chart_free(c);
		}
		g_string_free(part, TRUE);
		free(x);
	}
	int rc = 0;
	if (nc > 0) {
		const char *caption = br_ftp(ft, "figL-latency-cdf.caption", "{s:s,s:i,s:i}", "metrics", names->str,
		    "max_points", BR_LATENCY_CDF_POINTS, "tail_points", BR_LATENCY_CDF_TAIL);
		if (off_axis->len > 0)
			caption = br_ftp(ft, "figL-latency-cdf.caption_off_axis", "{s:s,s:s}", "caption", caption,
			    "parts", off_axis->str);
		br_fig_spec spec = {
			.id = "figL-latency-cdf",
			.title = br_ft(ft, "figL-latency-cdf.title"),
			.caption = caption,
			.width_pt = BR_FIG_W_PT, .height_pt = BR_FIG_H_PT,
			.charts = charts, .n_charts = nc, .cols = (int)nc,
			.csv = csv->str, .csv_len = csv->len,
		};
		rc = br_figure_write(out_dir, &spec, out, cause) == 0 ? 1 : -1;
	}
	for (size_t i = 0; i < nc; i++)
		br_chart_free(charts[i]);
	g_string_free(csv, TRUE);
	g_string_free(names, TRUE);
	g_string_free(off_axis, TRUE);
	return rc;
}
