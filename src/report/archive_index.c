/*
 * Archive index (`benchreport index DIR... -o runs.csv [--jsonl]`): walk
 * folders of archived reports, read every summary.json benchreport wrote
 * for a run or a campaign, and write one row per run with a fixed set of
 * flattened columns (include/benchreport/report.h).
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <glib.h>
#include <jansson.h>
#include "benchreport/common.h"
#include "benchreport/report.h"

/*
 * The columns: name (units in the name, stable across versions of
 * schema 1) and the dotted path of the run summary it comes from. Paths
 * starting with "@" are computed (see row_value).
 */
static const struct {
	const char *column;
	const char *path;
} columns[] = {
	{ "summary_path", "@summary_path" },
	{ "report_kind", "@report_kind" },        /* "run" or "campaign" */
	{ "campaign_name", "@campaign_name" },
	{ "run_name", "run.name" },
	{ "run_dir", "@run_dir" },
	{ "schema_version", "@schema_version" },
	{ "tool_version", "@tool_version" },
	{ "bench_end_local", "bench.date_text" },
	{ "model_id", "bench.model_id" },
	{ "backend", "bench.backend" },
	{ "gpu", "run.gpu" },
	{ "driver", "run.driver" },
	{ "cuda", "run.cuda" },
	{ "vllm_version", "server_log.vllm_version" },
	{ "tensor_parallel_size", "server_log.tensor_parallel_size" },
	{ "max_num_seqs", "server_log.max_num_seqs" },
	{ "num_prompts", "bench.num_prompts" },
	{ "max_concurrency", "bench.max_concurrency" },
	{ "request_rate_rps", "bench.request_rate" },
	{ "burstiness", "bench.burstiness" },
	{ "mean_input_tokens", "bench.mean_input_tokens" },
	{ "mean_output_tokens", "bench.mean_output_tokens" },
	{ "completed", "bench.completed" },
	{ "failed", "@failed" },                  /* null when prompts are unaccounted for */
	{ "duration_s", "bench.duration_s" },
	{ "request_throughput_rps", "bench.request_throughput_rps" },
	{ "request_goodput_rps", "bench.request_goodput_rps" },
	{ "output_throughput_tps", "bench.output_throughput_tps" },
	{ "total_token_throughput_tps", "bench.total_token_throughput_tps" },
	{ "latency_from_arrays", "latency.from_arrays" },
	{ "ttft_mean_ms", "latency.ttft.mean_ms" },
	{ "ttft_median_ms", "latency.ttft.median_ms" },
	{ "ttft_p90_ms", "latency.ttft.p90_ms" },
	{ "ttft_p99_ms", "latency.ttft.p99_ms" },
	{ "ttft_p99_9_ms", "latency.ttft.p99_9_ms" },
	{ "ttft_max_ms", "latency.ttft.max_ms" },
	{ "tpot_mean_ms", "latency.tpot.mean_ms" },
	{ "tpot_median_ms", "latency.tpot.median_ms" },
	{ "tpot_p99_ms", "latency.tpot.p99_ms" },
	{ "itl_mean_ms", "latency.itl.mean_ms" },
	{ "itl_median_ms", "latency.itl.median_ms" },
	{ "itl_p99_ms", "latency.itl.p99_ms" },
	{ "itl_p99_9_ms", "latency.itl.p99_9_ms" },
	{ "itl_max_ms", "latency.itl.max_ms" },
	{ "e2el_mean_ms", "latency.e2el.mean_ms" },
	{ "e2el_median_ms", "latency.e2el.median_ms" },
	{ "e2el_p99_ms", "latency.e2el.p99_ms" },
	{ "kv_pool_tokens", "capacity.kv_pool_tokens" },
	{ "kv_pool_gib", "capacity.kv_pool_gib" },
	{ "max_model_len_tokens", "capacity.max_model_len_tokens" },
	{ "kv_demand_tokens", "capacity.demand_tokens" },
	{ "oversubscription", "capacity.oversubscription" },
	{ "preemptions", "@preemptions" },          /* llama.cpp: 0, it does not preempt */
	{ "preemptions_source", "@preemptions_source" },
	{ "preemptions_is_lower_bound", "preemptions.count_is_lower_bound" },
	{ "running_mean", "residency.running_mean" },
	{ "waiting_peak", "residency.waiting_peak" },
	{ "kv_usage_peak_frac", "residency.kv_usage_peak_frac" },
	{ "ttft_queue_s", "ttft_split.queue_s" },
	{ "ttft_prefill_s", "ttft_split.prefill_s" },
	{ "ttft_frontend_s", "ttft_split.frontend_s" },
	{ "ledger_n_agree", "ledger.n_agree" },
	{ "ledger_n_disagree", "ledger.n_disagree" },
	{ "findings", "@findings" },              /* finding ids joined by ";" */
	{ "gate_passed", "gate.passed" },
	{ "gate_spec", "gate.spec" },
	/* (added, kept last so earlier columns keep their places) the server's engine */
	{ "engine", "engine.key" },               /* "vllm", "sglang", "llamacpp", "unknown" */
	{ "engine_version", "@engine_version" },   /* SGLang version / llama.cpp build (log, else run.json) */
	/* (added) prompts neither completed nor failed: a run cut short */
	{ "unaccounted_prompts", "@unaccounted_prompts" },
};
#define N_COLUMNS (sizeof columns / sizeof columns[0])

/* The context a row's values are taken from (all borrowed, while the file is read). */
typedef struct index_src {
	const char *summary_path;
	const char *kind;
	const char *campaign_name;   /* NULL for a run report */
	json_t *root;                /* the file's summary */
	json_t *run;                 /* the run's summary inside root */
} index_src;

/* One row: its column values only (new references), so an archive of
 * thousands of summaries is not held in memory whole. */
typedef struct index_row {
	json_t *values[N_COLUMNS];
	double mtime_s;             /* its summary.json's modification time (newest report wins) */
	int dropped;                /* an older report of the same run folder: not written */
} index_row;

/* path_get: the value at a dotted path of o, or NULL. */
static json_t *
path_get(json_t *o, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", path);
	char *save = NULL;
	for (char *k = strtok_r(buf, ".", &save); k != NULL && o != NULL; k = strtok_r(NULL, ".", &save))
		o = json_object_get(o, k);
	return o;
}

/*
 * run_dir_value: where the run folder is, for a reader of the index: the
 * absolute path the summary recorded (run.dir_abs) while it still names a
 * folder; else, for a summary in the default place RUN_DIR/report/ (a run
 * report, not a campaign's), that RUN_DIR; else run.dir as given when the
 * report was written (relative to a working directory not recorded).
 */
static json_t *
run_dir_value(const index_src *r)
{
	json_t *abs = path_get(r->run, "run.dir_abs");
	if (json_is_string(abs) && br_is_dir(json_string_value(abs)))
		return json_incref(abs);
	if (r->campaign_name == NULL && r->summary_path != NULL) {
		char *rep = g_path_get_dirname(r->summary_path);
		char *base = g_path_get_basename(rep);
		json_t *v = NULL;
		if (strcmp(base, "report") == 0) {
			char *run = g_path_get_dirname(rep);
			v = json_string(run);
			g_free(run);
		}
		g_free(base);
		g_free(rep);
		if (v != NULL)
			return v;
	}
	json_t *dir = path_get(r->run, "run.dir");
	return json_is_string(dir) ? json_incref(dir) : json_null();
}

/* row_value: column c of the run at r as a new JSON reference (null when absent). */
static json_t *
row_value(const index_src *r, size_t c)
{
	const char *p = columns[c].path;
	if (p[0] != '@') {
		json_t *v = path_get(r->run, p);
		if (v == NULL || json_is_object(v) || json_is_array(v))
			return json_null();
		/* a block the report could not compute keeps its fields at 0 and
		 * false (ledger.n_agree, preemptions.count_is_lower_bound): in the
		 * index they are unknown, never 0 */
		char block[64];
		const char *dot = strchr(p, '.');
		if (dot != NULL && (size_t)(dot - p) < sizeof block) {
			memcpy(block, p, (size_t)(dot - p));
			block[dot - p] = '\0';
			json_t *b = json_object_get(r->run, block);
			if (json_is_false(json_object_get(b, "available")) ||
			    (strcmp(block, "preemptions") == 0 && json_is_false(json_object_get(b, "count_available"))))
				return json_null();
		}
		/* "inf" request rate stays a string; other strings verbatim */
		return json_incref(v);
	}
	if (strcmp(p, "@summary_path") == 0)
		return json_string(r->summary_path);
	if (strcmp(p, "@run_dir") == 0)
		return run_dir_value(r);
	if (strcmp(p, "@engine_version") == 0) {
		/* another engine's version as the summary states it (summaries before
		 * engine.server_version: the log's own) */
		json_t *key = path_get(r->run, "engine.key");
		const char *k = json_is_string(key) ? json_string_value(key) : "";
		if (strcmp(k, "sglang") != 0 && strcmp(k, "llamacpp") != 0)
			return json_null();
		json_t *v = path_get(r->run, "engine.server_version");
		if (!json_is_string(v))
			v = path_get(r->run, "server_log.engine_version");
		return json_is_string(v) ? json_incref(v) : json_null();
	}
	if (strcmp(p, "@preemptions") == 0 || strcmp(p, "@preemptions_source") == 0) {
		/* the counted preemptions; a llama-server, which never preempts
		 * (fixed slots), has 0 without a counter */
		int count = strcmp(p, "@preemptions") == 0;
		json_t *v = path_get(r->run, count ? "preemptions.n_preemptions" : "preemptions.count_source");
		json_t *n = path_get(r->run, "preemptions.n_preemptions");
		json_t *key = path_get(r->run, "engine.key");
		if ((n == NULL || json_is_null(n)) && json_is_string(key) && strcmp(json_string_value(key), "llamacpp") == 0)
			return count ? json_integer(0) : json_string("llama.cpp does not preempt");
		return v != NULL && !json_is_object(v) && !json_is_array(v) ? json_incref(v) : json_null();
	}
	if (strcmp(p, "@failed") == 0 || strcmp(p, "@unaccounted_prompts") == 0) {
		/* prompts neither completed nor failed (a run cut short) may have
		 * failed: the failed count is then unknown, not the file's 0
		 * (twenty-fourth breaker: a cut run read as clean by failed = 0) */
		json_t *np = path_get(r->run, "bench.num_prompts"), *done = path_get(r->run, "bench.completed");
		json_t *failed = path_get(r->run, "bench.failed");
		if (!json_is_number(np) || !json_is_number(done) || !json_is_number(failed))
			return strcmp(p, "@failed") == 0 && json_is_number(failed) ? json_incref(failed) : json_null();
		double miss = json_number_value(np) - json_number_value(done) - json_number_value(failed);
		if (strcmp(p, "@unaccounted_prompts") == 0)
			return json_integer(miss > 0 ? (json_int_t)miss : 0);
		return miss > 0 ? json_null() : json_incref(failed);
	}
	if (strcmp(p, "@report_kind") == 0)
		return json_string(r->kind);
	if (strcmp(p, "@campaign_name") == 0)
		return r->campaign_name ? json_string(r->campaign_name) : json_null();
	if (strcmp(p, "@schema_version") == 0)
		return json_incref(json_object_get(r->root, "schema_version"));
	if (strcmp(p, "@tool_version") == 0) {
		json_t *v = path_get(r->root, "tool.version");
		return v ? json_incref(v) : json_null();
	}
	/* @findings */
	json_t *f = json_object_get(r->run, "findings");
	if (!json_is_array(f))
		return json_null();
	GString *g = g_string_new(NULL);
	for (size_t i = 0; i < json_array_size(f); i++) {
		const char *id = json_string_value(json_object_get(json_array_get(f, i), "id"));
		if (id == NULL)
			continue;
		if (g->len > 0)
			g_string_append_c(g, ';');
		g_string_append(g, id);
	}
	json_t *v = json_string(g->str);
	g_string_free(g, TRUE);
	return v;
}

/* csv_cell: v as one RFC 4180 CSV cell appended to g ("" for null). */
static void
csv_cell(GString *g, const json_t *v)
{
	if (v == NULL || json_is_null(v))
		return;
	if (json_is_true(v)) {
		g_string_append(g, "true");
		return;
	}
	if (json_is_false(v)) {
		g_string_append(g, "false");
		return;
	}
	if (json_is_integer(v)) {
		g_string_append_printf(g, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return;
	}
	if (json_is_real(v)) {
		char num[40];
		g_ascii_formatd(num, sizeof num, "%.12g", json_real_value(v));
		g_string_append(g, num);
		return;
	}
	const char *s = json_string_value(v);
	if (s != NULL)
		br_csv_append_cell(g, s);
}

/* summary_kind: the summary.json kinds this index reads. Returns "run",
 * "campaign" or NULL (knee, compare, another tool's summary.json). */
static const char *
summary_kind(json_t *root)
{
	if (json_is_object(json_object_get(root, "campaign")) && json_is_array(json_object_get(root, "runs")))
		return "campaign";
	if (json_is_object(json_object_get(root, "bench")) && json_is_object(json_object_get(root, "run")) &&
	    json_is_object(json_object_get(root, "latency")))
		return "run";
	return NULL;
}

typedef struct index_state {
	index_row *rows;
	size_t n_rows, cap_rows;
	char **paths;              /* summary.json files found, sorted before reading */
	size_t n_paths;
	size_t n_not_ours;         /* summary.json files of another kind */
	GString *not_ours;         /* the first three of them, for the note */
	int skip_bad;
	FILE *notes;
} index_state;

/* walk: collect every summary.json under dir (symlinks are not followed,
 * so a link loop cannot trap the walk). Returns 0 or -1 with *cause. */
static int
walk(index_state *st, const char *dir, char **cause)
{
	DIR *d = opendir(dir);
	if (d == NULL) {
		*cause = br_xasprintf("%s: cannot read the folder (%s)", dir, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *p = br_path_join(dir, e->d_name);
		struct stat sb;
		if (lstat(p, &sb) != 0) {
			free(p);
			continue;
		}
		if (S_ISDIR(sb.st_mode)) {
			/* a staging folder of a report being written is not an archive entry */
			if (strstr(e->d_name, ".tmp.") == NULL)
				rc = walk(st, p, cause);
			free(p);
		} else if (S_ISREG(sb.st_mode) && strcmp(e->d_name, "summary.json") == 0) {
			st->paths = br_xrealloc(st->paths, (st->n_paths + 1) * sizeof *st->paths);
			st->paths[st->n_paths++] = p;
		} else
			free(p);
	}
	closedir(d);
	return rc;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
add_row(index_state *st, const char *path, const char *kind, const char *campaign, json_t *root, json_t *run)
{
	if (st->n_rows == st->cap_rows) {
		st->cap_rows = st->cap_rows ? st->cap_rows * 2 : 64;
		st->rows = br_xrealloc(st->rows, st->cap_rows * sizeof *st->rows);
	}
	index_row *r = &st->rows[st->n_rows++];
	index_src src = { .summary_path = path, .kind = kind, .campaign_name = campaign, .root = root, .run = run };
	for (size_t c = 0; c < N_COLUMNS; c++)
		r->values[c] = row_value(&src, c);
	struct stat sb;
	r->mtime_s = stat(path, &sb) == 0 ? (double)sb.st_mtim.tv_sec + 1e-9 * (double)sb.st_mtim.tv_nsec : 0;
	r->dropped = 0;
}

/* find_column: the index in columns[] of the column named by name's first
 * len bytes, or -1. */
static long
find_column(const char *name, size_t len)
{
	for (size_t c = 0; c < N_COLUMNS; c++)
		if (strlen(columns[c].column) == len && strncmp(columns[c].column, name, len) == 0)
			return (long)c;
	return -1;
}

/* column_index: the index of column name in columns[]. */
static size_t
column_index(const char *name)
{
	long c = find_column(name, strlen(name));
	if (c < 0)
		abort();   /* a column this file names itself */
	return (size_t)c;
}

/*
 * drop_older_reports: rows of one run folder (the same absolute run_dir and
 * run_name) come from several reports of it (run again with --lang zh, with
 * a --fail-on gate, inside a campaign): each run is one row, so an archive
 * query counting rows counts runs. The row of the newest summary.json
 * (modification time; ties, the later path) is kept, the others are
 * dropped and named in a note. Rows whose run_dir is not absolute (reports
 * from before run.dir_abs) are never merged: their folders cannot be
 * told apart. Returns the number dropped.
 */
static size_t
drop_older_reports(index_state *st)
{
	size_t cd = column_index("run_dir"), cn = column_index("run_name"), cp = column_index("summary_path");
	size_t n_drop = 0;
	GString *left = g_string_new(NULL);
	for (size_t i = 0; i < st->n_rows; i++) {
		index_row *a = &st->rows[i];
		const char *da = json_string_value(a->values[cd]);
		if (a->dropped || da == NULL || da[0] != '/')
			continue;
		for (size_t j = i + 1; j < st->n_rows; j++) {
			index_row *b = &st->rows[j];
			const char *db = json_string_value(b->values[cd]);
			if (b->dropped || db == NULL || strcmp(da, db) != 0 ||
			    !json_equal(a->values[cn], b->values[cn]))
				continue;
			index_row *older = b->mtime_s < a->mtime_s ? b : a;
			older->dropped = 1;
			n_drop++;
			if (n_drop <= 3)
				g_string_append_printf(left, "%s%s", n_drop > 1 ? ", " : "",
				    json_string_value(older->values[cp]));
			if (older == a)
				break;
		}
	}
	if (n_drop > 0)
		fprintf(st->notes, "benchreport: index: %zu older report%s of a run folder already indexed (the same "
		    "run_dir and run_name; a report written again, in another language, with a gate, or in a "
		    "campaign) left out, one row per run, the newest report's: %s%s\n", n_drop, n_drop == 1 ? "" : "s",
		    left->str, n_drop > 3 ? ", ..." : "");
	g_string_free(left, TRUE);
	return n_drop;
}

/* key_at: "PATH:LINE:COL" of key in the file at path (PATH when the key
 * or the file cannot be found). Malloc'd. */
static char *
key_at(const char *path, const char *key)
{
	char *text = NULL, *rcause = NULL;
	size_t len = 0;
	if (br_read_file(path, &text, &len, &rcause) != 0)
		free(rcause);
	char *at = br_json_key_where(path, text, len, key);
	free(text);
	return at;
}

/* first_not_object: index of the first entry of array a that is not an
 * object (json_array_size(a) when every one is). */
static size_t
first_not_object(json_t *a)
{
	size_t i = 0;
	while (i < json_array_size(a) && json_is_object(json_array_get(a, i)))
		i++;
	return i;
}

/* is_ours: 1 for a run or campaign summary.json of benchreport (tool.name
 * "benchreport" and no "command": knee and compare write one). */
static int
is_ours(json_t *root)
{
	return g_strcmp0(json_string_value(path_get(root, "tool.name")), "benchreport") == 0 &&
	    json_object_get(root, "command") == NULL;
}

/* damaged_ours: a run or campaign summary.json of benchreport (tool.name
 * "benchreport", no "command": knee and compare write one) whose blocks
 * are missing or of the wrong type. Returns the message (malloc'd), or
 * NULL when the file is not one of those. */
static char *
damaged_ours(const char *path, json_t *root)
{
	if (!is_ours(root))
		return NULL;
	int camp = json_object_get(root, "campaign") != NULL || json_object_get(root, "runs") != NULL;
	static const char *const run_keys[] = { "bench", "run", "latency" };
	const char *bad = NULL, *want = "an object";
	if (camp) {
		if (!json_is_object(json_object_get(root, "campaign")))
			bad = "campaign";
		else {
			json_t *runs = json_object_get(root, "runs");
			if (!json_is_array(runs) || first_not_object(runs) < json_array_size(runs))
				bad = "runs", want = "an array of run objects";
		}
	} else {
		for (size_t k = 0; k < 3 && bad == NULL; k++)
			if (!json_is_object(json_object_get(root, run_keys[k])))
				bad = run_keys[k];
	}
	if (bad == NULL)
		return NULL;
	json_t *v = json_object_get(root, bad);
	char *at = v ? key_at(path, bad) : br_xstrdup(path);
	char *why = json_is_array(v) && !strcmp(bad, "runs") ?
	    br_xasprintf("%s: a benchreport campaign summary damaged: expected run objects in \"runs\", found "
	        "%s at index %zu", at, json_is_null(json_array_get(v, first_not_object(v))) ? "null" : "another value",
	        first_not_object(v)) :
	    br_xasprintf("%s: a benchreport %s summary damaged: expected %s at \"%s\", found %s", at,
	        camp ? "campaign" : "run", want, bad, v == NULL ? "no such key" : json_is_null(v) ? "null" :
	        json_is_array(v) ? "an array" : json_is_object(v) ? "an object" : json_is_string(v) ? "a string" :
	        "a number");
	free(at);
	return why;
}

/* read_summary: one summary.json into rows. Returns 0, or -1 with *cause
 * (bad JSON with file:line:column, a schema this version cannot read)
 * unless st->skip_bad, which notes it and goes on. */
static int
read_summary(index_state *st, const char *path, char **cause)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	char *why = NULL;
	if (root == NULL && err.line < 1)   /* not read at all (jansson gives no position) */
		why = br_xasprintf("%s: %s (expected a summary.json written by benchreport)", path, err.text);
	else if (root == NULL)   /* jansson's column is 0 at a line's start: columns count from 1 */
		why = br_xasprintf("%s:%d:%d: %s (expected a summary.json written by benchreport)", path,
		    err.line, err.column > 0 ? err.column : 1, err.text);
	/* a JSON array is another tool's (a `vllm bench sweep` summary.json) */
	const char *kind = why || !json_is_object(root) ? NULL : summary_kind(root);
	int ours = why == NULL && json_is_object(root) && is_ours(root);
	if (why == NULL && kind == NULL && !ours) {
		if (st->n_not_ours < 3)
			g_string_append_printf(st->not_ours, "%s%s", st->n_not_ours ? ", " : "", path);
		st->n_not_ours++;
		json_decref(root);
		return 0;
	}
	if (why == NULL) {
		json_t *sv = json_object_get(root, "schema_version");
		if (!json_is_integer(sv) || json_integer_value(sv) != BR_SUMMARY_SCHEMA_VERSION) {
			/* file:line:column of the key (of the file when it has none) */
			char *at = sv == NULL ? br_xstrdup(path) : key_at(path, "schema_version");
			if (!json_is_integer(sv))
				why = br_xasprintf("%s: %s schema_version (expected the integer %d)", at,
				    sv == NULL ? "no" : "not an integer", BR_SUMMARY_SCHEMA_VERSION);
			else
				why = br_xasprintf("%s: schema_version %" JSON_INTEGER_FORMAT ", this benchreport reads "
				    "schema_version %d (index it with the benchreport that wrote it)", at,
				    json_integer_value(sv), BR_SUMMARY_SCHEMA_VERSION);
			free(at);
		}
	}
	if (why == NULL)   /* of this schema, but a block missing or of the wrong type */
		why = damaged_ours(path, root);
	if (why != NULL) {
		json_decref(root);
		if (st->skip_bad) {
			fprintf(st->notes, "benchreport: index: skipped %s\n", why);
			free(why);
			return 0;
		}
		*cause = why;
		return -1;
	}
	if (strcmp(kind, "run") == 0)
		add_row(st, path, "run", NULL, root, root);
	else {
		const char *cname = json_string_value(path_get(root, "campaign.name"));
		json_t *runs = json_object_get(root, "runs");
		for (size_t i = 0; i < json_array_size(runs); i++)
			add_row(st, path, "campaign", cname, root, json_array_get(runs, i));
		/* run folders the campaign's gate failed for want of a bench result
		 * (the client died): a row each, gate_passed false, the rest unknown
		 * (twenty-ninth breaker: left out, so "gate_passed = false"
		 * undercounted the failed gates) */
		json_t *gate = path_get(root, "campaign.gate");
		json_t *nb = json_object_get(gate, "runs_without_bench_result");
		const char *cdir = json_string_value(path_get(root, "campaign.dir"));
		for (size_t i = 0; i < json_array_size(nb); i++) {
			const char *name = json_string_value(json_array_get(nb, i));
			if (name == NULL)
				continue;
			char *dir = cdir && cdir[0] == '/' ? br_path_join(cdir, name) : NULL;
			json_t *run = json_pack("{s:{s:s, s:o}, s:{s:b, s:O}}", "run", "name", name, "dir_abs",
			    dir ? json_string(dir) : json_null(), "gate", "passed", 0, "spec", json_object_get(gate, "spec"));
			add_row(st, path, "campaign", cname, root, run);
			json_decref(run);
			free(dir);
		}
	}
	json_decref(root);
	return 0;
}

/* render: the rows as CSV (header + rows) or JSON lines into g. */
static void
render(const index_state *st, int jsonl, GString *g)
{
	if (!jsonl) {
		for (size_t c = 0; c < N_COLUMNS; c++)
			g_string_append_printf(g, "%s%s", c ? "," : "", columns[c].column);
		g_string_append_c(g, '\n');
	}
	for (size_t i = 0; i < st->n_rows; i++) {
		if (st->rows[i].dropped)
			continue;
		json_t *o = jsonl ? json_object() : NULL;
		for (size_t c = 0; c < N_COLUMNS; c++) {
			json_t *v = st->rows[i].values[c];
			if (jsonl)
				json_object_set(o, columns[c].column, v);
			else {
				if (c)
					g_string_append_c(g, ',');
				csv_cell(g, v);
			}
		}
		if (jsonl) {
			char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
			g_string_append(g, line);
			free(line);
			json_decref(o);
		}
		g_string_append_c(g, '\n');
	}
}

/*
 * csv_record: the fields of the CSV record starting at *p (RFC 4180:
 * quoted fields may hold commas, doubled quotes and line breaks); *p moves
 * past its line end. With names, each field must be a known column name.
 * Returns the field count, or -1 for an unterminated quote or an unknown
 * name.
 */
static long
csv_record(const char **p, int names)
{
	const char *q = *p;
	long n = 0;
	for (;;) {
		const char *f = q;
		size_t flen;
		if (*q == '"') {
			for (q++; *q && !(*q == '"' && q[1] != '"'); q += *q == '"' ? 2 : 1)
				;
			if (*q != '"')
				return -1;
			q++;
			flen = 0;   /* a quoted name is not one benchreport writes */
		} else {
			while (*q && *q != ',' && *q != '\n' && *q != '\r')
				q++;
			flen = (size_t)(q - f);
		}
		if (names && find_column(f, flen) < 0)
			return -1;
		n++;
		if (*q == ',') {
			q++;
			continue;
		}
		if (*q == '\r')
			q++;
		if (*q == '\n')
			q++;
		else if (*q != '\0')
			return -1;   /* text after a closing quote */
		*p = q;
		return n;
	}
}

/* br_archive_index_replaceable: see report.h. */
int
br_archive_index_replaceable(const char *path, char **cause)
{
	gchar *data = NULL;
	gsize len = 0;
	if (!g_file_test(path, G_FILE_TEST_EXISTS) || !g_file_get_contents(path, &data, &len, NULL))
		return 0;   /* absent, or not readable: the write says why */
	const char *why = NULL;
	long line = 1;
	if (strlen(data) != len)
		why = "a NUL byte";
	else if (data[0] == '{') {
		/* JSONL: every line an object with the index's columns, no other key */
		gchar **lines = g_strsplit(data, "\n", -1);
		for (size_t i = 0; lines[i] != NULL && why == NULL; i++) {
			line = (long)i + 1;
			if (lines[i][0] == '\0' && lines[i + 1] == NULL)
				break;   /* the final newline */
			json_t *o = json_loads(lines[i], 0, NULL);
			if (!json_is_object(o))
				why = "a line that is not a JSON object";
			const char *k;
			json_t *v;
			json_object_foreach(o, k, v) {
				if (why == NULL && find_column(k, strlen(k)) < 0)
					why = "a key benchreport does not write";
			}
			json_decref(o);
		}
		g_strfreev(lines);
	} else {
		/* CSV: a header of known columns, then records of as many fields */
		const char *q = data;
		long nh = csv_record(&q, 1);
		if (nh < 0)
			why = "a header column benchreport does not write";
		while (why == NULL && *q != '\0') {
			line++;
			long nf = csv_record(&q, 0);
			if (nf != nh)
				why = nf < 0 ? "a malformed CSV record" : "a row with another number of cells than the header";
		}
	}
	g_free(data);
	if (why == NULL)
		return 0;
	*cause = br_xasprintf("%s:%ld: an index benchreport wrote, but edited since (%s); it is not replaced "
	    "(choose another file, or remove it yourself)", path, line, why);
	return -1;
}

/* br_archive_index: see report.h. */
int
br_archive_index(const char *const *inputs, size_t n_inputs, const char *out_path, int jsonl,
    int skip_bad, FILE *notes, size_t *n_rows, char **cause)
{
	index_state st = { .skip_bad = skip_bad, .notes = notes, .not_ours = g_string_new(NULL) };
	int rc = -1;
	GString *g = NULL;
	for (size_t i = 0; i < n_inputs; i++) {
		struct stat sb;
		if (stat(inputs[i], &sb) != 0) {
			*cause = br_xasprintf("%s: %s (expected a folder of reports or a summary.json)",
			    inputs[i], strerror(errno));
			goto out;
		}
		if (S_ISDIR(sb.st_mode)) {
			if (walk(&st, inputs[i], cause) != 0)
				goto out;
		} else {
			st.paths = br_xrealloc(st.paths, (st.n_paths + 1) * sizeof *st.paths);
			st.paths[st.n_paths++] = br_xstrdup(inputs[i]);
		}
	}
	if (st.n_paths > 1)   /* qsort(NULL, 0, ...) is undefined (UBSan) */
		qsort(st.paths, st.n_paths, sizeof *st.paths, cmp_str);
	/* one file is read once however it was reached: a folder and a file
	 * inside it, "./x" beside "x", an absolute path, a symlink; told
	 * apart by device and inode, not by spelling */
	dev_t *seen_dev = br_xcalloc(st.n_paths + 1, sizeof *seen_dev);
	ino_t *seen_ino = br_xcalloc(st.n_paths + 1, sizeof *seen_ino);
	size_t n_seen = 0, n_again = 0;
	for (size_t i = 0; i < st.n_paths; i++) {
		struct stat fs;
		int again = 0;
		if (stat(st.paths[i], &fs) == 0) {
			for (size_t k = 0; k < n_seen && !again; k++)
				again = seen_dev[k] == fs.st_dev && seen_ino[k] == fs.st_ino;
			if (!again) {
				seen_dev[n_seen] = fs.st_dev;
				seen_ino[n_seen++] = fs.st_ino;
			}
		}
		if (again) {
			/* the same spelling twice (a folder and a file inside it) is no news */
			n_again += i > 0 && strcmp(st.paths[i], st.paths[i - 1]) != 0;
			continue;
		}
		if (read_summary(&st, st.paths[i], cause) != 0) {
			free(seen_dev);
			free(seen_ino);
			goto out;
		}
	}
	free(seen_dev);
	free(seen_ino);
	if (n_again > 0)
		fprintf(notes, "benchreport: index: %zu summary.json file%s reached again under another path (another "
		    "spelling, an absolute path or a link) %s indexed once\n", n_again, n_again == 1 ? "" : "s",
		    n_again == 1 ? "was" : "were");
	if (st.n_not_ours > 0)
		fprintf(notes, "benchreport: index: left out %zu summary.json file%s that %s not a run or "
		    "campaign report of benchreport (knee, compare, or another tool's): %s%s\n", st.n_not_ours,
		    st.n_not_ours == 1 ? "" : "s", st.n_not_ours == 1 ? "is" : "are", st.not_ours->str,
		    st.n_not_ours > 3 ? ", ..." : "");
	size_t n_dropped = drop_older_reports(&st);
	g = g_string_new(NULL);
	render(&st, jsonl, g);
	if (out_path == NULL) {
		if (fwrite(g->str, 1, g->len, stdout) != g->len || fflush(stdout) != 0) {
			*cause = br_xasprintf("cannot write to stdout (%s)", strerror(errno));
			rc = -2;
			goto out;
		}
	} else if (br_write_atomic(out_path, g->str, g->len, cause) != 0) {
		rc = -2;
		goto out;
	}
	*n_rows = st.n_rows - n_dropped;
	rc = 0;
out:
	if (g != NULL)
		g_string_free(g, TRUE);
	for (size_t i = 0; i < st.n_rows; i++)
		for (size_t c = 0; c < N_COLUMNS; c++)
			json_decref(st.rows[i].values[c]);
	free(st.rows);
	for (size_t i = 0; i < st.n_paths; i++)
		free(st.paths[i]);
	free(st.paths);
	g_string_free(st.not_ours, TRUE);
	return rc;
}
