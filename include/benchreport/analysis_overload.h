/*
 * Analyses of an overloaded run (DESIGN.md §3.5 preemption events, §3.6 TTFT
 * decomposition, §3.7 Little's law). Each block follows analysis.h: it says
 * whether it could be computed (`available`) and, if not, why (`missing`, a
 * static string naming the input it needs); numbers that cannot be computed
 * are NAN, never 0. Inputs are the run and blocks of br_analysis that were
 * computed before (any of them may be NULL; what needs them is then NAN).
 *
 * Ownership: br_preemptions owns its events array (br_preemptions_free);
 * the other blocks own nothing.
 */
#ifndef BENCHREPORT_ANALYSIS_OVERLOAD_H
#define BENCHREPORT_ANALYSIS_OVERLOAD_H

#include <stddef.h>
#include "benchreport/analysis_blocks.h"

/*
 * br_counter_span: the rows over which counter deltas of the run are taken.
 * A 1 Hz series (CSV or snapshots folder): the run window of br_run_window,
 * or the whole series when no window can be found (no running column, never
 * busy). A before/after pair: rows 0 and 1. Returns 0 and sets *i0, *i1 and
 * *source ("metrics series window", "whole metrics series", "before/after
 * snapshots"), or -1 (no metrics, a single snapshot, fewer than 2 rows).
 */
int br_counter_span(const br_run *run, size_t *i0, size_t *i1, const char **source);

/*
 * br_capture_missed_requests: 1 when the run's metrics capture missed the
 * start or end of the load (run->metrics_cut) and a per-request histogram
 * counted `hist_count` requests over the window where the client completed
 * a different number (by one request or more: a cut capture has no
 * warm-up slack to forgive, and one request of 32 moved the frontend
 * residual 3.7x, thirty-fourth breaker): the server's means then
 * describe another set of requests than the client's, and setting one
 * against the other (TTFT split, Little's law) compares two populations.
 * 0 when the capture covers the run, when the counts agree, or when either
 * count is unknown.
 */
int br_capture_missed_requests(const br_run *run, double hist_count);

/*
 * br_hist_counts_failed: 1 when the client counted failed requests
 * (bench failed > 0) and a per-request histogram counted `hist_count`
 * requests over the window where the client completed another number
 * (off by half a request or more): the server timed requests the client
 * saw fail (a dropped stream, a client timeout), and its means describe
 * another set of requests than the client's, whose means cover the
 * successful ones only (audit: a frontend residual of 120 ms for 739 ms,
 * 2 failed of 128). 0 otherwise, or when a count is unknown.
 */
int br_hist_counts_failed(const br_run *run, double hist_count);

/*
 * br_hist_delta_mean: Δ`<base>_sum` / Δ`<base>_count` of Prometheus
 * histogram `base` (e.g. "vllm:request_queue_time_seconds") over rows
 * i0..i1 of s (reset-aware, br_counter_delta). *count (may be NULL) gets
 * Δcount. NAN when either column is absent, a delta is NAN, or Δcount <= 0.
 */
double br_hist_delta_mean(const br_series *s, const char *base, size_t i0,
    size_t i1, double *count);

/* ---- §3.5 preemption events ---- */

/* One sample of the series in which vllm:num_preemptions_total rose. */
typedef struct br_preemption_event {
	size_t row;                /* row of the sample in run->metrics */
	double t_epoch_s;          /* sample time (epoch s) */
	double t_since_start_s;    /* since the window start */
	double count;              /* preemptions in this sample (counter rise) */
	double kv_before_frac;     /* KV usage of the previous sample */
	double kv_after_frac;      /* KV usage of this sample */
	double released_tokens;    /* (before − after)·P; NAN without P or KV; a 1 Hz
	                              reading, < 0 when admissions in the same second
	                              outweigh the release */
	double running_before, running_after;
	double span_s;             /* (added) time since the sample the counter was last read
	                              in (s); NAN without timestamps */
	int across_gap;            /* (added) span_s > BR_PREEMPTION_COARSE_STEP_S (dropped rows or
	                              missed scrapes): the count piled up unseen, and KV before,
	                              released and running before are NAN */
	int below_band;            /* (added) KV before more than BR_PREEMPTION_BAND_FRAC below the
	                              median KV before of the events (5 or more with a reading):
	                              KV climbed to the trigger and fell back between two samples, so
	                              this reading is neither the level it fired at nor its release
	                              (the fall nets out the admissions); counted, but left out of
	                              trigger_kv_frac and the released means */
} br_preemption_event;

typedef struct br_preemptions {
	int available;             /* events: needs a 1 Hz series with the counter */
	const char *missing;
	int count_available;       /* the total is known (series or before/after pair) */
	int count_lower_bound;     /* (added) the series missed the run's start or end (run->metrics_cut),
	                              or the server restarted inside the window (server_restarts):
	                              n_preemptions counts only what it sampled */
	int server_restarts;       /* (added) restarts inside the window: the preemption counter fell,
	                              or `benchreport sample` marked a row (benchreport:server_restart);
	                              what happened between the last scrape and each restart is lost */
	const char *count_source;  /* "metrics series window", "before/after snapshots", ... */
	int count_from_v0_log;     /* (added) no metrics counter: the count is the lower bound the
	                              server log's V0 warnings prove (log->v0_in_run_bound; V0 prints
	                              one at the 1st, 51st, 101st ... preemption), count_lower_bound 1 */
	double n_preemptions;      /* Δ vllm:num_preemptions_total over the window */
	double window_start_t_s, window_end_t_s;  /* epoch s; NAN for a pair */
	double window_s;           /* end − start */
	br_preemption_event *events;  /* time order; owned */
	size_t n_events;
	size_t n_multi_events;     /* events whose sample holds > 1 preemption (across_gap ones aside) */
	double max_per_event;      /* most preemptions in one sample (across_gap ones aside) */
	size_t n_gap_events;       /* (added) events read across a gap in the series (across_gap) */
	size_t n_gap_multi_events; /* (added) those with a count > 1: two samples saw the counter rise
	                              by more than one (whether in one step or over the gap, unknown) */
	double max_gap_event_s;    /* (added) the longest span_s of those; NAN when none */
	size_t n_below_band;       /* (added) events marked below_band */
	double below_band_min_kv_frac;  /* (added) the lowest KV before of those; NAN when none */
	double trigger_kv_frac;    /* mean KV-before over events (below_band ones aside) */
	double trigger_min_kv_frac;/* (added) the lowest KV-before of those; NAN when none */
	double mean_interval_s;    /* mean gap between consecutive events (>= 2 events) */
	double steady_first_s, steady_last_s;  /* (added) first and last event, s since the window
	                              start; NAN when the pace is not tested (see steady_ks_d) */
	double steady_ks_d;        /* (added) Kolmogorov-Smirnov distance between the preemptions'
	                              times (each event weighted by its count) and a constant rate
	                              from the first event to the last; NAN with fewer than
	                              BR_PREEMPTION_STEADY_MIN preemptions, any across_gap event, or
	                              a span under BR_PREEMPTION_STEADY_SPAN_FRAC of the window */
	double steady_ks_crit;     /* (added) its 5% critical value for that count, Stephens' (1970)
	                              1.358 / (sqrt n + 0.12 + 0.11 / sqrt n); NAN with steady_ks_d */
	double rate_per_min;       /* preemptions per minute over the window */
	double mean_released_tokens;        /* per event: over the events whose reading shows KV
	                                       falling (released > 0; below_band ones aside) */
	double total_released_tokens;       /* Σ over those events */
	double mean_released_per_preemption_tokens; /* Σ released / Σ counts */
	int released_unreadable;   /* (added) KV usage did not fall over the preemption samples, or rose
	                              over 20% or more of them (blocks
	                              refilled within the sample interval): the released tokens are
	                              unknown, not negative */
	size_t n_release_readings;  /* (added) events whose released tokens could be computed */
	size_t n_release_used;      /* (added) of those, the ones averaged (released > 0, not below_band) */
	size_t n_release_negative;  /* (added) of those, how many show KV usage rising (<= 0 released) */
	double sample_step_s;      /* (added) median gap between the window's samples (s); NAN unknown */
	int coarse;                /* (added) sample_step_s > BR_PREEMPTION_COARSE_STEP_S: the sample
	                              before an event may be seconds before it and admissions refill
	                              freed blocks between samples, so trigger_kv_frac is NAN and the
	                              released tokens are unreadable (released_unreadable = 1); events,
	                              count and spacing stand (breaker's 10 s snapshots: 95.71% and
	                              1,779 tokens against 99.69% and 6,499 at 1 Hz) */
} br_preemptions;

/* The widest sample spacing (s) at which a preemption's KV level and
 * release are read from the series (DESIGN.md §3.5 reads them at 1 Hz). */
#define BR_PREEMPTION_COARSE_STEP_S 2.5
/* How far below the events' median KV before (fraction of the pool, 2
 * points) a reading is taken for a climb and release the samples missed:
 * the reference's triggers sit within 0.4 points (99.58 %), and one
 * victim's release is 5-8 points (DESIGN.md §6: 7.52 and 5.20 points). */
#define BR_PREEMPTION_BAND_FRAC 0.02
/* ... and whose release reading is under this share of the others' median:
 * the fall nets out the admissions (a genuine low trigger releases a
 * victim's worth) */
#define BR_PREEMPTION_BAND_RELEASE_FRAC 0.25
/* The fewest preemptions whose pace is tested against a constant rate (a
 * Kolmogorov-Smirnov test of 10-12 events passed three bursts of four,
 * brk23), and the least share of the run window their first-to-last span
 * must cover (one burst of 10 in 24 s of 287 s passed the test on its own
 * span, brk23). */
#define BR_PREEMPTION_STEADY_MIN 20
#define BR_PREEMPTION_STEADY_SPAN_FRAC (2.0 / 3.0)

/*
 * br_analyze_preemptions: §3.5 from run->metrics. `res` and `cap` may be
 * NULL: P comes from cap->kv_pool_tokens (released tokens NAN without it);
 * the window start from res when available, else from br_run_window.
 * A pair gives the count only (available 0, count_available 1). Caller
 * frees with br_preemptions_free.
 */
void br_analyze_preemptions(const br_run *run, const br_residency *res,
    const br_capacity *cap, br_preemptions *out);
void br_preemptions_free(br_preemptions *p);

/* ---- §3.6 TTFT decomposition ---- */

typedef struct br_ttft_split {
	int available;             /* queue and prefill means and a client mean known */
	const char *missing;
	const char *window_source; /* as br_counter_span */
	double server_requests;    /* Δcount of request_queue_time_seconds */
	double queue_s;            /* Δsum/Δcount request_queue_time_seconds */
	double prefill_s;          /* Δsum/Δcount request_prefill_time_seconds */
	double client_ttft_mean_s; /* client mean TTFT */
	const char *client_source; /* "per-request arrays" or "bench file mean_ttft_ms" */
	double frontend_s;         /* client − queue − prefill (residual) */
	int frontend_negative;     /* 1 when the residual is < 0 */
	double queue_share, prefill_share, frontend_share;  /* of the client mean */
	double server_ttft_mean_s; /* Δsum/Δcount time_to_first_token_seconds */
	double server_ttft_count;
	double server_over_client; /* server_ttft_mean_s / client_ttft_mean_s */
	int population_differs;    /* (added) br_capture_missed_requests: the capture missed part of the
	                              load and server_requests is not the client's completed count, so
	                              no share or residual is formed (available 0) */
} br_ttft_split;

/*
 * br_analyze_ttft_split: §3.6. `lat` may be NULL (the client mean then comes
 * from the bench file's mean_ttft_ms). Works on a series or a before/after
 * pair (deltas between the two rows).
 */
void br_analyze_ttft_split(const br_run *run, const br_latency *lat, br_ttft_split *out);

/* ---- §3.7 Little's law ---- */

typedef struct br_littles_law {
	int available;             /* λ known and at least one reading computed */
	const char *missing;
	double completed, duration_s;
	double lambda_rps;         /* λ = completed / duration */
	/* resident: L = mean running */
	double running_mean;
	double w_resident_s;       /* L / λ */
	double measured_resident_s;/* mean prefill + mean decode (or inference) time */
	const char *measured_resident_source;
	double resident_ratio;     /* w_resident / measured */
	double implied_running;    /* λ · measured resident time (L the deltas imply) */
	/* queue: L_q = mean waiting, or C − mean running */
	double queue_length;
	const char *queue_length_source;  /* "mean waiting", "C − mean running" */
	double w_queue_s;          /* L_q / λ */
	double measured_queue_s;   /* Δsum/Δcount request_queue_time_seconds */
	double queue_ratio;        /* w_queue / measured queue */
	double ttft_p50_s;         /* client TTFT median */
	double queue_ttft_ratio;   /* w_queue / TTFT p50 */
	double implied_waiting;    /* λ · measured queue time */
	int measured_population_differs; /* (added) br_capture_missed_requests: the histograms behind the
	                              measured times counted other requests than the client completed
	                              (the capture missed part of the load): measured_* are NAN */
	double measured_requests;  /* (added) Δcount of the queue (else prefill) histogram, requests */
	int lambda_from_server;    /* (added) the client saw requests fail that the server timed
	                              (br_hist_counts_failed, the capture whole): λ = the server's
	                              measured_requests / duration, since the running and waiting
	                              the series counts include them; the measured times stay */
} br_littles_law;

/*
 * br_analyze_littles_law: §3.7. `res` (mean running/waiting) and `lat`
 * (TTFT p50; else the bench file's median_ttft_ms) may be NULL. With only a
 * pair, λ, the measured times and the implied L are computed; the
 * residency-based readings are NAN.
 */
void br_analyze_littles_law(const br_run *run, const br_residency *res,
    const br_latency *lat, br_littles_law *out);

#endif
