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
	double limit_ms;       /* the term holds when value <= limit_ms */
	char text[48];         /* canonical text, e.g. "ttft_p99<=500ms" */
} br_slo_term;

typedef struct br_slo {
	br_slo_term terms[BR_SLO_MAX_TERMS];
	size_t n;
	char text[BR_SLO_MAX_TERMS * 48];   /* terms joined by "," */
} br_slo;

/*
 * br_slo_parse: parse "metric_pNN<=VALUE(ms|s)[,...]" (metrics ttft, tpot,
 * itl, e2el; percentiles p50, p90, p95, p99, p99.9; spaces around terms
 * allowed; value a positive decimal number). Returns 0, or -1 with *cause
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
	double slo_bound_ms[BR_SLO_MAX_TERMS];   /* (added) a term missed though its value is absent:
	                                            the stated lower percentile that already exceeds
	                                            the limit (ms), with its percentile below; NAN else */
	double slo_bound_pct[BR_SLO_MAX_TERMS];
	int meets_slo;              /* 1 every term met; 0 otherwise */
	int failed_too_many;        /* (added) > 1% of the requests failed: the SLO is missed */
	int slo_evaluable;          /* (added) 0 when a metric an SLO term names is absent: the run is
	                               "not evaluable", neither meeting nor failing the SLO */
	int slo_source;             /* enum br_knee_source */
	double goodput_rps;         /* good requests / duration (approximate unless FROM_ARRAYS) */
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
	double drain_excess_s;      /* (added) duration − requests / offered rate, s; NAN when unknown */
} br_knee_point;

typedef struct br_knee_group {
	char *label;                /* settings shared by the curve, e.g. "Qwen/… · in/out 1024/128" */
	char *key;                  /* canonical group key (for summary.json) */
	int kind;                   /* enum br_knee_kind */
	br_knee_point *pts;         /* sorted by x, then run_number */
	size_t n;
	/* Knee over distinct x levels (repeats of one x: it passes only when every
	 * repeat meets the SLO; its goodput is their mean). Indices into pts of
	 * the first run at that x, or -1. */
	long knee_idx;              /* last x meeting the SLO while goodput still rises */
	long first_fail_idx;        /* first x not meeting the SLO */
	long first_gap_idx;         /* first x with achieved < 0.95 × offered (rate sweeps) */
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
 * br_knee_waiting_share: share of samples with waiting > 0 inside the run
 * window (from the sample before running+waiting first leave 0 to the sample
 * after they last return to 0; the whole series when there is no running
 * column). *n_samples gets the window length. NAN without a waiting column.
 */
double br_knee_waiting_share(const br_series *s, size_t *n_samples);

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
 * *cause on an I/O error.
 */
int br_fig_knee(const br_knee_result *r, const char *out_dir,
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
