/*
 * A run folder (DESIGN.md §1): the bench result plus optional metrics
 * (CSV series, snapshot pair, snapshot folder), server log and run.json.
 *
 * Ownership: br_run owns everything it points to; br_run_free releases it.
 */
#ifndef BENCHREPORT_RUN_H
#define BENCHREPORT_RUN_H

#include <stddef.h>
#include "benchreport/bench.h"
#include "benchreport/metrics.h"
#include "benchreport/serverlog.h"

typedef enum br_metrics_kind {
	BR_METRICS_NONE = 0,
	BR_METRICS_CSV,           /* metrics.csv, 1 Hz series */
	BR_METRICS_SNAPSHOT,      /* one .prom snapshot */
	BR_METRICS_PAIR,          /* two snapshots: before (row 0), after (row 1) */
	BR_METRICS_SNAPSHOTS,     /* metrics/ folder of timestamped snapshots */
	BR_METRICS_LOG,           /* (added) no /metrics: SGLang's Prefill/Decode batch lines of the
	                             server log as a coarse series (running, queue, token usage;
	                             one row per line, times read as UTC); no counters */
	BR_METRICS_SLOTS          /* (added) no /metrics: llama-server /slots snapshots (slots.jsonl):
	                             busy slots per snapshot; no counters, no deferred requests */
} br_metrics_kind;

/* br_metrics_is_series: 1 when metrics of this kind are a time series
 * (metrics.csv, a snapshot folder, or a stand-in from the log or /slots). */
static inline int
br_metrics_is_series(br_metrics_kind k)
{
	return k == BR_METRICS_CSV || k == BR_METRICS_SNAPSHOTS || k == BR_METRICS_LOG || k == BR_METRICS_SLOTS;
}

/* br_metrics_is_standin: 1 for a series that is not /metrics (the SGLang
 * log's batch lines, llama-server's /slots): gauges only, no counters. */
static inline int
br_metrics_is_standin(br_metrics_kind k)
{
	return k == BR_METRICS_LOG || k == BR_METRICS_SLOTS;
}

typedef struct br_input_file {
	char *path;
	char *role;               /* "bench result", "metrics CSV", "metrics before", "server log", ... */
	long long size_bytes;
	char sha256[65];
} br_input_file;

/* An input file found in the folder but not used: it is not from this run
 * (br_run_check_provenance). All strings owned by the run. */
typedef struct br_set_aside {
	char *path;
	char *files;              /* (added) "before.prom and after.prom" when several files went
	                             together (a snapshot pair), else NULL: path's base name says it */
	char *what;               /* "the server log", "the server metrics" */
	char *reason;             /* a sentence: why it is not this run's */
} br_set_aside;

typedef struct br_run {
	char *dir;
	char *name;               /* run.json `name`, else the folder name */
	size_t given_name_len;    /* (added) 0, or: a campaign told this run apart from one named
	                             alike as "NAME [folder]", and name's first given_name_len
	                             bytes are the name as given */
	br_bench_set bench;       /* n >= 1; runs[0] is the run reported */
	br_metrics_kind metrics_kind;
	br_series *metrics;       /* NULL when none */
	br_server_log *log;       /* NULL when none */
	/* run.json labels (NULL when absent) and overrides (NAN when absent) */
	char *gpu, *driver, *cuda, *notes;
	char *server_version;     /* (added) run.json "server_version": the engine's version as the user
	                             states it (SGLang's log prints none); br_run_server_version */
	struct br_plan_item *plan;  /* run.json "expect": the experiment plan's checks (NULL, 0 = none) */
	size_t n_plan;
	char *role;              /* run.json "role": "calibration" = a run for the FLOPs calibration
	                            only, kept out of the comparison figures; NULL when absent */
	double kv_pool_tokens_override;
	double recorded_client_start_s, recorded_client_end_s;  /* (added) run.json record.client_*_unix_s
	                             written by `benchreport record` (epoch s); NAN otherwise */
	br_input_file *inputs;
	size_t n_inputs;
	struct br_hash_job *hashing;   /* (internal) SHA-256 of large inputs in flight while
	                                  br_run_load reads on; NULL when it returns */
	int metrics_cut;          /* (added) the kept metrics series begins (1) and/or ends (2) while
	                           * requests are in the server (br_run_check_provenance): counts
	                           * from its deltas are lower bounds */
	int preemptions_suspect;  /* 1: vllm:num_preemptions_total falls while the other counters
	                             rise (check_counter_resets); 2: it holds a value that is not a
	                             count (a fraction, or beyond 2^53): its count is not used */
	br_set_aside *set_aside;  /* inputs not used because they are not this run's */
	size_t n_set_aside;
	char **warnings;          /* things the reader must know ("no server log: capacity section removed") */
	size_t n_warnings;
} br_run;

/* Paths that override discovery (NULL = discover). */
typedef struct br_run_opts {
	const char *bench_path;
	const char *metrics_path;
	const char *log_path;
	const char *meta_path;
} br_run_opts;

/* br_run_input_name: 1 when a file of that name is an input the run
 * folder's reader takes (stress.json, metrics.csv, server.log, run.json,
 * slots.jsonl, *.prom), else 0. */
int br_run_input_name(const char *name);

/*
 * br_run_load: discover and parse the inputs of run folder `dir`.
 * Returns 0, or -1 with *cause (file:line:col for bad input; "DIR: no bench
 * result (stress.json or *.json)" when none). Nothing is written.
 */
int br_run_load(const char *dir, const br_run_opts *opts, br_run *out, char **cause);

/*
 * br_run_check_provenance: set aside the inputs that cannot be this run's
 * (src/ingest/provenance.c: metrics whose time span misses the bench run,
 * a log or metrics of another model, the log of a server that failed at
 * start-up while the bench completed requests). A set-aside input's data is
 * freed (r->log / r->metrics become NULL), its input-table role gets
 * "(not used)", and r->set_aside and a warning say why. Called by
 * br_run_load; idempotent.
 */
void br_run_check_provenance(br_run *r);

/*
 * br_run_attach_slots (provenance.c): llama-server /slots snapshots
 * (br_slots_load; ownership passes to r) after the provenance checks: set
 * aside, said so, when the log or metrics are another engine's, their times
 * miss the bench run, their slot count differs from the log's n_slots, or
 * their busy slots disagree with llamacpp:requests_processing at more than
 * 10% of the shared samples; else the run's series when it has no metrics
 * (BR_METRICS_SLOTS; the warning at index no_metrics_note_at, "no server
 * metrics", is replaced), or merged into a llama.cpp metrics series.
 */
void br_run_attach_slots(br_run *r, br_series *sl, size_t no_metrics_note_at);

/*
 * br_run_set_aside_metrics (provenance.c): set the metrics input aside
 * after loading, as br_run_check_provenance does (data freed, role "(not
 * used)", r->set_aside and a warning carry `reason`, which r takes). For a
 * check that needs the analyses' run window: br_analyze calls it when the
 * server's counters over the window show more work than the bench sent
 * (br_ledger_other_load). No effect (reason freed) when r has no metrics.
 */
void br_run_set_aside_metrics(br_run *r, char *reason);

/*
 * br_run_set_aside_has: 1 when an input of kind `what` ("the server log",
 * "the server metrics", as br_set_aside.what says it) was set aside.
 */
int br_run_set_aside_has(const br_run *r, const char *what);

/*
 * br_run_metrics_set_aside: when the run has no metrics because its metrics
 * input was set aside (br_run_check_provenance), the static reason the
 * analyses that need metrics give instead of "needs a metrics series";
 * else NULL. (The input was there: asking for it would be wrong advice.)
 */
const char *br_run_metrics_set_aside(const br_run *r);

/*
 * br_run_bench_sha256 (provenance.c): the hex SHA-256 of the run's bench
 * result file (its input of role "bench result"), borrowed; NULL when not
 * hashed. Two runs never time their requests alike, so equal hashes mean
 * one run copied (compare, campaigns).
 */
const char *br_run_bench_sha256(const br_run *r);

/* br_run_same_bench (provenance.c): one run copied: 1 when a and b both
 * have a hashed bench result and the hashes are equal (br_run_bench_sha256);
 * 2 when the files differ but state the same date and the same per-request
 * timings bit for bit (a result re-saved, e.g. pretty-printed); 3 when
 * neither has per-request arrays and they state the same date, duration
 * and every statistic bit for bit (a sweep's run=N.json beside its
 * summary.json entry); else 0.
 * Needs both runs' requests loaded. */
int br_run_same_bench(const br_run *a, const br_run *b);

void br_run_add_warning(br_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void br_run_free(br_run *r);

/*
 * The experiment plan (src/ingest/plan.c): what the plan predicted, as
 * checks the report decides from data. br_plan_check_id[k] is the check's
 * id in run.json / campaign.json and in the templates ("expect.<id>").
 */
enum { BR_N_PLAN_CHECKS = 5, BR_PLAN_MAX_ITEMS = 50 };
extern const char *const br_plan_check_id[BR_N_PLAN_CHECKS];
typedef struct br_plan_item {
	int check;               /* index into br_plan_check_id */
	char *plan;              /* the plan's own words (malloc'd), NULL = the standard wording */
} br_plan_item;
/* br_plan_check_index: k for id, -1 when not a check. */
int br_plan_check_index(const char *id);
/*
 * br_plan_parse: root["expect"] (absent or null = no plan: 0 items) into
 * *items (malloc'd, free with br_plan_free) and *n. text/len (may be NULL)
 * locate errors as PATH:LINE:COL. Returns 0, or -1 with *cause naming the
 * item and the checks allowed.
 */
struct json_t;
int br_plan_parse(const struct json_t *root, const char *path, const char *text, size_t len,
    br_plan_item **items, size_t *n, char **cause);
void br_plan_free(br_plan_item *items, size_t n);

#endif
