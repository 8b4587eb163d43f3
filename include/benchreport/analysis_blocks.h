/*
 * The first analysis blocks of one run (DESIGN.md §3.1–3.4, §3.8 counters).
 * br_analysis (analysis.h) aggregates these and the later blocks. Each block is computed by its own
 * module in src/analysis/ and says whether it could be computed (`available`)
 * and, if not, why (`missing`, a static string naming the input it needs).
 * Numbers that cannot be computed are NAN, never 0.
 *
 * Ownership: br_analysis owns all arrays it points to; br_analysis_free.
 */
#ifndef BENCHREPORT_ANALYSIS_BLOCKS_H
#define BENCHREPORT_ANALYSIS_BLOCKS_H

#include <stddef.h>
#include "benchreport/run.h"
#include "benchreport/stats.h"

/* ---- §3.2 latency ---- */
enum br_latency_metric { BR_TTFT = 0, BR_TPOT, BR_ITL, BR_E2EL, BR_N_LATENCY };
extern const char *const br_latency_metric_name[BR_N_LATENCY]; /* "ttft","tpot","itl","e2el" */
extern const char *const br_latency_metric_label[BR_N_LATENCY]; /* "TTFT","TPOT","ITL","E2EL": as printed */

/* Recomputed value vs the file's own for one statistic. */
typedef struct br_latency_check {
	char key[64];              /* file key, e.g. "p99_ttft_ms" */
	double file_ms;
	double recomputed_ms;
	double rel_diff;           /* |a-b| / max(|a|,|b|,1e-300); for a std, max(|a|,|b|,|mean|) */
	double tolerance;          /* 1e-9; 1e-6 for tpot/e2el when the file has no
	                              `latencies` (E2E rebuilt as ttft + Σitls, which
	                              differs from the client's own clock reading by
	                              ~0.2 µs per request) */
	int agrees;                /* rel_diff <= tolerance (or both 0) */
} br_latency_check;

/* (added) Failed requests that share one error message (first line,
 * trimmed; "(no message)" when the file gives none). */
#define BR_ERROR_GROUP_INDICES 10
typedef struct br_error_group {
	char *message;             /* owned (freed by br_analysis_free) */
	size_t count;              /* failed requests with this message */
	size_t first_index[BR_ERROR_GROUP_INDICES]; /* their first indices (submission order) */
	size_t n_index;            /* entries of first_index used: min(count, 10) */
} br_error_group;

typedef struct br_latency {
	int from_arrays;           /* 1: recomputed from per-request arrays; 0: the file's values only */
	br_describe_t m[BR_N_LATENCY];   /* in ms; count 0 when not computable */
	/* samples (ms; NULL when !from_arrays): TTFT, TPOT and E2EL ascending;
	 * ITL in submission order (millions of gaps are not sorted): read
	 * order statistics through ranked[k] */
	double *samples_ms[BR_N_LATENCY];
	size_t n_samples[BR_N_LATENCY];
	br_ranked *ranked[BR_N_LATENCY];  /* index of samples_ms[k] (borrows it; owned, freed with it); NULL when no sample */
	/* (added) the empirical CDF of each metric (figure L), taken while the
	 * samples exist so that a report can free them before it draws
	 * (br_latency_fill_cdf): cdf_x_ms[k] ascending values (ms), cdf_share[k]
	 * the share of samples <= each (0..1], cdf_n[k] points (NULL, NULL, 0
	 * when no finite sample); cdf_count[k] the finite samples behind it and
	 * cdf_mid_ms[k] the one at rank count/2 (0-based; the figure's ms/s
	 * choice). Owned; kept by br_analysis_drop_samples. */
	double *cdf_x_ms[BR_N_LATENCY], *cdf_share[BR_N_LATENCY];
	size_t cdf_n[BR_N_LATENCY], cdf_count[BR_N_LATENCY];
	double cdf_mid_ms[BR_N_LATENCY];
	size_t n_requests, n_succeeded, n_failed;
	size_t *failed_index;      /* indices (submission order) of failed requests */
	/* (added) 1 when m[k] holds at least one statistic (from the arrays or
	 * from the file); m[k].count may still be 0 when the count is unknown */
	int has_stats[BR_N_LATENCY];
	/* (added) 1 when m[k].count is the true number of samples. From the
	 * file's statistics: TTFT/TPOT/E2EL count = completed (known), ITL
	 * count unknown (the number of gaps is not in the file) → count 0 and
	 * count_known 0. */
	int count_known[BR_N_LATENCY];
	size_t n_ttft_zero;        /* (added) successful requests whose TTFT is 0 s or less: a streamed
	                              first token cannot arrive in no time, so a missing measurement */
	size_t n_itl_inconsistent; /* (added) successful requests whose TTFT + Σ ITL exceeds their
	                              E2E latency: their gaps are left out of ITL */
	int itl_from_file;         /* (added) 1: arrays present but every ITL list empty although
	                              requests streamed 2+ tokens; m[BR_ITL] holds the file's own
	                              ITL statistics (not recomputed, not checked) */
	int itl_array_absent;      /* (added) with itl_from_file: the file has no "itls" array at
	                              all (not empty lists) */
	int e2el_rebuilt;          /* (added) the file has no "latencies": each E2EL is TTFT + Σ ITL
	                              (TPOT from it), and their checks allow 1e-6 relative */
	int e2el_from_file;        /* (added) no "latencies" and n_e2el_unbuildable requests that
	                              streamed 2+ tokens have no ITLs: m[BR_E2EL] and m[BR_TPOT]
	                              hold the file's own statistics (not recomputed, not checked) */
	size_t n_e2el_unbuildable;
	int itl_stalls_known;      /* (added) 1 only when recomputed from ITL arrays;
	                              0 → itl_stalls is meaningless ("unknown"), not 0 */
	size_t itl_stalls;         /* ITL gaps > the stall threshold (valid when itl_stalls_known) */
	double itl_stall_threshold_ms; /* 10 × median ITL; with >= 1,000 gaps at least 3 × ITL p99,
	                                  so the normal tail (prefill steps interleaved with
	                                  decode) is not called a stall */
	int itl_stall_from_p99;    /* (added) 1 when the threshold is 3 × ITL p99 (>= 1,000 gaps and
	                              that is above 10 × the median), 0 when 10 × the median */
	/* (added) the longest stall event: stall gaps of several requests and
	 * first tokens of others that end together (within max(50 ms, 10% of
	 * the gap)) are one engine step that stalled everyone, provided no
	 * request got a token inside the gap. Needs start times;
	 * stall_event_known 0 otherwise. */
	int stall_event_known;
	double stall_event_ms;       /* the longest gap of the event */
	double stall_event_at_s;     /* its end, seconds after the first request's start */
	size_t stall_event_streams;  /* running requests whose token gap ends there */
	size_t stall_event_first_tokens; /* requests whose first token arrives at its end after a
	                                  TTFT above the stall threshold */
	double itl_max_ms;
	br_latency_check *checks;
	size_t n_checks, n_mismatches;
	/* (added) checks of a metric with no sample where the file wrote 0 (vLLM's
	 * value for an empty set): they agree, but measure nothing */
	size_t n_checks_empty;
	/* (added) failed requests grouped by message, most frequent first (ties:
	 * first seen first); only from the per-request errors array */
	br_error_group *error_groups;
	size_t n_error_groups;
	/* (added) the file's own percentiles of metric k contradict each other
	 * (br_bench_file_pct_disorder: a higher percentile stated below a lower
	 * one); the pair with the largest drop: the lower percentile and its
	 * value (ms), the higher one and its smaller value. Set whether or not
	 * the arrays were read; matters where m[k] comes from the file. */
	int file_disorder[BR_N_LATENCY];
	double disorder_lo_pct[BR_N_LATENCY], disorder_lo_ms[BR_N_LATENCY];
	double disorder_hi_pct[BR_N_LATENCY], disorder_hi_ms[BR_N_LATENCY];
} br_latency;

/* ---- §3.3 capacity ---- */
typedef struct br_capacity {
	int available;             /* needs the server log (or run.json / cache_config_info) */
	const char *missing;
	double kv_pool_tokens;     /* P */
	const char *kv_pool_source;/* "server log", "run.json", "vllm:cache_config_info" */
	double max_model_len_tokens;      /* M */
	double predicted_max_concurrency; /* P / M */
	double log_max_concurrency_x;     /* as printed by the log */
	double kv_pool_gib;
	double kv_bytes_per_token; /* bytes of one token on the GPU that holds it: kv_pool_gib · 2^30 ·
	                              decode_context_parallel_size / P */
	int kv_gib_sig_digits;     /* (added) significant digits kv_pool_gib and what is computed from it
	                              carry: the log prints GiB with 2 decimals (±0.005 GiB), so 4.64 GiB
	                              gives 3; 0 when kv_pool_gib is unknown */
	double concurrency;        /* C = max_concurrency as configured (NAN for open loop) */
	/* (added) C_eff = min(max_concurrency, num_prompts): the most requests
	 * the client can have in flight (NAN for open loop). Used for demand,
	 * oversubscription and the resident share. */
	double effective_concurrency;
	const char *effective_concurrency_reason; /* (added) static: why C_eff has its value, NULL when NAN */
	double mean_input_tokens, mean_output_tokens;
	double demand_tokens;      /* C_eff·(in+out) */
	double oversubscription;   /* demand / P */
	double resident_estimate;  /* min(P / (in + out/2), max_num_seqs of the log), requests */
	double resident_kv_bound;  /* (added) P / (in + out/2) alone, requests */
	int resident_capped_by_max_num_seqs; /* (added) 1 when max_num_seqs is the bound */
	int resident_cap_from_slots;  /* (added) 1 when that bound is the slot count llama-server's
	                                 /slots listed (no log states n_slots) */
	double n_slots_listed;        /* (added) most slots one /slots snapshot listed (requests at
	                                 once), NAN without /slots */
	double log_cap_contradicted_by;  /* (added) the log states a cap (max_num_seqs) that the run
	                                    contradicts, so resident_estimate ignores it: the most
	                                    requests seen running; NAN when not contradicted */
	const char *log_cap_contradicted_where;  /* (added) where they were seen (br_log_cap), or NULL */
} br_capacity;

/* ---- §3.1 window / §3.8 ledger: server counters against client numbers ---- */
typedef struct br_ledger_row {
	const char *series;        /* the counter as the engine names it (canonical, metrics.h) */
	int role;                  /* (added) its br_role (model.h) */
	const char *label;         /* short human label, e.g. "prompt tokens" */
	double server_delta;       /* reset-aware delta over the window */
	double client_value;       /* NAN when the client has no counterpart */
	const char *client_label;  /* e.g. "total_input_tokens" */
	const char *relation;      /* "=" (must equal), ">=" (server at least the client) or "<="
	                              (server at most the client: llama.cpp's prompt tokens) */
	int agrees;                /* -1 no counterpart, 0 disagrees, 1 agrees */
	double tolerance;          /* (added) how far Δ may be off because the server prints its counters
	                              rounded (llama.cpp: 6 significant digits), tokens; 0 = exact */
	int capture_short;         /* (added) 1: Δ falls short of the client's number, and the metrics
	                              capture missed the start or end of the load (run->metrics_cut),
	                              which explains a shortfall: not compared (agrees -1), not a
	                              disagreement */
	int with_failed;           /* (added) 1: the client counted failed requests, which the server
	                              may have run to the end and counted: "=" read as ">=" (for the
	                              successes, at most `failed` more) */
} br_ledger_row;

typedef struct br_ledger {
	int available;
	const char *missing;
	const char *window_source; /* "before/after snapshots", "metrics series window" */
	double window_start_t_s, window_end_t_s;  /* epoch s; NAN for a bare pair */
	int counter_resets;        /* resets seen inside the window */
	int window_cut;            /* (added) run->metrics_cut for a series: 1 the capture began after
	                              the load had started, 2 ended before it stopped, 3 both */
	size_t n_capture_short;    /* (added) rows with capture_short */
	size_t n_with_failed;      /* (added) rows with with_failed */
	br_ledger_row *rows;
	size_t n_rows;
} br_ledger;

/*
 * br_run_window (window.c): the run's span in a metrics series: rows
 * [*i0, *i1], from the last sample before running+waiting leave 0 to the
 * first sample after they return to 0 (clamped to the first/last row when
 * the series starts or ends busy). Needs vllm:num_requests_running (waiting
 * optional). Returns 0, or -1 when the series has < 2 rows, no running
 * column, or is never busy.
 */
int br_run_window(const br_series *s, size_t *i0, size_t *i1);

/*
 * br_run_counter_window (window.c): the window counter deltas are read over:
 * br_run_window of the run's series, reaching further to the work counters'
 * rises (requests finished, prompt and generated tokens) that the gauges
 * missed: a request shorter than the sampling step starts and finishes
 * between two scrapes. A rise joins when the window with it still spans no
 * more than the bench's duration plus two sampling steps (so another test's
 * traffic before or after the run stays out); without a duration, the
 * window of br_run_window. Same returns as br_run_window.
 */
int br_run_counter_window(const struct br_run *run, size_t *i0, size_t *i1);

/*
 * br_run_busy_span (window.c): the first and last busy rows (running +
 * waiting > 0) of a series, the run window without its two idle bracket
 * samples: the rows gauge statistics (mean running, KV usage) describe the
 * run by. Same returns as br_run_window.
 */
int br_run_busy_span(const br_series *s, size_t *b0, size_t *b1);

/*
 * br_counter_delta (window.c): reset-aware increase of a counter column over
 * rows i0..i1 (NaN samples skipped): a decrease means a restart, so the
 * post-reset value is added. *resets (may be NULL) gets the number of
 * restarts. NAN when fewer than two samples are numeric.
 */
double br_counter_delta(const double *col, size_t i0, size_t i1, int *resets);

/* ---- §3.4 residency and KV ---- */
typedef struct br_residency {
	int available;             /* needs a metrics series (>= 3 samples) */
	const char *missing;
	size_t n_samples;          /* samples the statistics rest on: the busy span */
	double window_start_t_s, window_end_t_s;   /* the run window (with its brackets) */
	double sample_interval_s;  /* median gap between the window's samples, s */
	double running_mean, running_median, running_peak;
	double running_mean_active; /* (added) mean running over the busy span's samples with running
	                              > 0, requests: the batch the engine stepped when it worked
	                              (an idle server between sparse requests lowers running_mean,
	                              not this); NAN when none */
	double waiting_mean, waiting_median, waiting_peak;
	double in_system_peak;     /* (added) peak of running + waiting in one sample, requests; NAN without a waiting column */
	double resident_share;     /* running_mean / C_eff (br_effective_concurrency) */
	double kv_median_frac, kv_peak_frac, kv_share_ge90, kv_share_ge95;
	double preemptions;        /* Δ num_preemptions_total over the window (with its brackets) */
} br_residency;

/*
 * br_kv_held_max_tokens (analysis.c; added): the most KV cache the running
 * requests can hold, tokens: the running peak × (mean input + mean output
 * + one block of rounding; the log's block size, else vLLM's 16). Prefix-
 * cached blocks no request holds count as free in vLLM's and SGLang's
 * usage. NAN when residency or the mean lengths are unknown.
 */
double br_kv_held_max_tokens(const br_run *run, const br_capacity *c, const br_residency *res);

/*
 * br_kv_usage_above_held (analysis.c; added): 1 when a KV usage peak
 * (fraction of the pool) of at least 5% is more than twice held_max_frac,
 * the most the running requests can hold (running peak × (mean input +
 * mean output + one block) tokens / pool): the usage column is misread,
 * most likely percent values below 1 taken as a fraction. NaN gives 0.
 * The analysis then withholds the column with a note (every KV usage
 * number becomes unknown).
 */
int br_kv_usage_above_held(double kv_peak_frac, double held_max_frac);

/*
 * br_effective_concurrency (capacity.c; added): the closed-loop concurrency
 * the client can actually reach, min(max_concurrency, N), N = num_prompts
 * (else the number of per-request records, else completed + failed). NAN
 * for open loop (no max_concurrency) or b NULL. *reason (may be NULL) gets a
 * static explanation, NULL with NAN.
 */
double br_effective_concurrency(const br_bench *b, const char **reason);

/*
 * br_capped_open_loop (capacity.c): 1 when b has a finite request rate and
 * a max_concurrency (vllm bench serve --request-rate R --max-concurrency C):
 * an open loop the client holds back while C requests are in flight, not a
 * closed loop; 0 otherwise or for NULL.
 */
int br_capped_open_loop(const br_bench *b);

/*
 * Each function fills its block from the run and returns 0; they never fail
 * on missing inputs (the block is marked unavailable with `missing`).
 */
void br_analyze_latency(const br_run *run, br_latency *out);
/*
 * br_analyze_latency_taking: as br_analyze_latency, but when `take` is the
 * run's first bench result (&run->bench.runs[0]) and its ITLs sit in one
 * block in request order (itls_block, the fast loader's layout), the ITL
 * pool is built inside that block and becomes samples_ms[BR_ITL] (owned by
 * the latency block from then on): take's requests are left without ITLs
 * (itls_s NULL, n_itls 0, take->itls_taken 1). 5 M gaps are then held once
 * (40 MB), not twice. For a caller that reads no ITL of that result again.
 * Any other take (NULL, another result, per-request arrays): a copy, as
 * br_analyze_latency. The numbers are the same either way.
 */
void br_analyze_latency_taking(const br_run *run, br_bench *take, br_latency *out);
/*
 * br_latency_from_file: 1 when the statistics of metric k (enum
 * br_latency_metric) in l->m[k] are the file's own, not recomputed from
 * per-request arrays: no arrays at all, ITL with no (or only empty) ITL
 * lists, TPOT / E2EL with no latencies to rebuild them from. b is the bench
 * result l was computed from.
 */
int br_latency_from_file(const br_latency *l, const br_bench *b, int k);

/* Figure L's CDF: at most this many points per metric, the largest
 * BR_LATENCY_CDF_TAIL samples always at their own values and ranks. */
#define BR_LATENCY_CDF_POINTS 2000
#define BR_LATENCY_CDF_TAIL 500

/*
 * br_latency_ranked: the order statistics of metric m of L: the analysis's
 * index (L->ranked[m]) when it covers samples_ms[m], else an index of the
 * finite samples_ms[m] built here (for a caller that filled samples_ms
 * alone: tests, hand-built analyses), which *own and *copy then hold
 * (caller frees both: br_ranked_free, free; NULL when not built). NULL when
 * there is no finite sample.
 */
const br_ranked *br_latency_ranked(const br_latency *L, int m, br_ranked **own, double **copy);

/*
 * br_latency_fill_cdf: (re)compute cdf_* of every metric of L from its
 * samples (br_ranked_cdf with BR_LATENCY_CDF_POINTS / _TAIL; from 65,536
 * samples on the bulk points are bucket upper edges at their exact
 * shares, see stats.h). br_analyze_latency calls it; a caller that fills
 * samples_ms by hand calls it before drawing. Frees earlier cdf_* arrays.
 */
void br_latency_fill_cdf(br_latency *L);
void br_analyze_capacity(const br_run *run, br_capacity *out);
/* br_round_sig: x rounded to `digits` significant digits (x itself when
 * digits <= 0 or x is 0 or not finite). */
double br_round_sig(double x, int digits);

/*
 * br_log_cap (capacity.c): the server log's cap on running requests
 * (vLLM max_num_seqs, SGLang max_running_requests, llama.cpp n_slots;
 * times the data-parallel engines when the log has several), or
 * NAN when the log states none or the run contradicts it: the metrics'
 * running gauge over the busy span (br_run_busy_span), or the log's own
 * statistics lines, saw more running requests than the cap allows (the log
 * is of another instance, or of another start of the server). seen_out
 * (may be NULL): the highest running count that contradicts the cap, NAN
 * when none does; where_out (may be NULL): "the metrics" or "the log's own
 * statistics lines" when contradicted, else NULL (static strings).
 */
double br_log_cap(const br_run *run, double *seen_out, const char **where_out);
void br_analyze_ledger(const br_run *run, br_ledger *out);

/*
 * br_ledger_other_load (ledger.c): the reason a ledger shows the server did
 * clearly more work over the run window than the bench sent, so its metrics
 * cannot be credited to this bench (another run's series, or other clients
 * on the server: breaker's mix1, s1's bench beside the metrics of a run of
 * twice the output, 65,536 generation tokens against 32,768). Clearly more:
 * successful requests above completed + failed by 25% and at least 2; or,
 * with no failed request (a failed one may have made tokens the client never
 * counted), prompt or generation tokens at 1.5x the client's or more. A
 * malloc'd sentence naming the counter, both numbers and the ratio, or NULL
 * (also for an unavailable ledger or b NULL).
 */
char *br_ledger_other_load(const br_ledger *l, const br_bench *b);
void br_analyze_residency(const br_run *run, br_residency *out);

/* ---- server-side request timings (llama-server's timing lines) ---- */

/*
 * What llama-server's log says each finished request took (serverlog.h
 * br_log_request: `prompt eval time` and `eval time` lines), over the
 * whole log. Percentiles are numpy-linear over the requests. Times in ms.
 */
typedef struct br_log_timings {
	int available;
	const char *missing;           /* why not, when !available */
	size_t n;                      /* requests with both lines */
	double bench_completed;        /* the bench's completed requests (NAN): equal to n when the
	                                  log holds exactly this run's requests, as far as counts tell */
	double prompt_tokens_mean;     /* tokens evaluated (a cached prefix excluded) */
	double prompt_ms_p50, prompt_ms_p99;
	double prompt_tps_p50;         /* per request: tokens / prompt time, tokens/s */
	double eval_tokens_mean;
	double eval_ms_per_token_p50, eval_ms_per_token_p99;  /* generation time / tokens */
	double eval_tps_p50;           /* per request: tokens / generation time, tokens/s */
	double client_tpot_p50_ms;     /* the client's TPOT p50 beside it (latency block), NAN */
	double bench_input_tokens_mean, bench_output_tokens_mean;   /* the bench's per completed
	                                  request (tokens), NAN when it states no totals */
	int tokens_disagree;           /* the lines generated more than 10% (+1 token) more or
	                                  fewer tokens per request than the bench's requests, or
	                                  evaluated more prompt tokens than they sent: they are
	                                  not this run's requests */
} br_log_timings;

/*
 * br_analyze_log_timings (log_timings.c): the block above from run->log
 * (NULL or no timing lines: unavailable, with the reason) and the client's
 * TPOT p50 from lat (may be NULL). A request with a zero time or token
 * count is left out of the per-token and per-second statistics.
 */
void br_analyze_log_timings(const br_run *run, const br_latency *lat, br_log_timings *out);

#endif
