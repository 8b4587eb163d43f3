/*
 * br_analyze: every analysis of one run, and the matching free.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/analysis.h"
#include "benchreport/common.h"
#include "benchreport/model.h"
#include "benchreport/metrics.h"

const char *const br_latency_metric_name[BR_N_LATENCY] = { "ttft", "tpot", "itl", "e2el" };
const char *const br_latency_metric_label[BR_N_LATENCY] = { "TTFT", "TPOT", "ITL", "E2EL" };

/* br_kv_usage_above_held: see analysis_blocks.h. */
int
br_kv_usage_above_held(double kv_peak_frac, double held_max_frac)
{
	return br_isnum(kv_peak_frac) && kv_peak_frac >= 0.05 && br_isnum(held_max_frac) &&
	    kv_peak_frac > 2.0 * held_max_frac;
}

/* br_kv_held_max_tokens: see analysis_blocks.h. */
double
br_kv_held_max_tokens(const br_run *run, const br_capacity *c, const br_residency *res)
{
	if (!res->available || !br_isnum(res->running_peak) || !(res->running_peak > 0) || !c->available ||
	    !br_isnum(c->mean_input_tokens) || !br_isnum(c->mean_output_tokens))
		return NAN;
	double bs = run && run->log ? run->log->block_size_tokens : NAN;
	double block = br_isnum(bs) && bs > 0 ? bs : 16;   /* vLLM's default block */
	return res->running_peak * (c->mean_input_tokens + c->mean_output_tokens + block);
}

/*
 * kv_usage_misread: the KV usage column peaks above 2× what the running
 * requests can hold (running peak × (mean input + mean output + one block)
 * tokens as a share of the pool) and at 5% of the pool or more: the column
 * is misread, most likely percent values below 1 taken as a fraction (the
 * two cannot be told apart from the values). Its cells are set to NaN with
 * a note, so every block says KV usage is unknown instead of printing a
 * number 100× too high, and residency is computed again. Returns 1 when
 * it withheld the column.
 */
static int
kv_usage_misread(br_run *run, const br_capacity *c, br_residency *res)
{
	if (run == NULL || run->metrics == NULL || !br_isnum(c->kv_pool_tokens) || !(c->kv_pool_tokens > 0))
		return 0;
	double held_tokens = br_kv_held_max_tokens(run, c, res);
	double held = held_tokens / c->kv_pool_tokens;
	if (!br_kv_usage_above_held(res->kv_peak_frac, held))
		return 0;
	const char *name = br_role_name(run->metrics, BR_ROLE_KV_USAGE_FRAC);
	long col = name ? br_series_col_index(run->metrics, name) : -1;
	if (col < 0)
		return 0;
	double peak = res->kv_peak_frac;
	for (size_t r = 0; r < run->metrics->n_rows; r++)
		run->metrics->cols[col][r] = NAN;
	char ht[32], pool[32];
	br_run_add_warning(run, "metrics column '%s': KV cache usage peaks at %.2f%% of the pool, but at most %.0f "
	    "requests ran, which hold at most %s tokens, %.2f%% of the %s-token pool: the column is misread "
	    "(percent values below 1 read as a fraction, most likely), so it is left out and KV usage is unknown "
	    "in this report", name, 100.0 * peak, res->running_peak, br_format_count(held_tokens, ht), 100.0 * held,
	    br_format_count(c->kv_pool_tokens, pool));
	br_analyze_residency(run, res);
	return 1;
}

/*
 * kv_usage_below_running: the KV usage column reads less, at two samples
 * or more, than the requests running at that moment must hold: each holds
 * at least one KV block of its own (the one its next token goes into), so
 * usage >= running × block_size / pool (block size from the log, else
 * vLLM's 16 tokens). A zero is left alone (a gauge not yet updated). Such
 * rows are most likely fraction values in a column read as percent (a
 * series that switched units: 80.86 then 0.78), which would put the median
 * far below the truth. The column is withheld as in kv_usage_misread.
 * Returns 1 when it did.
 */
static int
kv_usage_below_running(br_run *run, const br_capacity *c, br_residency *res)
{
	if (run == NULL || run->metrics == NULL || !br_isnum(c->kv_pool_tokens) || !(c->kv_pool_tokens > 0))
		return 0;
	const br_series *m = run->metrics;
	const double *kv = br_role_col(m, BR_ROLE_KV_USAGE_FRAC), *running = br_role_col(m, BR_ROLE_RUNNING);
	if (kv == NULL || running == NULL)
		return 0;
	double bs = run->log ? run->log->block_size_tokens : NAN;
	double block = br_isnum(bs) && bs > 0 ? bs : 16;
	size_t n_low = 0, first = 0, last = 0, worst = 0;
	double worst_gap = 1, peak = NAN;
	for (size_t r = 0; r < m->n_rows; r++) {
		if (isfinite(kv[r]) && !(kv[r] <= peak))
			peak = kv[r];
		if (!(kv[r] > 0) || !(running[r] >= 1))
			continue;
		double need = running[r] * block / c->kv_pool_tokens;
		if (!(kv[r] < need))
			continue;
		if (n_low++ == 0)
			first = r;
		last = r;
		if (kv[r] / need < worst_gap) {
			worst_gap = kv[r] / need;
			worst = r;
		}
	}
	if (n_low < 2)
		return 0;
	const char *name = br_role_name(m, BR_ROLE_KV_USAGE_FRAC);
	long col = name ? br_series_col_index(m, name) : -1;
	if (col < 0)
		return 0;
	double t0 = m->t_s ? m->t_s[0] : NAN;
	double kv_w = kv[worst], run_w = running[worst];
	char pool[32];
	br_run_add_warning(run, "metrics column '%s': at %zu samples (%.0f to %.0f s into the capture) it reads "
	    "less than the running requests must hold (%.2f%% with %.0f running, which hold at least one "
	    "%.0f-token block each: %.2f%% of the %s-token pool), while it peaks at %.2f%% elsewhere: the "
	    "column most likely mixes percent and fraction values, so it is left out and KV usage is unknown "
	    "in this report", name, n_low, m->t_s ? m->t_s[first] - t0 : NAN, m->t_s ? m->t_s[last] - t0 : NAN,
	    100.0 * kv_w, run_w, block, 100.0 * run_w * block / c->kv_pool_tokens,
	    br_format_count(c->kv_pool_tokens, pool), 100.0 * peak);
	for (size_t r = 0; r < m->n_rows; r++)
		m->cols[col][r] = NAN;
	br_analyze_residency(run, res);
	return 1;
}

/*
 * analyze: fill every block of *out from the run (borrowed, must outlive
 * out); take: NULL, or the bench result whose ITLs the latency block takes
 * (br_analyze_taking_itls). Never fails: missing inputs mark blocks
 * unavailable.
 */
static void
analyze(br_run *run, br_bench *take, br_analysis *out)
{
	memset(out, 0, sizeof *out);
	out->run = run;
	/* first the ledger: metrics that show more work than the bench sent
	 * are set aside before any block reads them */
	br_analyze_ledger(run, &out->ledger);
	char *other = run && run->bench.n > 0 ? br_ledger_other_load(&out->ledger, &run->bench.runs[0]) : NULL;
	if (other != NULL) {
		br_run_set_aside_metrics(run, other);
		free(out->ledger.rows);
		br_analyze_ledger(run, &out->ledger);
	}
	br_analyze_latency_taking(run, take, &out->latency);
	br_analyze_capacity(run, &out->capacity);
	br_analyze_residency(run, &out->residency);
	if (!kv_usage_misread(run, &out->capacity, &out->residency))
		kv_usage_below_running(run, &out->capacity, &out->residency);
	br_analyze_preemptions(run, &out->residency, &out->capacity, &out->preemptions);
	br_analyze_ttft_split(run, &out->latency, &out->ttft_split);
	br_analyze_littles_law(run, &out->residency, &out->latency, &out->littles_law);
	br_analyze_log_timings(run, &out->latency, &out->log_timings);
	br_analysis_calibrate(out, NULL);
}

/* metrics_reason: the blocks that need metrics, unavailable because the
 * metrics input was set aside, say so (br_run_metrics_set_aside) instead
 * of asking for an input the folder has. */
static void
metrics_reason(br_analysis *a)
{
	const char *why = br_run_metrics_set_aside(a->run);
	if (why == NULL)
		return;
#define SAY(block) do { if (!(block).available) (block).missing = why; } while (0)
	SAY(a->ledger);
	SAY(a->residency);
	SAY(a->preemptions);
	SAY(a->ttft_split);
	SAY(a->littles_law);
	SAY(a->flops);
	SAY(a->flops.m);
	SAY(a->budget);
#undef SAY
}

void
br_analyze(br_run *run, br_analysis *out)
{
	analyze(run, NULL, out);
}

/* br_analyze_taking_itls: see analysis.h. */
void
br_analyze_taking_itls(br_run *run, br_analysis *out)
{
	analyze(run, run != NULL && run->bench.n > 0 ? &run->bench.runs[0] : NULL, out);
}

void
br_analysis_calibrate(br_analysis *a, const br_flops_calibration *cal)
{
	const br_preemptions *p = &a->preemptions;
	br_analyze_flops(a->run, cal, p->mean_released_per_preemption_tokens,
	    p->count_available ? p->n_preemptions : NAN, &a->flops);
	br_analyze_budget(a->run, &a->latency, &a->residency, cal, &a->flops, &a->budget);
	metrics_reason(a);
}

/* br_analysis_drop_samples: see analysis.h. */
void
br_analysis_drop_samples(br_analysis *a)
{
	for (int k = 0; a != NULL && k < BR_N_LATENCY; k++) {
		br_ranked_free(a->latency.ranked[k]);
		a->latency.ranked[k] = NULL;
		free(a->latency.samples_ms[k]);
		a->latency.samples_ms[k] = NULL;
	}
}

/*
 * br_analysis_free: release the arrays the blocks own (samples, failed
 * indices, checks, ledger rows); safe on a zeroed struct and twice.
 */
void
br_analysis_free(br_analysis *a)
{
	if (a == NULL)
		return;
	for (int k = 0; k < BR_N_LATENCY; k++) {
		br_ranked_free(a->latency.ranked[k]);
		a->latency.ranked[k] = NULL;
		free(a->latency.samples_ms[k]);
		a->latency.samples_ms[k] = NULL;
		a->latency.n_samples[k] = 0;
		free(a->latency.cdf_x_ms[k]);
		free(a->latency.cdf_share[k]);
		a->latency.cdf_x_ms[k] = a->latency.cdf_share[k] = NULL;
		a->latency.cdf_n[k] = 0;
	}
	free(a->latency.failed_index);
	a->latency.failed_index = NULL;
	for (size_t i = 0; i < a->latency.n_error_groups; i++)
		free(a->latency.error_groups[i].message);
	free(a->latency.error_groups);
	a->latency.error_groups = NULL;
	a->latency.n_error_groups = 0;
	free(a->latency.checks);
	a->latency.checks = NULL;
	a->latency.n_checks = 0;
	free(a->ledger.rows);
	a->ledger.rows = NULL;
	a->ledger.n_rows = 0;
	br_preemptions_free(&a->preemptions);
}
