/*
 * Figures across the configurations of a campaign (DESIGN.md §4 figures 1,
 * 6, 7, 8): one category per run on the x axis, in campaign order, labelled
 * with the run name (rotated by the chart layer when the names do not fit
 * side by side).
 *
 * fig1-kv-demand: bars of the requested concurrency C and the peak running
 *   requests (left, requests); demand / pool on a right log axis as markers,
 *   with the 1.0× line (demand = pool).
 * fig6-configs: three panels: output throughput (tok/s), p99 ITL (ms),
 *   preemptions (count).
 * fig7-ttft-split: TTFT split into queue, prefill and frontend per
 *   configuration, grouped bars on a log y axis, with the client mean TTFT.
 * fig8-flops-calibration: GFLOP/token vs mean context per token of the
 *   calibration runs, the fitted line and the focus run above it.
 *
 * Text: templates/report.LANG.json "figtext.campaign.*" (the category
 * labels: run_n {n}, band_calibration, band_calibration_plain, label_suffix {label, suffix},
 * repeats {n}, repeats_partial {n, all}, repeats_failed {n, failed}, config_label {label, repeats},
 * config_label_suffix {label, repeats, suffix}, na) and per figure
 * "figtext.fig1-kv-demand.*" (title, y_axis, y2_axis, legend_concurrency,
 * legend_peak, legend_demand, legend_pool_line, demand_suffix {x}, caption,
 * caption_grouped, caption_demand), "figtext.fig6-configs.*" (title,
 * panel_throughput|itl|preemptions, y_throughput|itl|preemptions, list_sep,
 * caption {measures}, caption_grouped {measures}), "figtext.fig7-ttft-split.*"
 * (title, y_axis, legend_queue|prefill|frontend|client, queue, prefill,
 * frontend, no_split, note_value {part, s}, caption, caption_grouped,
 * caption_negative {n}) and "figtext.fig8-flops-calibration.*" (title,
 * x_axis, y_axis, legend_fit {a, b, runs}, legend_fit_r2 {a, b, r2, runs},
 * legend_calibration, legend_other, legend_focus {name}, note_excess {pct},
 * caption {a, b}, caption_r2 {a, b, r2}, caption_focus {pct}, caption_note
 * {note}; the note is the analysis' English text). Numbers are formatted in
 * C (br_fig_num) and passed as text; the CSVs keep their English names.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "benchreport/common.h"
#include "render/figure_io.h"

/* ------------------------------------------------------------------ */
/* per-run numbers                                                      */

/* bench_of: the reported bench result of run i, or NULL. */
static const br_bench *
bench_of(const br_campaign *c, size_t i)
{
	return c->runs[i].bench.n > 0 ? &c->runs[i].bench.runs[0] : NULL;
}

/* run_label: category label of run i (its name, else "run N"); a name
 * longer than 28 bytes loses the ends it shares with the other long names
 * (distinct_label), then keeps its first 13 and last 13 bytes around "…" (a
 * `vllm bench sweep` folder name is ~60 characters: rotated whole, it would
 * leave the panel no room to plot); the CSV keeps the full name. malloc'd. */
static char *short_label(const char *n);

static int
is_name_sep(char ch)
{
	return ch == '-' || ch == '_' || ch == '.' || ch == ' ' || ch == '/' || ch == '=' || ch == ',';
}

/* shared_ends: the bytes every name of names[0..n) longer than 28 shares
 * at its start (*pre) and end (*suf), each cut back to just after / before
 * a separator (- _ . space / = ,) so no word is split; 0 and 0 with fewer
 * than 2 such names. Long sweep folder names differ only in the middle (the
 * setting): cut in the middle, every label read "qwen2.5-7b-in…ery-long-name". */
static void
shared_ends(const char *const *names, size_t n, size_t *pre, size_t *suf)
{
	const char *first = NULL;
	size_t np = 0, ns = 0, n_long = 0, flen = 0;
	for (size_t i = 0; i < n; i++) {
		const char *s = names[i];
		size_t len = s ? strlen(s) : 0;
		if (len <= 28)
			continue;
		if (n_long++ == 0) {
			first = s;
			flen = np = ns = len;
			continue;
		}
		size_t k = 0;
		while (k < np && k < len && s[k] == first[k])
			k++;
		np = k;
		k = 0;
		while (k < ns && k < len && s[len - 1 - k] == first[flen - 1 - k])
			k++;
		ns = k;
	}
	*pre = *suf = 0;
	if (n_long < 2)
		return;
	while (np > 0 && !is_name_sep(first[np - 1]))
		np--;
	while (ns > 0 && !is_name_sep(first[flen - ns]))
		ns--;
	*pre = np;
	*suf = ns;
}

/* distinct_label: short_label of names[i] after the bytes all long names
 * share at both ends (shared_ends) are cut to "…"; malloc'd. */
static char *
distinct_label(const char *const *names, size_t n, size_t i)
{
	const char *s = names[i];
	size_t len = strlen(s), pre, suf;
	shared_ends(names, n, &pre, &suf);
	if (len > 28 && pre + suf < len) {
		char *mid = br_xasprintf("%s%.*s%s", pre ? "…" : "", (int)(len - pre - suf), s + pre,
		    suf ? "…" : "");
		if (strlen(mid) < len) {
			char *l = short_label(mid);
			free(mid);
			return l;
		}
		free(mid);
	}
	return short_label(s);
}

static char *
run_label(const br_campaign *c, br_ftx *ft, size_t i)
{
	const char *n = c->runs[i].name;
	if (!(n && n[0]))
		return br_xstrdup(br_ftp(ft, "campaign.run_n", "{s:I}", "n", (json_int_t)(i + 1)));
	const char **names = br_xmalloc(c->n_runs * sizeof *names);
	for (size_t k = 0; k < c->n_runs; k++)
		names[k] = c->runs[k].name ? c->runs[k].name : "";
	char *l = distinct_label(names, c->n_runs, i);
	free(names);
	return l;
}

/* short_label: n, or its first and last 13 bytes around "…" when longer
 * than 28 bytes (see run_label); malloc'd. */
static char *
short_label(const char *n)
{
	size_t len = strlen(n);
	if (len <= 28)
		return br_xstrdup(n);
	size_t a = 13, b = len - 13;
	while (a > 0 && ((unsigned char)n[a] & 0xC0) == 0x80)
		a--;
	while (b < len && ((unsigned char)n[b] & 0xC0) == 0x80)
		b++;
	return br_xasprintf("%.*s…%s", (int)a, n, n + b);
}

/* concurrency: C of run i (capacity block, else the bench file), NAN for open loop. */
static double
concurrency(const br_campaign *c, size_t i)
{
	double v = c->analyses[i].capacity.concurrency;
	if (!isfinite(v)) {
		const br_bench *b = bench_of(c, i);
		v = b ? b->max_concurrency : NAN;
	}
	return isfinite(v) && v > 0 ? v : NAN;
}

/* itl_p99_ms: p99 ITL recomputed from the arrays, else the file's own p99_itl_ms. */
static double
itl_p99_ms(const br_campaign *c, size_t i)
{
	const br_latency *L = &c->analyses[i].latency;
	if (L->m[BR_ITL].count > 0 && isfinite(L->m[BR_ITL].p99))
		return L->m[BR_ITL].p99;
	const br_bench *b = bench_of(c, i);
	return b ? br_bench_file_stat(b, "itl", "p", 99) : NAN;
}

/* preemptions: Δ counter over the window (preemption block, else residency), NAN when unknown. */
static double
preemptions(const br_campaign *c, size_t i)
{
	const br_analysis *a = &c->analyses[i];
	if (a->preemptions.count_available && isfinite(a->preemptions.n_preemptions))
		return a->preemptions.n_preemptions;
	if (a->residency.available && isfinite(a->residency.preemptions))
		return a->residency.preemptions;
	return NAN;
}

/* any_finite: at least one finite value in v[0..n). */
static int
any_finite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			return 1;
	return 0;
}

/* fmt_value: v with 3 significant figures (whole numbers as integers) into buf. */
static void
fmt_value(double v, char *buf, size_t len)
{
	double a = fabs(v);
	if (v == floor(v) && a < 1e15) {
		br_fig_num(buf, len, "%.0f", v);
		return;
	}
	const char *f = a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f";
	br_fig_num(buf, len, f, v);
}

/*
 * calibration_only: run i is there for the FLOPs calibration only: its
 * run.json says "role": "calibration". Such runs go to the right of figures
 * 1, 6 and 7, on a shaded band, so that the comparison set reads on its own
 * (issue 10: the bars "split for the first time" at the oversubscribed
 * configuration, as in the reference report). The focus run never moves.
 */
static int
calibration_only(const br_campaign *c, size_t i)
{
	const char *role = c->runs[i].role;
	return i != c->focus && role && strcasecmp(role, "calibration") == 0;
}

/*
 * set_categories: x categories labelled with the run names, each followed by
 * " · " and suffix[i] when suffix and suffix[i] are given; xs[i] is run i's
 * position: the runs in name order, those for the calibration only
 * (calibration_only) after the others on a shaded band.
 */
static void
set_categories(br_chart *ch, const br_campaign *c, br_ftx *ft, double *xs, char *const *suffix)
{
	size_t n = c->n_runs, k = 0, n_cal = 0;
	for (size_t i = 0; i < n; i++)
		n_cal += calibration_only(c, i);
	for (size_t i = 0; i < n; i++)
		if (!calibration_only(c, i))
			xs[i] = (double)k++;
	for (size_t i = 0; i < n; i++)
		if (calibration_only(c, i))
			xs[i] = (double)k++;
	if (n_cal > 0) {
		/* "no preemptions" only when every run on the band counted none (aud31:
		 * a calibration run that preempted sat under that label) */
		int none = 1;
		for (size_t i = 0; i < n; i++)
			if (calibration_only(c, i) && !(br_isnum(c->analyses[i].flops.m.preemptions) &&
			    c->analyses[i].flops.m.preemptions == 0))
				none = 0;
		br_band *b = br_chart_add_band(ch, (double)(n - n_cal) - 0.5, (double)n - 0.5,
		    br_ft(ft, none ? "campaign.band_calibration" : "campaign.band_calibration_plain"));
		if (b)
			b->veil = 1;   /* the calibration runs muted: the comparison set reads first */
	}
	char **lab = br_xmalloc(n * sizeof *lab);
	for (size_t i = 0; i < n; i++) {
		lab[i] = run_label(c, ft, i);
		if (suffix && suffix[i]) {
			char *t = br_xstrdup(br_ftp(ft, "campaign.label_suffix", "{s:s,s:s}", "label", lab[i], "suffix", suffix[i]));
			free(lab[i]);
			lab[i] = t;
		}
	}
	br_axis_set_categories(&ch->x, xs, (const char *const *)lab, n);
	for (size_t i = 0; i < n; i++)
		free(lab[i]);
	free(lab);
}

/* ------------------------------------------------------------------ */
/* per configuration                                                    */

/*
 * by_config: whether the figures show one category per configuration
 * (some configuration was repeated) rather than one per run.
 */
static int
by_config(const br_campaign *c)
{
	return c->max_repeats >= 2 && c->n_groups > 0;
}

/* n_categories: configurations when by_config, else runs. */
static size_t
n_categories(const br_campaign *c)
{
	return by_config(c) ? c->n_groups : c->n_runs;
}

/*
 * per_config: per-run values run_v[0..n_runs) (any unit, NAN = unknown)
 * turned into one value per category: with repeats (by_config), mean[g]
 * and sd[g] (sample sd, NAN below 2 values) over the run folders whose
 * reported result belongs to configuration g, n_used[g] the finite values
 * among them; without, a copy of run_v with sd NAN and n_used 1 or 0.
 * mean, sd: n_categories(c) doubles; n_used may be NULL.
 */
static void
per_config(const br_campaign *c, const double *run_v, double *mean, double *sd, size_t *n_used)
{
	if (!by_config(c)) {
		for (size_t i = 0; i < c->n_runs; i++) {
			mean[i] = run_v[i];
			sd[i] = NAN;
			if (n_used)
				n_used[i] = isfinite(run_v[i]);
		}
		return;
	}
	double *x = br_xmalloc((c->n_runs ? c->n_runs : 1) * sizeof *x);
	for (size_t g = 0; g < c->n_groups; g++) {
		size_t k = 0;
		for (size_t i = 0; i < c->n_runs; i++)
			if (br_campaign_group_of_run(c, i) == &c->groups[g])
				x[k++] = run_v[i];
		br_mean_ci s;
		br_mean_ci95(x, k, &s);
		mean[g] = s.n > 0 ? s.mean : NAN;
		sd[g] = s.n >= 2 ? s.sd : NAN;
		if (n_used)
			n_used[g] = s.n;
	}
	free(x);
}

/*
 * set_config_categories: x categories 0..n_categories(c)-1: the run names
 * (as set_categories), or with repeats the configuration labels with
 * "(n=K)", K its repeats; suffix[i] appended after " · " when given.
 * n_drawn (NULL: every repeat) is how many repeats the bar of
 * configuration i stands on: fewer than K reads "n=J of K" (aud31: a panel
 * of 2 repeats labelled n=3); with all_of every label reads so, so that
 * panels side by side get labels of one length and their plots line up.
 */
static void
set_config_categories(br_chart *ch, const br_campaign *c, br_ftx *ft, double *xs, char *const *suffix,
    const size_t *n_drawn, int all_of)
{
	if (!by_config(c)) {
		set_categories(ch, c, ft, xs, suffix);
		return;
	}
	size_t n = c->n_groups;
	char **lab = br_xmalloc(n * sizeof *lab);
	const char **glabels = br_xmalloc((n ? n : 1) * sizeof *glabels);
	for (size_t i = 0; i < n; i++)
		glabels[i] = c->groups[i].label ? c->groups[i].label : "";
	for (size_t i = 0; i < n; i++) {
		xs[i] = (double)i;
		char *sl = distinct_label(glabels, n, i);
		/* a repeat whose every request failed is in n but not in the means */
		const char *nn = c->groups[i].n_all_failed > 0 ?
		    br_ftp(ft, "campaign.repeats_failed", "{s:I,s:I}", "n", (json_int_t)c->groups[i].n,
		        "failed", (json_int_t)c->groups[i].n_all_failed) :
		    n_drawn && (n_drawn[i] < c->groups[i].n || all_of) ?
		    br_ftp(ft, "campaign.repeats_partial", "{s:I,s:I}", "n", (json_int_t)n_drawn[i],
		        "all", (json_int_t)c->groups[i].n) :
		    br_ftp(ft, "campaign.repeats", "{s:I}", "n", (json_int_t)c->groups[i].n);
		if (suffix && suffix[i])
			lab[i] = br_xstrdup(br_ftp(ft, "campaign.config_label_suffix", "{s:s,s:s,s:s}", "label", sl,
			    "repeats", nn, "suffix", suffix[i]));
		else
			lab[i] = br_xstrdup(br_ftp(ft, "campaign.config_label", "{s:s,s:s}", "label", sl, "repeats", nn));
		free(sl);
	}
	free(glabels);
	br_axis_set_categories(&ch->x, xs, (const char *const *)lab, n);
	for (size_t i = 0; i < n; i++)
		free(lab[i]);
	free(lab);
}

/* category_name: CSV name of category i (configuration label or run name; not owned). */
static const char *
category_name(const br_campaign *c, size_t i)
{
	return by_config(c) ? c->groups[i].label : c->runs[i].name;
}

/*
 * max_finite: the largest finite value of v[0..n), NAN when none.
 */
static double
max_finite(const double *v, size_t n)
{
	double m = NAN;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && (isnan(m) || v[i] > m))
			m = v[i];
	return m;
}

/*
 * headroom: a linear bar axis whose top leaves about 12 % above the
 * highest value, so the value labels above the bars stay off the frame.
 */
static void
headroom(br_axis *ax, double vmax)
{
	if (isfinite(vmax) && vmax > 0)
		ax->max = vmax * 1.12;
}

/*
 * room_for_notes: whether the value labels of v[0..n) fit side by side
 * above bars `slot` category units apart: the plot of one of `panels`
 * panels is about (figure width / panels − 55) pt wide, and a label is
 * about 4.3 pt per character at the note size. When they do not fit no
 * value is written (the chart would otherwise leave out only the ones that
 * collide, which reads as if those bars had no value).
 */
static int
room_for_notes(const double *v, size_t n, double slot, int panels)
{
	double unit_pt = (BR_FIG_W_PT / (double)panels - 55.0) / (double)(n ? n : 1);
	size_t chars = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		char num[32];
		fmt_value(v[i], num, sizeof num);
		if (strlen(num) > chars)
			chars = strlen(num);
	}
	return (double)chars * 4.3 + 3.0 <= unit_pt * slot;
}

/* na_notes: "n/a" in grey at the foot of each bar whose value is unknown (linear axes). */
static void
na_notes(br_chart *ch, br_ftx *ft, const double *xs, const double *v, size_t n, double offset)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			br_chart_add_note(ch, BR_SIDE_LEFT, xs[i] + offset, 0, br_ft(ft, "campaign.na"), 5, 0, -1.5, 0.5, 1);
}

/* bar_notes_at: the value v[i] of each finite bar written above height at[i]
 * (the bar's top, or its whisker's), suffix appended. */
static void
bar_notes_at(br_chart *ch, const double *xs, const double *v, const double *at, size_t n, double offset,
    const char *suffix, int color)
{
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		char num[32];
		fmt_value(v[i], num, sizeof num);
		char *t = br_xasprintf("%s%s", num, suffix);
		br_chart_add_note(ch, BR_SIDE_LEFT, xs[i] + offset, isfinite(at[i]) ? at[i] : v[i], t, color, 0, -1.5, 0.5, 1);
		free(t);
	}
}

/* bar_notes: the value of each finite bar above it (suffix appended). */
static void
bar_notes(br_chart *ch, const double *xs, const double *v, size_t n, double offset,
    const char *suffix, int color)
{
	bar_notes_at(ch, xs, v, v, n, offset, suffix, color);
}

/* ------------------------------------------------------------------ */
/* fig1                                                                 */

/* fig_kv_demand: see the file comment. With repeats one category per
 * configuration: the means over its run folders, whiskers ± sd on the peak
 * running bars. 1 made, 0 no data, -1 I/O error. */
static int
fig_kv_demand(const br_campaign *c, br_ftx *ft, const char *out_dir, br_figure *out, char **cause)
{
	size_t nr = c->n_runs, n = n_categories(c);
	enum { K_C, K_PEAK, K_OVER, K_DEMAND, K_POOL, K_N };
	double *run[K_N], *v[K_N], *sd[K_N];
	for (int k = 0; k < K_N; k++) {
		run[k] = br_xmalloc((nr ? nr : 1) * sizeof *run[k]);
		v[k] = br_xmalloc((n ? n : 1) * sizeof *v[k]);
		sd[k] = br_xmalloc((n ? n : 1) * sizeof *sd[k]);
	}
	double *xs = br_xmalloc((n ? n : 1) * sizeof *xs);
	for (size_t i = 0; i < nr; i++) {
		const br_analysis *a = &c->analyses[i];
		const br_capacity *cap = &a->capacity;
		run[K_C][i] = concurrency(c, i);
		run[K_PEAK][i] = a->residency.available ? a->residency.running_peak : NAN;
		run[K_OVER][i] = cap->available && cap->oversubscription > 0 ? cap->oversubscription : NAN;
		run[K_DEMAND][i] = cap->available ? cap->demand_tokens : NAN;
		run[K_POOL][i] = cap->available ? cap->kv_pool_tokens : NAN;
	}
	for (int k = 0; k < K_N; k++)
		per_config(c, run[k], v[k], sd[k], NULL);
	double *C = v[K_C], *peak = v[K_PEAK], *over = v[K_OVER];
	int rc = 0, grouped = by_config(c);
	if (!any_finite(C, n) && !any_finite(peak, n))
		goto done;
	br_chart *ch = br_chart_new(NULL);
	/* the demand / pool value goes into the category label: a note beside each
	 * marker would sit on the bars and collide with the bar values */
	char **osuf = br_xcalloc(n ? n : 1, sizeof *osuf);
	for (size_t i = 0; i < n; i++)
		if (isfinite(over[i])) {
			char num[32];
			/* two significant digits under 1: 0.029x read "0.0x" (brk23) */
			br_fig_num(num, sizeof num, over[i] >= 10 ? "%.0f" : over[i] >= 1 ? "%.1f" : "%.2g", over[i]);
			osuf[i] = br_xstrdup(br_ftp(ft, "fig1-kv-demand.demand_suffix", "{s:s}", "x", num));
		}
	set_config_categories(ch, c, ft, xs, osuf, NULL, 0);
	for (size_t i = 0; i < n; i++)
		free(osuf[i]);
	free(osuf);
	br_axis_set(&ch->y, BR_SCALE_LINEAR, br_ft(ft, "fig1-kv-demand.y_axis"));
	ch->y.include_zero = 1;
	/* colours: C light blue (3), peak running navy (0, "running" in fig2/3), demand/pool red (4) */
	br_chart_series *s = br_chart_add(ch, BR_SERIES_BARS, BR_SIDE_LEFT, 3,
	    br_ft(ft, "fig1-kv-demand.legend_concurrency"), xs, C, n);
	s->bar_width = 0.36;
	s->bar_offset = -0.19;
	s = br_chart_add(ch, BR_SERIES_BARS, BR_SIDE_LEFT, 0, br_ft(ft, "fig1-kv-demand.legend_peak"), xs, peak, n);
	s->bar_width = 0.36;
	s->bar_offset = 0.19;
	if (grouped)
		br_chart_series_set_err(s, sd[K_PEAK]);
	int has_over = any_finite(over, n);
	if (has_over) {
		br_axis_set(&ch->y2, BR_SCALE_LOG10, br_ft(ft, "fig1-kv-demand.y2_axis"));
		s = br_chart_add(ch, BR_SERIES_SCATTER, BR_SIDE_RIGHT, 4,
		    br_ft(ft, "fig1-kv-demand.legend_demand"), xs, over, n);
		s->line_width_pt = 2.0;
		/* the 1.0× line as a series, so its label is in the legend, not on the bars */
		double lx[2] = { -0.5, (double)n - 0.5 }, ly[2] = { 1, 1 };
		s = br_chart_add(ch, BR_SERIES_LINE, BR_SIDE_RIGHT, 4, br_ft(ft, "fig1-kv-demand.legend_pool_line"), lx, ly, 2);
		s->dash = 1;
		s->line_width_pt = 0.8;
		/* room for the markers: the range of the values and 1.0, ×/÷ 1.6 */
		double lo = 1, hi = 1;
		for (size_t i = 0; i < n; i++)
			if (isfinite(over[i])) {
				lo = over[i] < lo ? over[i] : lo;
				hi = over[i] > hi ? over[i] : hi;
			}
		ch->y2.min = lo / 1.6;
		ch->y2.max = hi * 1.6;
	}
	na_notes(ch, ft, xs, C, n, -0.19);
	na_notes(ch, ft, xs, peak, n, 0.19);
	if (room_for_notes(C, n, 0.38, 1) && room_for_notes(peak, n, 0.38, 1)) {
		bar_notes(ch, xs, C, n, -0.19, "", -1);
		bar_notes(ch, xs, peak, n, 0.19, "", -1);
		double m1 = max_finite(C, n), m2 = max_finite(peak, n);
		headroom(&ch->y, isfinite(m2) && !(m1 >= m2) ? m2 : m1);
	}
	GString *csv = g_string_new(grouped ? "configuration,n_repeats,requested_concurrency_requests,"
	    "peak_running_requests_mean,peak_running_requests_sd,kv_demand_tokens_mean,kv_pool_tokens_mean,"
	    "kv_demand_over_pool_x_mean\n" : "run,requested_concurrency_requests,peak_running_requests,"
	    "kv_demand_tokens,kv_pool_tokens,kv_demand_over_pool_x\n");
	static const int col[K_N] = { K_C, K_PEAK, K_DEMAND, K_POOL, K_OVER };
	for (size_t i = 0; i < n; i++) {
		br_csv_str(csv, category_name(c, i));
		if (grouped)
			g_string_append_printf(csv, ",%zu", c->groups[i].n);
		for (int j = 0; j < K_N; j++) {
			g_string_append_c(csv, ',');
			br_csv_num(csv, v[col[j]][i]);
			if (grouped && col[j] == K_PEAK) {
				g_string_append_c(csv, ',');
				br_csv_num(csv, sd[K_PEAK][i]);
			}
		}
		g_string_append_c(csv, '\n');
	}
	GString *cap = g_string_new(NULL);
	g_string_append(cap, grouped ? br_ft(ft, "fig1-kv-demand.caption_grouped") : br_ft(ft, "fig1-kv-demand.caption"));
	if (has_over)
		g_string_append(cap, br_ft(ft, "fig1-kv-demand.caption_demand"));
	rc = br_figure_write_single(out_dir, "fig1-kv-demand", br_ft(ft, "fig1-kv-demand.title"),
	    cap->str, ch, csv, out, cause);
	g_string_free(cap, TRUE);
	g_string_free(csv, TRUE);
	br_chart_free(ch);
done:
	free(xs);
	for (int k = 0; k < K_N; k++) {
		free(run[k]);
		free(v[k]);
		free(sd[k]);
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* fig6                                                                 */

/* fig_configs: see the file comment. */
static int
fig_configs(const br_campaign *c, br_ftx *ft, const char *out_dir, br_figure *out, char **cause)
{
	/* with repeats: one bar per configuration at the mean, whiskers ± sd */
	int by_group = by_config(c);
	size_t n = n_categories(c);
	double *xs = br_xmalloc(n * sizeof *xs), *v[3], *sd[3];
	for (int k = 0; k < 3; k++) {
		v[k] = br_xmalloc(n * sizeof *v[k]);
		sd[k] = br_xmalloc(n * sizeof *sd[k]);
	}
	static const int rep_metric[3] = { BR_REPEAT_OUT_TPS, BR_REPEAT_ITL_P99, BR_REPEAT_PREEMPTIONS };
	for (size_t i = 0; i < n; i++) {
		if (by_group) {
			for (int k = 0; k < 3; k++) {
				v[k][i] = c->groups[i].stat[rep_metric[k]].mean;
				sd[k][i] = c->groups[i].stat[rep_metric[k]].sd;
			}
			continue;
		}
		const br_bench *b = bench_of(c, i);
		v[0][i] = b ? b->output_throughput_tps : NAN;
		v[1][i] = itl_p99_ms(c, i);
		v[2][i] = preemptions(c, i);
		sd[0][i] = sd[1][i] = sd[2][i] = NAN;
	}
	const char *const title[3] = { br_ft(ft, "fig6-configs.panel_throughput"), br_ft(ft, "fig6-configs.panel_itl"),
		br_ft(ft, "fig6-configs.panel_preemptions") };
	const char *const ytitle[3] = { br_ft(ft, "fig6-configs.y_throughput"), br_ft(ft, "fig6-configs.y_itl"),
		br_ft(ft, "fig6-configs.y_preemptions") };
	/* colours: throughput navy (0), ITL teal (2), preemptions red (4, as in fig2/fig5) */
	static const int color[3] = { 0, 2, 4 };
	br_chart *charts[3];
	size_t nc = 0;
	GString *names = g_string_new(NULL);
	for (int k = 0; k < 3; k++) {
		if (!any_finite(v[k], n))
			continue;
		br_chart *ch = br_chart_new(title[k]);
		size_t *nd = br_xmalloc((n ? n : 1) * sizeof *nd);
		for (size_t i = 0; i < n; i++)
			nd[i] = by_group ? c->groups[i].stat[rep_metric[k]].n : 1;
		/* one panel with a partial bar: every panel's labels read "n=J of K" */
		int any_partial = 0;
		for (int m = 0; by_group && m < 3; m++)
			for (size_t i = 0; i < n; i++)
				any_partial |= any_finite(v[m], n) && c->groups[i].stat[rep_metric[m]].n < c->groups[i].n;
		set_config_categories(ch, c, ft, xs, NULL, by_group ? nd : NULL, any_partial);
		free(nd);
		br_axis_set(&ch->y, BR_SCALE_LINEAR, ytitle[k]);
		ch->y.include_zero = 1;
		ch->legend = 0;
		br_chart_series *s = br_chart_add(ch, BR_SERIES_BARS, BR_SIDE_LEFT, color[k], title[k], xs, v[k], n);
		s->bar_width = 0.6;
		if (by_group)
			br_chart_series_set_err(s, sd[k]);
		na_notes(ch, ft, xs, v[k], n, 0);
		if (room_for_notes(v[k], n, 1.0, (int)(any_finite(v[0], n) + any_finite(v[1], n) + any_finite(v[2], n)))) {
			/* the value sits above the whisker, and the axis leaves room for both */
			double *top = br_xmalloc((n ? n : 1) * sizeof *top);
			for (size_t i = 0; i < n; i++)
				top[i] = v[k][i] + (by_group && isfinite(sd[k][i]) ? sd[k][i] : 0);
			bar_notes_at(ch, xs, v[k], top, n, 0, "", -1);
			headroom(&ch->y, max_finite(top, n));
			free(top);
		}
		charts[nc++] = ch;
		g_string_append_printf(names, "%s%s", names->len ? br_ft(ft, "fig6-configs.list_sep") : "", ytitle[k]);
	}
	int rc = 0;
	if (nc > 0) {
		GString *csv = g_string_new(by_group ? "configuration,n_repeats,output_throughput_tok_per_s_mean,"
		    "output_throughput_tok_per_s_sd,itl_p99_ms_mean,itl_p99_ms_sd,preemptions_count_mean,"
		    "preemptions_count_sd\n" : "run,output_throughput_tok_per_s,itl_p99_ms,preemptions_count\n");
		for (size_t i = 0; i < n; i++) {
			br_csv_str(csv, category_name(c, i));
			if (by_group)
				g_string_append_printf(csv, ",%zu", c->groups[i].n);
			for (int k = 0; k < 3; k++) {
				g_string_append_c(csv, ',');
				br_csv_num(csv, v[k][i]);
				if (by_group) {
					g_string_append_c(csv, ',');
					br_csv_num(csv, sd[k][i]);
				}
			}
			g_string_append_c(csv, '\n');
		}
		const char *cap = br_ftp(ft, by_group ? BR_FT_KEY("fig6-configs.caption_grouped") : BR_FT_KEY("fig6-configs.caption"),
		    "{s:s}", "measures", names->str);
		br_fig_spec spec = {
			.id = "fig6-configs",
			.title = br_ft(ft, "fig6-configs.title"),
			.caption = cap,
			.width_pt = BR_FIG_W_PT, .height_pt = BR_FIG_H_PT,
			.charts = charts, .n_charts = nc, .cols = (int)nc,
			.csv = csv->str, .csv_len = csv->len,
		};
		rc = br_figure_write(out_dir, &spec, out, cause) == 0 ? 1 : -1;
		g_string_free(csv, TRUE);
	}
	for (size_t k = 0; k < nc; k++)
		br_chart_free(charts[k]);
	g_string_free(names, TRUE);
	free(xs);
	for (int k = 0; k < 3; k++) {
		free(v[k]);
		free(sd[k]);
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* fig7                                                                 */

/*
 * fig_ttft_split: see the file comment.
 *
 * Why grouped bars on a log axis, not stacked: under overload the queue
 * (minutes) dwarfs prefill and frontend (about a second). Stacked on a
 * linear axis the two small parts are a sliver nobody can read; stacked on
 * a log axis each segment's length depends on what is below it (1 s on top
 * of 178 s spans 0.002 decades, the same 1 s at the bottom spans decades),
 * so the picture lies about the parts. Side by side on a log axis every bar
 * is read directly against the axis, and the ratio of two parts is the
 * vertical distance between their tops. The client mean TTFT (the sum) is
 * a marker over each group.
 */
static int
fig_ttft_split(const br_campaign *c, br_ftx *ft, const char *out_dir, br_figure *out, char **cause)
{
	size_t nr = c->n_runs, n = n_categories(c);
	int grouped = by_config(c);
	/* per run: queue, prefill, frontend, client mean TTFT (s) and 1 when a split exists */
	enum { K_QUEUE, K_PREFILL, K_FRONT, K_TOT, K_AVAIL, K_N };
	double *run[K_N], *v[K_N], *sd[K_N], *plot[3];
	for (int k = 0; k < K_N; k++) {
		run[k] = br_xmalloc((nr ? nr : 1) * sizeof *run[k]);
		v[k] = br_xmalloc((n ? n : 1) * sizeof *v[k]);
		sd[k] = br_xmalloc((n ? n : 1) * sizeof *sd[k]);
	}
	for (int k = 0; k < 3; k++)
		plot[k] = br_xmalloc((n ? n : 1) * sizeof *plot[k]);
	double *xs = br_xmalloc((n ? n : 1) * sizeof *xs), *tot = v[K_TOT];
	size_t *n_split = br_xmalloc((n ? n : 1) * sizeof *n_split);
	for (size_t i = 0; i < nr; i++) {
		const br_ttft_split *t = &c->analyses[i].ttft_split;
		int ok = t->available;
		run[K_QUEUE][i] = ok ? t->queue_s : NAN;
		run[K_PREFILL][i] = ok ? t->prefill_s : NAN;
		run[K_FRONT][i] = ok ? t->frontend_s : NAN;
		run[K_TOT][i] = ok ? t->client_ttft_mean_s : NAN;
		run[K_AVAIL][i] = ok ? 1 : NAN;
	}
	for (int k = 0; k < K_N; k++)
		per_config(c, run[k], v[k], sd[k], k == K_AVAIL ? n_split : NULL);
	size_t n_avail = 0, n_neg = 0;
	double minpos = NAN;
	for (size_t i = 0; i < n; i++) {
		n_avail += n_split[i] > 0;
		for (int k = 0; k < 3; k++) {
			/* a log axis cannot show 0 or a negative residual: noted instead of drawn */
			plot[k][i] = isfinite(v[k][i]) && v[k][i] > 0 ? v[k][i] : NAN;
			if (isfinite(plot[k][i]) && (isnan(minpos) || plot[k][i] < minpos))
				minpos = plot[k][i];
		}
		if (isfinite(v[K_FRONT][i]) && v[K_FRONT][i] <= 0)
			n_neg++;
	}
	int rc = 0;
	if (n_avail == 0 || isnan(minpos))
		goto done;
	br_chart *ch = br_chart_new(NULL);
	set_config_categories(ch, c, ft, xs, NULL, by_config(c) ? n_split : NULL, 0);
	br_axis_set(&ch->y, BR_SCALE_LOG10, br_ft(ft, "fig7-ttft-split.y_axis"));
	const char *const lab[3] = { br_ft(ft, "fig7-ttft-split.legend_queue"), br_ft(ft, "fig7-ttft-split.legend_prefill"),
		br_ft(ft, "fig7-ttft-split.legend_frontend") };
	const char *const key[3] = { br_ft(ft, "fig7-ttft-split.queue"), br_ft(ft, "fig7-ttft-split.prefill"),
		br_ft(ft, "fig7-ttft-split.frontend") };
	/* colours: queue light orange (1, "waiting" in fig2/3), prefill navy (0), frontend teal (2) */
	static const int color[3] = { 1, 0, 2 };
	static const double off[3] = { -0.27, 0, 0.27 };
	for (int k = 0; k < 3; k++) {
		br_chart_series *s = br_chart_add(ch, BR_SERIES_BARS, BR_SIDE_LEFT, color[k], lab[k], xs, plot[k], n);
		s->bar_width = 0.25;
		s->bar_offset = off[k];
		if (grouped)
			br_chart_series_set_err(s, sd[k]);
	}
	br_chart_series *ms = br_chart_add(ch, BR_SERIES_SCATTER, BR_SIDE_LEFT, 5, br_ft(ft, "fig7-ttft-split.legend_client"), xs, tot, n);
	ms->line_width_pt = 1.5;
	/* log axis: a factor 3 of room above the highest bar (or whisker) for its label, 2.5 below the lowest */
	double top = NAN;
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < n; i++) {
			double m = plot[k][i] + (grouped && isfinite(sd[k][i]) ? sd[k][i] : 0);
			if (isfinite(m) && (isnan(top) || m > top))
				top = m;
		}
	double mt = max_finite(tot, n);
	if (isfinite(mt) && mt > top)
		top = mt;
	ch->y.min = minpos / 2.5;
	ch->y.max = top * 3;
	/*
	 * First (they win any collision) the notes that replace what a log axis
	 * cannot draw: a part that is zero or negative, written in red at the
	 * foot of its slot, and "no data" under a configuration without a split.
	 */
	for (size_t i = 0; i < n; i++) {
		if (n_split[i] == 0) {
			br_chart_add_note(ch, BR_SIDE_LEFT, xs[i], ch->y.min, br_ft(ft, "fig7-ttft-split.no_split"), 5, 0, -2, 0.5, 1);
			continue;
		}
		for (int k = 0; k < 3; k++)
			if (!isfinite(plot[k][i]) && isfinite(v[k][i])) {
				char num[32];
				fmt_value(v[k][i], num, sizeof num);
				const char *t = br_ftp(ft, "fig7-ttft-split.note_value", "{s:s,s:s}", "part", key[k], "s", num);
				/* from the left edge of the empty slot towards the gap after the group */
				br_chart_add_note(ch, BR_SIDE_LEFT, xs[i] + off[k] - 0.125, ch->y.min, t, 4, 0, -2, 0, 1);
			}
	}
	int notes = room_for_notes(plot[0], n, 0.27, 1) && room_for_notes(plot[1], n, 0.27, 1) &&
	    room_for_notes(plot[2], n, 0.27, 1);
	for (int k = 0; k < 3 && notes; k++)
		for (size_t i = 0; i < n; i++)
			if (isfinite(plot[k][i])) {
				char num[32];
				fmt_value(plot[k][i], num, sizeof num);
				br_chart_add_note(ch, BR_SIDE_LEFT, xs[i] + off[k], plot[k][i], num, -1, 0, -1.5, 0.5, 1);
			}
	GString *csv = g_string_new(grouped ? "configuration,n_repeats,n_with_split,queue_s_mean,queue_s_sd,"
	    "prefill_s_mean,prefill_s_sd,frontend_s_mean,frontend_s_sd,client_ttft_mean_s_mean,"
	    "client_ttft_mean_s_sd,frontend_negative\n" :
	    "run,queue_s,prefill_s,frontend_s,client_ttft_mean_s,frontend_negative\n");
	for (size_t i = 0; i < n; i++) {
		br_csv_str(csv, category_name(c, i));
		if (grouped)
			g_string_append_printf(csv, ",%zu,%zu", c->groups[i].n, n_split[i]);
		for (int k = 0; k <= K_TOT; k++) {
			g_string_append_c(csv, ',');
			br_csv_num(csv, v[k][i]);
			if (grouped) {
				g_string_append_c(csv, ',');
				br_csv_num(csv, sd[k][i]);
			}
		}
		g_string_append_printf(csv, ",%d\n", isfinite(v[K_FRONT][i]) && v[K_FRONT][i] < 0);
	}
	GString *cap = g_string_new(br_ft(ft, "fig7-ttft-split.caption"));
	if (grouped)
		g_string_append(cap, br_ft(ft, "fig7-ttft-split.caption_grouped"));
	if (n_neg > 0)
		g_string_append(cap, br_ftp(ft, "fig7-ttft-split.caption_negative", "{s:I}", "n", (json_int_t)n_neg));
	rc = br_figure_write_single(out_dir, "fig7-ttft-split", br_ft(ft, "fig7-ttft-split.title"),
	    cap->str, ch, csv, out, cause);
	g_string_free(cap, TRUE);
	g_string_free(csv, TRUE);
	br_chart_free(ch);
done:
	free(xs);
	free(n_split);
	for (int k = 0; k < K_N; k++) {
		free(run[k]);
		free(v[k]);
		free(sd[k]);
	}
	for (int k = 0; k < 3; k++)
		free(plot[k]);
	return rc;
}

/* ------------------------------------------------------------------ */
/* fig8                                                                 */

/*
 * fig_flops_calibration: see the file comment. The focus run's excess is
 * the FLOPs ledger's excess_frac; when the ledger has none (no FLOPs ledger
 * computed) it is computed here as measured / (a + b·x) − 1, the same
 * formula on the same numbers.
 */
static int
fig_flops_calibration(const br_campaign *c, br_ftx *ft, const char *out_dir, br_figure *out, char **cause)
{
	const br_flops_calibration *cal = &c->calibration;
	if (!c->has_calibration || !cal->available || cal->n_used < 2 || cal->points == NULL)
		return 0;
	double a = cal->fit.a, b = cal->fit.b;
	if (!isfinite(a) || !isfinite(b))
		return 0;
	size_t np = cal->n_points;
	double *ux = br_xmalloc((np + 1) * sizeof *ux), *uy = br_xmalloc((np + 1) * sizeof *uy),
	       *sx = br_xmalloc((np + 1) * sizeof *sx), *sy = br_xmalloc((np + 1) * sizeof *sy);
	size_t nu = 0, ns = 0;
	double xlo = NAN, xhi = NAN;
	const char *focus_name = c->n_runs > c->focus ? c->runs[c->focus].name : NULL;
	for (size_t i = 0; i < np; i++) {
		const br_flops_cal_point *p = &cal->points[i];
		if (!isfinite(p->x_tokens) || !isfinite(p->y_gflop_per_token))
			continue;
		if (p->used) {
			ux[nu] = p->x_tokens;
			uy[nu++] = p->y_gflop_per_token;
		} else if (!(focus_name && p->name && strcmp(p->name, focus_name) == 0)) {
			sx[ns] = p->x_tokens;
			sy[ns++] = p->y_gflop_per_token;
		} else {
			continue;
		}
		if (isnan(xlo) || p->x_tokens < xlo)
			xlo = p->x_tokens;
		if (isnan(xhi) || p->x_tokens > xhi)
			xhi = p->x_tokens;
	}
	int rc = 0;
	if (nu < 2)
		goto done;
	/* the focus run */
	const br_flops_ledger *L = c->n_runs > c->focus ? &c->analyses[c->focus].flops : NULL;
	double fx = NAN, fy = NAN, fexc = NAN;
	if (L && L->m.available) {
		fx = L->m.mean_context_tokens;
		fy = L->m.gflop_per_token;
		fexc = L->available ? L->excess_frac : NAN;
		if (!isfinite(fexc) && isfinite(fx) && isfinite(fy) && a + b * fx > 0)
			fexc = fy / (a + b * fx) - 1;
	}
	int has_focus = isfinite(fx) && isfinite(fy);
	if (has_focus) {
		if (fx < xlo)
			xlo = fx;
		if (fx > xhi)
			xhi = fx;
	}
	/* y range: every point and the line, plus 8 % of the span, so no marker sits on the frame */
	double ylo = NAN, yhi = NAN;
	for (size_t i = 0; i < nu + ns + (has_focus ? 1 : 0); i++) {
		double yv = i < nu ? uy[i] : i < nu + ns ? sy[i - nu] : fy;
		if (isnan(ylo) || yv < ylo)
			ylo = yv;
		if (isnan(yhi) || yv > yhi)
			yhi = yv;
	}
	double pad = (xhi - xlo) * 0.04;
	double lx[2] = { xlo - pad, xhi + pad }, ly[2] = { a + b * (xlo - pad), a + b * (xhi + pad) };

	br_chart *ch = br_chart_new(NULL);
	br_axis_set(&ch->x, BR_SCALE_LINEAR, br_ft(ft, "fig8-flops-calibration.x_axis"));
	br_axis_set(&ch->y, BR_SCALE_LINEAR, br_ft(ft, "fig8-flops-calibration.y_axis"));
	for (int k = 0; k < 2; k++) {
		if (ly[k] < ylo)
			ylo = ly[k];
		if (ly[k] > yhi)
			yhi = ly[k];
	}
	double ypad = (yhi - ylo) * 0.08;
	if (ypad > 0) {   /* twice the room on top: the focus run's note sits above its point */
		ch->y.min = ylo - ypad;
		ch->y.max = yhi + 2 * ypad;
	}
	char as[32], bs[32], r2[32];
	br_fig_num(as, sizeof as, "%.4g", a);
	br_fig_num(bs, sizeof bs, "%.3g", b);
	br_fig_num(r2, sizeof r2, "%.4f", cal->fit.r2);
	const char *fl = br_ftp(ft, isfinite(cal->fit.r2) ? BR_FT_KEY("fig8-flops-calibration.legend_fit_r2") :
	    BR_FT_KEY("fig8-flops-calibration.legend_fit"), "{s:s,s:s,s:s,s:I}", "a", as, "b", bs, "r2", r2,
	    "runs", (json_int_t)nu);
	/* colours: fit grey (5), calibration runs navy (0), focus red (4), others light blue (3) */
	br_chart_series *s = br_chart_add(ch, BR_SERIES_LINE, BR_SIDE_LEFT, 5, fl, lx, ly, 2);
	s->dash = 1;
	s = br_chart_add(ch, BR_SERIES_SCATTER, BR_SIDE_LEFT, 0, br_ft(ft, "fig8-flops-calibration.legend_calibration"),
	    ux, uy, nu);
	s->line_width_pt = 1.4;
	if (ns > 0) {
		s = br_chart_add(ch, BR_SERIES_SCATTER, BR_SIDE_LEFT, 3, br_ft(ft, "fig8-flops-calibration.legend_other"), sx, sy, ns);
		s->line_width_pt = 1.2;
	}
	char ex[32] = "";
	if (has_focus) {
		double vx[2] = { fx, fx }, vy[2] = { a + b * fx, fy };
		s = br_chart_add(ch, BR_SERIES_LINE, BR_SIDE_LEFT, 4, NULL, vx, vy, 2);
		s->dash = 2;
		s->line_width_pt = 0.8;
		const char *lab = br_ftp(ft, "fig8-flops-calibration.legend_focus", "{s:s}", "name", focus_name ? focus_name : "");
		s = br_chart_add(ch, BR_SERIES_SCATTER, BR_SIDE_LEFT, 4, lab, &fx, &fy, 1);
		s->line_width_pt = 1.8;
		if (isfinite(fexc)) {
			br_fig_num(ex, sizeof ex, "%+.1f", fexc * 100);
			br_chart_add_note(ch, BR_SIDE_LEFT, fx, fy, br_ftp(ft, "fig8-flops-calibration.note_excess", "{s:s}", "pct", ex),
			    4, -6, 0, 1, 0.5);
		}
	}
	GString *csv = g_string_new("run,role,mean_context_tokens,gflop_per_token,fit_gflop_per_token,"
	    "excess_over_fit_pct,preemptions_count\n");
	for (size_t i = 0; i < np; i++) {
		const br_flops_cal_point *p = &cal->points[i];
		int is_focus = focus_name && p->name && strcmp(p->name, focus_name) == 0;
		br_csv_str(csv, p->name);
		g_string_append_printf(csv, ",%s,", p->used ? "calibration" : is_focus ? "focus" : "not used");
		br_csv_num(csv, p->x_tokens);
		g_string_append_c(csv, ',');
		br_csv_num(csv, p->y_gflop_per_token);
		g_string_append_c(csv, ',');
		br_csv_num(csv, a + b * p->x_tokens);
		g_string_append_c(csv, ',');
		br_csv_num(csv, (p->y_gflop_per_token / (a + b * p->x_tokens) - 1) * 100);
		g_string_append_c(csv, ',');
		br_csv_num(csv, p->preemptions);
		g_string_append_c(csv, '\n');
	}
	int focus_listed = 0;
	for (size_t i = 0; i < np && focus_name; i++)
		focus_listed |= cal->points[i].name && strcmp(cal->points[i].name, focus_name) == 0;
	if (has_focus && !focus_listed) {
		br_csv_str(csv, focus_name);
		g_string_append(csv, ",focus,");
		br_csv_num(csv, fx);
		g_string_append_c(csv, ',');
		br_csv_num(csv, fy);
		g_string_append_c(csv, ',');
		br_csv_num(csv, a + b * fx);
		g_string_append_c(csv, ',');
		br_csv_num(csv, fexc * 100);
		g_string_append_c(csv, ',');
		br_csv_num(csv, L->m.preemptions);
		g_string_append_c(csv, '\n');
	}
	GString *cap = g_string_new(NULL);
	g_string_append(cap, br_ftp(ft, isfinite(cal->fit.r2) ? BR_FT_KEY("fig8-flops-calibration.caption_r2") :
	    BR_FT_KEY("fig8-flops-calibration.caption"), "{s:s,s:s,s:s}", "a", as, "b", bs, "r2", r2));
	/* the excess is recompute only where br_flops_excess_reading says so */
	if (has_focus && ex[0]) {
		static const char *const key[] = {
			[BR_EXCESS_RECOMPUTE] = BR_FT_KEY("fig8-flops-calibration.caption_focus"),
			[BR_EXCESS_COUNT_UNKNOWN] = BR_FT_KEY("fig8-flops-calibration.caption_focus_count_unknown"),
			[BR_EXCESS_NO_PREEMPTIONS] = BR_FT_KEY("fig8-flops-calibration.caption_focus_no_preemptions"),
			[BR_EXCESS_NONE] = BR_FT_KEY("fig8-flops-calibration.caption_focus_no_excess"),
		};
		g_string_append(cap, br_ftp(ft, key[br_flops_excess_reading(L->preemptions, fexc)], "{s:s}", "pct", ex));
	}
	/* the note is the analysis' own text (src/analysis/flops.c, English) */
	if (cal->note)
		g_string_append(cap, br_ftp(ft, "fig8-flops-calibration.caption_note", "{s:s}", "note", cal->note));
	rc = br_figure_write_single(out_dir, "fig8-flops-calibration", br_ft(ft, "fig8-flops-calibration.title"),
	    cap->str, ch, csv, out, cause);
	g_string_free(cap, TRUE);
	g_string_free(csv, TRUE);
	br_chart_free(ch);
done:
	free(ux);
	free(uy);
	free(sx);
	free(sy);
	return rc;
}

/* ------------------------------------------------------------------ */

typedef int (*cfig_fn)(const br_campaign *, br_ftx *, const char *, br_figure *, char **);

/* br_render_campaign_figures: see render.h. */
int
br_render_campaign_figures(const br_campaign *c, const br_template *t, const char *out_dir,
    br_figure **figs, size_t *n_figs, char **cause)
{
	static const cfig_fn fns[] = { fig_kv_demand, fig_configs, fig_ttft_split, fig_flops_calibration };
	const size_t nfn = sizeof fns / sizeof fns[0];
	*figs = NULL;
	*n_figs = 0;
	if (br_mkdir_p(out_dir, cause) != 0)
		return -1;
	if (c == NULL || c->n_runs == 0 || c->runs == NULL || c->analyses == NULL)
		return 0;
	br_figure *v = br_xcalloc(nfn, sizeof *v);
	size_t n = 0;
	br_ftx *ft = br_ftx_new(t);
	for (size_t i = 0; i < nfn; i++) {
		int rc = fns[i](c, ft, out_dir, &v[n], cause);
		if (rc < 0) {
			br_ftx_free(ft);
			br_fig_wait(NULL);
			br_figures_free(v, n);
			return -1;
		}
		if (rc > 0)
			n++;
	}
	br_ftx_free(ft);
	if (n == 0) {
		free(v);
		v = NULL;
	}
	*figs = v;
	*n_figs = n;
	return 0;
}
