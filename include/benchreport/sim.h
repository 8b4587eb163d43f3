/*
 * The simulator (DESIGN.md §5): a deterministic discrete-event model of a
 * vLLM V1 engine that writes a complete run folder.
 */
#ifndef BENCHREPORT_SIM_H
#define BENCHREPORT_SIM_H

#include <stddef.h>
#include "benchreport/outdir.h"

/*
 * br_sim_main: `benchreport simulate CONFIG.json -o RUN_DIR [--force]`.
 * argv[0] is "simulate". Returns a process exit code (enum br_exit) and
 * prints its own messages to stderr.
 */
int br_sim_main(int argc, char **argv);

/* One preemption of the simulated engine (ground truth for the analyses). */
typedef struct br_sim_preemption {
	double t_epoch_s;          /* end of the engine step that preempted */
	double kv_before_frac;     /* KV usage just before the victim's blocks were freed */
	double kv_after_frac;      /* just after */
	double released_tokens;    /* KV tokens the victim held */
	int running_before;        /* running requests before the victim left */
	int request_index;         /* victim, in submission order */
} br_sim_preemption;

/*
 * Summary and ground truth of one simulated run. Gauge statistics
 * (running/waiting/KV) are over the 1 Hz samples of the run window (first
 * request to last completion), as the analyses see them.
 */
typedef struct br_sim_result {
	double kv_pool_tokens;
	double num_prompts, completed, failed;
	double duration_s;                 /* client: first send → last response */
	double start_epoch_s, end_epoch_s; /* client t = 0 and end, epoch s (UTC) */
	double mean_running, median_running, peak_running;
	double mean_waiting, peak_waiting;
	double kv_median_frac, kv_share_ge90, kv_share_ge95;
	size_t n_preemptions;
	br_sim_preemption *preemptions;    /* n_preemptions events, time order */
	int max_victims_per_step;          /* 1 when every event preempted one request */
	double iteration_tokens_sum;       /* vllm:iteration_tokens_total_sum at the end */
	double prompt_tokens_total, generation_tokens_total;
	double flops_total;                /* vllm:estimated_flops_per_gpu_total at the end */
	double flops_no_preemption;        /* same workload with every token computed once */
	double recomputed_tokens;          /* prefill tokens spent re-building preempted KV */
	double ttft_mean_s, ttft_p50_s, ttft_p99_s;   /* client side */
	double itl_p50_s, itl_p90_s, itl_p99_s;
	double e2el_p50_s;
	double output_throughput_tps;
	/* the server's vllm:request_queue_time_seconds and
	 * vllm:request_prefill_time_seconds means (NAN without requests) */
	double queue_time_mean_s, prefill_time_mean_s;
	size_t n_steps;                    /* engine steps executed */
	struct br_sim_run *run;            /* private: what br_sim_write needs */
} br_sim_result;

/*
 * br_sim_run: load and validate CONFIG.json, run the model, fill *out
 * (caller frees with br_sim_result_free). No file is written. Returns 0, or
 * -1 with *cause "PATH: key: why" (bad config) or "PATH:LINE:COL: ..." (bad
 * JSON).
 */
int br_sim_run(const char *config_path, br_sim_result *out, char **cause);

/*
 * br_sim_write_to: write stress.json, metrics.csv, server.log and run.json
 * of a finished simulation through od (br_outdir_prepare'd with command
 * "simulate" before the simulation ran; this stages and commits it, see
 * outdir.h). Returns 0, BR_OUTDIR_ERR_REFUSED when RUN_DIR changed meanwhile
 * into a folder that is not ours, or -1 with *cause.
 */
int br_sim_write_to(const br_sim_result *r, br_outdir *od, char **cause);

/*
 * br_sim_write: br_outdir_prepare(run_dir, "simulate", force) then
 * br_sim_write_to. Without force an existing non-empty run_dir is refused;
 * with force it is replaced only when it is an earlier output of ours
 * holding nothing else (a benchreport report/ inside it included, when that
 * is ours too). Returns 0, BR_OUTDIR_ERR_REFUSED or -1 with *cause.
 */
int br_sim_write(const br_sim_result *r, const char *run_dir, int force, char **cause);

void br_sim_result_free(br_sim_result *r);

#endif
