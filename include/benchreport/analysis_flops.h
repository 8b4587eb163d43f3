/*
 * FLOPs ledger (DESIGN.md §3.8, FLOPs part) and wall-clock budget (§3.9).
 *
 * The FLOPs ledger sets the focus run's vllm:estimated_flops_per_gpu_total
 * against a cost model GFLOP/token = a + b·x fitted (least squares) on runs
 * without preemption, x = mean context per token ≈ (in + out)/2. The excess
 * is recompute; divided by the cost of a recomputed token it estimates the
 * recomputed tokens, and divided by the run's 95th-percentile FLOP rate the
 * time spent recomputing. The budget splits the wall time into decode,
 * prefill, recompute and the rest.
 *
 * Units: FLOPs are plain FLOP counts (1e16, not PFLOP); per-token costs are
 * GFLOP per token (1e9 FLOP) as in the reports. Absent numbers are NAN.
 *
 * Ownership: br_flops_calibration owns its points (br_flops_calibration_free);
 * br_flops_ledger and br_budget own nothing.
 */
#ifndef BENCHREPORT_ANALYSIS_FLOPS_H
#define BENCHREPORT_ANALYSIS_FLOPS_H

#include <stddef.h>
#include "benchreport/run.h"
#include "benchreport/stats.h"
#include "benchreport/analysis_blocks.h"

/* What the FLOPs counter says about one run, over its run window. */
typedef struct br_flops_measure {
	int available;             /* needs the FLOPs and iteration-token counters + bench means */
	const char *missing;
	double flops;              /* Δ vllm:estimated_flops_per_gpu_total (reset-aware) */
	double tokens;             /* Δ vllm:iteration_tokens_total_sum */
	double gflop_per_token;    /* flops / tokens / 1e9 */
	double mean_input_tokens;  /* total_input_tokens / completed */
	double mean_output_tokens; /* total_output_tokens / completed */
	double mean_context_tokens;/* x = (in + out) / 2 */
	double preemptions;        /* Δ vllm:num_preemptions_total; NAN without the column */
	double flop_rate_p95_per_s;/* p95 over sample intervals of Δflops/Δt; NAN for a pair
	                              or < 1 usable interval (reported; not used for times) */
	double flop_rate_peak_per_s;/* (added) the highest Δflops/Δt over one sample interval, NAN
	                              as p95 */
	double flop_rate_prefill_per_s; /* (added) the rate the recompute and prefill times use:
	                              p95 (DESIGN.md §3.8), or the peak when p95 is under half of
	                              it: the p95 second of a run that mostly decodes is a decode
	                              second (a light open-loop run read 63 s of recompute for
	                              ~2.5 s, brk23); NAN as p95 */
	size_t n_rate_intervals;
	double duration_s;         /* the bench file's duration */
	int counter_zero;          /* (added) the FLOPs counter is exported but did not move while
	                              the server processed tokens (--enable-mfu-metrics off) */
} br_flops_measure;

/*
 * br_flops_measure_run: fill *out from a run (a series uses br_run_window,
 * a before/after pair rows 0 → 1). Never fails; `available` 0 with
 * `missing` when the counters or bench means are absent.
 */
void br_flops_measure_run(const br_run *run, br_flops_measure *out);

/* One calibration run. */
typedef struct br_flops_cal_point {
	char *name;                /* run name (owned) */
	int used;                  /* 1: in the fit; 0: skipped (see why) */
	const char *why;           /* reason when skipped (static, or why_buf), else NULL */
	char *why_buf;             /* (added) owned text `why` points to for a duplicate:
	                              "same folder as run NAME"; NULL otherwise */
	long duplicate_of;         /* (added) index of the earlier point with the same folder
	                              (realpath of run->dir), else -1 */
	double x_tokens;           /* mean context per token */
	double y_gflop_per_token;  /* measured GFLOP per token */
	double tokens, flops, preemptions;
	const char *gpu_assumed;   /* (added) used point whose run names no GPU while the run
	                              judged names this one (or the reverse: then "unknown"):
	                              taken to be on the same GPU, unproven; NULL otherwise
	                              (borrowed from the run) */
} br_flops_cal_point;

typedef struct br_flops_calibration {
	int available;             /* a line was fitted (>= 2 used points, distinct x) */
	const char *missing;
	br_linfit_t fit;           /* GFLOP/token = fit.a + fit.b·x; se NAN when n_used == 2 */
	int has_se;                /* 1 when n_used >= 3 */
	const char *note;          /* e.g. "2 calibration points: no standard errors, R² is 1 by construction" */
	br_flops_cal_point *points;/* one per run given, in order */
	size_t n_points, n_used;
} br_flops_calibration;

/*
 * br_flops_calibrate: fit the cost line on runs[0..n). Runs with
 * preemptions > 0, an unknown preemption count, or no FLOPs counter are
 * listed as skipped with the reason. A run whose folder (realpath of
 * run->dir; the string itself when realpath fails) is that of an earlier
 * run is listed as skipped "same folder as run NAME" (duplicate_of set), so
 * a folder given twice is fitted once. When any run's run.json says "role":
 * "calibration" (runs given with --calibration count as marked), only marked
 * runs are fitted; the others are listed as skipped "not marked ...", as in
 * the reference rounds, whose calibration was a separate length scan.
 * Returns 0, or -1 with *cause (malloc'd)
 * when fewer than two runs are usable or all usable x are equal; *out is
 * filled (points listed, available 0) either way; free with
 * br_flops_calibration_free.
 */
int br_flops_calibrate(const br_run *const *runs, size_t n,
    br_flops_calibration *out, char **cause);
/*
 * br_flops_calibrate_ref: br_flops_calibrate for judging run `ref` (may be
 * NULL = any): a run of another model (bench model id, else the log's) or
 * another GPU (run.json) than ref — both stated and different — is skipped
 * "another model (...)" / "another GPU (...)": FLOPs per token depend on both.
 */
int br_flops_calibrate_ref(const br_run *const *runs, size_t n, const br_run *ref,
    br_flops_calibration *out, char **cause);
void br_flops_calibration_free(br_flops_calibration *c);

/* br_flops_cost_gflop: a + b·x of a fitted calibration, NAN when unavailable. */
double br_flops_cost_gflop(const br_flops_calibration *cal, double x_tokens);

/*
 * What a run's distance from the cost line may be read as (thirty-first
 * audit: a run without preemptions was "the FLOPs it spent recomputing"):
 * recompute only when preemptions were counted, happened, and the run cost
 * more than the line predicts.
 */
enum br_flops_excess_reading {
	BR_EXCESS_RECOMPUTE = 0,   /* preemptions > 0 and excess > 0 */
	BR_EXCESS_COUNT_UNKNOWN,   /* preemptions not counted (NAN) */
	BR_EXCESS_NO_PREEMPTIONS,  /* 0 preemptions: the line's scatter */
	BR_EXCESS_NONE             /* preempted, but excess_frac <= 0 */
};

/* br_flops_excess_reading: the reading of a run with `preemptions` (count,
 * NAN unknown) at `excess_frac` above the line (NAN unknown: not NONE). */
enum br_flops_excess_reading br_flops_excess_reading(double preemptions, double excess_frac);

/* §3.8 FLOPs ledger of the focus run. */
typedef struct br_flops_ledger {
	int available;
	const char *missing;
	br_flops_measure m;        /* the focus run's measurement */
	double model_gflop_per_token;     /* a + b·x at the run's x */
	double predicted_flops;    /* tokens · (a + b·x) · 1e9 */
	double excess_flops;       /* measured − predicted */
	double excess_frac;        /* excess / predicted */
	double released_tokens_per_preemption; /* R (input, §3.5) */
	double recompute_gflop_per_token;      /* a + b·R/2 */
	double recomputed_tokens;  /* excess / ((a + b·R/2)·1e9) */
	double preemptions;        /* input count */
	double released_tokens_total;          /* preemptions · R (cross-check) */
	double flops_to_release_ratio;         /* recomputed_tokens / released_tokens_total */
	double recompute_s;        /* excess / flop_rate_p95 */
	double recompute_share_frac;           /* recompute_s / duration_s */
	/* (added) what the cost line rests on: the calibration points fitted and
	 * the span of their mean contexts (tokens); extrapolation = x / x_max
	 * when the run's mean context x lies above the span, x_min / x below
	 * it, 1 inside (NAN when unknown) */
	size_t cal_n_used;
	double cal_x_min_tokens, cal_x_max_tokens, extrapolation;
} br_flops_ledger;

/*
 * br_flops_ledger_compute: the ledger arithmetic on a measurement (used by
 * br_analyze_flops; public so the report's reference numbers can be checked
 * on their own). R and n_preemptions may be NAN (recomputed tokens and the
 * cross-check then NAN).
 */
void br_flops_ledger_compute(const br_flops_measure *m, const br_flops_calibration *cal,
    double mean_released_tokens_per_preemption, double n_preemptions,
    br_flops_ledger *out);

/*
 * br_analyze_flops: measure the focus run and compute its ledger.
 * Unavailable (with `missing`) without the FLOPs counter or without a
 * fitted calibration.
 */
void br_analyze_flops(const br_run *focus, const br_flops_calibration *cal,
    double mean_released_tokens_per_preemption, double n_preemptions,
    br_flops_ledger *out);

/* §3.9 wall-clock budget. */
typedef struct br_budget {
	int available;             /* decode part computed (needs latency + residency + bench) */
	const char *missing;
	double duration_s;
	double decode_tokens;      /* Σ(out − 1) = total_output − completed */
	int decode_in_gaps;        /* (added) speculative decoding (spec_decode keys) with per-request
	                              arrays: a gap delivers a chunk of several tokens, so decode is
	                              counted in ITL gaps (decode_steps), not tokens */
	double decode_steps;       /* (added) the decode steps counted: decode_tokens, or the pooled
	                              ITL gaps of the successful requests when decode_in_gaps */
	double running_mean;
	double itl_p50_ms;
	double decode_s;           /* decode_steps / running_mean × ITL p50 */
	double prefill_tokens;     /* Σ in */
	double prefill_gflop_per_token;   /* a + b·(mean in / 2) */
	double flop_rate_prefill_per_s;   /* the FLOPs ledger's m.flop_rate_prefill_per_s (FLOP/s) */
	double prefill_s;          /* prefill_tokens · cost · 1e9 / rate */
	const char *prefill_missing;      /* why prefill_s is NAN, else NULL */
	double recompute_s;        /* from the FLOPs ledger */
	const char *recompute_missing;
	double rest_s;             /* duration − decode − prefill − recompute */
	int rest_negative;         /* 1 when rest_s < 0 (the parts overlap) */
	double decode_frac, prefill_frac, recompute_frac, rest_frac; /* of duration */
	/* decode time stolen */
	double decode_measured_s;  /* mean E2EL − mean TTFT (successful requests) */
	double decode_expected_s;  /* mean(out − 1) × ITL p50 (decode_in_gaps: mean gaps × ITL p50) */
	double decode_stolen_s;    /* measured − expected */
	double decode_stolen_frac; /* stolen / expected */
} br_budget;

/*
 * br_analyze_budget: §3.9 from the run's bench means and the analysis
 * blocks. cal and flops may be NULL (prefill / recompute then NAN with a
 * reason). Never fails.
 */
void br_analyze_budget(const br_run *run, const br_latency *lat, const br_residency *res,
    const br_flops_calibration *cal, const br_flops_ledger *flops, br_budget *out);

#endif
