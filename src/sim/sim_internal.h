/*
 * Private types of the simulator (DESIGN.md §5). Only the sim module sources include
 * this file; the public surface is include/benchreport/sim.h.
 */
#ifndef BR_SIM_INTERNAL_H
#define BR_SIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "benchreport/sim.h"
#include "benchreport/model.h"

/* ---- configuration (config.c) ---- */

enum br_sim_dist_kind { BR_DIST_FIXED, BR_DIST_UNIFORM, BR_DIST_NORMAL };

/* A token-length distribution; lengths are integers in [min, max]. */
typedef struct br_sim_dist {
	enum br_sim_dist_kind kind;
	double value;            /* fixed */
	double mean, std;        /* normal (clipped to [min, max]) */
	double min, max;         /* uniform bounds (inclusive); clip bounds for normal */
} br_sim_dist;

typedef struct br_sim_config {
	char *path;
	/* model */
	double kv_bytes_per_token;
	double flops_c0;             /* FLOPs per token at zero context */
	double flops_c1;             /* extra FLOPs per token per context token */
	/* gpu */
	double kv_pool_tokens;       /* a multiple of block_size */
	double kv_pool_gib;          /* as the log prints it */
	int kv_pool_from_arg;        /* 1: the log's arguments set the pool (vLLM 'kv_cache_memory_bytes'
	                                = P · kv_bytes_per_token, SGLang max_total_tokens = P); 0: start-up
	                                memory profiling sized it, no argument names it */
	double fixed_s, per_prefill_token_s, per_decode_token_s, per_context_token_s;
	/* scheduler */
	int max_num_seqs;
	int max_num_batched_tokens;
	int chunked_prefill;
	int block_size;
	int max_model_len;
	double watermark_frac;       /* admission headroom for waiting requests (vLLM default 0.0) */
	int reserve_full_isl;        /* admission needs blocks for the whole sequence (vLLM default true) */
	int async_scheduling;        /* vLLM's scheduler works one step ahead (default true; vLLM only) */
	/* workload */
	int num_prompts;
	br_sim_dist input_len, output_len;
	int max_concurrency;         /* 0 = none (open loop without a cap) */
	double request_rate;         /* INFINITY = all at once (closed loop) */
	double burstiness;
	/* Frontend + IPC time of request i (s): Gamma with mean frontend_delay_s +
	 * frontend_per_input_token_s · input_len and coefficient of variation
	 * frontend_cv (0 = that mean exactly); the share frontend_inbound_share of it
	 * passes before the engine sees the request (tokenisation, IPC in), the
	 * rest after each token leaves the engine (detokenisation, HTTP out). */
	double frontend_delay_s;
	double frontend_per_input_token_s;
	double frontend_cv;
	double frontend_inbound_share;
	uint64_t seed;
	/* the engine whose files are written (br_engine, model.h): vLLM (default), SGLang or
	 * llama.cpp. All three run the same scheduler model; for llama.cpp it becomes a
	 * fixed-slot server (config.c: max_num_seqs = n_slots, each slot owning
	 * kv_pool_tokens / n_slots of context, the whole request reserved at admission,
	 * so a request never loses its KV and waits for a slot instead) */
	int engine;
	/* labels */
	char *name, *vllm_version, *model_name, *gpu_name;
	char *engine_version;        /* server.engine_version: SGLang version / llama.cpp build number */
	char *role;                  /* run.json "role" (e.g. "calibration"), NULL = none */
	double start_epoch_s;        /* epoch of the client's t = 0 */
	double server_startup_s;     /* server launched this long before t = 0 */
	double sample_interval_s;    /* metrics.csv period */
	double log_interval_s;       /* server.log stats period */
} br_sim_config;

/*
 * Resource limits (bad-config guards): a config that would exceed one is
 * refused with a message naming the key, before memory or time run away.
 */
#define BR_SIM_MAX_SPAN_S 604800.0      /* simulated client time: 7 days */
#define BR_SIM_MAX_ROWS 200000          /* metrics.csv rows (~300 MB in memory) */
#define BR_SIM_MAX_LOG_LINES 200000     /* server.log stats lines */
#define BR_SIM_MAX_ITLS 20000000.0      /* Σ (output_len - 1): the itls of stress.json */
#define BR_SIM_MAX_STEPS 10000000       /* engine steps */
#define BR_SIM_MAX_PREEMPTIONS 1000000  /* preemption events kept as ground truth */
#define BR_SIM_MIN_STEP_S 1e-6          /* the shortest engine step */
#define BR_SIM_MAX_PROMPTS 1000000      /* workload.num_prompts */

int br_sim_config_load(const char *path, br_sim_config *cfg, char **cause);
void br_sim_config_free(br_sim_config *cfg);
double br_sim_ceil3(double x);   /* x rounded up to 3 significant digits */

/* ---- workload (workload.c) ---- */

typedef struct br_rng {
	uint64_t s[4];
} br_rng;

void br_rng_seed(br_rng *r, uint64_t seed);
uint64_t br_rng_next(br_rng *r);
double br_rng_uniform(br_rng *r);                 /* [0, 1) */
double br_rng_normal(br_rng *r);                  /* N(0, 1) */
double br_rng_gamma(br_rng *r, double shape);     /* Gamma(shape, 1) */
int br_sim_draw_len(br_rng *r, const br_sim_dist *d);

/* Fill in[], out[] (token lengths) and arrival[] (client seconds since t=0,
 * 0 for every request of an unlimited-rate run). */
void br_sim_workload(const br_sim_config *cfg, int *in, int *out, double *arrival);
/* Fill fe_in[], fe_out[] (s) for the n requests of lengths in[] (see
 * br_sim_config.frontend_*); drawn from their own stream, so the lengths and
 * arrivals of a seed do not change with the frontend settings. */
void br_sim_frontend(const br_sim_config *cfg, const int *in, int n, double *fe_in, double *fe_out);

/* ---- engine (engine.c) ---- */

/* A Prometheus histogram kept as per-bucket counts (edges exclude +Inf). */
typedef struct br_sim_hist {
	const char *name;            /* "vllm:request_queue_time_seconds" */
	const double *edges;         /* vLLM 0.25.1 defaults (real/metrics/vllm-0.25.1-loaded.prom) */
	int n_edges;
	double *counts;              /* n_edges + 1 (last = +Inf only) */
	double sum, count;
} br_sim_hist;

enum { H_QUEUE, H_PREFILL, H_DECODE, H_INFERENCE, H_TTFT, H_E2E, H_ITL, H_ITER, H_N };

typedef struct br_sim_req {
	int in, out;
	int n_gen;                   /* tokens generated so far */
	int n_computed;              /* tokens whose KV is in the pool */
	int n_blocks;                /* blocks held */
	int n_preempted;
	int hiwater;                 /* most tokens ever computed (recompute below this) */
	int state;                   /* 0 not sent, 1 waiting, 2 running, 3 done */
	double t_arrival;            /* open-loop arrival (client s) */
	double fe_in_s, fe_out_s;    /* frontend time before the engine / after each token (s) */
	double t_client;             /* client send (s) */
	double t_send;               /* engine arrival = t_client + fe_in_s */
	double t_first_sched, t_first_tok, t_last_tok, t_fin;
	size_t itl_off;              /* offset into run->itls */
} br_sim_req;

/* One 10 s server-log stats line. */
typedef struct br_sim_logline {
	double t;                    /* sim seconds */
	double prompt_tps, gen_tps;
	int running, waiting;
	double preemptions;
	double kv_frac;
} br_sim_logline;

struct br_sim_run {
	br_sim_config cfg;
	int n_req;
	br_sim_req *req;
	double *itls;                /* Σ(out-1) gaps, request-major */
	size_t n_itls;
	/* 1 Hz samples: n_rows × n_cols, row-major */
	size_t n_cols, n_rows, cap_rows;
	char **col_names;
	double *rows;
	br_sim_logline *log;
	size_t n_log, cap_log;
	br_sim_hist hist[H_N];
	/* truth */
	br_sim_preemption *pre;
	size_t n_pre, cap_pre;
	double t_end;                /* last client completion (sim s) */
	size_t n_steps;
	int max_victims;             /* most requests preempted in one step */
	double recomputed_tokens;
	double flops_total;
};

int br_sim_engine_run(struct br_sim_run *run, char **cause);
void br_sim_run_free(struct br_sim_run *run);

/* ---- writers (writers.c) ---- */

/* ---- the other engines' formats (writers_engines.c) ---- */

/* br_sim_engine_col_name: the name engine (br_engine) gives the simulator's
 * metrics.csv column vllm_name (malloc'd), NULL when it exposes none. */
char *br_sim_engine_col_name(int engine, const char *vllm_name);
/* server.log of an SGLang server: ServerArgs, the KV allocation and capacity
 * lines, then one `Decode batch` line per log interval. 0. */
int br_sim_write_log_sglang(const struct br_sim_run *run, FILE *fp);
/* server.log of llama-server: build, context, unified KV cache, slots,
 * then each request's release and timing lines at its finish. 0. */
int br_sim_write_log_llamacpp(const struct br_sim_run *run, FILE *fp);
/* slots.jsonl of llama-server: at each metrics sample, the /slots array
 * (2026 fields) wrapped as {"t_unix_s": ..., "slots": [...]}: a slot is
 * busy from its request's admission to its finish, n_decoded counts the
 * tokens generated by then (first token plus the ITL gaps). 0. */
int br_sim_write_slots_llamacpp(const struct br_sim_run *run, FILE *fp);

/* Python repr() of a float (shortest round-trip), written into buf (>= 32). */
int br_sim_fmt_pyfloat(char *buf, size_t cap, double x);

#endif
