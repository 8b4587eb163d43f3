/*
 * Server log model: what `vllm serve` prints that the report uses.
 * See ../shared/FORMATS.md §3. Numbers are NAN when the log does not say.
 *
 * Ownership: br_server_log owns its strings and arrays; br_server_log_free.
 */
#ifndef BENCHREPORT_SERVERLOG_H
#define BENCHREPORT_SERVERLOG_H

#include <stddef.h>

/* One periodic `Engine NNN: Avg prompt throughput: ...` line (V1, every ~10 s). */
typedef struct br_log_stat {
	int line;                      /* 1-based line in the log */
	int engine;                    /* NNN */
	double t_s;                    /* seconds since the first timestamped line (logs have no year/zone); NAN if no stamp */
	char stamp[32];                /* "MM-DD HH:MM:SS" as printed, "" when none */
	double prompt_tput_tps;        /* Avg prompt throughput, tokens/s */
	double gen_tput_tps;           /* Avg generation throughput, tokens/s */
	double running;                /* reqs */
	double waiting;                /* reqs */
	double preemptions;            /* since 2025-11; NAN otherwise */
	double kv_usage_frac;          /* GPU KV cache usage / 100 */
	double prefix_hit_frac;        /* Prefix cache hit rate / 100; NAN if absent */
} br_log_stat;

/* One entry of the log's `non-default args: {...}` line, as printed. */
typedef struct br_log_arg {
	char *name;                    /* "max_num_seqs" */
	char *value;                   /* Python repr as printed, at most 200 bytes ("…" when cut) */
} br_log_arg;

typedef struct br_server_log {
	char *source_path;
	char *vllm_version;            /* "0.23.1rc1.dev1219+gffae5a399.d20260729" */
	char *engine;                  /* "V1" or "V0" or NULL */
	char *model;                   /* served model / model path from the config line, or NULL */
	char *served_model_name;       /* first `served_model_name` of the args line, or NULL (added by ingestlog) */
	/* non-default args: every entry of the last start-up's `non-default args`
	 * line (vLLM prints there exactly the arguments that differ from its
	 * defaults); args_line 0 when the log has no such line; args_complete 0
	 * when the line was cut off before its closing '}' (then the others are
	 * unknown, not defaults) */
	br_log_arg *args;
	size_t n_args;
	int args_line;
	int args_complete;
	double max_model_len_tokens;
	double max_num_seqs;
	double max_num_batched_tokens;
	double tensor_parallel_size;
	double decode_context_parallel_size; /* (added) args or engine config; NAN when not stated */
	double gpu_memory_utilization;
	double block_size_tokens;
	/* capacity lines of the last start-up (first engine; n_capacity_lines counts
	   all engines) */
	double kv_pool_tokens;         /* `GPU KV cache size: N tokens` (or # GPU blocks × block size) */
	double kv_pool_gib;            /* `Available KV cache memory: X GiB` */
	double max_concurrency_x;      /* `Maximum concurrency for M tokens per request: X x` */
	double max_concurrency_len_tokens; /* M of that line */
	int n_capacity_lines;
	int kv_pool_line;              /* 1-based line numbers, 0 when absent */
	int kv_mem_line;
	int max_conc_line;
	int version_line;
	int n_startups;                /* server start-ups in the log: banners ("vLLM API server
	                                  version"), plus capacity lines printed after periodic
	                                  stats (a restart without a banner); 0 when the log shows
	                                  none. When > 1, the capacity fields and vllm_version are
	                                  those of the LAST start-up (the run came after it). */
	int last_startup_line;         /* (added) line where the last start-up began (banner or
	                                  capacity line), 0 when none */
	char last_startup_stamp[32];   /* its "MM-DD HH:MM:SS" as printed, "" when unstamped */
	/* start-up failure */
	int did_not_start;             /* 1: log ends in a traceback before any KV line */
	char *failure_message;         /* last exception line, e.g. "pydantic_core...ValidationError: ..." */
	int failure_line;
	/* periodic stats */
	br_log_stat *stats;
	size_t n_stats;
	double v0_cumulative_preemptions; /* last total_num_cumulative_preemption=N (V0), NAN */
	size_t n_preemption_lines;     /* lines "Sequence group ... is preempted by ..." (V0's line per preemption) */
	/* binary data after the first vLLM line (a crash's zero padding): skipped */
	long long binary_bytes;        /* bytes of the lines skipped for holding a NUL byte */
	int first_binary_line;         /* 1-based line of the first of them, 0 when none */
} br_server_log;

/*
 * br_server_log_load: scan a server log. Prefixes (timestamps, process tags,
 * ANSI colours, Docker stamps) are skipped; message bodies are matched.
 * Returns 0 (also for a failed start-up: did_not_start = 1), or -1 with
 * *cause for an unreadable, empty or binary file, or a file with no vLLM
 * line at all ("PATH: expected a vLLM server log ...").
 */
int br_server_log_load(const char *path, br_server_log *out, char **cause);

/* br_server_log_looks_like: 1 when the file holds at least one vLLM line. */
int br_server_log_looks_like(const char *path);

void br_server_log_free(br_server_log *l);

#endif
