/*
 * Server log model: what `vllm serve` prints that the report uses.
 * See ../shared/FORMATS.md §3. Numbers are NAN when the log does not say.
 *
 * Ownership: br_server_log owns its strings and arrays; br_server_log_free.
 */
#ifndef BENCHREPORT_SERVERLOG_H
#define BENCHREPORT_SERVERLOG_H

#include <stddef.h>
#include <stdio.h>

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

/* One V0 preemption warning ("Sequence group ... is preempted by ...
 * total_num_cumulative_preemption=N"): vLLM V0 prints it at the 1st, 51st,
 * 101st ... preemption of the server's life. */
typedef struct br_log_v0_preemption {
	int line;                      /* 1-based line in the log */
	char stamp[32];                /* "MM-DD HH:MM:SS" as printed, "" when none */
	double cumulative;             /* N */
} br_log_v0_preemption;

/* One finished request's timing lines in a llama-server log (`prompt eval
 * time` + `eval time`), in log order. */
typedef struct br_log_request {
	int line;                      /* 1-based line of its `prompt eval time` */
	int slot, task;                /* from the `slot print_timing: id N | task M` header; -1 unknown */
	double prompt_ms, prompt_tokens;  /* prompt processing: ms, tokens evaluated (cached prefix excluded) */
	double eval_ms, eval_tokens;   /* generation: ms, tokens ("runs" in 2024 builds) */
} br_log_request;

/* One entry of the log's `non-default args: {...}` line, as printed. */
typedef struct br_log_arg {
	char *name;                    /* "max_num_seqs" */
	char *value;                   /* Python repr as printed, at most 200 bytes ("…" when cut); for
	                                  a secret (br_log_arg_secret: api_key, hf_token, ...)
	                                  "(redacted)". For display and summary.json */
	char *raw;                     /* (added) the whole value as printed, never shown: what
	                                  comparisons use */
} br_log_arg;

typedef struct br_server_log {
	char *source_path;
	int engine_kind;               /* (added) br_engine (model.h) that wrote the log: vLLM, SGLang,
	                                  llama.cpp. SGLang and llama.cpp logs fill the capacity
	                                  fields below in the same units (see server_log_engines.c):
	                                  kv_pool_tokens (SGLang max_total_num_tokens, llama.cpp KV
	                                  cells), kv_pool_gib, max_num_seqs (SGLang
	                                  max_running_requests, llama.cpp n_slots),
	                                  max_model_len_tokens (SGLang context_len, llama.cpp context
	                                  per slot), max_num_batched_tokens (SGLang
	                                  chunked_prefill_size), tensor_parallel_size (SGLang TP rank
	                                  tags), and stats (SGLang batch lines) */
	char *engine_version;          /* (added) SGLang / llama.cpp build as printed ("b5489 (2d38b6e4)"),
	                                  NULL; vLLM's is vllm_version */
	double n_ctx_tokens;           /* (added) llama.cpp `llama_context: n_ctx` (all slots), NAN */
	double ctx_per_slot_tokens;    /* (added) llama.cpp context per slot (n_ctx_slot, n_ctx_seq, or
	                                  n_ctx / n_slots when the KV cache is split), NAN */
	int kv_unified;                /* (added) llama.cpp `kv_unified`: 1, 0, -1 not printed */
	double stats_epoch0_s;         /* (added) SGLang: the first stamped line as Unix epoch s, its
	                                  stamp read as UTC (logs print local time, zone unknown), NAN;
	                                  stats[i].t_s counts from it */
	int cut_last_line;             /* (added) SGLang / llama.cpp: the last line had no newline (a log
	                                  cut while written) and was not read: its number, else 0 */
	double data_parallel_size;     /* (added) SGLang: DPn rank tags of the KV lines (kv_pool_tokens
	                                  and kv_pool_gib are then the sum over them), NAN */
	br_log_request *requests;      /* (added) llama.cpp per-request timing lines; NULL, 0 */
	size_t n_requests;
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
	/* (added) settings read from vLLM's "Initializing a V1 LLM engine ... with
	 * config:" line (tensor_parallel_size, quantization, kv_cache_dtype, dtype,
	 * max_seq_len, speculative_config, ...; br_log_config_keys), as printed:
	 * what the engine ran with whether or not the args line lists it */
	br_log_arg *config;
	size_t n_config;
	int args_line;
	int args_complete;
	int args_all;                  /* (added) 1: the line lists EVERY argument, defaults included
	                                  (SGLang's `server_args=ServerArgs(...)`); an argument one
	                                  log lists and another does not is then unknown (another
	                                  version), not a default. 0: vLLM's non-default list */
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
	br_log_v0_preemption *v0_preemptions; /* (added) those with their total, in log order */
	size_t n_v0_preemptions;
	/* (added) set by br_run_check_provenance: the V0 warnings stamped inside
	 * the bench run (log and client on one clock, ± 2 s) and the fewest
	 * preemptions they prove in it: Σ over runs of rising totals (a restart
	 * starts a new run) of last − first + 1; n_v0_in_run 0 (bound NAN) when
	 * none or when the clocks cannot be matched */
	size_t n_v0_in_run;
	double v0_in_run_bound;
	/* binary data after the first vLLM line (a crash's zero padding): skipped */
	long long binary_bytes;        /* bytes of the lines skipped for holding a NUL byte */
	int first_binary_line;         /* 1-based line of the first of them, 0 when none */
} br_server_log;

/*
 * br_log_arg_incidental: 1 when argument `name` of a log of engine
 * `engine_kind` (br_engine) names no setting of the server's behaviour that
 * a comparison should credit: where it listens (host, port, SGLang's
 * nccl_port and dist_init_addr), vLLM's model/model_tag/served_model_name
 * (compared as the model), credentials (api_key, admin_api_key, hf_token,
 * token, and names holding password, secret or credential: who may call,
 * not how it runs), and for SGLang the random_seed that
 * ServerArgs draws anew at each start when none is given
 * (python/sglang/srt/server_args.py: random.randint(0, 1 << 30)). 0 otherwise.
 */
int br_log_arg_incidental(int engine_kind, const char *name);

/*
 * br_log_config_keys: NULL-terminated names of the engine-config settings
 * br_server_log.config holds; br_log_config_arg: the args-line name of one
 * ("max_seq_len" -> "max_model_len", others the same). Static strings.
 */
extern const char *const br_log_config_keys[];
const char *br_log_config_arg(const char *config_key);

/*
 * br_log_arg_secret: 1 when argument `name` holds a credential whose value
 * no report may print (api_key, admin_api_key, hf_token, token, names with
 * "password", "secret", "auth" or "credential", or ending in "_key" or
 * "_token"); 0 otherwise. br_log_arg_set also redacts any value holding a
 * URL with user-info or a token=/key=/password= query.
 */
int br_log_arg_secret(const char *name);

/*
 * br_log_arg_set: fill *a with name [key, key + key_len) and the printed
 * value [v, v + v_len): raw whole, value clipped at 200 bytes or
 * "(redacted)" for a secret. Aborts on allocation failure.
 */
void br_log_arg_set(br_log_arg *a, const char *key, size_t key_len, const char *v, size_t v_len);

/*
 * br_server_log_load: scan a server log. Prefixes (timestamps, process tags,
 * ANSI colours, Docker stamps) are skipped; message bodies are matched.
 * Returns 0 (also for a failed start-up: did_not_start = 1), or -1 with
 * *cause for an unreadable, empty or binary file, or a file with no vLLM
 * line at all ("PATH: expected a vLLM server log ...").
 */
int br_server_log_load(const char *path, br_server_log *out, char **cause);

/*
 * br_server_log_sniff_engine: the br_engine (model.h) whose lines appear
 * first in the file's first 4,000 lines; 0 (unknown) when none or the file
 * cannot be read.
 */
int br_server_log_sniff_engine(const char *path);

/*
 * br_server_log_load_engine (server_log_engines.c): read an SGLang or
 * llama.cpp log (engine = BR_ENGINE_SGLANG / _LLAMACPP) from the open
 * file fp into out, which log_init has prepared (br_server_log_load does
 * both). Returns 0, or -1 with *cause "PATH: expected a ... server log"
 * when no line of that engine is recognised.
 */
int br_server_log_load_engine(const char *path, int engine, FILE *fp,
    br_server_log *out, char **cause);

/* br_server_log_add_request: append a zeroed request (fields NAN, slot/task -1). */
br_log_request *br_server_log_add_request(br_server_log *l);

/* br_server_log_looks_like: 1 when the file holds at least one vLLM line,
 * or is an SGLang / llama.cpp log (br_server_log_sniff_engine). */
int br_server_log_looks_like(const char *path);

void br_server_log_free(br_server_log *l);

#endif
