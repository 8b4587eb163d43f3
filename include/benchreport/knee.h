/*
 * Knee of a load sweep (DESIGN.md §2 `benchreport knee`, §3.11).
 *
 * Input: bench results of several runs (open-loop request-rate sweep, or a
 * closed-loop concurrency sweep), each optionally with its metrics series.
 * Runs are grouped into curves by every setting except the swept one; per
 * run the offered and achieved rate, throughputs, latency percentiles,
 * goodput for an SLO given now and the queue signal are computed; per
 * curve the knee (the last x that meets the SLO while goodput still
 * rises), the first failing x and the first x where the server cannot keep
 * up (achieved < 0.95 × offered).
 *
 * Layers: analysis (src/analysis/knee.c, pure), figures
 * (src/render/fig_knee.c), report + summary.json (src/report/knee_report.c).
 *
 * Ownership: br_slo and br_knee_result own everything they point to; free
 * them with br_slo_free / br_knee_free. br_knee_input is borrowed.
 */
#ifndef BENCHREPORT_KNEE_H
#define BENCHREPORT_KNEE_H

#include <stddef.h>
#include <jansson.h>
#include "benchreport/bench.h"
#include "benchreport/metrics.h"
#include "benchreport/render.h"
#include "benchreport/outdir.h"

/* ---------------------------------------------------------------- SLO */
enum br_slo_metric { BR_SLO_TTFT = 0, BR_SLO_TPOT, BR_SLO_ITL, BR_SLO_E2EL, BR_SLO_N_METRICS };

#define BR_SLO_MAX_TERMS 8

typedef struct br_slo_term {
	int metric;            /* enum br_slo_metric */
	double percentile;     /* 50, 90, 95, 99 or 99.9 */
	double limit_ms;       /* the term holds when value <= limit_ms (< when strict) */
	int strict;            /* 1: written "<" (value < limit_ms); 0: "<=" */
	char name[16];         /* metric and percentile, e.g. "ttft_p99" */
	char limit_text[40];   /* the limit as written, e.g. "500ms", "0.5s", "800us" */
	char text[64];         /* canonical text, e.g. "ttft_p99<=500ms" */
} br_slo_term;

/* br_slo_term_holds: 1 when value_ms (ms) is within term t's limit
 * (value < limit for "<", value <= limit for "<="; equal within 1e-12
 * relatively, br_cmp_limit); 0 otherwise, NaN too. */
int br_slo_term_holds(const br_slo_term *t, double value_ms);

/*
 * br_bench_extra_is_setting: 1 when a bench result's extra key (one the
 * ingest keeps verbatim, br_bench.extras) is a setting of the run:
 * `--metadata` strings such as tp, serve parameters `vllm bench sweep`
 * writes such as max_num_batched_tokens; 0 for anything measured
 * (statistics, throughputs, spec-decode rates, arrays and objects) and for
 * bookkeeping (run_number, date, errors). value may be NULL.
 */
int br_bench_extra_is_setting(const char *key, const char *value);

typedef struct br_slo {
	br_slo_term terms[BR_SLO_MAX_TERMS];
	size_t n;
	char text[BR_SLO_MAX_TERMS * 64];   /* terms joined by "," */
} br_slo;

/*
 * br_slo_parse: parse "metric_pNN<=VALUE(ms|s|us)[,...]" (metrics ttft,
 * tpot, itl, e2el; percentiles p50, p90, p95, p99, p99.9; "<=" or "<", as
 * --fail-on accepts; spaces around terms allowed; value a positive decimal
 * number). Returns 0, or -1 with *cause
 * "--slo: term N 'TEXT': expected ..." naming the bad term and what was
 * expected (empty text, unknown metric or percentile, missing "<=", bad
 * number or unit, more than BR_SLO_MAX_TERMS terms, duplicate term).
 */
int br_slo_parse(const char *text, br_slo *out, char **cause);

/* br_slo_metric_name: "ttft", "tpot", "itl", "e2el". */
const char *br_slo_metric_name(int metric);

/* ----------------------------------------------------------- analysis */

/* One run handed to the analysis (borrowed pointers). */
typedef struct br_knee_input {
	const br_bench *bench;
	const br_series *metrics;   /* NULL when the run has no metrics series */
	const char *name;           /* shown in tables; e.g. "r4" or "summary.json#2" */
	const char *server;         /* (added) the server setup (br_cmp_server_fingerprint: GPU,
	                               version, running cap, arguments); NULL when the run states
	                               none. Runs of different setups form different curves */
} br_knee_input;

enum br_knee_kind {
	BR_KNEE_RATE = 0,           /* open loop: x = offered request rate (inf allowed) */
	BR_KNEE_CONCURRENCY         /* closed loop: x = max_concurrency, rate inf */
};

/* How the SLO status / goodput of a point was obtained. */
enum br_knee_source {
	BR_KNEE_FROM_ARRAYS = 0,    /* per-request arrays: exact */
	BR_KNEE_FROM_FILE_PCT,      /* the file's own pXX statistics: goodput approximate */
	BR_KNEE_UNKNOWN             /* a percentile the SLO needs is absent */
};

typedef struct br_knee_point {
	char *name;                 /* input name */
	char *source_path;          /* bench file */
	int source_line;
	double x;                   /* offered rate (INFINITY = "inf") or max_concurrency */
	double offered_rps;         /* INFINITY for inf; NAN for closed loop */
	double concurrency;         /* max_concurrency; NAN for uncapped open loop */
	double run_number;          /* `vllm bench sweep` repeat index; NAN otherwise */
	char *date;                 /* (added) the bench file's "date" ("%Y%m%d-%H%M%S", when the run
	                               ended; sorts as time), NULL when absent: orders repeats
	                               held in separate files */
	double num_prompts, completed, failed, duration_s;
	double achieved_rps;        /* completed / duration */
	double output_tps, total_tps;
	double mean_input_tokens, mean_output_tokens;   /* per completed request */
	/* latency percentiles (ms): from arrays when present, else the file's */
	double ttft_p50_ms, ttft_p99_ms, tpot_p50_ms, tpot_p99_ms, e2el_p50_ms, e2el_p99_ms;
	int latency_from_arrays;
	/* SLO */
	double slo_value_ms[BR_SLO_MAX_TERMS];   /* each term's measured value; NAN = absent */
	int slo_term_ok[BR_SLO_MAX_TERMS];       /* 1 met, 0 missed, -1 unknown */
	double slo_bound_ms[BR_SLO_MAX_TERMS];   /* (added) a term decided though its value is absent:
	                                            missed, the stated lower percentile that already
	                                            exceeds the limit (ms); met, the stated higher one
	                                            within it; its percentile below; NAN else */
	double slo_bound_pct[BR_SLO_MAX_TERMS];
	int meets_slo;              /* 1 every term met; 0 otherwise */
	int failed_too_many;        /* (added) > 1% of the requests failed: the SLO is missed */
	int slo_evaluable;          /* (added) 0 when a metric an SLO term names is absent: the run is
	                               "not evaluable", neither meeting nor failing the SLO */
	int slo_no_sample;          /* (added) 1 when that absence is no sample in the per-request
	                               arrays: every request produced one output token, so it has
	                               no TPOT and no ITL (the file's 0s are placeholders) */
	int slo_source;             /* enum br_knee_source */
	double goodput_rps;         /* good requests / duration, req/s; NAN unless FROM_ARRAYS */
	double goodput_lo_rps, goodput_hi_rps;   /* (added) the range the file's percentiles allow
	                                            without arrays (goodput_bounds in knee.c); both
	                                            goodput_rps with arrays; NAN when unknown */
	double good_requests;       /* from arrays; NAN otherwise */
	int goodput_exact;          /* 1 from arrays */
	/* queue signal */
	double waiting_share_frac;  /* share of samples in the run window with waiting > 0; NAN without series */
	size_t n_metric_samples;
	int cannot_keep_up;         /* open loop, finite rate: achieved < 0.95 × offered, unless the
	                               shortfall is the drain tail of a finite run (drain_tail) */
	int drain_tail;             /* (added) achieved < 0.95 × offered, but neither TTFT nor E2EL
	                               grew over the run (median of the last quarter of requests by
	                               start ≤ 1.5 × the first quarter's), no request failed and the
	                               queue stayed empty (waiting > 0 in < 5% of samples, or no
	                               series): the server kept up and completed/duration only
	                               counts the last requests' drain */
	double ttft_growth;         /* (added) that ratio of medians; NAN without start times */
	int keep_up_unknown;        /* (added) achieved < 0.95 × offered, no TTFT growth to look at
	                               (no start times), no failures, and the run outlasted its
	                               arrivals (requests / offered rate) by no more than one
	                               median E2EL: a drain tail cannot be told from falling
	                               behind, so cannot_keep_up is not claimed */
	int keep_up_short;          /* (added) keep_up_unknown because the run is too short for its
	                               rate (steady_state 0): flat latencies over a few arrivals do
	                               not show a drain tail, so the shortfall is not attributed */
	double drain_excess_s;      /* (added) duration − requests / offered rate, s; NAN when unknown */
	double sent_rps;            /* (added) the rate the client really sent at, from the start
	                               times: (requests − 1) / (last start − first start), req/s;
	                               NAN without start times, at rate inf or with < 10 requests.
	                               A finite Poisson draw strays from the nominal rate (200
	                               requests at 3 req/s: ±7%), so the keep-up test holds the
	                               server to what it was sent */
	/* (added) Little's law L = λ·W per run (Little 1961; knee tutorial §3.3) */
	double e2el_mean_ms;        /* W: mean E2EL of the successful requests (arrays), else the
	                               file's mean_e2el_ms; NAN when neither */
	double littles_l_requests;  /* L = achieved_rps × e2el_mean_ms / 1000: mean requests in the
	                               system over the run; NAN when λ or W is unknown */
	double in_system_mean_requests; /* measured L: running + waiting integrated over the series' run
	                               window / duration_s (br_knee_in_system_mean); NAN without
	                               both columns */
	size_t in_system_samples;   /* samples behind in_system_mean_requests */
	/* (added) steady state of an open-loop run at a finite rate */
	double arrival_window_s;    /* requests (num_prompts, else completed + failed) / offered
	                               rate, s: how long the arrivals last; NAN otherwise */
	int steady_state;           /* 1 arrival window >= BR_KNEE_STEADY_WINDOWS × W, 0 shorter,
	                               -1 unknown (W unknown) or not applicable (closed loop, inf) */
	int verdict_withheld;       /* steady_state 0 and the run meets the SLO (and keeps up): a
	                               pass from a run too short for its queue to form is no
	                               verdict, and the knee search leaves it out. A short run's
	                               miss stands (flagged short): starting from an empty server
	                               only biases latency down, a longer run adds queueing */
} br_knee_point;

/* (added) Little's law constants (see br_knee_analyze). */
#define BR_KNEE_STEADY_WINDOWS 5.0  /* arrival window >= 5 × mean E2EL for steady state: a finite
                                       run ramps up for about one W and drains for about one W
                                       (each half-loaded on average), so with T >= 5 W its λ and
                                       L are at least T / (T + W) >= 5/6 of the steady values;
                                       shorter runs are mostly ramp and drain */
#define BR_KNEE_PLATEAU_FRAC 0.05   /* plateau levels: achieved within 5% of the largest one */
#define BR_KNEE_QUEUE_FRAC 0.05     /* queue present: waiting > 0 in >= 5% of the samples (the
                                       drain rule's "queue stayed empty" bound) */
#define BR_KNEE_NEXT_RATES 3        /* next rates suggested between the knee and the first failure */

typedef struct br_knee_group {
	char *label;                /* settings shared by the curve, e.g. "Qwen/… · in/out 1024/128" */
	char *key;                  /* canonical group key (for summary.json) */
	char *server;               /* (added) the curve's server setup (br_knee_input.server),
	                               NULL when not stated */
	int server_number;          /* (added) 1, 2, ... when curves of the same workload differ
	                               only in their server setup (the label says "server N"); 0
	                               otherwise */
	char *model_id;             /* (added) the curve's model (bench model_id), NULL when not stated */
	char *backend;              /* (added) the curve's bench backend ("vllm", "sglang", ...), NULL
	                               when not stated: the client the next runs are written for */
	int kind;                   /* enum br_knee_kind */
	br_knee_point *pts;         /* sorted by x, then run_number */
	size_t n;
	/* Knee over distinct x levels (repeats of one x: it passes only when every
	 * repeat meets the SLO; its goodput is their mean). Indices into pts of
	 * the first run at that x, or -1. */
	long knee_idx;              /* last x meeting the SLO while goodput still rises */
	int knee_open;              /* (added) knee_idx is the largest setting judged and none failed:
	                               the knee was not reached, it lies at or beyond that x */
	long first_fail_idx;        /* first x not meeting the SLO */
	long pass_after_fail_idx;   /* (added) first x above first_fail_idx that meets the SLO
	                               again (-1: none): the curve is not monotone, so that failure
	                               may be noise, and the knee is said to be unsettled */
	long first_gap_idx;         /* first x with achieved < 0.95 × offered (rate sweeps) */
	int first_fail_warmup_only; /* (added) the first failing x fails only through its first
	                               repeat, which looks like a warm-up (level_warmup); the other
	                               evaluable repeats meet. The verdict above stands (every
	                               repeat must meet); the two below say what it would be
	                               without that repeat */
	long knee_idx_without_warmup;       /* as knee_idx, that repeat left out (-1: none) */
	long first_fail_idx_without_warmup; /* as first_fail_idx, that repeat left out (-1: none) */
	int any_meets;
	int has_repeats;            /* several runs at one x */
	/* (added) per point: the pass count of its x level (repeats meeting the
	 * SLO / evaluable repeats), indexed like pts */
	size_t *level_pass, *level_evaluable, *level_n;
	int *level_warmup;          /* the level's first repeat looks like a warm-up: its TTFT p99
	                               > 3 × the median of the other repeats' */
	double *level_goodput_rps;  /* (added) the level's goodput: mean over its repeats, req/s */
	double *level_achieved_rps; /* (added) the level's achieved rate: mean over its repeats, req/s */
	int goodput_approx;         /* some point's goodput is approximate */
	/* (added) Little's law over a rate curve (Little 1961; knee tutorial §3.3):
	 * μ = the maximum sustainable completion rate, from the plateau of the
	 * achieved rate at the highest offered rates; λ meets μ at offered ≈ μ */
	double mu_rps;              /* br_knee_mu_plateau over the levels; NAN when no plateau
	                               (always NAN for concurrency curves) */
	size_t mu_n_levels;         /* levels in the plateau (0 without one) */
	long mu_first_idx;          /* first point of the plateau's lowest level; -1 */
	double mu_spread_frac;      /* (max − min) / μ of the plateau levels' achieved rates */
	double max_achieved_rps;    /* the largest achieved rate of the curve: μ >= it; NAN none */
	size_t n_withheld;          /* points whose SLO verdict is withheld (too short) */
	/* next rates to run, between the knee and the first failing rate */
	double next_rates_rps[BR_KNEE_NEXT_RATES];
	double next_num_prompts[BR_KNEE_NEXT_RATES];
	size_t n_next_rates;        /* 0 when not both rates are finite */
	/* queue signal (tutorial: the knee is where num_requests_waiting leaves 0) */
	size_t n_queue_known;       /* points with a waiting share */
	long queue_first_idx;       /* first point (x ascending) with waiting > 0 in >= 5% of samples; -1 */
	long queue_last_empty_idx;  /* last point before it with a known share < 5%; -1 */
} br_knee_group;

typedef struct br_knee_result {
	br_slo slo;
	br_knee_group *groups;      /* rate groups first, then concurrency groups */
	size_t n_groups;
	size_t n_runs;
	int any_meets;              /* some point of some group meets the SLO */
	char **notes;               /* caveats found while analysing */
	size_t n_notes;
} br_knee_result;

#define BR_KNEE_KEEPUP_FRAC 0.95

/*
 * br_knee_analyze: group the runs, compute every point, find each group's
 * knee. Identical result objects (the same run given twice) are counted
 * once, with a note. A run is closed loop (a concurrency curve) when its
 * request_rate is inf and max_concurrency is set, whatever num_prompts is;
 * the one exception is an inf run whose cap >= num_prompts beside
 * open-loop finite rates of the same model: the saturation point of that
 * rate sweep. A finite rate is open loop (capped when max_concurrency <
 * num_prompts). Runs are grouped only by settings: mode, model_id,
 * backend, burstiness and the binding cap (rate sweeps), every extra that
 * is a setting (`--metadata` strings, swept server parameters such as
 * max_num_seqs; never a measured result such as spec_decode_* or an
 * array) and mean input/output tokens per request (within 10%). Returns
 * 0, or -1 with *cause when n == 0.
 */
int br_knee_analyze(const br_knee_input *in, size_t n, const br_slo *slo,
    br_knee_result *out, char **cause);

/*
 * br_knee_find: the knee over distinct x levels given per-level pass/fail
 * and goodput (ascending x). Out: *knee = last level index that meets the
 * SLO while goodput has risen at every level up to it (the first level
 * counts as rising), *first_fail = first failing level; -1 when none.
 * Exposed for tests.
 */
void br_knee_find(const int *meets, const double *goodput, size_t n, long *knee, long *first_fail);

/*
 * br_knee_waiting_share: share of samples with waiting > 0 over the run's
 * busy span (br_run_busy_span: the first to the last sample with running +
 * waiting > 0, as the run report's residency reads it; the whole series
 * when there is no running column or no busy sample). *n_samples gets the
 * samples counted. NAN without a waiting column.
 */
double br_knee_waiting_share(const br_series *s, size_t *n_samples);

/*
 * br_knee_in_system_mean: the measured L of Little's law (requests): the
 * time integral of running + waiting (trapezoids between the samples of
 * the run window (the sample before running + waiting first leave 0 to the
 * sample after they last return to 0), whose idle end samples close
 * the ramps) divided by duration_s, the client's run duration (s; the
 * samples' own span when not finite > 0). For a run that starts and ends
 * empty that integral is the server's request-seconds, so it compares
 * with λ·W = Σ E2EL / duration (Little 1961). Rows where either gauge is
 * not a number are skipped; one usable row gives its value. *n_samples
 * (may be NULL) gets the samples used. NAN when the series lacks either
 * column or has no usable row.
 */
double br_knee_in_system_mean(const br_series *s, double duration_s, size_t *n_samples);

/*
 * br_knee_mu_plateau: μ, the maximum sustainable completion rate (req/s),
 * from the plateau of the achieved rate (Little 1961: past μ the
 * completions cannot rise, the queue grows instead; knee tutorial §3.3).
 * In: per x level in ascending order, achieved_rps[i] (req/s) and
 * saturated[i] (1 when the server could not keep up there: achieved <
 * 95% of offered, or an inf point). The plateau is the run of saturated
 * levels at the top of the sweep whose achieved rate lies within
 * BR_KNEE_PLATEAU_FRAC of the largest of them (walking down from the
 * highest level, stopping at the first that is not). Out: *first (index of
 * the plateau's lowest level), *n_plateau, *spread_frac ((max − min) / μ);
 * any may be NULL. Returns μ = the median achieved rate of the plateau
 * levels, or NAN (with *n_plateau 0) when fewer than two levels form one.
 */
double br_knee_mu_plateau(const double *achieved_rps, const int *saturated, size_t n,
    size_t *first, size_t *n_plateau, double *spread_frac);

/*
 * br_knee_next_rates: the BR_KNEE_NEXT_RATES offered rates (req/s) to run
 * next between the knee and the first failing rate: the geometric points
 * knee · (fail / knee)^(i/4), i = 1..3 (the middle one the geometric
 * midpoint), each rounded to 3 significant digits. Returns the count
 * written to out (0 unless 0 < knee < fail, both finite).
 */
size_t br_knee_next_rates(double knee_rps, double fail_rps, double *out);

void br_knee_free(br_knee_result *r);

/* br_knee_add_note: append a caveat (copied; an identical note is not added twice). */
void br_knee_add_note(br_knee_result *r, const char *note);

/* br_knee_duplicate_note: the caveat for inputs given more than once (the
 * CLI adds it when it skips a path it already read). */
const char *br_knee_duplicate_note(void);

/* ------------------------------------------------------------ figures */
/*
 * br_fig_knee: the knee figures into out_dir: per kind present (rate, then
 * concurrency) a throughput figure (achieved + goodput req/s and output
 * tok/s vs x, one curve per group, knee marked) and a latency figure (one
 * panel per SLO term: that percentile vs x, log y, SLO line, knee marked).
 * "inf" is plotted at the right end (twice the largest finite rate) and
 * labelled "inf". Out: *figs (br_figures_free), *n. Returns 0 or -1 with
 * *cause on an I/O error. t: the knee template (templates/knee.LANG.json);
 * the figures' text is its "figtext.figK-*" keys (src/render/figure_io.h).
 */
struct br_template;
int br_fig_knee(const br_knee_result *r, const struct br_template *t, const char *out_dir,
    br_figure **figs, size_t *n, char **cause);

/* ------------------------------------------------------------- report */
/*
 * br_knee_summary: summary.json of the knee command (schema_version,
 * slo, groups with points, knee and first failing x; NAN → null, inf →
 * the string "inf"). New reference.
 */
json_t *br_knee_summary(const br_knee_result *r, const br_figure *figs, size_t n_figs);

/*
 * br_knee_write_report: write OUT/{report.pdf,summary.json,figures/}
 * through `out` (br_outdir_prepare'd by the caller before any analysis;
 * this stages and commits it, see outdir.h). template_path is
 * templates/knee.LANG.json. Out: *summary_out (may be NULL) a new reference
 * to the summary. Returns 0, BR_OUTDIR_ERR_REFUSED when OUT changed into a
 * folder that is not ours meanwhile, or -1 with *cause.
 */
int br_knee_write_report(const br_knee_result *r, br_outdir *out,
    const char *template_path, json_t **summary_out, char **cause);

#endif
