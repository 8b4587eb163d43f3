/*
 * Capture of a run while it happens: `benchreport sample` (a fixed-tick
 * /metrics sampler writing the canonical metrics CSV) and the pieces
 * `benchreport record` builds on (src/capture/).
 *
 * The sampler scrapes URL at ticks start + k·interval of the monotonic
 * clock (no drift: a slow scrape never shifts later ticks), with connect
 * and total timeouts well under the interval, and writes one CSV row per
 * tick, flushed as it is written:
 *   timestamp                 wall-clock time of the response (epoch s, ms precision)
 *   <series>...               every sample of the first successful scrape, in page order,
 *                             named as exposed with all labels (engine, model_name kept;
 *                             benchreport's reader sums them), histograms as _bucket/_sum/_count
 *   benchreport:scrape_ok     1 scraped, 0 failed or timed out (the series cells stay empty)
 *   benchreport:server_restart 1 on the first row after a restart (process_start_time_seconds
 *                             changed, or counters fell), else 0
 * With nvidia-smi on PATH, each answered row also carries the GPUs' latest
 * telemetry (gpu:sm_clock_mhz, gpu:mem_clock_mhz, gpu:power_w,
 * gpu:utilization_pct, gpu:memory_used_mib, gpu:temperature_c, each with a
 * gpu="INDEX" label), placed before the status columns.
 * Series first seen after the header was written go to a side file
 * STEM.new-series.csv (timestamp,series,value) instead of breaking the
 * header. Rows before the first successful scrape are written (empty) once
 * the header is known; when no scrape ever succeeds nothing is written.
 *
 * Ownership: options are borrowed; br_sample_stats is a plain value.
 */
#ifndef BENCHREPORT_CAPTURE_H
#define BENCHREPORT_CAPTURE_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include "benchreport/metrics.h"   /* br_prom_sample_fn */

typedef struct br_sample_opts {
	const char *url;              /* http(s)://host:port/metrics */
	const char *out_path;         /* the CSV; must not exist unless force */
	int force;                    /* replace an existing out_path */
	double interval_s;            /* tick period, > 0 (1 s by default) */
	double duration_s;            /* stop after this long; NAN = until stopped */
	double until_idle_s;          /* stop once running + waiting stayed 0 this long, counted
	                                 after load was seen, or, when load_done is given, only
	                                 after *load_done is set; NAN = off */
	volatile sig_atomic_t *stop;  /* set (by a signal handler or another thread) to stop after
	                                 the current row; NULL = none */
	volatile sig_atomic_t *load_done; /* record: the load client ended; idle counting starts only
	                                 then (even if no load was seen); NULL = none */
	int gpu;                      /* 1: add GPU telemetry columns when nvidia-smi is on PATH
	                                 (br_gpu_monitor_start); 0: never */
	FILE *log;                    /* notes (errors, restarts, new series); NULL = silent */
	int slots;                    /* (added) llama-server /slots snapshots beside the CSV
	                                 (br_slots_path_for): 1 always, 0 never, -1 (auto) when the
	                                 first answered page holds llamacpp: series */
} br_sample_opts;

/*
 * llama-server /slots polling beside the sampler (slots_poll.c). One line
 * per answered tick: {"t_unix_s": epoch s of the answer, "slots": [...]}.
 */
typedef struct br_slots_poll br_slots_poll;

/* br_slots_url: the /slots URL of a /metrics URL ("http://h:8080/metrics" →
 * "http://h:8080/slots"; a query string is kept; a URL not ending in
 * /metrics gets /slots appended). malloc'd. */
char *br_slots_url(const char *metrics_url);

/* br_slots_path_for: where the snapshots of a sampler writing csv_path go:
 * "DIR/metrics.csv" → "DIR/slots.jsonl" (what a run folder reader finds),
 * "DIR/x.csv" → "DIR/x.slots.jsonl". malloc'd. */
char *br_slots_path_for(const char *csv_path);

/* br_slots_poll_open: create the snapshot file (not replacing one unless
 * force) and a curl handle for the /slots URL with a timeout of timeout_s.
 * NULL with *cause when the file cannot be created. Free with
 * br_slots_poll_close. */
br_slots_poll *br_slots_poll_open(const char *metrics_url, const char *csv_path, int force,
    double timeout_s, char **cause);

/* br_slots_poll_tick: GET /slots once within timeout_s (what is left of
 * the tick; at least 50 ms) and append its line, stamped with wall_s() at
 * arrival. Returns 1 written, 0 not polled (p NULL or stopped), -1 a failed
 * poll (err: a short reason; after HTTP 501/404 polling stops for good),
 * -2 the file cannot be written (*cause). */
int br_slots_poll_tick(br_slots_poll *p, double timeout_s, double (*wall_s)(void), char *err, size_t errsz,
    char **cause);

/* br_slots_drop_stale: with --force, the snapshots an earlier capture wrote
 * beside csv_path belong to the CSV being replaced: removed (a file that is
 * not benchreport's is left, noted on log). */
void br_slots_drop_stale(const char *csv_path, FILE *log);

/* br_slots_poll_path: the snapshot file's path (owned by p), NULL for NULL. */
const char *br_slots_poll_path(const br_slots_poll *p);

/* br_slots_poll_close: close the file (removed when no snapshot was written)
 * and free p; NULL is a no-op. */
void br_slots_poll_close(br_slots_poll *p);

typedef struct br_sample_stats {
	size_t n_rows;                /* rows written (ticks) */
	size_t n_ok, n_failed;        /* scrapes that answered / failed or timed out */
	size_t n_unusable;            /* (added) failed scrapes the server did answer: an HTTP status
	                               * other than 200 or a page that is not Prometheus text */
	size_t n_restarts;            /* rows marked server_restart */
	size_t n_columns;             /* series columns in the header */
	size_t n_new_series;          /* series written to the side file */
	size_t n_missed_ticks;        /* ticks the process was too late for (written empty) */
	size_t n_slots_ok, n_slots_failed; /* (added) /slots snapshots written / polls that failed */
	double jitter_p50_ms, jitter_p99_ms, jitter_max_ms;   /* request start − tick, monotonic */
	double scrape_p50_ms, scrape_p99_ms;                  /* request duration of answered scrapes */
	double cpu_s;                 /* CPU time of this process during the capture (user + sys) */
	double wall_s;                /* capture length */
	double first_ok_wall_s;       /* epoch s of the first answered scrape; NAN if none */
	char last_error[256];         /* the last scrape error ("" when none) */
} br_sample_stats;

enum { BR_SAMPLE_NEVER_ANSWERED = -2 };

/*
 * br_sample_run: sample until *stop, duration_s or until_idle_s (see
 * above). Returns 0 after a clean stop with at least one answered scrape,
 * BR_SAMPLE_NEVER_ANSWERED when none answered (nothing written; *cause
 * says what the URL did), or -1 with *cause when the output cannot be
 * written (exists without force, disk full). *stats is filled in every
 * case. Not reentrant with another br_sample_run in the same process only
 * in that libcurl must have been loaded first (br_sample_global_init; it
 * calls it itself, but not safely from two threads at once).
 */
int br_sample_run(const br_sample_opts *o, br_sample_stats *stats, char **cause);

/*
 * br_sample_global_init: load libcurl (dlopen, on first use only: the
 * reports never load it) and run curl_global_init, once per process, before
 * threads. 0, or -1 with *cause (malloc'd) when libcurl cannot be loaded.
 */
int br_sample_global_init(char **cause);

/*
 * br_parse_duration_s: "1s", "500ms", "2m", "1.5" (seconds) → seconds.
 * Returns 0, or -1 for anything else (negative, unit unknown, empty).
 */
int br_parse_duration_s(const char *text, double *out_s);


/* ------------------------------------------------------------------ */
/* `benchreport record` pieces (src/capture/record.c)                 */
/* ------------------------------------------------------------------ */

/*
 * br_log_startup_block: at the start of a recording, the server log at src:
 * its size (*size_out, bytes) and its last start-up block (malloc'd; NULL
 * when the log holds none, *cause then NULL; NULL with *cause when it
 * cannot be read). The block begins at the earliest of a run of start-up
 * lines ("vLLM API server version", "non-default args", SGLang
 * "server_args=", llama.cpp "build: N (hash)", "system_info:" or
 * "main: loading model") with no line of a server at
 * work (a stats line, a request) between them, so a restart after an
 * earlier run starts a new block; it ends at "Application startup
 * complete", the first line of work, or 2,000 lines. Taken at the start, it
 * survives a log rotated during the run.
 */
char *br_log_startup_block(const char *src, long long *size_out, char **cause);

/*
 * br_log_write_run: dst = startup (may be NULL) followed by every whole
 * line the log at src gained since it was start_size bytes long; a log that
 * shrank (rotated or truncated during the run) is copied whole and
 * *rotated set. Returns the bytes written, or -1 with *cause.
 */
long long br_log_write_run(const char *src, long long start_size, const char *startup, const char *dst,
    int *rotated, char **cause);

/* The GPUs as nvidia-smi names them; strings malloc'd or NULL. */
typedef struct br_gpu_identity {
	char *gpu;                   /* "NVIDIA H100 80GB HBM3", "8 × NVIDIA H100 80GB HBM3" */
	char *driver;                /* "550.54.15" */
	char *cuda;                  /* "12.4" (the driver's CUDA version) */
	int n_gpus;
} br_gpu_identity;

/*
 * br_gpu_identity_query: run `nvidia-smi` (found on PATH) for the GPU name,
 * driver and CUDA version. Returns 0, or -1 when nvidia-smi is absent or
 * fails (everything NULL). Free with br_gpu_identity_free.
 */
int br_gpu_identity_query(br_gpu_identity *out);
void br_gpu_identity_free(br_gpu_identity *g);

/* ------------------------------------------------------------------ */
/* GPU telemetry (src/capture/gpu.c)                                  */
/* ------------------------------------------------------------------ */

typedef struct br_gpu_monitor br_gpu_monitor;

/* br_gpu_query_available: 1 when an executable nvidia-smi is on PATH. */
int br_gpu_query_available(void);

/*
 * br_gpu_monitor_start: run `nvidia-smi --query-gpu=index,clocks.sm,
 * clocks.mem,power.draw,utilization.gpu,memory.used,temperature.gpu
 * --format=csv,noheader,nounits -lms interval/2` as a child and keep each
 * GPU's latest line (waits up to 2 s for the first). Returns the monitor,
 * or NULL with *cause. Stop and free with br_gpu_monitor_stop.
 */
br_gpu_monitor *br_gpu_monitor_start(double interval_s, char **cause);

/*
 * br_gpu_monitor_add: call fn(user, "gpu:power_w{gpu=\"0\"}", watts) and so
 * on for every GPU whose latest line is at most max_age_s old (fields
 * nvidia-smi reports as [N/A] are left out). Returns the values given.
 */
size_t br_gpu_monitor_add(br_gpu_monitor *m, double max_age_s, br_prom_sample_fn fn, void *user);

/* br_gpu_monitor_stop: end the child and the reader; free. NULL is fine. */
void br_gpu_monitor_stop(br_gpu_monitor *m);

#endif
