/*
 * The SGLang and llama.cpp forms of a simulated run's metrics.csv and
 * server.log (config "engine"; the vLLM forms are in writers.c). The line
 * formats follow the real files in fixtures/engines/ (sources in
 * ../shared/ENGINES.md §1.4-1.5 and real/engines/sglang/server-log-excerpts.txt);
 * the metric names follow src/model/roles.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchreport/common.h"
#include "sim_internal.h"

/* One vLLM family or column → the engine's name (NULL: the engine has none). */
static const char *const sglang_names[][2] = {
	{ "vllm:num_requests_running", "sglang:num_running_reqs" },
	{ "vllm:num_requests_waiting", "sglang:num_queue_reqs" },
	{ "vllm:kv_cache_usage_perc", "sglang:token_usage" },
	{ "vllm:num_preemptions_total", "sglang:num_retracted_requests_total" },
	{ "vllm:prompt_tokens_total", "sglang:prompt_tokens_total" },
	{ "vllm:generation_tokens_total", "sglang:generation_tokens_total" },
	{ "vllm:request_success_total", "sglang:num_requests_total" },
	{ "vllm:request_queue_time_seconds", "sglang:queue_time_seconds" },
	{ "vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds" },
	{ "vllm:e2e_request_latency_seconds", "sglang:e2e_request_latency_seconds" },
	{ "vllm:inter_token_latency_seconds", "sglang:inter_token_latency_seconds" },
};
static const char *const llamacpp_names[][2] = {
	{ "vllm:num_requests_running", "llamacpp:requests_processing" },
	{ "vllm:num_requests_waiting", "llamacpp:requests_deferred" },
	{ "vllm:prompt_tokens_total", "llamacpp:prompt_tokens_total" },
	{ "vllm:generation_tokens_total", "llamacpp:tokens_predicted_total" },
};

/*
 * br_sim_engine_col_name: see sim_internal.h. A histogram column
 * ("vllm:request_queue_time_seconds_bucket{le=\"0.3\"}") is renamed by its
 * family; a column whose family the engine does not expose gives NULL.
 */
char *
br_sim_engine_col_name(int engine, const char *vllm_name)
{
	if (engine == BR_ENGINE_VLLM || strcmp(vllm_name, "timestamp") == 0)
		return br_xstrdup(vllm_name);
	const char *const (*map)[2] = engine == BR_ENGINE_SGLANG ? sglang_names : llamacpp_names;
	size_t n = engine == BR_ENGINE_SGLANG ? sizeof sglang_names / sizeof sglang_names[0] :
	    sizeof llamacpp_names / sizeof llamacpp_names[0];
	for (size_t k = 0; k < n; k++) {
		size_t l = strlen(map[k][0]);
		if (strncmp(vllm_name, map[k][0], l) != 0)
			continue;
		const char *tail = vllm_name + l;
		if (*tail == '\0' || strncmp(tail, "_sum", 4) == 0 || strncmp(tail, "_count", 6) == 0 ||
		    strncmp(tail, "_bucket", 7) == 0)
			return br_xasprintf("%s%s", map[k][1], tail);
	}
	return NULL;
}

/* sg_stamp: "[YYYY-MM-DD HH:MM:SS TP0]" of sim time t (UTC). */
static void
sg_stamp(const br_sim_config *c, double t, char *buf, size_t cap)
{
	time_t te = (time_t)floor(c->start_epoch_s + t);
	struct tm tm;
	gmtime_r(&te, &tm);
	char d[32];
	strftime(d, sizeof d, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, cap, "[%s TP0]", d);
}

/* br_sim_write_log_sglang: see sim_internal.h. */
int
br_sim_write_log_sglang(const struct br_sim_run *run, FILE *fp)
{
	const br_sim_config *c = &run->cfg;
	char ts[48];
	double t0 = -c->server_startup_s;
	sg_stamp(c, t0, ts, sizeof ts);
	char max_total[32] = "None";   /* --max-total-tokens sets the pool (gpu.kv_pool_from_arg) */
	if (c->kv_pool_from_arg)
		snprintf(max_total, sizeof max_total, "%.0f", c->kv_pool_tokens);
	/* ServerArgs prints every argument (a subset here, in SGLang's repr:
	 * quoted strings, None, True, lists); random_seed is drawn at each start */
	fprintf(fp, "%s server_args=ServerArgs(model_path='%s', tokenizer_path='%s', tokenizer_mode='auto', "
	    "served_model_name='%s', context_length=%d, kv_cache_dtype='auto', mem_fraction_static=None, "
	    "max_running_requests=%d, max_total_tokens=%s, chunked_prefill_size=%d, max_prefill_tokens=16384, "
	    "schedule_policy='fcfs', schedule_conservativeness=1.0, page_size=1, tp_size=1, dp_size=1, "
	    "random_seed=%llu, cuda_graph_bs=None, lora_paths=None, enable_metrics=True, "
	    "json_model_override_args='{}', disable_radix_cache=False)\n", ts,
	    c->model_name, c->model_name, c->model_name, c->max_model_len, c->max_num_seqs, max_total,
	    c->chunked_prefill ? c->max_num_batched_tokens : -1,
	    (unsigned long long)((c->seed * 2654435761u) % (1u << 30)));
	sg_stamp(c, t0 + 0.6 * c->server_startup_s, ts, sizeof ts);
	fprintf(fp, "%s KV Cache is allocated. #tokens: %.0f, K size: %.2f GB, V size: %.2f GB\n", ts,
	    c->kv_pool_tokens, c->kv_pool_gib / 2, c->kv_pool_gib / 2);
	sg_stamp(c, t0 + 0.8 * c->server_startup_s, ts, sizeof ts);
	fprintf(fp, "%s max_total_num_tokens=%.0f, chunked_prefill_size=%d, max_prefill_tokens=16384, "
	    "max_running_requests=%d, context_len=%d\n", ts, c->kv_pool_tokens,
	    c->chunked_prefill ? c->max_num_batched_tokens : -1, c->max_num_seqs, c->max_model_len);
	sg_stamp(c, t0 + 0.85 * c->server_startup_s, ts, sizeof ts);
	ts[strlen(ts) - 5] = ']';   /* the HTTP server's lines carry no rank tag */
	ts[strlen(ts) - 4] = '\0';
	fprintf(fp, "%s INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)\n", ts);
	fprintf(fp, "%s The server is fired up and ready to roll!\n", ts);
	for (size_t i = 0; i < run->n_log; i++) {
		const br_sim_logline *l = &run->log[i];
		sg_stamp(c, l->t, ts, sizeof ts);
		fprintf(fp, "%s Decode batch, #running-req: %d, #token: %.0f, token usage: %.2f, "
		    "cuda graph: True, gen throughput (token/s): %.2f, #queue-req: %d, \n", ts, l->running,
		    round(l->kv_frac * c->kv_pool_tokens), l->kv_frac, l->gen_tps, l->waiting);
	}
	return 0;
}

/* A request's admission or finish, for the slot bookkeeping of llama.cpp. */
typedef struct slot_event {
	double t;
	int req;
	int finish;   /* finishes sort before admissions at the same time: the slot is free */
} slot_event;

static int
event_cmp(const void *a, const void *b)
{
	const slot_event *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->finish != y->finish)
		return x->finish ? -1 : 1;
	return x->req - y->req;
}

/*
 * assign_slots: each request's slot, as llama-server gives it: the lowest
 * free one at its admission (a stack of free slots, walked in time order of
 * admissions and finishes). Returns slot_of[n_req] (-1: never admitted;
 * malloc'd) and the sorted events in *ev_out / *n_ev (malloc'd).
 */
static int *
assign_slots(const struct br_sim_run *run, slot_event **ev_out, size_t *n_ev)
{
	int n = run->n_req, slots = run->cfg.max_num_seqs;
	slot_event *ev = br_xcalloc((size_t)n * 2 + 1, sizeof *ev);
	size_t ne = 0;
	for (int i = 0; i < n; i++) {
		const br_sim_req *r = &run->req[i];
		if (!isfinite(r->t_first_sched) || !isfinite(r->t_fin))
			continue;
		ev[ne++] = (slot_event){ r->t_first_sched, i, 0 };
		ev[ne++] = (slot_event){ r->t_fin, i, 1 };
	}
	qsort(ev, ne, sizeof *ev, event_cmp);
	int *slot_of = br_xmalloc((size_t)(n ? n : 1) * sizeof *slot_of);
	for (int i = 0; i < n; i++)
		slot_of[i] = -1;
	int *free_stack = br_xmalloc((size_t)(slots > 0 ? slots : 1) * sizeof *free_stack);
	int n_free = slots;
	for (int s = 0; s < slots; s++)
		free_stack[s] = slots - 1 - s;   /* top = slot 0 */
	for (size_t k = 0; k < ne; k++) {
		int q = ev[k].req;
		if (!ev[k].finish) {
			/* config.c guarantees at most `slots` requests run at once */
			slot_of[q] = n_free > 0 ? free_stack[--n_free] : -1;
		} else if (slot_of[q] >= 0)
			free_stack[n_free++] = slot_of[q];
	}
	free(free_stack);
	*ev_out = ev;
	*n_ev = ne;
	return slot_of;
}

/*
 * br_sim_write_log_llamacpp: see sim_internal.h. Each request is given the
 * slot llama-server would: the lowest free one at its admission (a stack of
 * free slots, in time order of admissions and finishes); its timing lines
 * come at its finish, in finish order.
 */
int
br_sim_write_log_llamacpp(const struct br_sim_run *run, FILE *fp)
{
	const br_sim_config *c = &run->cfg;
	int slots = c->max_num_seqs, per_slot = c->max_model_len;
	double mib = c->kv_pool_gib * 1024.0;
	fprintf(fp, "build: %s (00000000) with benchreport simulate\n", c->engine_version);
	fprintf(fp, "main: loading model\n");
	fprintf(fp, "srv    load_model: loading model '%s'\n", c->model_name);
	fprintf(fp, "llama_context: n_seq_max     = %d\n", slots);
	fprintf(fp, "llama_context: n_ctx         = %.0f\n", (double)per_slot * slots);
	fprintf(fp, "llama_context: n_ctx_per_seq = %d\n", per_slot);
	fprintf(fp, "llama_kv_cache_unified: size = %8.2f MiB (%6.0f cells,  28 layers, %2d seqs), "
	    "K (f16): %8.2f MiB, V (f16): %8.2f MiB\n", mib, (double)per_slot * slots, slots, mib / 2,
	    mib / 2);
	fprintf(fp, "srv          init: initializing slots, n_slots = %d\n", slots);
	for (int s = 0; s < slots; s++)
		fprintf(fp, "slot         init: id %2d | task -1 | new slot n_ctx_slot = %d\n", s, per_slot);
	fprintf(fp, "main: server is listening on http://0.0.0.0:8080 - starting the main loop\n");
	fprintf(fp, "srv  update_slots: all slots are idle\n");

	size_t ne = 0;
	slot_event *ev = NULL;
	int *slot_of = assign_slots(run, &ev, &ne);
	for (size_t k = 0; k < ne; k++) {
		const br_sim_req *r = &run->req[ev[k].req];
		if (!ev[k].finish)
			continue;
		int s = slot_of[ev[k].req];
		double prompt_ms = (r->t_first_tok - r->t_first_sched) * 1000.0;
		double eval_ms = (r->t_fin - r->t_first_tok) * 1000.0;
		fprintf(fp, "slot      release: id %2d | task %d | stop processing: n_past = %d, truncated = 0\n",
		    s, ev[k].req, r->in + r->n_gen - 1);
		fprintf(fp, "slot print_timing: id %2d | task %d | \n", s, ev[k].req);
		fprintf(fp, "prompt eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)\n",
		    prompt_ms, r->in, prompt_ms / r->in, r->in / (prompt_ms / 1000.0));
		fprintf(fp, "       eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)\n",
		    eval_ms, r->n_gen, r->n_gen ? eval_ms / r->n_gen : 0.0,
		    eval_ms > 0 ? r->n_gen / (eval_ms / 1000.0) : 0.0);
		fprintf(fp, "      total time = %10.2f ms / %5d tokens\n", prompt_ms + eval_ms, r->in + r->n_gen);
	}
	fprintf(fp, "srv  update_slots: all slots are idle\n");
	free(slot_of);
	free(ev);
	return 0;
}

/* br_sim_write_slots_llamacpp: see sim_internal.h. */
int
br_sim_write_slots_llamacpp(const struct br_sim_run *run, FILE *fp)
{
	const br_sim_config *c = &run->cfg;
	int slots = c->max_num_seqs;
	size_t ne = 0;
	slot_event *ev = NULL;
	int *slot_of = assign_slots(run, &ev, &ne);
	free(ev);
	int *task = br_xmalloc((size_t)slots * sizeof *task);
	for (size_t i = 0; i < run->n_rows; i++) {
		double t_epoch = run->rows[i * run->n_cols], t = t_epoch - c->start_epoch_s;
		for (int s = 0; s < slots; s++)
			task[s] = -1;
		for (int q = 0; q < run->n_req; q++) {
			const br_sim_req *r = &run->req[q];
			if (slot_of[q] >= 0 && r->t_first_sched <= t && t < r->t_fin)
				task[slot_of[q]] = q;
		}
		fprintf(fp, "{\"t_unix_s\": %.3f, \"slots\": [", t_epoch);
		for (int s = 0; s < slots; s++) {
			int q = task[s], decoded = 0;
			if (q >= 0) {
				const br_sim_req *r = &run->req[q];
				double tt = r->t_first_tok;
				if (isfinite(tt) && tt <= t) {
					decoded = 1;
					for (int k = 0; k + 1 < r->n_gen; k++) {
						tt += run->itls[r->itl_off + (size_t)k];
						if (tt > t)
							break;
						decoded++;
					}
				}
			}
			fprintf(fp, "%s{\"id\": %d, \"id_task\": %d, \"n_ctx\": %d, \"speculative\": false, "
			    "\"is_processing\": %s, \"next_token\": {\"has_next_token\": %s, \"has_new_line\": false, "
			    "\"n_remain\": -1, \"n_decoded\": %d}}", s ? ", " : "", s, q, c->max_model_len,
			    q >= 0 ? "true" : "false", q >= 0 ? "true" : "false", decoded);
		}
		fputs("]}\n", fp);
	}
	free(task);
	free(slot_of);
	return 0;
}
