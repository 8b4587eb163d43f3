/*
 * Compare two rounds (DESIGN.md §2 `benchreport compare A B`, §3.12).
 *
 * A and B are two runs or two campaigns (campaign runs are matched by
 * name). For each matched pair every headline number of A is set beside B
 * with its absolute and relative change; the chain of elasticities
 * "pool +38.2% → resident +40.1% → output throughput +21.3%" is computed;
 * and the settings of the two runs (model, GPU, vLLM version, input/output
 * lengths, concurrency, max_num_seqs, KV pool) are diffed, so the report
 * can say whether the pair is a controlled A/B (exactly one setting
 * differs) or not, naming each difference.
 *
 * Layers: analysis (src/analysis/compare.c, pure), figures
 * (src/render/fig_compare.c), report + summary.json
 * (src/report/compare_report.c), command (src/cli/cmd_compare.c).
 *
 * Ownership: br_cmp_settings strings are borrowed from the runs they were
 * taken from; br_cmp_pair_result owns its diff list (br_cmp_pair_free);
 * br_cmp_match owns its arrays (br_cmp_match_free).
 */
#ifndef BENCHREPORT_COMPARE_H
#define BENCHREPORT_COMPARE_H

#include <stddef.h>
#include <jansson.h>
#include "benchreport/analysis.h"
#include "benchreport/campaign.h"
#include "benchreport/render.h"
#include "benchreport/outdir.h"

/* ------------------------------------------------------ headline numbers */

/* The compared numbers, in display order. Units are in the keys. */
enum br_cmp_metric {
	BR_CMP_KV_POOL_TOKENS = 0,     /* P from the log (or run.json) */
	BR_CMP_KV_POOL_GIB,
	BR_CMP_PRED_MAX_CONCURRENCY,   /* log-predicted capacity P/M */
	BR_CMP_DEMAND_TOKENS,          /* C·(in+out) */
	BR_CMP_OVERSUBSCRIPTION,       /* demand / P */
	BR_CMP_RUNNING_MEAN,           /* mean running (resident) requests */
	BR_CMP_RUNNING_MEDIAN,
	BR_CMP_RUNNING_PEAK,
	BR_CMP_RESIDENT_SHARE,         /* mean running / C */
	BR_CMP_WAITING_MEAN,
	BR_CMP_WAITING_PEAK,
	BR_CMP_KV_MEDIAN_FRAC,
	BR_CMP_KV_SHARE_GE90,
	BR_CMP_KV_SHARE_GE95,
	BR_CMP_PREEMPTIONS,
	BR_CMP_PREEMPT_INTERVAL_S,     /* mean gap between preemption events */
	BR_CMP_PREEMPT_TRIGGER_KV_FRAC,
	BR_CMP_RELEASED_TOKENS,        /* mean released tokens per preemption */
	BR_CMP_COMPLETED,
	BR_CMP_FAILED,
	BR_CMP_DURATION_S,
	BR_CMP_REQUEST_RPS,
	BR_CMP_OUTPUT_TPS,
	BR_CMP_TOTAL_TPS,
	BR_CMP_TTFT_MEAN_S,
	BR_CMP_TTFT_P50_S,
	BR_CMP_TTFT_P99_S,
	BR_CMP_ITL_P50_MS,
	BR_CMP_ITL_P90_MS,
	BR_CMP_ITL_P99_MS,
	BR_CMP_TPOT_P50_MS,
	BR_CMP_E2EL_P50_S,
	BR_CMP_E2EL_P99_S,
	BR_CMP_QUEUE_S,                /* TTFT split: mean queue time */
	BR_CMP_PREFILL_S,
	BR_CMP_FRONTEND_S,
	BR_CMP_ITL_STALLS,
	BR_CMP_N_METRICS
};

/* Static description of one metric. */
typedef struct br_cmp_metric_info {
	const char *key;     /* summary.json key, e.g. "kv_pool_tokens" (label in the template: rows.KEY) */
	const char *unit;    /* "tokens", "GiB", "x", "requests", "frac", "count", "s", "ms", "req/s", "tok/s" */
	int decimals;        /* for display */
	int in_ab_table;     /* 1: a row of the reference report's A/B table */
} br_cmp_metric_info;

extern const br_cmp_metric_info br_cmp_metrics[BR_CMP_N_METRICS];

/* The headline numbers of one run (NAN = absent). */
typedef struct br_cmp_values {
	double v[BR_CMP_N_METRICS];
} br_cmp_values;

/* br_cmp_values_from_analysis: the headline numbers of an analysed run. */
void br_cmp_values_from_analysis(const br_analysis *a, br_cmp_values *out);

/* One number of A beside B. */
typedef struct br_cmp_row {
	int metric;          /* enum br_cmp_metric */
	double a, b;
	double abs_change;   /* b − a; NAN when either is absent */
	double rel_change;   /* (b − a) / |a|; NAN when either is absent or a == 0 */
} br_cmp_row;

/*
 * br_cmp_change: absolute (b − a) and relative ((b − a) / |a|) change.
 * Either out pointer may be NULL. Absent (non-finite) a or b gives NAN for
 * both; a == 0 gives NAN relative change (0 → 0 gives 0).
 */
void br_cmp_change(double a, double b, double *abs_change, double *rel_change);

/* -------------------------------------------------------- elasticities */

/* The chain "pool → resident → output throughput" and its ratios. */
typedef struct br_cmp_elasticity {
	int available;               /* the three relative changes are known */
	int pool_changed;            /* |pool change| > 0.1% */
	double pool_rel, resident_rel, throughput_rel;
	double resident_per_pool;    /* resident_rel / pool_rel (NAN when the pool did not change) */
	double throughput_per_resident;  /* throughput_rel / resident_rel; NAN when resident moved < 1% */
	double throughput_per_pool;  /* throughput_rel / pool_rel */
} br_cmp_elasticity;

/* br_cmp_elasticities: from the rows of a pair (pool, mean running, output tok/s). */
void br_cmp_elasticities(const br_cmp_row rows[BR_CMP_N_METRICS], br_cmp_elasticity *out);

/* ------------------------------------------------------------ settings */

/* The settings that define a run, for the controlled-A/B check. */
enum br_cmp_setting {
	BR_SET_MODEL = 0, BR_SET_GPU, BR_SET_VLLM, BR_SET_INPUT_LEN, BR_SET_OUTPUT_LEN,
	BR_SET_CONCURRENCY, BR_SET_REQUEST_RATE, BR_SET_MAX_NUM_SEQS, BR_SET_KV_POOL,
	BR_SET_N
};
extern const char *const br_cmp_setting_key[BR_SET_N];  /* "model", "gpu", "vllm_version", ... */

typedef struct br_cmp_settings {
	const char *text[BR_SET_N];  /* string settings (model, gpu, vllm); NULL = unknown */
	double num[BR_SET_N];        /* numeric settings; NAN = unknown (+inf rate = "inf") */
} br_cmp_settings;

/* br_cmp_settings_from_run: model (bench model_id, else the log's), GPU
 * (run.json), vLLM version (log), mean input/output tokens per completed
 * request, max_concurrency, request rate, max_num_seqs (log), KV pool. */
void br_cmp_settings_from_run(const br_run *run, const br_analysis *a, br_cmp_settings *out);

/*
 * br_cmp_server_fingerprint: the server setup a run met, as canonical text
 * for grouping runs ("gpu=NVIDIA H100; version=0.10.1; max_num_seqs=8;
 * arg max_model_len=8192; ..."): run.json's gpu, the server's version, the
 * log's running cap and every argument its args line lists (sorted by name;
 * host, port and other incidental ones left out; secrets as redacted), items
 * joined by "; ". NULL when the run states none of these (no log, no gpu).
 * Caller frees.
 */
char *br_cmp_server_fingerprint(const br_run *run);

enum br_cmp_diff_state { BR_DIFF_SAME = 0, BR_DIFF_DIFFERS, BR_DIFF_UNKNOWN };

typedef struct br_cmp_diff {
	int setting;                 /* enum br_cmp_setting */
	int state;                   /* enum br_cmp_diff_state */
	char *a_text, *b_text;       /* the values as text ("n/a" when unknown); owned */
} br_cmp_diff;

/*
 * br_cmp_settings_diff: compare every setting. Strings are equal when
 * identical; numbers when within 1% relative (token lengths are means) or
 * both +inf. A setting unknown on either side is BR_DIFF_UNKNOWN (it cannot
 * be checked). Out: diffs[BR_SET_N] (caller frees texts with
 * br_cmp_diffs_free), *n_differ the number that differ. Returns the verdict:
 * 1 controlled (exactly one setting differs), 0 not controlled (two or
 * more differ), 2 no setting differs (a repeat of the same configuration).
 */
int br_cmp_settings_diff(const br_cmp_settings *a, const br_cmp_settings *b,
    br_cmp_diff diffs[BR_SET_N], size_t *n_differ);
void br_cmp_diffs_free(br_cmp_diff diffs[BR_SET_N]);

/* ------------------------------------------------------------- a pair */

/* (added) A setting outside the fixed table: a bench setting, a run.json
 * label or one non-default server argument (br_cmp_pair). Strings owned. */
typedef struct br_cmp_extra {
	char *name;                  /* "burstiness", "driver", "arg tiered_moe_replica_assignment" */
	char *a_text, *b_text;       /* values as printed; "default" for an argument the other
	                                side's non-default list lacks; "n/a" when unknown */
	int state;                   /* enum br_cmp_diff_state */
} br_cmp_extra;

typedef struct br_cmp_pair_result {
	const char *name_a, *name_b;       /* borrowed */
	const br_analysis *a, *b;          /* borrowed */
	br_cmp_values va, vb;
	br_cmp_row rows[BR_CMP_N_METRICS];
	br_cmp_elasticity elasticity;
	br_cmp_diff diffs[BR_SET_N];
	br_cmp_extra *extra;               /* (added) the other settings compared */
	size_t n_extra;
	size_t n_differ;                   /* settings that differ: diffs (KV pool excluded, an
	                                      outcome) plus extra */
	int pool_moved_alone;              /* (added) the KV pool differs while no argument that
	                                      sets it (gpu_memory_utilization, kv_cache_memory,
	                                      max_model_len, block_size, dtypes, parallelism,
	                                      model, GPU) changed, each of them known on both sides
	                                      (server arguments included) */
	int verdict;                       /* 1 controlled (exactly one setting differs and the
	                                      pool did not move by itself), 2 no setting differs,
	                                      3 none differs among those both state but some
	                                      (server arguments, model, lengths, ...) are unknown,
	                                      4 one differs among those both state but some are
	                                      unknown (not proven controlled), 5 different
	                                      engines (different_engines), 0 otherwise */
	size_t n_unknown;                  /* (added) settings neither side (or one side) states,
	                                      GPU, driver and CUDA not counted */
	size_t n_unchecked_hw;             /* (added) of GPU, driver and CUDA, those one side does
	                                      not state (br_cmp_rarely_stated): they do not withhold
	                                      verdicts 1 and 2, which then name them as unchecked */
	int engine_a, engine_b;            /* (added) br_engine (model.h) that served each side */
	int different_engines;             /* (added) both known and not the same: verdict 5,
	                                      "different engines", never a controlled A/B */
	const char *diagnosis_a, *diagnosis_b; /* (added) between different engines, what kind of
	                                      problem each side shows against the other:
	                                      "capacity" (TTFT p50 >= 3x the other's while ITL p50
	                                      <= 1.25x: requests wait for admission) or "decode"
	                                      (ITL p50 >= 1.5x the other's); NULL neither, unknown,
	                                      or not the same workload */
	int same_files;                    /* (added) a copy, not a repeat (set by the caller, which
	                                      has the files; br_run_same_bench): 1 the same bench
	                                      file (SHA-256), 2 the same date and per-request
	                                      timings in a re-saved file; 0 neither */
	int same_workload;                 /* (added) different engines with equal mean input and
	                                      output lengths and concurrency, and no rate known to
	                                      differ: only then are the diagnoses made */
	double sent_rps_a, sent_rps_b;     /* (added) open loop at a finite rate: the rate each
	                                      client really sent (br_bench_sent_rps), req/s; NAN
	                                      otherwise */
	double achieved_rps_a, achieved_rps_b; /* (added) completed / duration, req/s */
	int arrivals_set_throughput;       /* (added) both open-loop runs kept up with what their
	                                      clients sent (achieved >= 95% of it) and the sent
	                                      rates differ by 2% or more: their throughput is the
	                                      arrivals' (another random draw), not the server's, so
	                                      no throughput change is credited to a setting
	                                      (eighteenth breaker: +12.3% from a seed) */
} br_cmp_pair_result;

/*
 * br_cmp_rarely_stated: 1 when the setting (a br_cmp_setting_key or a
 * br_cmp_extra name) is one of GPU, driver and CUDA, which bench inputs
 * rarely state: one side not stating it does not turn a controlled A/B into
 * "cannot tell", but the verdict names it as unchecked (n_unchecked_hw).
 * The one rule both the verdict and the report's wording follow.
 */
int br_cmp_rarely_stated(const char *name);

/*
 * br_cmp_engine_diagnosis: between two engines on the same workload, the
 * kind of problem side x shows against side y (round-2 reference: "ITL
 * normal + TTFT exploding -> capacity, requests queue; ITL slow too ->
 * decoding itself"): "decode" when x's ITL p50 >= 1.5 × y's; else
 * "capacity" when x's TTFT p50 >= 3 × y's and its ITL p50 <= 1.25 × y's;
 * NULL otherwise or when a number is missing (static strings).
 */
const char *br_cmp_engine_diagnosis(const br_cmp_values *x, const br_cmp_values *y);

/* br_cmp_rows: rows[i] for values a and b (pure; exposed for tests). */
void br_cmp_rows(const br_cmp_values *a, const br_cmp_values *b, br_cmp_row rows[BR_CMP_N_METRICS]);

/* br_cmp_pair: everything for one pair of analysed runs. Free with br_cmp_pair_free. */
void br_cmp_pair(const br_analysis *a, const br_analysis *b, const char *name_a,
    const char *name_b, br_cmp_pair_result *out);
void br_cmp_pair_free(br_cmp_pair_result *p);

/* ------------------------------------------------ campaign run matching */

typedef struct br_cmp_match {
	size_t (*pairs)[2];        /* matched (index in A, index in B), in A's order */
	size_t n_pairs;
	size_t *only_a, *only_b;   /* unmatched indices */
	size_t n_only_a, n_only_b;
} br_cmp_match;

/* br_cmp_match_names: match names of A to names of B: the same name first
 * (first match; a name used twice in B matches once), then, for what is
 * left, the same given name in order: given_a[i] (given_b[j]) is the length
 * of the name's given part ((size_t)-1 or a NULL array: the whole name), so
 * that runs a campaign told apart as "NAME [folder]" match NAME, or the
 * "NAME [folder]" runs of the other side one by one in folder order.
 * Pairs in A's order. Free with br_cmp_match_free. */
void br_cmp_match_names(const char *const *names_a, const size_t *given_a, size_t na,
    const char *const *names_b, const size_t *given_b, size_t nb, br_cmp_match *out);
void br_cmp_match_free(br_cmp_match *m);

/* -------------------------------------------------------------- figures */
/*
 * br_fig_compare: overlays of A and B on shared axes into out_dir:
 * figC1-compare-waveform (running, waiting, KV usage; time since each run's
 * window start), figC2-compare-latency-cdf (TTFT/ITL/E2EL CDFs),
 * figC3-compare-ttft-split (queue, prefill, frontend). Each is drawn when
 * at least one of the two runs has its data; a run without it is named in
 * the caption. A is palette colour 0 (solid), B colour 1 (dashed).
 * Out: *figs (br_figures_free), *n. Returns 0 or -1 with *cause on an I/O
 * error. t: the compare template (templates/compare.LANG.json); the
 * figures' text is its "figtext.figC*" keys (src/render/figure_io.h).
 */
struct br_template;
int br_fig_compare(const br_analysis *a, const br_analysis *b, const struct br_template *t,
    const char *label_a, const char *label_b, const char *out_dir, br_figure **figs, size_t *n, char **cause);

/* -------------------------------------------------------------- report */

/* --------------------------------------------- repeats against repeats */

/* Welch's t-test of one metric between a configuration repeated in A and
 * the configuration of the same label repeated in B (issue 9 §1). */
typedef struct br_cmp_repeat_test {
	const char *config;          /* the configuration's label (borrowed from A) */
	int metric;                  /* BR_REPEAT_* */
	br_welch w;                  /* diff = mean(B) − mean(A), in the metric's unit */
	int exceeds_noise;           /* w.ok and p_holm < 0.05: larger than run-to-run variation */
	double p_holm;               /* (added) p adjusted by Holm's step-down over the n_tests
	                                testable tests of the comparison (Holm 1979): a family of
	                                tests at 0.05 each would call about one in twenty
	                                differences of pure noise "larger than variation";
	                                NAN when not testable */
	size_t n_tests;              /* (added) the testable tests that adjustment spans */
	int no_spread;               /* (added) se 0, or below 1e-12 of the means (the repeats
	                                agree to rounding, e.g. a p99 that is the same gap in
	                                every run): not testable */
} br_cmp_repeat_test;

/*
 * br_cmp_repeat_tests: for every configuration label repeated (n >= 2) in
 * both campaigns, a Welch test per repeat metric (output tok/s, total
 * tok/s, TTFT p50/p99, ITL p50, E2EL p50; metrics absent on a side are
 * skipped). A configuration whose B repeats include a copy of one of A's
 * (br_run_same_bench: the same bench file, or the same one saved again) is
 * not tested: a copy is the same sample twice, and Welch's test needs two
 * independent ones; its label goes to *copied instead. Out: *tests and
 * *copied (malloc'd arrays, caller frees them; the labels are borrowed from
 * A), *n, *n_copied. Formula: Welch 1947, src/stats/repeats.c.
 */
void br_cmp_repeat_tests(const br_campaign *a, const br_campaign *b, br_cmp_repeat_test **tests, size_t *n,
    const char ***copied, size_t *n_copied);

/* The whole comparison handed to the report (borrowed). */
typedef struct br_compare_input {
	int campaigns;                 /* 1: A and B are campaigns */
	const char *dir_a, *dir_b;     /* as given */
	const char *name_a, *name_b;   /* run or campaign names */
	int same_path;                 /* A and B are the same folder, or (runs) two folders whose
	                                  inputs are the same files: same_files */
	int same_files;                /* (added) two run folders holding one run: 1 the same bench
	                                  file (SHA-256), 2 re-saved (br_run_same_bench); 0 neither */
	int same_bench_only;           /* (added) runs: one bench result (as same_files would say) beside
	                                  server files that differ: compared, the client side equal by
	                                  construction */
	const char *const *repeats_copied; /* configurations repeated on both sides but not tested:
	                                      B's repeats include a copy of A's (br_cmp_repeat_tests) */
	size_t n_repeats_copied;
	br_cmp_pair_result *pairs;     /* matched pairs */
	size_t n_pairs;
	size_t focus_pair;             /* the pair given the detailed chapter and figures */
	int focus_controlled;          /* (added) campaigns: focus_pair is the first controlled pair,
	                                  chosen over A's focus run's pair, which is not one */
	const char *const *only_a;     /* unmatched run names */
	size_t n_only_a;
	const char *const *only_b;
	size_t n_only_b;
	const br_run *const *inputs_runs;  /* every run of A then B, for the input-files appendix */
	size_t n_inputs_runs;
	const br_cmp_repeat_test *repeat_tests;  /* campaigns with repeats: Welch per metric */
	size_t n_repeat_tests;
	int matched_by_stem;           /* (added) campaigns: no run name was in both, so runs were
	                                  paired by configuration name (br_run_name_stem: "c16" of
	                                  c16-r1 and c16-r4), in name order */
} br_compare_input;

/* br_compare_summary: summary.json of `benchreport compare` (schema_version,
 * command "compare", a, b, pairs with rows / settings / elasticities,
 * unmatched lists, figures). New reference. */
json_t *br_compare_summary(const br_compare_input *in, const br_figure *figs, size_t n_figs);

/*
 * br_compare_write_report: write OUT/{report.pdf,summary.json,figures/}
 * through `out` (br_outdir_prepare'd by the caller before any analysis;
 * this stages and commits it, see outdir.h). template_path is
 * templates/compare.LANG.json. Out: *summary_out (may be
 * NULL) a new reference. Returns 0, BR_OUTDIR_ERR_REFUSED when OUT changed
 * into a folder that is not ours meanwhile, or -1 with *cause.
 */
int br_compare_write_report(const br_compare_input *in, br_outdir *out,
    const char *template_path, json_t **summary_out, char **cause);

#endif
