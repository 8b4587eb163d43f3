/*
 * figG-gpu "GPU telemetry": power draw (W, left axis) and SM clock (MHz,
 * right axis) of each GPU against time since the first metrics sample, from
 * the gpu:* columns `benchreport sample` adds when nvidia-smi exists; the
 * run window shaded as in fig2. Power capping and clock throttling explain
 * throughput dips that the server's own metrics cannot. With more than 4
 * GPUs, their mean is drawn (every GPU is in the CSV). No gpu:* columns:
 * no figure, and the report says nothing.
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
br_fig_gpu(const br_analysis *a, const char *out_dir, br_figure *out, char **cause)
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
	br_axis_set(&c->x, BR_SCALE_LINEAR, "time since first metrics sample (s)");
	br_axis_set(&c->y, BR_SCALE_LINEAR, "power draw (W)");
	br_axis_set(&c->y2, BR_SCALE_LINEAR, "SM clock (MHz)");
	c->y.include_zero = 1;
	c->y2.include_zero = 1;
	c->has_y2 = 1;
	int averaged = ng > MAX_DRAWN;
	double *pm = NULL, *cm = NULL;
	if (averaged) {
		pm = mean_over(power, np, n);
		cm = mean_over(clock, nc, n);
		char *lp = br_xasprintf("power, mean of %d GPUs (W, left)", ng);
		char *lc = br_xasprintf("SM clock, mean of %d GPUs (MHz, right)", ng);
		br_chart_add(c, BR_SERIES_LINE, BR_SIDE_LEFT, 0, lp, t, pm, n);
		br_chart_add(c, BR_SERIES_LINE, BR_SIDE_RIGHT, 2, lc, t, cm, n);
		free(lp);
		free(lc);
	} else {
		for (int g = 0; g < ng; g++) {
			char *lp = br_xasprintf("GPU %d power (W, left)", g);
			char *lc = br_xasprintf("GPU %d SM clock (MHz, right)", g);
			if (g < np && power[g])
				br_chart_add(c, BR_SERIES_LINE, BR_SIDE_LEFT, 2 * g % BR_PALETTE_N, lp, t, power[g], n);
			if (g < nc && clock[g]) {
				br_chart_series *cs = br_chart_add(c, BR_SERIES_LINE, BR_SIDE_RIGHT,
				    (2 * g + 1) % BR_PALETTE_N, lc, t, clock[g], n);
				if (cs)
					cs->dash = 1;
			}
			free(lp);
			free(lc);
		}
	}
	int window = br_fig_add_run_window(c, a, t0);
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
		char *cap = br_xasprintf("GPU telemetry sampled by nvidia-smi at the metrics ticks: power draw "
		    "(W, left axis) and SM clock (MHz, right axis, dashed) %s against time since the first "
		    "metrics sample (s).%s A clock that falls while power sits at the board's limit points to "
		    "power capping; one that falls together with power, to a GPU given less work.",
		    averaged ? "as the mean over the GPUs" : "of each GPU",
		    window ? " Shaded: the benchmark window." : "");
		rc = br_figure_write_single(out_dir, "figG-gpu", "GPU telemetry: power and SM clock", cap, c,
		    csv, out, cause);
		free(cap);
		g_string_free(csv, TRUE);
	}
	br_chart_free(c);
	free(t);
	free(pm);
	free(cm);
	return rc;
}
