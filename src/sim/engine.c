/*
 * The discrete-event model of a vLLM V1 engine (DESIGN.md §5).
 *
 * Scheduler rules, after vllm/v1/core/sched/scheduler.py (V1 `schedule()`):
 *  - One token budget per step (max_num_batched_tokens). RUNNING requests are
 *    served first, in the order they were admitted: each asks for
 *    num_tokens - num_computed_tokens new tokens (1 in decode, a prefill or
 *    recompute chunk otherwise), capped by the remaining budget.
 *  - Paged KV: a request holds ceil(computed / block_size) blocks; a chunk
 *    needs the blocks for its new tokens. When allocation fails, the most
 *    recently admitted running request is preempted (`self.running.pop()`):
 *    its blocks are freed, num_computed_tokens = 0, and it goes to the FRONT
 *    of the waiting queue; when it is itself the victim, the running pass
 *    stops for this step.
 *  - WAITING requests are admitted FCFS only when no preemption happened in
 *    this step, while the budget lasts and running < max_num_seqs. Admission
 *    gate (vllm/v1/core/kv_cache_manager.py allocate_slots): with
 *    `scheduler_reserve_full_isl` (default true) the blocks for the WHOLE
 *    current sequence (prompt + tokens generated so far) plus the watermark
 *    (`watermark` × blocks, default 0.0, only when other requests are already
 *    scheduled in the step) must be free, else only those of the first chunk.
 *    The full-sequence gate is what stops a preempted request from being
 *    re-admitted at once and thrashing; it waits for a completion instead.
 *    A resumed request prefills prompt + tokens generated so far (recompute).
 *  - A request whose computed tokens reach its token count samples one token
 *    at the end of the step; a request that has produced output_len tokens
 *    finishes and frees its blocks.
 *  - Async scheduling (`async_scheduling`, on by default in V1 since it left
 *    its experimental flag: vllm/config/vllm.py turns None into True;
 *    vllm/v1/engine/core.py step_with_batch_queue): while the engine is busy,
 *    the batch of the next step is scheduled when the current one is
 *    launched, one step ahead, so a request's SCHEDULED event (the end of
 *    its queue time and the start of its prefill time, vllm/v1/metrics/
 *    stats.py) is stamped at the start of the step before its first chunk.
 *    The model keeps that stamp: after a step that ended at `now`, a request
 *    admitted now is stamped with that step's start (or its own arrival, if
 *    later); an idle engine stamps `now`. Which steps requests run in is
 *    left as without async scheduling: the real scheduler also holds a
 *    request that arrives during a step back by one step, which groups new
 *    prefills into fewer steps; modelled, it took the light round-1
 *    comparison run's ITL p90 from 116 to 86 ms, further from the 121.9 to
 *    187.5 ms measured. The stamp is why the reference's mean prefill time
 *    at 6,144 tokens, 1.06 s, is about five steps of 0.21 s for four
 *    chunk-bearing steps (round 1 simulated: 1.03 s; 0.82 s without it).
 * Prefix caching is not modelled (random prompts never hit; a preempted
 * request's blocks are treated as evicted, as the reference rounds'
 * recompute FLOPs show).
 *
 * Step time (DESIGN.md §5) = fixed_s + per_prefill_token_s · prefill tokens
 * + per_decode_token_s · decode tokens + per_context_token_s · Σ context of
 * the scheduled requests (KV read by attention).
 * FLOPs (DESIGN.md §5): a token at position p costs c0 + c1·(p+1); every
 * computed token counts, recompute included (vllm:estimated_flops_per_gpu_total),
 * while vllm:iteration_tokens_total counts each prompt token once (when the
 * request's first token is produced) and each generated token once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/common.h"
#include "sim_internal.h"

/* Default bucket edges of vLLM 0.25.1 (le labels of
 * ../shared/real/metrics/vllm-0.25.1-loaded.prom); +Inf is implicit. */
static const double E_REQ[] = { 0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0,
	40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0 };
static const double E_TTFT[] = { 0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
	1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0 };
static const double E_ITL[] = { 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75,
	1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0 };
static const double E_ITER[] = { 1.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0,
	4096.0, 8192.0, 16384.0 };
#define NE(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Fixed gauge/counter columns of metrics.csv, after `timestamp`. */
enum { C_TS, C_RUN, C_WAIT, C_KV, C_PRE, C_PROMPT, C_GEN, C_SUCC, C_FLOPS, C_FIXED };
static const char *const fixed_cols[C_FIXED] = { "timestamp", "vllm:num_requests_running",
	"vllm:num_requests_waiting", "vllm:kv_cache_usage_perc", "vllm:num_preemptions_total",
	"vllm:prompt_tokens_total", "vllm:generation_tokens_total", "vllm:request_success_total",
	"vllm:estimated_flops_per_gpu_total" };

typedef struct eng {
	struct br_sim_run *run;
	const br_sim_config *c;
	br_sim_req *req;
	int n;
	int *running, n_running;
	int *wq, wq_head, wq_n;        /* ring buffer of capacity n */
	long total_blocks, free_blocks, watermark_blocks;
	double now;
	/* counters since server start */
	double preemptions, prompt_tokens, gen_tokens, success, flops;
	/* the same token counters added only when a request finishes, as SGLang
	 * (TokenizerMetricsCollector) and llama.cpp (tokens_predicted_total) count */
	double prompt_tokens_done, gen_tokens_done;
	/* client */
	int next_send, done;
	double *slots;                 /* FIFO of times a concurrency slot frees */
	int slot_head, slot_n, slot_cap;
	int *fe_pend, fe_n;            /* sent, in the frontend: sorted by engine arrival */
	/* sampling */
	double next_sample, next_log;
	double log_prompt0, log_gen0, log_pre0;
	/* per-step schedule */
	int *s_idx, *s_new;
	int n_sched;
	int victims_this_step, max_victims;
	size_t n_steps;
	double last_start, last_end;   /* the previous step's start and end (s) */
	double recomputed;
	char *err;                     /* a resource limit was hit (malloc'd message) */
} eng;

static void
hist_init(br_sim_hist *h, const char *name, const double *edges, int n)
{
	h->name = name;
	h->edges = edges;
	h->n_edges = n;
	h->counts = br_xcalloc((size_t)n + 1, sizeof(double));
	h->sum = h->count = 0;
}

/* hist_observe: one observation (Prometheus `le` semantics: x <= edge). */
static void
hist_observe(br_sim_hist *h, double x)
{
	int i = 0;
	while (i < h->n_edges && x > h->edges[i])
		i++;
	h->counts[i] += 1;
	h->sum += x;
	h->count += 1;
}

/* setup_columns: names of every metrics.csv column (timestamp first). */
static void
setup_columns(struct br_sim_run *run)
{
	size_t n = C_FIXED;
	for (int h = 0; h < H_N; h++)
		n += 2 + (size_t)run->hist[h].n_edges + 1;
	run->col_names = br_xcalloc(n, sizeof(char *));
	size_t k = 0;
	for (int i = 0; i < C_FIXED; i++)
		run->col_names[k++] = br_xstrdup(fixed_cols[i]);
	for (int h = 0; h < H_N; h++) {
		const br_sim_hist *hh = &run->hist[h];
		run->col_names[k++] = br_xasprintf("%s_sum", hh->name);
		run->col_names[k++] = br_xasprintf("%s_count", hh->name);
		for (int e = 0; e <= hh->n_edges; e++) {
			char le[40];
			if (e == hh->n_edges)
				snprintf(le, sizeof le, "+Inf");
			else
				br_sim_fmt_pyfloat(le, sizeof le, hh->edges[e]);
			run->col_names[k++] = br_xasprintf("%s_bucket{le=\"%s\"}", hh->name, le);
		}
	}
	run->n_cols = n;
}

static double
kv_frac(const eng *e)
{
	return 1.0 - (double)e->free_blocks / (double)e->total_blocks;
}

/* take_sample: append one metrics.csv row with the current state at sim time t. */
static void
take_sample(eng *e, double t)
{
	struct br_sim_run *run = e->run;
	if (run->n_rows == run->cap_rows) {
		run->cap_rows = run->cap_rows ? run->cap_rows * 2 : 1024;
		run->rows = br_xrealloc(run->rows, run->cap_rows * run->n_cols * sizeof(double));
		br_advise_huge(run->rows + run->n_rows * run->n_cols,
		    (run->cap_rows - run->n_rows) * run->n_cols * sizeof(double));
	}
	double *row = run->rows + run->n_rows * run->n_cols;
	row[C_TS] = e->c->start_epoch_s + t;
	row[C_RUN] = e->n_running;
	row[C_WAIT] = e->wq_n;
	row[C_KV] = kv_frac(e);
	row[C_PRE] = e->preemptions;
	int at_finish = e->c->engine != BR_ENGINE_VLLM;
	row[C_PROMPT] = at_finish ? e->prompt_tokens_done : e->prompt_tokens;
	row[C_GEN] = at_finish ? e->gen_tokens_done : e->gen_tokens;
	row[C_SUCC] = e->success;
	row[C_FLOPS] = e->flops;
	size_t k = C_FIXED;
	for (int h = 0; h < H_N; h++) {
		const br_sim_hist *hh = &run->hist[h];
		row[k++] = hh->sum;
		row[k++] = hh->count;
		double cum = 0;
		for (int b = 0; b <= hh->n_edges; b++) {
			cum += hh->counts[b];
			row[k++] = cum;
		}
	}
	run->n_rows++;
}

/* take_log: one `Engine 000: Avg prompt throughput ...` line at sim time t. */
static void
take_log(eng *e, double t)
{
	struct br_sim_run *run = e->run;
	if (run->n_log == run->cap_log) {
		run->cap_log = run->cap_log ? run->cap_log * 2 : 256;
		run->log = br_xrealloc(run->log, run->cap_log * sizeof *run->log);
	}
	br_sim_logline *l = &run->log[run->n_log++];
	double iv = e->c->log_interval_s;
	l->t = t;
	l->prompt_tps = (e->prompt_tokens - e->log_prompt0) / iv;
	l->gen_tps = (e->gen_tokens - e->log_gen0) / iv;
	l->running = e->n_running;
	l->waiting = e->wq_n;
	l->preemptions = e->preemptions - e->log_pre0;   /* per interval, as the V1 logger resets it */
	l->kv_frac = kv_frac(e);
	e->log_prompt0 = e->prompt_tokens;
	e->log_gen0 = e->gen_tokens;
	e->log_pre0 = e->preemptions;
}

/*
 * emit_until: every sample and log line due strictly before sim time t sees
 * the current state. Refuses (e->err set, returns -1, nothing emitted) when
 * that would take metrics.csv past BR_SIM_MAX_ROWS rows or server.log past
 * BR_SIM_MAX_LOG_LINES stats lines; returns 0 otherwise.
 */
static int
emit_until(eng *e, double t)
{
	const br_sim_config *c = e->c;
	double rows = e->next_sample < t ? floor((t - e->next_sample) / c->sample_interval_s) + 1 : 0;
	double lines = e->next_log < t ? floor((t - e->next_log) / c->log_interval_s) + 1 : 0;
	if ((double)e->run->n_rows + rows > BR_SIM_MAX_ROWS) {
		e->err = br_xasprintf("%s: (top level).sample_interval_s: %g s: metrics.csv would pass "
		    "the limit of %d rows at %.0f s of simulated time, before the run ends: give "
		    "sample_interval_s above %.3g or a shorter workload", c->path, c->sample_interval_s,
		    BR_SIM_MAX_ROWS, t, br_sim_ceil3(t / BR_SIM_MAX_ROWS));
		return -1;
	}
	if ((double)e->run->n_log + lines > BR_SIM_MAX_LOG_LINES) {
		e->err = br_xasprintf("%s: (top level).log_interval_s: %g s: server.log would pass the "
		    "limit of %d stats lines at %.0f s of simulated time, before the run ends: give "
		    "log_interval_s above %.3g or a shorter workload", c->path, c->log_interval_s,
		    BR_SIM_MAX_LOG_LINES, t, br_sim_ceil3(t / BR_SIM_MAX_LOG_LINES));
		return -1;
	}
	for (;;) {
		double ts = e->next_sample, tl = e->next_log;
		if (ts >= t && tl >= t)
			break;
		if (ts <= tl) {
			take_sample(e, ts);
			e->next_sample += e->c->sample_interval_s;
		} else {
			take_log(e, tl);
			e->next_log += e->c->log_interval_s;
		}
	}
	return 0;
}

static long
blocks_for(const eng *e, long tokens)
{
	return (tokens + e->c->block_size - 1) / e->c->block_size;
}

/* ---- client: concurrency slots and sends ---- */

static void
slot_push(eng *e, double t)
{
	if (e->slot_n == e->slot_cap)
		return;   /* cannot happen: at most C slots exist */
	e->slots[(e->slot_head + e->slot_n) % e->slot_cap] = t;
	e->slot_n++;
}

/* send_time: when request next_send goes out, or INFINITY while it waits
 * for a concurrency slot that no completion has freed yet. */
static double
send_time(const eng *e)
{
	if (e->next_send >= e->n)
		return INFINITY;
	double a = e->req[e->next_send].t_arrival;
	if (e->c->max_concurrency == 0)
		return a;
	if (e->slot_n == 0)
		return INFINITY;
	double s = e->slots[e->slot_head];
	return a > s ? a : s;
}

/* fe_head: the engine arrival of the first request in the frontend, or INFINITY. */
static double
fe_head(const eng *e)
{
	return e->fe_n ? e->req[e->fe_pend[0]].t_send : INFINITY;
}

/* next_arrival: when the engine next sees a request (a send plus its inbound
 * frontend time, or one already in the frontend), INFINITY when none can come. */
static double
next_arrival(const eng *e)
{
	double t = send_time(e);
	if (!isinf(t))
		t += e->req[e->next_send].fe_in_s;
	double h = fe_head(e);
	return h < t ? h : t;
}

/*
 * deliver: requests the client sent at or before `now` enter the frontend
 * (kept sorted by engine arrival t_send = t_client + fe_in_s, ties in send
 * order); those whose engine arrival is at or before `now` join the back of
 * the waiting queue in arrival order. With no inbound frontend time both
 * happen at once, in send order.
 */
static void
deliver(eng *e)
{
	for (;;) {
		double t = send_time(e);
		if (!(t <= e->now))
			break;
		if (e->c->max_concurrency > 0) {
			e->slot_head = (e->slot_head + 1) % e->slot_cap;
			e->slot_n--;
		}
		br_sim_req *r = &e->req[e->next_send];
		r->t_client = t;
		r->t_send = t + r->fe_in_s;
		int k = e->fe_n++;
		while (k > 0 && e->req[e->fe_pend[k - 1]].t_send > r->t_send) {
			e->fe_pend[k] = e->fe_pend[k - 1];
			k--;
		}
		e->fe_pend[k] = e->next_send;
		e->next_send++;
	}
	int k = 0;
	while (k < e->fe_n && e->req[e->fe_pend[k]].t_send <= e->now) {
		int idx = e->fe_pend[k++];
		e->req[idx].state = 1;
		e->wq[(e->wq_head + e->wq_n) % e->n] = idx;
		e->wq_n++;
	}
	if (k) {
		memmove(e->fe_pend, e->fe_pend + k, (size_t)(e->fe_n - k) * sizeof(int));
		e->fe_n -= k;
	}
}

/* ---- scheduler ---- */

/* preempt: free the victim's blocks and put it at the front of the queue. */
static void
preempt(eng *e, int victim)
{
	br_sim_req *r = &e->req[victim];
	struct br_sim_run *run = e->run;
	if (run->n_pre == run->cap_pre) {
		run->cap_pre = run->cap_pre ? run->cap_pre * 2 : 64;
		run->pre = br_xrealloc(run->pre, run->cap_pre * sizeof *run->pre);
	}
	br_sim_preemption *p = &run->pre[run->n_pre++];
	p->t_epoch_s = e->c->start_epoch_s + e->now;
	p->kv_before_frac = kv_frac(e);
	p->released_tokens = r->n_computed;
	p->running_before = e->n_running + 1;   /* already popped */
	p->request_index = victim;
	e->free_blocks += r->n_blocks;
	r->n_blocks = 0;
	r->n_computed = 0;
	r->n_preempted++;
	r->state = 1;
	p->kv_after_frac = kv_frac(e);
	e->wq_head = (e->wq_head + e->n - 1) % e->n;
	e->wq[e->wq_head] = victim;
	e->wq_n++;
	e->preemptions += 1;
	e->victims_this_step++;
}

static void
sched_add(eng *e, int idx, int nn)
{
	e->s_idx[e->n_sched] = idx;
	e->s_new[e->n_sched] = nn;
	e->n_sched++;
}

/* schedule: one V1 scheduling pass at e->now (see the file comment). */
static void
schedule(eng *e)
{
	const br_sim_config *c = e->c;
	int budget = c->max_num_batched_tokens;
	e->n_sched = 0;
	e->victims_this_step = 0;
	int i = 0;
	while (i < e->n_running && budget > 0) {
		int idx = e->running[i];
		br_sim_req *r = &e->req[idx];
		long nn = (long)r->in + r->n_gen - r->n_computed;
		if (nn > budget)
			nn = budget;
		if (nn > (long)c->max_model_len - 1 - r->n_computed)
			nn = (long)c->max_model_len - 1 - r->n_computed;
		if (nn <= 0) {
			i++;
			continue;
		}
		long need = blocks_for(e, r->n_computed + nn) - r->n_blocks;
		int self_preempted = 0;
		while (need > e->free_blocks) {
			int victim = e->running[--e->n_running];
			preempt(e, victim);
			if (victim == idx) {
				self_preempted = 1;
				break;
			}
		}
		if (self_preempted)
			break;
		e->free_blocks -= need;
		r->n_blocks += (int)need;
		sched_add(e, idx, (int)nn);
		budget -= (int)nn;
		i++;
	}
	if (e->victims_this_step > e->max_victims)
		e->max_victims = e->victims_this_step;
	if (e->victims_this_step > 0)
		return;
	/* async scheduling: after a step that ended now, this pass ran when
	 * that step began (see the file comment) */
	double sched_at = e->now;
	if (c->async_scheduling && e->n_steps > 0 && e->last_end == e->now)
		sched_at = e->last_start;
	while (e->wq_n > 0 && budget > 0) {
		if (e->n_running >= c->max_num_seqs)
			break;
		int idx = e->wq[e->wq_head];
		br_sim_req *r = &e->req[idx];
		long nn = (long)r->in + r->n_gen;   /* resumed requests recompute their output too */
		if (!c->chunked_prefill && nn > budget)
			break;
		if (nn > budget)
			nn = budget;
		long need = blocks_for(e, nn);
		long wm = e->n_sched > 0 ? e->watermark_blocks : 0;
		long gate = c->reserve_full_isl ? blocks_for(e, (long)r->in + r->n_gen) : need;
		if (gate + wm > e->free_blocks)
			break;
		e->wq_head = (e->wq_head + 1) % e->n;
		e->wq_n--;
		e->running[e->n_running++] = idx;
		r->state = 2;
		r->n_blocks = (int)need;
		e->free_blocks -= need;
		if (isnan(r->t_first_sched)) {
			/* not before it reached the engine */
			r->t_first_sched = r->t_send > sched_at ? r->t_send : sched_at;
			hist_observe(&e->run->hist[H_QUEUE], r->t_first_sched - r->t_send);
		}
		sched_add(e, idx, (int)nn);
		budget -= (int)nn;
	}
}

/* tri: Σ_{p=0}^{k-1} (p+1) = k(k+1)/2, the context summed over positions. */
static double
tri(double k)
{
	return k * (k + 1) / 2;
}

/* finish: request idx produced its last token at time t. */
static void
finish(eng *e, int idx, double t)
{
	br_sim_req *r = &e->req[idx];
	struct br_sim_run *run = e->run;
	r->t_fin = t;
	r->state = 3;
	e->free_blocks += r->n_blocks;
	r->n_blocks = 0;
	e->success += 1;
	e->prompt_tokens_done += r->in;
	e->gen_tokens_done += r->n_gen;
	e->done++;
	hist_observe(&run->hist[H_PREFILL], r->t_first_tok - r->t_first_sched);
	hist_observe(&run->hist[H_DECODE], t - r->t_first_tok);
	hist_observe(&run->hist[H_INFERENCE], t - r->t_first_sched);
	hist_observe(&run->hist[H_E2E], t - r->t_client);
	if (e->c->max_concurrency > 0)
		slot_push(e, t + r->fe_out_s);   /* the client has the last token */
}

/*
 * check_limits: after a step, refuse a run that has gone past
 * BR_SIM_MAX_SPAN_S of simulated time, BR_SIM_MAX_STEPS engine steps or
 * BR_SIM_MAX_PREEMPTIONS preemptions (e->err set, -1); else 0.
 */
static int
check_limits(eng *e)
{
	const br_sim_config *c = e->c;
	if (e->now > BR_SIM_MAX_SPAN_S)
		e->err = br_xasprintf("%s: workload: after %.0f s (7 days) of simulated time only %d of %d "
		    "requests have finished; the simulator stops there: the engine is far too slow for this "
		    "workload (lower workload.num_prompts, workload.input_len or workload.output_len, or the "
		    "gpu.* step times)", c->path, BR_SIM_MAX_SPAN_S, e->done, e->n);
	else if (e->n_steps > BR_SIM_MAX_STEPS)
		e->err = br_xasprintf("%s: workload: more than %d engine steps with only %d of %d requests "
		    "finished; the simulator stops there (lower workload.num_prompts, workload.input_len or "
		    "workload.output_len, or raise scheduler.max_num_batched_tokens %d / "
		    "scheduler.max_num_seqs %d)", c->path, BR_SIM_MAX_STEPS, e->done, e->n,
		    c->max_num_batched_tokens, c->max_num_seqs);
	else if (e->run->n_pre > BR_SIM_MAX_PREEMPTIONS)
		e->err = br_xasprintf("%s: gpu.kv_pool_tokens: more than %d preemptions with only %d of %d "
		    "requests finished: the KV pool of %.0f tokens thrashes; give a larger pool, a smaller "
		    "scheduler.max_num_seqs (%d) or scheduler.reserve_full_isl true", c->path,
		    BR_SIM_MAX_PREEMPTIONS, e->done, e->n, c->kv_pool_tokens, c->max_num_seqs);
	return e->err ? -1 : 0;
}

/* step: schedule, cost, advance the clock and apply the step's outputs. */
static int
step(eng *e, char **cause)
{
	const br_sim_config *c = e->c;
	schedule(e);
	if (e->n_sched == 0 && e->victims_this_step == 0) {
		if (e->n_running == 0 && e->wq_n > 0) {
			int idx = e->wq[e->wq_head];
			const br_sim_req *r = &e->req[idx];
			long len = (long)r->in + r->n_gen;
			if (!c->chunked_prefill && len > c->max_num_batched_tokens) {
				/* a resumed request re-prefills prompt + generated tokens */
				if (cause)
					*cause = br_xasprintf("%s: scheduler.max_num_batched_tokens: request %d must "
					    "prefill %ld tokens (prompt %d%s) in one step because "
					    "scheduler.chunked_prefill is false, but the per-step token budget "
					    "max_num_batched_tokens is %d: raise it to at least %ld or set "
					    "chunked_prefill to true", c->path, idx, len, r->in,
					    r->n_gen ? " + tokens generated before its preemption" : "",
					    c->max_num_batched_tokens, len);
			} else if (cause) {
				*cause = br_xasprintf("%s: gpu.kv_pool_tokens: the scheduler cannot admit request %d "
				    "(%ld tokens) into an empty pool of %.0f tokens", c->path, idx, len,
				    c->kv_pool_tokens);
			}
			return -1;
		}
	}
	double pre_tok = 0, dec_tok = 0, ctx = 0;
	for (int k = 0; k < e->n_sched; k++) {
		br_sim_req *r = &e->req[e->s_idx[k]];
		int nn = e->s_new[k];
		double a = r->n_computed, b = a + nn;
		int decode = (r->n_gen > 0 && nn == 1 && r->n_computed == r->in + r->n_gen - 1);
		if (decode)
			dec_tok += nn;
		else
			pre_tok += nn;
		ctx += b;
		e->flops += nn * c->flops_c0 + c->flops_c1 * (tri(b) - tri(a));
		if (a < r->hiwater)
			e->recomputed += (b < r->hiwater ? b : r->hiwater) - a;
	}
	double dt = c->fixed_s + c->per_prefill_token_s * pre_tok + c->per_decode_token_s * dec_tok +
	    c->per_context_token_s * ctx;
	double t_end = e->now + dt;
	if (emit_until(e, t_end) < 0)
		return -1;
	e->n_steps++;
	e->last_start = e->now;
	e->last_end = t_end;

	double iter_tokens = 0;
	int any_finished = 0;
	for (int k = 0; k < e->n_sched; k++) {
		int idx = e->s_idx[k];
		br_sim_req *r = &e->req[idx];
		r->n_computed += e->s_new[k];
		if (r->n_computed > r->hiwater)
			r->hiwater = r->n_computed;
		if (r->n_computed != r->in + r->n_gen)
			continue;
		/* the step produced one token for this request */
		if (r->n_gen == 0) {
			r->t_first_tok = t_end;
			e->prompt_tokens += r->in;
			iter_tokens += r->in;
			hist_observe(&e->run->hist[H_TTFT], t_end - r->t_client);
		} else {
			double gap = t_end - r->t_last_tok;
			e->run->itls[r->itl_off + (size_t)r->n_gen - 1] = gap;
			hist_observe(&e->run->hist[H_ITL], gap);
		}
		r->t_last_tok = t_end;
		r->n_gen++;
		e->gen_tokens += 1;
		iter_tokens += 1;
		if (r->n_gen == r->out) {
			finish(e, idx, t_end);
			any_finished = 1;
		}
	}
	hist_observe(&e->run->hist[H_ITER], iter_tokens);
	if (any_finished) {
		int w = 0;
		for (int k = 0; k < e->n_running; k++)
			if (e->req[e->running[k]].state != 3)
				e->running[w++] = e->running[k];
		e->n_running = w;
	}
	e->now = t_end;
	return check_limits(e);
}

/*
 * br_sim_engine_run: run the whole workload of run->cfg. Fills run->req,
 * itls, samples, log lines, histograms and preemption truth. Returns 0 or -1
 * with *cause (a configuration the scheduler cannot serve).
 */
int
br_sim_engine_run(struct br_sim_run *run, char **cause)
{
	const br_sim_config *c = &run->cfg;
	int n = c->num_prompts;
	eng e;
	memset(&e, 0, sizeof e);
	e.run = run;
	e.c = c;
	e.n = n;

	hist_init(&run->hist[H_ITER], "vllm:iteration_tokens_total", E_ITER, NE(E_ITER));
	hist_init(&run->hist[H_QUEUE], "vllm:request_queue_time_seconds", E_REQ, NE(E_REQ));
	hist_init(&run->hist[H_PREFILL], "vllm:request_prefill_time_seconds", E_REQ, NE(E_REQ));
	hist_init(&run->hist[H_DECODE], "vllm:request_decode_time_seconds", E_REQ, NE(E_REQ));
	hist_init(&run->hist[H_INFERENCE], "vllm:request_inference_time_seconds", E_REQ, NE(E_REQ));
	hist_init(&run->hist[H_TTFT], "vllm:time_to_first_token_seconds", E_TTFT, NE(E_TTFT));
	hist_init(&run->hist[H_E2E], "vllm:e2e_request_latency_seconds", E_REQ, NE(E_REQ));
	hist_init(&run->hist[H_ITL], "vllm:inter_token_latency_seconds", E_ITL, NE(E_ITL));
	setup_columns(run);

	int *in = br_xmalloc((size_t)n * sizeof(int));
	int *out = br_xmalloc((size_t)n * sizeof(int));
	double *arr = br_xmalloc((size_t)n * sizeof(double));
	double *fe_in = br_xmalloc((size_t)n * sizeof(double));
	double *fe_out = br_xmalloc((size_t)n * sizeof(double));
	br_sim_workload(c, in, out, arr);
	br_sim_frontend(c, in, n, fe_in, fe_out);
	run->n_req = n;
	run->req = br_xcalloc((size_t)n, sizeof(br_sim_req));
	size_t off = 0;
	for (int i = 0; i < n; i++) {
		br_sim_req *r = &run->req[i];
		r->in = in[i];
		r->out = out[i];
		r->t_arrival = arr[i];
		r->fe_in_s = fe_in[i];
		r->fe_out_s = fe_out[i];
		r->t_client = r->t_send = r->t_first_sched = r->t_first_tok = r->t_last_tok = r->t_fin = NAN;
		r->itl_off = off;
		off += (size_t)(out[i] - 1);
	}
	free(in);
	free(out);
	free(arr);
	free(fe_in);
	free(fe_out);
	if ((double)off > BR_SIM_MAX_ITLS) {
		if (cause)
			*cause = br_xasprintf("%s: workload.output_len: the drawn lengths give %zu inter-token "
			    "latencies over workload.num_prompts %d requests; the simulator allows at most %.0f "
			    "(they are kept in memory and in stress.json): lower num_prompts or output_len",
			    c->path, off, n, BR_SIM_MAX_ITLS);
		return -1;
	}
	run->n_itls = off;
	run->itls = br_xmalloc_huge((off ? off : 1) * sizeof(double));   /* 40 MB at 5,000 x 1,000 */

	e.req = run->req;
	e.running = br_xmalloc((size_t)n * sizeof(int));
	e.wq = br_xmalloc((size_t)n * sizeof(int));
	e.fe_pend = br_xmalloc((size_t)n * sizeof(int));
	e.s_idx = br_xmalloc((size_t)n * sizeof(int));
	e.s_new = br_xmalloc((size_t)n * sizeof(int));
	e.total_blocks = (long)(c->kv_pool_tokens / c->block_size);
	e.free_blocks = e.total_blocks;
	e.watermark_blocks = (long)(c->watermark_frac * (double)e.total_blocks);
	if (c->max_concurrency > 0) {
		e.slot_cap = c->max_concurrency;
		e.slots = br_xmalloc((size_t)e.slot_cap * sizeof(double));
		for (int i = 0; i < c->max_concurrency; i++)
			slot_push(&e, 0.0);
	}
	/* samples start 2.5 s before the first request; log lines every
	 * log_interval_s from 7 s before it (phase as a server started earlier) */
	e.next_sample = -2.5 * c->sample_interval_s;
	e.next_log = -7.0;
	e.now = 0;
	int rc = emit_until(&e, 0.0);   /* the idle server before the first request */

	while (rc == 0 && e.done < n) {
		deliver(&e);
		if (e.n_running == 0 && e.wq_n == 0) {
			double t = next_arrival(&e);
			if (isinf(t)) {
				if (cause)
					*cause = br_xasprintf("%s: internal error: no request can be sent", c->path);
				rc = -1;
				break;
			}
			if (t > BR_SIM_MAX_SPAN_S) {
				/* gamma gaps with a small burstiness can outrun the
				 * num_prompts / request_rate check of the config */
				e.err = br_xasprintf("%s: workload.request_rate: request %d of %d would be sent at "
				    "%.3g s, past the %.0f s (7 days) the simulator allows: give a higher "
				    "request_rate (now %g) or a burstiness (now %g) nearer 1", c->path,
				    e.next_send + 1, n, t, BR_SIM_MAX_SPAN_S, c->request_rate, c->burstiness);
				rc = -1;
				break;
			}
			if (emit_until(&e, t) < 0) {
				rc = -1;
				break;
			}
			e.now = t;
			continue;
		}
		if (step(&e, cause) < 0) {
			rc = -1;
			break;
		}
	}
	if (rc == 0) {
		/* the client has the last response when its outbound frontend time has passed */
		run->t_end = e.now;
		for (int i = 0; i < n; i++)
			if (run->req[i].t_fin + run->req[i].fe_out_s > run->t_end)
				run->t_end = run->req[i].t_fin + run->req[i].fe_out_s;
		rc = emit_until(&e, run->t_end + 3.0 * c->sample_interval_s);
		if (rc == 0 && e.next_log < run->t_end + c->log_interval_s)
			rc = emit_until(&e, run->t_end + c->log_interval_s + 0.001);
	}
	if (e.err) {
		if (cause)
			*cause = e.err;
		else
			free(e.err);
		rc = -1;
	}
	if (rc == 0) {
		run->n_steps = e.n_steps;
		run->max_victims = e.max_victims;
		run->recomputed_tokens = e.recomputed;
		run->flops_total = e.flops;
	}
	free(e.running);
	free(e.wq);
	free(e.fe_pend);
	free(e.s_idx);
	free(e.s_new);
	free(e.slots);
	return rc;
}

/* br_sim_run_free: release everything a run owns (safe on a zeroed run). */
void
br_sim_run_free(struct br_sim_run *run)
{
	if (run == NULL)
		return;
	br_sim_config_free(&run->cfg);
	free(run->req);
	free(run->itls);
	if (run->col_names)
		for (size_t i = 0; i < run->n_cols; i++)
			free(run->col_names[i]);
	free(run->col_names);
	free(run->rows);
	free(run->log);
	for (int h = 0; h < H_N; h++)
		free(run->hist[h].counts);
	free(run->pre);
	memset(run, 0, sizeof *run);
}
