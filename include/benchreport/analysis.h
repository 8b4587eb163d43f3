/*
 * Analyses of one run (DESIGN.md §3): the aggregate of every block. Each
 * block is computed by its own module in src/analysis/ and says whether it
 * could be computed (`available`) and, if not, why (`missing`).
 *
 * Ownership: br_analysis owns all arrays it points to; br_analysis_free.
 */
#ifndef BENCHREPORT_ANALYSIS_H
#define BENCHREPORT_ANALYSIS_H

#include "benchreport/analysis_blocks.h"
#include "benchreport/analysis_overload.h"
#include "benchreport/analysis_flops.h"

typedef struct br_analysis {
	const br_run *run;         /* borrowed */
	br_latency latency;
	br_capacity capacity;
	br_ledger ledger;
	br_residency residency;
	br_preemptions preemptions;   /* §3.5 */
	br_ttft_split ttft_split;     /* §3.6 */
	br_littles_law littles_law;   /* §3.7 */
	br_flops_ledger flops;        /* §3.8 FLOPs part: needs a calibration (br_analysis_calibrate) */
	br_budget budget;             /* §3.9 (prefill/recompute parts need the calibration) */
	br_log_timings log_timings;   /* (added) llama-server's per-request timing lines */
} br_analysis;

/* br_analyze: all of the above. Caller frees with br_analysis_free. The
 * run is not const: metrics whose counters over the run window show more
 * work than the bench sent are set aside first (br_ledger_other_load,
 * br_run_set_aside_metrics), with a note in run->warnings. */
void br_analyze(br_run *run, br_analysis *out);
/* br_analyze_taking_itls: br_analyze, with the latency block taking the
 * ITLs of run->bench.runs[0] (br_analyze_latency_taking): for the report of
 * one run, which reads no per-request ITL after the analyses. */
void br_analyze_taking_itls(br_run *run, br_analysis *out);
/* br_analysis_drop_samples: free the latency samples and their indexes (samples_ms, ranked;
 * n_samples keeps their count, the statistics in m[] and the CDFs cdf_* stay) once nothing
 * reads them again: the CI gate is evaluated (figure L draws from cdf_*). */
void br_analysis_drop_samples(br_analysis *a);
void br_analysis_free(br_analysis *a);

/*
 * br_analysis_calibrate: (re)compute the FLOPs ledger and the wall-clock
 * budget of an analysed run with a FLOPs calibration fitted on zero-
 * preemption runs (br_flops_calibrate). `cal` is borrowed; NULL marks the
 * FLOPs ledger unavailable.
 */
void br_analysis_calibrate(br_analysis *a, const br_flops_calibration *cal);

#endif
