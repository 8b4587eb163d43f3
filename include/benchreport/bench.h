/*
 * The bench result model: what `vllm bench serve --save-result
 * [--save-detailed]` (and the older benchmarks/benchmark_serving.py) writes.
 * See ../shared/FORMATS.md §1 for every key and version quirk.
 *
 * Conventions: every numeric field is a double; NAN means "absent from the
 * file" (never 0). Times in seconds carry _s, milliseconds _ms, as in the
 * file. Strings are NULL when absent.
 *
 * Ownership: a br_bench_set owns all its runs, and each run owns all its
 * strings and arrays (per-request ITLs either one malloc each or slices of
 * br_bench.itls_block); br_bench_set_free releases everything.
 */
#ifndef BENCHREPORT_BENCH_H
#define BENCHREPORT_BENCH_H

#include <stddef.h>

/* One request of a detailed result, in submission order; failed ones too. */
typedef struct br_request {
	double input_len_tokens;
	double output_len_tokens;  /* 0 for a failure */
	double ttft_s;             /* 0.0 for a failure */
	double latency_s;          /* E2E; NAN when `latencies` absent */
	double start_time_s;       /* perf_counter clock (not epoch); NAN when absent */
	double queue_time_s;       /* client-side queue wait; NAN when absent */
	double *itls_s;            /* one gap per streamed chunk after the first; NULL when none.
	                            * Owned by the request, or, when the run's itls_block is
	                            * not NULL, a slice of that block (not freed on its own) */
	size_t n_itls;
	char *error;               /* NULL or "" = success; else the message */
	int failed;                /* 1 when error is non-empty or (no error field and ttft==0 and output_len==0) */
} br_request;

/* One statistic the file states itself, e.g. "p99.9_itl_ms" →
 * metric "itl", stat "p", percentile 99.9, value_ms. */
typedef struct br_file_stat {
	char metric[40];           /* "ttft", "tpot", "itl", "e2el", "client_queue_time", ... */
	char stat[8];              /* "mean", "median", "std", "p" */
	double percentile;         /* for stat "p": 99, 99.9, ...; else NAN */
	double value_ms;
	char key[64];              /* the key as written in the file */
} br_file_stat;

/* A top-level key this model does not name (e.g. `--metadata k=v`, swept
 * parameters). Value kept as text: strings verbatim, numbers as printed. */
typedef struct br_bench_extra {
	char *key;
	char *value;
} br_bench_extra;

typedef struct br_bench {
	char *source_path;         /* file it came from */
	int source_index;          /* 0-based object index within the file (JSONL / array) */
	int source_line;           /* 1-based line where the object starts */

	/* header */
	char *date;                /* "%Y%m%d-%H%M%S" local time, written when the run ENDED */
	char *backend;             /* `backend`, else `endpoint_type` */
	char *endpoint_type;       /* (added) `endpoint_type` (vLLM 0.25+), NULL when absent */
	char *label;
	char *model_id;
	char *tokenizer_id;
	double num_prompts;
	double request_rate_rps;   /* INFINITY for "inf" / Infinity */
	double burstiness;
	double max_concurrency;    /* NAN when null/absent (open loop) */
	double run_number;         /* `vllm bench sweep` run=N; NAN otherwise */

	/* results */
	double duration_s;
	double completed;
	double failed;             /* file's `failed`, else num_prompts - completed */
	int failed_derived;        /* 1 when `failed` was derived, not read */
	double total_input_tokens;
	double total_output_tokens;
	double request_throughput_rps;     /* req/s; completed / duration when the file lacks it */
	double request_goodput_rps;        /* NAN when null/absent */
	double output_throughput_tps;      /* tokens/s */
	double total_token_throughput_tps; /* `total_token_throughput`, else (input + output tokens) /
	                                      duration (vllm's formula); NAN when neither */
	double input_throughput_tps;       /* old `input_throughput` / `request_inthroughput` */
	double max_output_tokens_per_s;
	double max_concurrent_requests;
	double spec_decode_acceptance_rate;    /* percent, as written */
	double spec_decode_acceptance_length;
	double spec_decode_num_drafts;
	double spec_decode_draft_tokens;
	double spec_decode_accepted_tokens;

	br_file_stat *stats;       /* the file's own *_ms statistics */
	size_t n_stats;

	/* per-request arrays (--save-detailed); n_requests = 0 when absent */
	br_request *requests;
	size_t n_requests;
	int has_latencies;         /* `latencies` array present */
	int has_start_times;
	int has_queue_times;
	int has_errors;            /* (added) an `errors` array says which requests failed */
	int has_itls;              /* an `itls` array (one list per request) present */

	br_bench_extra *extras;    /* unknown top-level keys, in file order */
	size_t n_extras;

	/* NULL, or one block holding every request's ITLs back to back: then each
	 * requests[i].itls_s points into it and br_bench_free frees only the
	 * block (the fast loader does this; code building a br_bench by hand
	 * leaves it NULL and mallocs each itls_s) */
	double *itls_block;
	/* 1 when the latency analysis took the block for its ITL samples
	 * (br_analyze_latency_taking): the requests hold no ITLs any more
	 * (itls_s NULL, n_itls 0), whatever the file had */
	int itls_taken;
} br_bench;

typedef struct br_bench_set {
	br_bench *runs;
	size_t n;
} br_bench_set;

/*
 * br_bench_load: parse a bench result file: one JSON object, JSONL of
 * objects (--append-result), or a JSON array of objects (`vllm bench sweep`
 * summary.json). Accepts bare NaN/Infinity/-Infinity, "inf"/"-inf"/"nan"
 * strings for numbers, indented or one-line, key drift (FORMATS.md §1).
 * Out: *out filled (caller frees with br_bench_set_free), n >= 1.
 * Errors: -1 with *cause "PATH:LINE:COL: expected ..." for malformed JSON, an
 * empty or binary file, or an object that is not a bench result (no
 * `duration`/`completed`).
 */
int br_bench_load(const char *path, br_bench_set *out, char **cause);

/* br_bench_parse_text: as br_bench_load on an in-memory text (len bytes);
 * `name` is used in messages. */
int br_bench_parse_text(const char *name, const char *text, size_t len,
    br_bench_set *out, char **cause);
/*
 * br_bench_text_lists_counted: how many non-empty "generated_texts" and
 * "errors" lists this process has counted without building them in jansson
 * (the texts are never read; errors only when all are "" or null). A
 * diagnostic for tests and benchmarks; not thread-safe.
 */
size_t br_bench_text_lists_counted(void);

/* br_bench_looks_like: 1 when the file at path parses as a bench result;
 * used to pick "the one *.json that parses as a bench result". */
int br_bench_looks_like(const char *path);

/*
 * br_bench_file_pct_bounds: what the file's own percentiles of `metric` say
 * about its p-th percentile, for a p the file may not state (percentiles
 * are non-decreasing in p, numpy's linear rule included; "median" is p50).
 * *below: the largest value stated at a percentile <= p (pX <= the p-th
 * for X <= p), *below_pct its percentile; *above: the smallest value stated
 * at a percentile >= p, *above_pct its percentile. Each NAN when the file
 * states none on that side; both the stated value when p itself is stated.
 */
void br_bench_file_pct_bounds(const br_bench *b, const char *metric, double p,
    double *below, double *below_pct, double *above, double *above_pct);

/*
 * br_bench_file_pct_disorder: 1 when the file's own order statistics of
 * `metric` contradict each other: a percentile stated above another
 * ("median" is p50, p100 the maximum) that is smaller than it, e.g. a
 * median_ttft_ms of 820 with a p99_ttft_ms of 1.0. Percentiles never fall
 * as p rises, so such a file was edited or written by a faulty tool and
 * none of its percentiles of that metric can be trusted. A difference of
 * 1e-9 relative (float noise) is not a contradiction. On 1, the pair
 * with the largest drop: *lo_pct / *lo_ms the lower percentile and its
 * (larger) value, *hi_pct / *hi_ms the higher one; all four NAN on 0.
 */
int br_bench_file_pct_disorder(const br_bench *b, const char *metric,
    double *lo_pct, double *lo_ms, double *hi_pct, double *hi_ms);

/* br_bench_file_stat: the file's own value (ms) for metric/stat/percentile,
 * or NAN. Percentile is ignored unless stat is "p". */
double br_bench_file_stat(const br_bench *b, const char *metric,
    const char *stat, double percentile);

/* br_bench_sent_rps: the rate the client really sent at, req/s, from the
 * per-request start times: (requests − 1) / (last start − first start). A
 * finite Poisson or gamma draw strays from the nominal request_rate (200
 * requests at 3 req/s: ±7%). NAN without per-request records or start
 * times, with fewer than 10 of them, or when they span no time. */
double br_bench_sent_rps(const br_bench *b);

/* br_bench_set_ordinal: 1-based position of s->runs[i] in its file (the
 * order of source_line), whatever order the set is held in (a run folder
 * moves the newest result to the front). */
size_t br_bench_set_ordinal(const br_bench_set *s, size_t i);

/* br_bench_extra_get: value of an extra key, or NULL. */
const char *br_bench_extra_get(const br_bench *b, const char *key);

void br_bench_free(br_bench *b);
void br_bench_set_free(br_bench_set *s);

#endif
