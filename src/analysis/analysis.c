/*
 * br_analyze: every analysis of one run, and the matching free.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/analysis.h"

const char *const br_latency_metric_name[BR_N_LATENCY] = { "ttft", "tpot", "itl", "e2el" };

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
