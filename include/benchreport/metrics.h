/*
 * Server metrics model: Prometheus `/metrics` snapshots and 1 Hz series,
 * both held as a br_series (rows = samples in time order, columns = series).
 * See ../shared/FORMATS.md §2 and DESIGN.md §1 (canonical metrics CSV).
 *
 * Column names are canonical: "vllm:" prefix, current names (old names such
 * as vllm:gpu_cache_usage_perc map to vllm:kv_cache_usage_perc), labels
 * `engine` and `model_name` dropped and their series summed. Every other
 * label is kept in Prometheus syntax with labels sorted by name, e.g.
 *   vllm:request_success_total{finished_reason="length"}
 *   vllm:request_queue_time_seconds_bucket{le="0.5"}
 * and in addition the sum over all such labels is stored under the bare name
 * (vllm:request_success_total = sum over finished_reason), except for
 * `_bucket` series, which are only stored per `le`.
 * `_created` series are ignored. KV usage is always a fraction 0..1 (a CSV
 * in percent is converted). Unknown names are kept as they are.
 *
 * Ownership: a br_series owns its names and columns; br_series_free frees.
 */
#ifndef BENCHREPORT_METRICS_H
#define BENCHREPORT_METRICS_H

#include <stddef.h>

typedef struct br_series {
	char *source_path;     /* file or folder it came from */
	size_t n_rows;
	double *t_s;           /* sample time, Unix epoch seconds; NAN when unknown (a bare snapshot) */
	size_t n_cols;
	char **names;          /* canonical column names */
	double **cols;         /* cols[c][r]; NAN = not sampled */
	size_t row_cap;        /* rows allocated in t_s and each cols[c] when larger than
	                          n_rows (managed by br_series_append_rows / br_series_add_row);
	                          0 or <= n_rows = exactly n_rows allocated */
	size_t col_cap;        /* names/cols allocated (managed by series.c) */
	void *name_index;      /* GHashTable name → column + 1, kept by series.c so a
	                          lookup by name is O(1) (a CSV header may hold 1M columns);
	                          NULL in a series built by hand (then searched linearly) */
	char **warnings;       /* n_warnings malloc'd messages "PATH: column 'X': what was
	                          done" about values the reader dropped (set to NAN) or
	                          converted; owned, freed by br_series_free */
	size_t n_warnings;
	/* (added) the distinct values of the `model_name` label the reader saw
	 * (the label is dropped from column names), at most 8, in first-seen
	 * order; owned, freed by br_series_free. Used to tell another model's
	 * server (src/ingest/provenance.c). */
	char *model_names[8];
	size_t n_model_names;
	int engine;            /* (added) br_engine (model.h) of the server that wrote it, set by
	                          the readers; 0 = not set (br_series_engine then detects it) */
} br_series;

/*
 * br_metric_canonical: canonical name of a raw series name: "vllm_x" and
 * bare "x" → "vllm:x" (bare only for known vLLM names), old → new names
 * (FORMATS.md §2). Returns a malloc'd string. Labels are not handled here.
 */
char *br_metric_canonical(const char *raw);

/*
 * br_prom_parse_text: parse one Prometheus text exposition (0.0.4) into a
 * one-row series. `t_s` is the sample time to store (NAN if unknown).
 * Errors: -1 with *cause "NAME:LINE:COL: expected ..." on a malformed sample
 * line, an empty or binary text, or a text with no samples at all.
 */
int br_prom_parse_text(const char *name, const char *text, size_t len,
    double t_s, br_series *out, char **cause);

/*
 * br_prom_scan_text: validate one Prometheus text / OpenMetrics exposition
 * as br_prom_parse_text does (same errors), and call fn(user, series,
 * value) for every sample in page order, `series` being its identity as
 * exposed: the name as written and ALL its labels (engine and model_name
 * included), sorted by label name, values in escaped source form, e.g.
 * `vllm:num_requests_running{engine="0",model_name="Qwen/Qwen3-8B"}`.
 * _created series are skipped. `series` is valid during the call only.
 * Returns 0 or -1 with *cause (when one sample line is bad, fn may
 * already have been called for the lines before it).
 */
typedef void (*br_prom_sample_fn)(void *user, const char *series, double value);
int br_prom_scan_text(const char *name, const char *text, size_t len,
    br_prom_sample_fn fn, void *user, char **cause);

/* br_prom_load: br_prom_parse_text on a file (t_s = NAN). */
int br_prom_load(const char *path, br_series *out, char **cause);

/*
 * br_metrics_csv_load: read a metrics CSV (canonical or accepted variants:
 * time columns timestamp, timestamp_unix, time, ts, t_unix_ms (ms),
 * ISO-8601; vllm_ / unprefixed / old names; KV usage in percent).
 * Errors: -1 with *cause "PATH:LINE:COL: expected ..." for a ragged row, a
 * non-numeric cell, an empty or binary file, no time column, a column name
 * that appears twice, a time before 2000-01-01 or after 2100-01-01.
 * Repairs, each recorded in out->warnings: a time column in the other unit
 * (epoch ms under timestamp/time/ts, seconds under t_unix_ms) is converted;
 * a negative, NaN or infinite gauge value (running, waiting, swapped, KV
 * usage) and a KV usage outside [0, 1] (fraction) or [0, 100] (percent) is
 * set to NAN.
 * flags: 0, or BR_METRICS_NO_BUCKETS to leave the histogram `_bucket`
 * columns out (br_metric_is_bucket; the side file's too): a run's series
 * holds none (run.c), since no analysis reads them and they are 167 of a
 * vLLM metrics.csv's 192 columns (5.2 MB of a 5,000 x 1,000 run's 54 MB
 * peak).
 */
#define BR_METRICS_NO_BUCKETS 1u
int br_metrics_csv_load(const char *path, unsigned flags, br_series *out, char **cause);

/* br_metric_is_bucket: 1 when a column name (labels allowed) is a histogram
 * bucket: the name before '{' ends in "_bucket". */
int br_metric_is_bucket(const char *name);

/*
 * br_metrics_side_path: where `benchreport sample` keeps the series that
 * appeared after it wrote the header of csv_path: "STEM.new-series.csv"
 * beside "STEM.csv" (columns timestamp, series, value). malloc'd; NULL when
 * csv_path does not end in ".csv". br_metrics_csv_load joins that file,
 * when it exists, as extra columns of csv_path's rows (same timestamps).
 */
char *br_metrics_side_path(const char *csv_path);

/*
 * br_slots_load (slots.c): read llama-server /slots snapshots, one JSON
 * object per line {"t_unix_s": epoch s, "slots": [the /slots array]} (what
 * `benchreport sample` writes beside its CSV), into a series (engine
 * llama.cpp) with one row per snapshot and the columns
 * llamacpp_slots:total (slots), llamacpp_slots:busy (is_processing, or
 * state != 0 in 2024 builds), llamacpp_slots:n_decoded (tokens, summed over
 * busy slots' next_token.n_decoded) and llamacpp_slots:n_ctx_tokens (summed
 * n_ctx); a field a slot lacks makes its column NAN in that row.
 * Errors: -1 with *cause "PATH:LINE:COL: expected ..." for a line that is
 * not JSON, a bare array (no time), a missing or out-of-range t_unix_s
 * (2000-2100), times that fall, a slot with neither is_processing nor state,
 * *out is then empty. An empty file (or blank lines only: a capture stopped
 * before its first tick) returns 1 with *cause saying so; *out is empty.
 */
int br_slots_load(const char *path, br_series *out, char **cause);

/*
 * br_slots_merge: add the columns of `slots` (from br_slots_load) to dst:
 * each row of dst takes the snapshot nearest its time when it lies within
 * half of dst's median sampling step (0.5 s when dst has no step); other
 * rows stay NAN. With dry = 1 nothing is added (a check first). Returns the
 * number of rows of dst that got (would get) a snapshot; *n_cmp / *n_busy_differ
 * (may be NULL): of those, the rows where dst's llamacpp:requests_processing
 * and the snapshot's busy slots are both known, and where they differ.
 */
size_t br_slots_merge(br_series *dst, const br_series *slots, int dry, size_t *n_cmp, size_t *n_busy_differ);

/*
 * br_series_append_rows: append the rows of `src` to `dst` (columns matched
 * by name; a column missing on one side is NAN there). Used to build a
 * before/after pair or a series out of snapshots. Rows are kept in the order
 * appended. src's warnings are copied to dst.
 */
void br_series_append_rows(br_series *dst, const br_series *src);

/*
 * br_series_median_step_s: the median gap (s) between consecutive rows of
 * s in rows [i0, i1] whose times are finite and increasing; NAN with no
 * such gap (or i1 >= n_rows).
 */
double br_series_median_step_s(const br_series *s, size_t i0, size_t i1);

/*
 * br_rows_in_flight: running + waiting requests at row r of the two gauge
 * columns (NULL columns and non-finite cells count as 0).
 */
double br_rows_in_flight(const double *running, const double *waiting, size_t r);

/* br_series_col: the column for canonical name `name`, or NULL. */
const double *br_series_col(const br_series *s, const char *name);

/* br_series_has_prefix: 1 if any column name starts with prefix. */
int br_series_has_prefix(const br_series *s, const char *prefix);

/*
 * br_series_col_index: index of the column named `name`, or -1.
 */
long br_series_col_index(const br_series *s, const char *name);

/*
 * br_series_add_col: the index of column `name`, adding it (filled with NAN
 * for every existing row) when it does not exist yet. The name is copied.
 */
size_t br_series_add_col(br_series *s, const char *name);

/*
 * br_series_add_row: append one row at time t_s (NAN when unknown), every
 * column NAN; returns its row index. Storage grows geometrically.
 */
size_t br_series_add_row(br_series *s, double t_s);

/*
 * br_series_reserve_rows: make room for n_rows rows in all, exactly (a
 * loader that knows its row count saves the geometric slack: 1 MB on a
 * 3,400 × 190 metrics.csv); no effect when the room is already there.
 */
void br_series_reserve_rows(br_series *s, size_t n_rows);

/*
 * br_series_add_warning: append a printf-formatted message to s->warnings
 * (see br_series). Readers use it for data they repaired rather than refused.
 */
void br_series_add_warning(br_series *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* br_series_note_model: add value to s->model_names unless present or full. */
void br_series_note_model(br_series *s, const char *value);

/*
 * vLLM's vllm:cache_config_info gauge carries the KV cache configuration as
 * labels (FORMATS.md §2). br_series_cache_config reads the numeric ones of
 * the first such column of s (each NAN when absent or "None"):
 * kv_cache_size_tokens (tokens, the log's "GPU KV cache size"),
 * num_gpu_blocks (blocks), block_size (tokens per block),
 * kv_cache_max_concurrency (×, the log's "Maximum concurrency ... x"),
 * gpu_memory_utilization (fraction). Returns 1 when s has the column,
 * 0 (all NAN) when not or s is NULL.
 */
typedef struct br_cache_config {
	double kv_cache_size_tokens, num_gpu_blocks, block_size;
	double kv_cache_max_concurrency, gpu_memory_utilization;
} br_cache_config;
int br_series_cache_config(const br_series *s, br_cache_config *out);

/* br_series_push_col: append a NAN-filled column named `name` (copied)
 * WITHOUT checking whether it exists (readers that checked already);
 * returns its index. */
size_t br_series_push_col(br_series *s, const char *name);

/*
 * br_series_drop_buckets: remove the histogram bucket columns
 * (br_metric_is_bucket) from s: names and cells freed, the name index
 * rebuilt, the other columns kept in order. s->engine is fixed first
 * (br_series_detect_engine) when unset, so a series of buckets alone keeps
 * its engine. For the snapshot readers' series (a metrics.csv is read
 * without them: BR_METRICS_NO_BUCKETS). Returns the number of columns
 * removed; 0 for NULL.
 */
size_t br_series_drop_buckets(br_series *s);

/* br_series_free: free everything the series owns and zero it (NULL ok). */
void br_series_free(br_series *s);

#endif
