/*
 * figG-gpu "GPU telemetry": power draw (W, left axis) and SM clock (MHz,
 * right axis) of each GPU against time since the first metrics sample, from
 * the gpu:* columns `benchreport sample` adds when nvidia-smi exists; the
 * run window shaded as in fig2. Power capping and clock throttling explain
 * throughput dips that the server's own metrics cannot. With more than 4
 * GPUs, their mean is drawn (every GPU is in the CSV). No gpu:* columns:
 * no figure, and the report says nothing.
 *
 * Text: templates/report.LANG.json "figtext.figG-gpu.*" (title, x_axis,
 * y_power, y_clock, legend_power_mean {n}, legend_clock_mean {n},
 * legend_power {gpu}, legend_clock {gpu}, caption {which, window},
 * which_mean, which_each, caption_window), "figtext.common.benchmark_window".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "render/figure_io.h"

#define MAX_DRAWN 4
#define MAX_GPUS 64

/* gpu_cols: the per-GPU columns of one quantity ("gpu:power_w{gpu=\"N\"}"),
 * indexed by GPU; returns the highest index + 1. */
static int
gpu_cols(const br_series *s, const char *base, const double *cols[MAX_GPUS])
{
	int n = 0;
	char name[96];
	for (int g = 0; g < MAX_GPUS; g++) {
		snprintf(name, sizeof name, "%s{gpu=\"%d\"}", base, g);
		cols[g] = br_series_col(s, name);
		if (cols[g] != NULL)
			n = g + 1;
	}
	return n;
}

/* mean_over: per row, the mean of the finite values of cols[0..n). */
static double *
mean_over(const double *const *cols, int n, size_t rows)
{
	double *m = br_xmalloc(rows * sizeof *m);
	for (size_t i = 0; i < rows; i++) {
		double sum = 0;
		int k = 0;
		for (int g = 0; g < n; g++)
			if (cols[g] && isfinite(cols[g][i]))
				sum += cols[g][i], k++;
		m[i] = k ? sum / k : NAN;
	}
	return m;
}

/* br_fig_gpu: see figure_io.h. */
int
br_fig_gpu(const br_analysis *a, br_ftx *ft, const char *out_dir, br_figure *out, char **cause)
{
	const br_run *run = a->run;
	if (run == NULL || run->metrics == NULL || run->metrics_kind != BR_METRICS_CSV)
		return 0;
	const br_series *s = run->metrics;
	size_t n = s->n_rows;
	if (n < 2 || s->t_s == NULL)
		return 0;
	const double *power[MAX_GPUS], *clock[MAX_GPUS];
	int np = gpu_cols(s, "gpu:power_w", power), nc = gpu_cols(s, "gpu:sm_clock_mhz", clock);
	int ng = np > nc ? np : nc;
	if (ng == 0)
		return 0;
	double t0;
	double *t = br_fig_series_time(s, &t0);

	br_chart *c = br_chart_new(NULL);
	c->max_gap_x = br_fig_series_max_gap_s(s);   /* missing samples: a break, not a line */
	br_axis_set(&c->x, BR_SCALE_LINEAR, br_ft(ft, "figG-gpu.x_axis"));
	br_axis_set(&c->y, BR_SCALE_LINEAR, br_ft(ft, "figG-gpu.y_power"));
	br_axis_set(&c->y2, BR_SCALE_LINEAR, br_ft(ft, "figG-gpu.y_clock"));
	c->y.include_zero = 1;
	c->y2.include_zero = 1;
	c->has_y2 = 1;
	int averaged = ng > MAX_DRAWN;
	double *pm = NULL, *cm = NULL;
	if (averaged) {
		pm = mean_over(power, np, n);
		cm = mean_over(clock, nc, n);
		const char *lp = br_ftp(ft, "figG-gpu.legend_power_mean", "{s:i}", "n", ng);
		const char *lc = br_ftp(ft, "figG-gpu.legend_clock_mean", "{s:i}", "n", ng);
		br_chart_add(c, BR_SERIES_LINE, BR_SIDE_LEFT, 0, lp, t, pm, n);
		br_chart_add(c, BR_SERIES_LINE, BR_SIDE_RIGHT, 2, lc, t, cm, n);
	} else {
		for (int g = 0; g < ng; g++) {
			const char *lp = br_ftp(ft, "figG-gpu.legend_power", "{s:i}", "gpu", g);
			const char *lc = br_ftp(ft, "figG-gpu.legend_clock", "{s:i}", "gpu", g);
			if (g < np && power[g])
				br_chart_add(c, BR_SERIES_LINE, BR_SIDE_LEFT, 2 * g % BR_PALETTE_N, lp, t, power[g], n);
			if (g < nc && clock[g]) {
				br_chart_series *cs = br_chart_add(c, BR_SERIES_LINE, BR_SIDE_RIGHT,
				    (2 * g + 1) % BR_PALETTE_N, lc, t, clock[g], n);
				if (cs)
					cs->dash = 1;
			}
		}
	}
	int window = br_fig_add_run_window(c, ft, a, t0);
	int rc = 0;
	if (br_chart_has_data(c)) {
		GString *csv = g_string_new("t_s,t_unix_s,gpu,power_w,sm_clock_mhz\n");
		for (int g = 0; g < ng; g++)
			for (size_t i = 0; i < n; i++) {
				br_csv_num(csv, t[i]);
				g_string_append_c(csv, ',');
				br_csv_num(csv, s->t_s[i]);
				g_string_append_printf(csv, ",%d,", g);
				br_csv_num(csv, g < np && power[g] ? power[g][i] : NAN);
				g_string_append_c(csv, ',');
				br_csv_num(csv, g < nc && clock[g] ? clock[g][i] : NAN);
				g_string_append_c(csv, '\n');
			}
		const char *cap = br_ftp(ft, "figG-gpu.caption", "{s:s,s:s}",
		    "which", averaged ? br_ft(ft, "figG-gpu.which_mean") : br_ft(ft, "figG-gpu.which_each"),
		    "window", window ? br_ft(ft, "figG-gpu.caption_window") : "");
		rc = br_figure_write_single(out_dir, "figG-gpu", br_ft(ft, "figG-gpu.title"), cap, c,
		    csv, out, cause);
		g_string_free(csv, TRUE);
	}
	br_chart_free(c);
	free(t);
	free(pm);
	free(cm);
	return rc;
}
