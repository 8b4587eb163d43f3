/*
 * Residency and KV usage (DESIGN.md §3.4) over the run window of a 1 Hz
 * metrics series.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/analysis.h"
#include "benchreport/model.h"
#include "benchreport/common.h"

/*
 * window_stats: mean, median and peak of col[i0..i1] (NaN skipped);
 * all NAN when col is NULL or has no numeric sample there.
 */
static void
window_stats(const double *col, size_t i0, size_t i1, double *mean,
    double *median, double *peak)
{
	*mean = *median = *peak = NAN;
	if (col == NULL)
		return;
	br_describe_t d;
	br_describe(col + i0, i1 - i0 + 1, &d);
	if (d.count == 0)
		return;
	*mean = d.mean;
	*median = d.median;
	*peak = d.max;
}

/*
 * br_analyze_residency: see analysis.h. Gauge statistics (running,
 * waiting, KV usage) use the busy span [b0, b1] (br_run_busy_span): the run
 * window without the idle sample on each side, which lies outside the run
 * (kept, a 25 s run at 1 Hz read 8% low, at 10 s sampling 42%); idle
 * samples between requests inside the span count. The preemption delta
 * uses the whole window [i0, i1], so a counter step in a bracket counts.
 * KV shares count samples with usage >= 0.90 and >= 0.95 among the
 * samples where usage is numeric.
 */
void
br_analyze_residency(const br_run *run, br_residency *out)
{
	memset(out, 0, sizeof *out);
	out->window_start_t_s = out->window_end_t_s = NAN;
	out->running_mean = out->running_median = out->running_peak = out->running_mean_active = NAN;
	out->waiting_mean = out->waiting_median = out->waiting_peak = NAN;
	out->resident_share = out->in_system_peak = NAN;
	out->kv_median_frac = out->kv_peak_frac = NAN;
	out->kv_share_ge90 = out->kv_share_ge95 = NAN;
	out->preemptions = NAN;
	out->missing = "needs a 1 Hz metrics series (metrics.csv)";
	if (run == NULL || run->metrics == NULL ||
	    !br_metrics_is_series(run->metrics_kind) ||
	    run->metrics->n_rows < 3)
		return;
	const br_series *s = run->metrics;
	const double *running = br_role_col(s, BR_ROLE_RUNNING);
	if (running == NULL) {
		out->missing = br_series_engine(s) == BR_ENGINE_SGLANG ?
		    "needs sglang:num_running_reqs in the metrics series" :
		    br_series_engine(s) == BR_ENGINE_LLAMACPP ?
		    "needs llamacpp:requests_processing in the metrics series" :
		    "needs vllm:num_requests_running in the metrics series";
		return;
	}
	size_t i0, i1, b0, b1;
	if (br_run_window(s, &i0, &i1) != 0 || br_run_busy_span(s, &b0, &b1) != 0) {
		out->missing = "the metrics series shows no activity (running + waiting never above 0)";
		return;
	}
	out->available = 1;
	out->missing = NULL;
	out->n_samples = b1 - b0 + 1;
	out->sample_interval_s = br_series_median_step_s(s, i0, i1);
	if (s->t_s != NULL) {
		out->window_start_t_s = s->t_s[i0];
		out->window_end_t_s = s->t_s[i1];
	}
	window_stats(running, b0, b1, &out->running_mean, &out->running_median,
	    &out->running_peak);
	double act_sum = 0;
	size_t act_n = 0;
	for (size_t r = b0; r <= b1; r++)
		if (br_isnum(running[r]) && running[r] > 0) {
			act_sum += running[r];
			act_n++;
		}
	out->running_mean_active = act_n > 0 ? act_sum / (double)act_n : NAN;
	const double *waiting = br_role_col(s, BR_ROLE_WAITING);
	window_stats(waiting, b0, b1, &out->waiting_mean, &out->waiting_median, &out->waiting_peak);
	for (size_t r = b0; waiting != NULL && r <= b1; r++)
		if (br_isnum(running[r]) && br_isnum(waiting[r]) && !(running[r] + waiting[r] <= out->in_system_peak))
			out->in_system_peak = running[r] + waiting[r];
	if (run->bench.n > 0) {
		/* C_eff = min(max_concurrency, num_prompts): one prompt under
		 * C = 64 runs 1 of 1 possible requests, not 1 of 64 */
		double C = br_effective_concurrency(&run->bench.runs[0], NULL);
		if (br_isnum(C) && C > 0)
			out->resident_share = out->running_mean / C;
	}
	const double *kv = br_role_col(s, BR_ROLE_KV_USAGE_FRAC);
	if (kv != NULL) {
		double mean;
		window_stats(kv, b0, b1, &mean, &out->kv_median_frac, &out->kv_peak_frac);
		size_t n = 0, ge90 = 0, ge95 = 0;
		for (size_t r = b0; r <= b1; r++) {
			if (!br_isnum(kv[r]))
				continue;
			n++;
			ge90 += kv[r] >= 0.90;
			ge95 += kv[r] >= 0.95;
		}
		if (n > 0) {
			out->kv_share_ge90 = (double)ge90 / (double)n;
			out->kv_share_ge95 = (double)ge95 / (double)n;
		}
	}
	out->preemptions = run->preemptions_suspect ? NAN :
	    br_counter_delta(br_role_col(s, BR_ROLE_PREEMPTIONS), i0, i1, NULL);
}
