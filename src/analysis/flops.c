/*
 * FLOPs ledger (DESIGN.md §3.8, FLOPs part).
 *
 * Calibration: each run with zero preemptions gives a point
 *   x = mean context per token = Σ L² / (2 Σ L), L = in + out of each
 *       successful request (per-request arrays), else (mean in + mean out) / 2
 *       (bench means; the same value when every request has one length),
 *   y = GFLOP per token = Δ vllm:estimated_flops_per_gpu_total
 *                         / Δ vllm:iteration_tokens_total_sum / 1e9,
 * and GFLOP/token = a + b·x is fitted by ordinary least squares (br_linfit:
 * standard errors from SSR/(n−2), so none with two points, and R²).
 *
 * Focus run:
 *   predicted = tokens · (a + b·x) · 1e9,  excess = measured − predicted,
 *   recomputed tokens = excess / ((a + b·R/2) · 1e9), R = mean released tokens
 *     per preemption (§3.5): a recomputed sequence of R tokens has mean context R/2,
 *   cross-check Σ released = n_preemptions · R,
 *   recompute time = excess / the prefill FLOP rate: p95(Δflops/Δt over the
 *     sample intervals of the run window), or their maximum when the p95 is
 *     under half of it (a run that mostly decodes), share = recompute time /
 *     duration.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <strings.h>
#include "benchreport/analysis_flops.h"
#include "benchreport/common.h"
#include "benchreport/model.h"


static const char MISSING_FLOPS[] =
    "needs vllm:estimated_flops_per_gpu_total (vllm serve --enable-mfu-metrics)";
static const char MISSING_CAL[] =
    "needs zero-preemption calibration runs (--calibration DIR...)";

/*
 * flop_rates: the 95th percentile (numpy linear) and the maximum of
 * Δflops/Δt over the intervals between successive rows i0..i1. Intervals
 * with a NaN sample, a non-positive Δt or a negative Δflops (counter reset)
 * are skipped. *n gets the number of intervals used; both rates NAN when
 * none.
 */
static void
flop_rates(const br_series *s, const double *f, size_t i0, size_t i1, size_t *n, double *p95, double *peak)
{
	*n = 0;
	*p95 = *peak = NAN;
	if (s->t_s == NULL || i1 <= i0)
		return;
	double *r = br_xmalloc((i1 - i0) * sizeof *r);
	size_t k = 0;
	for (size_t i = i0; i < i1; i++) {
		double dt = s->t_s[i + 1] - s->t_s[i];
		double df = f[i + 1] - f[i];
		if (!br_isnum(dt) || !br_isnum(df) || !(dt > 0) || df < 0)
			continue;
		r[k++] = df / dt;
	}
	if (k > 0) {
		br_sort_doubles(r, k);
		*p95 = br_percentile_sorted(r, k, 95.0);
		*peak = r[k - 1];
	}
	free(r);
	*n = k;
}

/*
 * br_flops_measure_run: see analysis_flops.h. The window is br_run_window
 * for a series (the whole series when it never shows activity), rows
 * 0 → last for a before/after pair; a single snapshot has no delta.
 * Bench means are per completed request (vLLM's totals count successful
 * requests only).
 */
void
br_flops_measure_run(const br_run *run, br_flops_measure *out)
{
	memset(out, 0, sizeof *out);
	out->flops = out->tokens = out->gflop_per_token = NAN;
	out->mean_input_tokens = out->mean_output_tokens = out->mean_context_tokens = NAN;
	out->preemptions = out->flop_rate_p95_per_s = out->flop_rate_peak_per_s = out->duration_s = NAN;
	out->flop_rate_prefill_per_s = NAN;
	out->missing = MISSING_FLOPS;
	if (run == NULL)
		return;
	const br_bench *b = run->bench.n > 0 ? &run->bench.runs[0] : NULL;
	if (b != NULL) {
		out->duration_s = b->duration_s;
		if (br_isnum(b->completed) && b->completed > 0) {
			out->mean_input_tokens = b->total_input_tokens / b->completed;
			out->mean_output_tokens = b->total_output_tokens / b->completed;
			out->mean_context_tokens = (out->mean_input_tokens + out->mean_output_tokens) / 2;
		}
		/* with per-request lengths, the mean context over every token:
		 * a request of L = in + out tokens has contexts 1..L, so
		 * x = Σ L² / (2 Σ L) over the successful requests; (in + out)/2
		 * when all have one length, and less than this otherwise (a
		 * length scan read x = 1,609 for 2,006, half the slope, brk23) */
		double sl = 0, sl2 = 0;
		size_t nl = 0;
		for (size_t i = 0; i < b->n_requests; i++) {
			const br_request *q = &b->requests[i];
			double L = q->input_len_tokens + q->output_len_tokens;
			if (q->failed || !br_isnum(L) || !(L > 0))
				continue;
			sl += L;
			sl2 += L * L;
			nl++;
		}
		if (nl > 0 && sl > 0)
			out->mean_context_tokens = sl2 / (2 * sl);
	}
	const br_series *s = run->metrics;
	{
		/* SGLang and llama.cpp export no FLOPs counter at all: say that, not
		 * vLLM's flag, whatever else is missing */
		const char *why = br_role_absent(br_run_engine(run), BR_ROLE_FLOPS);
		if (why != NULL) {
			out->missing = why;
			return;
		}
	}
	if (s == NULL && br_run_metrics_set_aside(run) != NULL)
		out->missing = br_run_metrics_set_aside(run);
	if (s == NULL || s->n_rows < 2 || run->metrics_kind == BR_METRICS_NONE ||
	    run->metrics_kind == BR_METRICS_SNAPSHOT)
		return;
	const double *f = br_role_col(s, BR_ROLE_FLOPS);
	if (f == NULL) {
		const char *why = br_role_absent(br_series_engine(s), BR_ROLE_FLOPS);
		if (why != NULL)
			out->missing = why;
		return;
	}
	const double *it = br_role_col(s, BR_ROLE_SCHEDULED_TOKENS);
	if (it == NULL) {
		out->missing = "needs vllm:iteration_tokens_total_sum in the metrics";
		return;
	}
	size_t i0 = 0, i1 = s->n_rows - 1;
	int series = run->metrics_kind == BR_METRICS_CSV || run->metrics_kind == BR_METRICS_SNAPSHOTS;
	if (series && br_run_window(s, &i0, &i1) != 0) {
		i0 = 0;
		i1 = s->n_rows - 1;
	}
	out->flops = br_counter_delta(f, i0, i1, NULL);
	out->tokens = br_counter_delta(it, i0, i1, NULL);
	const double *pc = br_role_col(s, BR_ROLE_PREEMPTIONS);
	if (pc != NULL)
		out->preemptions = br_counter_delta(pc, i0, i1, NULL);
	if (series) {
		flop_rates(s, f, i0, i1, &out->n_rate_intervals, &out->flop_rate_p95_per_s, &out->flop_rate_peak_per_s);
		out->flop_rate_prefill_per_s = out->flop_rate_p95_per_s >= 0.5 * out->flop_rate_peak_per_s ?
		    out->flop_rate_p95_per_s : out->flop_rate_peak_per_s;
	}
	if (br_isnum(out->flops) && out->flops == 0 && br_isnum(out->tokens) && out->tokens > 0) {
		/* a zero FLOPs counter is not a measurement of zero work */
		out->counter_zero = 1;
		out->missing = "vllm:estimated_flops_per_gpu_total stayed at 0 while the server processed "
		    "tokens: the counter is exported but not counted (start vllm serve with "
		    "--enable-mfu-metrics)";
		return;
	}
	if (!br_isnum(out->flops) || !br_isnum(out->tokens) || !(out->tokens > 0)) {
		out->missing = "the FLOPs or iteration-token counter has no increase over the run";
		return;
	}
	out->gflop_per_token = out->flops / out->tokens / 1e9;
	if (!br_isnum(out->mean_context_tokens)) {
		out->missing = "needs the bench means (total_input_tokens, total_output_tokens, completed)";
		return;
	}
	out->available = 1;
	out->missing = NULL;
}

/*
 * folder_key: the canonical folder of a run (realpath of run->dir, else a
 * copy of run->dir), malloc'd; NULL when the run has no dir.
 */
static char *
folder_key(const br_run *r)
{
	if (r == NULL || r->dir == NULL)
		return NULL;
	char *rp = realpath(r->dir, NULL);
	return rp != NULL ? rp : br_xstrdup(r->dir);
}

/* why a run is left out when others are marked and it is not */
static const char WHY_NOT_MARKED[] = "not marked \"role\": \"calibration\" (other runs are)";

/* is_calibration_role: run.json says "role": "calibration". */
static int
is_calibration_role(const br_run *r)
{
	return r->role && strcasecmp(r->role, "calibration") == 0;
}

/*
 * br_flops_calibrate: see analysis_flops.h. Points keep the order of runs;
 * the fit uses the points marked used; the first run of a folder counts,
 * later runs of the same folder are skipped as duplicates.
 */
/* run_model: the bench file's model id, else the log's model, or NULL. */
static const char *
run_model(const br_run *r)
{
	const char *m = r->bench.n > 0 ? r->bench.runs[0].model_id : NULL;
	return m ? m : r->log ? r->log->model : NULL;
}

/* differs: both known and not equal. */
static int
differs(const char *a, const char *b)
{
	return a && b && strcmp(a, b) != 0;
}

int
br_flops_calibrate(const br_run *const *runs, size_t n, br_flops_calibration *out, char **cause)
{
	return br_flops_calibrate_ref(runs, n, NULL, out, cause);
}

/* br_flops_calibrate_ref: see analysis_flops.h. */
int
br_flops_calibrate_ref(const br_run *const *runs, size_t n, const br_run *ref,
    br_flops_calibration *out, char **cause)
{
	memset(out, 0, sizeof *out);
	out->fit.a = out->fit.b = out->fit.se_a = out->fit.se_b = out->fit.r2 = NAN;
	out->missing = MISSING_CAL;
	out->points = n ? br_xcalloc(n, sizeof *out->points) : NULL;
	out->n_points = n;
	double *x = br_xmalloc((n + 1) * sizeof *x), *y = br_xmalloc((n + 1) * sizeof *y);
	char **keys = br_xcalloc(n + 1, sizeof *keys);
	/* when some runs are marked "role": "calibration" (run.json, or given with
	 * --calibration), only those calibrate: the others are the experiment */
	int marked = 0;
	for (size_t i = 0; i < n; i++)
		marked |= runs[i] && is_calibration_role(runs[i]);
	for (size_t i = 0; i < n; i++) {
		br_flops_cal_point *p = &out->points[i];
		const br_run *r = runs[i];
		p->name = br_xstrdup(r && r->name ? r->name : r && r->dir ? r->dir : "(unnamed run)");
		p->duplicate_of = -1;
		keys[i] = folder_key(r);
		for (size_t j = 0; keys[i] != NULL && j < i; j++)
			if (keys[j] != NULL && strcmp(keys[i], keys[j]) == 0) {
				p->duplicate_of = (long)j;
				break;
			}
		br_flops_measure m;
		br_flops_measure_run(r, &m);
		p->x_tokens = m.mean_context_tokens;
		p->y_gflop_per_token = m.gflop_per_token;
		p->tokens = m.tokens;
		p->flops = m.flops;
		p->preemptions = m.preemptions;
		if (p->duplicate_of >= 0) {
			p->why_buf = br_xasprintf("same folder as run %s",
			    out->points[p->duplicate_of].name);
			p->why = p->why_buf;
		} else if (!m.available)
			p->why = m.missing;
		else if (marked && !is_calibration_role(r))
			p->why = WHY_NOT_MARKED;
		else if (ref && r != ref && differs(run_model(r), run_model(ref))) {
			p->why_buf = br_xasprintf("another model (%s; the run judged: %s)", run_model(r), run_model(ref));
			p->why = p->why_buf;
		} else if (ref && r != ref && differs(r->gpu, ref->gpu)) {
			p->why_buf = br_xasprintf("another GPU (%s; the run judged: %s)", r->gpu, ref->gpu);
			p->why = p->why_buf;
		}
		else if (!br_isnum(m.preemptions))
			p->why = "preemption count unknown (no vllm:num_preemptions_total)";
		else if (m.preemptions > 0)
			p->why = "has preemptions";
		if (p->why != NULL)
			continue;
		p->used = 1;
		if (ref && r != ref && (r->gpu == NULL) != (ref->gpu == NULL))
			p->gpu_assumed = ref->gpu ? ref->gpu : "unknown";
		x[out->n_used] = p->x_tokens;
		y[out->n_used] = p->y_gflop_per_token;
		out->n_used++;
	}
	int rc = -1;
	size_t unmarked = 0;
	/* runs left out only for want of the calibration mark (the run judged
	 * is no candidate): the hint to mark more */
	for (size_t i = 0; marked && i < n; i++)
		unmarked += runs[i] && runs[i] != ref && !is_calibration_role(runs[i]) &&
		    out->points[i].why == WHY_NOT_MARKED;
	/* "of N" counts run folders, each once (the run itself given as a
	 * calibration folder, or a folder given twice, is one); the run judged
	 * only when it is a point or was given as a calibration folder too
	 * ("1 usable run of 2" of one folder given had counted it) */
	size_t n_folders = 0;
	for (size_t i = 0; i < out->n_points; i++) {
		int given = runs[i] != ref || out->points[i].used;
		for (size_t j = i + 1; !given && j < out->n_points; j++)
			given = out->points[j].duplicate_of == (long)i;
		n_folders += out->points[i].duplicate_of < 0 && given;
	}
	if (out->n_used < 2) {
		/* why each marked (or, none marked, each) run was left out, so the
		 * message says what to fix */
		GString *why = g_string_new(NULL);
		size_t listed = 0;
		for (size_t i = 0; i < out->n_points; i++) {
			const br_flops_cal_point *p = &out->points[i];
			if (p->used || p->duplicate_of >= 0 || p->why == NULL || p->why == WHY_NOT_MARKED ||
			    (ref != NULL && runs[i] == ref))
				continue;   /* unmarked runs: the hint above covers them */
			if (listed++ < 4)
				g_string_append_printf(why, "%s%s: %s", listed > 1 ? "; " : "", p->name, p->why);
		}
		if (listed > 4)
			g_string_append_printf(why, "; %zu more", listed - 4);
		if (cause)
			*cause = br_xasprintf("%zu usable run%s of %zu; need at least 2 "
			    "with zero preemptions and vllm:estimated_flops_per_gpu_total%s%s%s%s", out->n_used,
			    out->n_used == 1 ? "" : "s", n_folders, unmarked ? " (only runs marked \"role\": \"calibration\" "
			    "count when any is; mark more, or none)" : "", listed ? " (left out: " : "", why->str,
			    listed ? ")" : "");
		g_string_free(why, TRUE);
	} else if (br_linfit(x, y, out->n_used, &out->fit) != 0) {
		if (cause)
			*cause = br_xasprintf("all %zu usable runs have the same mean "
			    "context (%.6g tokens); need different input/output lengths", out->n_used, x[0]);
	} else {
		out->available = 1;
		out->missing = NULL;
		out->has_se = out->n_used >= 3;
		if (!out->has_se)
			out->note = "2 calibration points: no standard errors, and R\xc2\xb2 is 1 by construction";
		rc = 0;
	}
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	free(x);
	free(y);
	return rc;
}

/* br_flops_calibration_free: free the points and zero *c (NULL ok). */
void
br_flops_calibration_free(br_flops_calibration *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->n_points; i++) {
		free(c->points[i].name);
		free(c->points[i].why_buf);
	}
	free(c->points);
	memset(c, 0, sizeof *c);
}

/* br_flops_excess_reading: see analysis_flops.h. */
enum br_flops_excess_reading
br_flops_excess_reading(double preemptions, double excess_frac)
{
	return !isfinite(preemptions) ? BR_EXCESS_COUNT_UNKNOWN : preemptions == 0 ? BR_EXCESS_NO_PREEMPTIONS :
	    isfinite(excess_frac) && excess_frac <= 0 ? BR_EXCESS_NONE : BR_EXCESS_RECOMPUTE;
}

/* br_flops_cost_gflop: a + b·x, NAN without a fitted line or x. */
double
br_flops_cost_gflop(const br_flops_calibration *cal, double x_tokens)
{
	if (cal == NULL || !cal->available || !br_isnum(x_tokens))
		return NAN;
	return cal->fit.a + cal->fit.b * x_tokens;
}

/*
 * br_flops_ledger_compute: see analysis_flops.h. The measurement is copied
 * into out->m. Recompute time and share need a positive prefill rate and a
 * duration; recomputed tokens are costed at context R/2, or at the run's
 * mean context when R is unknown.
 */
void
br_flops_ledger_compute(const br_flops_measure *m, const br_flops_calibration *cal,
    double R, double n_preemptions, br_flops_ledger *out)
{
	memset(out, 0, sizeof *out);
	out->m = *m;
	out->model_gflop_per_token = out->predicted_flops = out->excess_flops = NAN;
	out->excess_frac = out->recompute_gflop_per_token = out->recomputed_tokens = NAN;
	out->released_tokens_total = out->flops_to_release_ratio = NAN;
	out->recompute_s = out->recompute_share_frac = NAN;
	out->cal_x_min_tokens = out->cal_x_max_tokens = out->extrapolation = NAN;
	out->released_tokens_per_preemption = R;
	out->preemptions = n_preemptions;
	if (br_isnum(R) && br_isnum(n_preemptions))
		out->released_tokens_total = n_preemptions * R;
	if (!m->available) {
		out->missing = m->missing ? m->missing : MISSING_FLOPS;
		return;
	}
	if (cal == NULL || !cal->available) {
		out->missing = MISSING_CAL;
		return;
	}
	out->available = 1;
	out->cal_n_used = cal->n_used;
	out->cal_x_min_tokens = out->cal_x_max_tokens = out->extrapolation = NAN;
	for (size_t i = 0; i < cal->n_points; i++) {
		double px = cal->points[i].x_tokens;
		if (!cal->points[i].used || !br_isnum(px))
			continue;
		if (!(px >= out->cal_x_min_tokens))
			out->cal_x_min_tokens = px;
		if (!(px <= out->cal_x_max_tokens))
			out->cal_x_max_tokens = px;
	}
	double x = m->mean_context_tokens;
	if (br_isnum(x) && x > 0 && br_isnum(out->cal_x_min_tokens) && out->cal_x_min_tokens > 0)
		out->extrapolation = x > out->cal_x_max_tokens ? x / out->cal_x_max_tokens :
		    x < out->cal_x_min_tokens ? out->cal_x_min_tokens / x : 1;
	out->model_gflop_per_token = br_flops_cost_gflop(cal, m->mean_context_tokens);
	out->predicted_flops = m->tokens * out->model_gflop_per_token * 1e9;
	out->excess_flops = m->flops - out->predicted_flops;
	if (out->predicted_flops > 0)
		out->excess_frac = out->excess_flops / out->predicted_flops;
	/* a recomputed token sits at context R/2 on average; when the series
	 * cannot show R, at the run's mean context (the cost line's slope is
	 * small: the position moves the cost by a few percent) */
	double pos = br_isnum(R) && R > 0 ? R / 2 : m->mean_context_tokens;
	if (br_isnum(pos) && pos >= 0) {
		out->recompute_gflop_per_token = br_flops_cost_gflop(cal, pos);
		if (out->recompute_gflop_per_token > 0)
			out->recomputed_tokens = out->excess_flops / (out->recompute_gflop_per_token * 1e9);
	}
	if (br_isnum(n_preemptions) && n_preemptions == 0) {
		/* no preemption, no recompute: the excess (if any) is not that */
		out->recomputed_tokens = NAN;
		out->recompute_s = out->recompute_share_frac = 0;
		return;
	}
	if (!br_isnum(n_preemptions)) {
		/* no preemption count: the excess may be recompute or something
		 * else (the cost line, prefix reuse, speculation); it is not read
		 * as either (audit: 123,000 "recomputed tokens" in a run with none) */
		out->recomputed_tokens = NAN;
		return;
	}
	if (br_isnum(out->recomputed_tokens) && br_isnum(out->released_tokens_total) &&
	    out->released_tokens_total > 0)
		out->flops_to_release_ratio = out->recomputed_tokens / out->released_tokens_total;
	if (br_isnum(m->flop_rate_prefill_per_s) && m->flop_rate_prefill_per_s > 0) {
		out->recompute_s = out->excess_flops / m->flop_rate_prefill_per_s;
		if (br_isnum(m->duration_s) && m->duration_s > 0)
			out->recompute_share_frac = out->recompute_s / m->duration_s;
	}
}

/* br_analyze_flops: br_flops_measure_run + br_flops_ledger_compute. */
void
br_analyze_flops(const br_run *focus, const br_flops_calibration *cal,
    double mean_released_tokens_per_preemption, double n_preemptions, br_flops_ledger *out)
{
	br_flops_measure m;
	br_flops_measure_run(focus, &m);
	br_flops_ledger_compute(&m, cal, mean_released_tokens_per_preemption, n_preemptions, out);
}
