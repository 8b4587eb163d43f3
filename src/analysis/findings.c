/*
 * Findings, recommendations and caveats (DESIGN.md §3.10).
 *
 * Each rule below reads numbers of br_analysis, compares them with explicit
 * thresholds (documented at the rule) and, when it fires, appends a sentence
 * id. A rule needs every number it compares: a NAN (unknown) number never
 * fires a rule, and no rule treats "unknown" as 0. The sentences live in
 * templates/findings.en.json; the numbers they cite that have no other
 * summary.json path are computed here as "derived" numbers.
 *
 * Order: findings (problems first, then the diagnosis and its evidence),
 * recommendations, caveats. The order is fixed; it does not depend on the
 * values.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/model.h"
#include "benchreport/findings.h"

/* ---- thresholds (each used by exactly the rule that documents it) ---- */

/* ITL spread: p90/p50 below this = decode steady ("ITL normal"). Reference
 * round 1: 22.1 / 21.46 = 1.03; round 2: 24.7 / 23.39 = 1.06. */
#define ITL_SPREAD_MAX 1.5
/* TPOT p50 / ITL p50 at or above this ("TPOT ≫ ITL") = decode slowed by more
 * than the step time. Round 2: 29.17 / 23.39 = 1.25, normal; the simulated
 * 1024/256 C = 64 run (small-1024-256.json): 51.5 / 28.8 = 1.78 from chunked-
 * prefill steps of the second wave, with ITL p90/p50 = 1.01 — not slow decode. */
#define TPOT_OVER_ITL_MAX 2.0
/* TTFT p50 more than this many times (prefill + one ITL) = TTFT exploded
 * (round 1: 219 s vs 10 × (1.06 + 0.021) s = 10.8 s). */
#define TTFT_EXPLODED_FACTOR 10.0
/* Queue share of the client mean TTFT above this = the wait is queueing
 * (round 1: 177.6 / 179 = 0.99). */
#define QUEUE_SHARE_MIN 0.8
/* Oversubscription demand / pool above this = demand exceeds the pool. */
#define OVERSUB_MIN 1.0
/* Resident share (mean running / C) below this while oversubscribed = the
 * throughput cliff (round 1: 11.17 / 64 = 0.175). */
#define RESIDENT_SHARE_CLIFF 0.5
/* An ITL gap longer than this many medians is a stall (§3.2). */
#define STALL_FACTOR 10.0
/* The longest stall is a step of the run's own kind (a prefill step, said
 * as normal) only within this many times ITL p99.9. */
#define STEP_LIKE_P999 3.0
/* p99 reads the top 1% of the ITL samples: preemption gaps fewer than this
 * share of the samples cannot reach it (round 1: 37 / 262,016 = 0.014%). */
#define P99_TAIL_SHARE 0.01
/* FLOPs excess over the calibrated model above this = recompute the token
 * counter does not see (round 1: +26.6%). */
#define FLOPS_EXCESS_MIN 0.05
/* Little's law readings within [LITTLE_LO, LITTLE_HI] agree (round 1
 * resident 52.2 / 55.9 = 0.93). */
#define LITTLE_LO 0.8
#define LITTLE_HI 1.25
/* Waiting peak at least this many times the mean running = the queue is far
 * larger than what the pool holds (round 1: 60 / 11.17 = 5.4). */
#define QUEUE_OVER_RESIDENT_MIN 2.0
/* A percentile p rests on n·(1 − p) samples beyond it; fewer than this is a
 * small sample: p99.9 needs n ≥ 10,000, p99.99 needs n ≥ 100,000. */
#define TAIL_SAMPLES_MIN 10.0
/* Mean running / the log's "Maximum concurrency ... x" within this band = the
 * log line predicted the resident requests (round 1: 11.17 / 10.60 = 1.05;
 * round 2: 15.65 / 14.66 = 1.07; above 1 because a request holds less than
 * its full length most of its life). */
#define RED_LINE_LO 0.9
#define RED_LINE_HI 1.25
/* Tokens released per preemption / tokens held by an average running request
 * just before, within this band = one victim per preemption (round 1: 6,529
 * released, one request's context). */
#define ONE_VICTIM_LO 0.5
#define ONE_VICTIM_HI 1.5

/* KV cache usage at or above this share of the pool at its peak = the KV
 * cache filled (round 1: peak 99.58%, >= 90% in 82.5% of the samples); a
 * peak below it leaves room for another request of most workloads. */
#define KV_FULL_FRAC 0.9
/* Open loop: completions per second below this share of the offered rate
 * (with a growing queue) = the server did not keep up. A finite run that
 * keeps up still completes a little below the rate (the last requests'
 * latency is in the duration), hence the margin. */
#define OPEN_LOOP_KEEP_UP 0.9

/* The run's mean context more than this many times beyond the calibration
 * runs' span = the FLOPs cost line is extrapolated (the report's FLOPs
 * ledger says so too). */
#define FLOPS_STRETCH_MAX 1.25

/* KV usage more than this many times what the running requests can hold =
 * the usage column is misread (a percent series below 1 read as a fraction
 * is 100× too high). */

/* The queue's share of a request's mean E2EL from which "where a
 * request's time went" is a finding: more than half of it. */
#define QUEUE_LIFE_MIN 0.5

/* Keys of the derived numbers, in the order they are stored. */
enum {
	D_ITL_P90_OVER_P50,
	D_TPOT_OVER_ITL,
	D_PREFILL_PLUS_ITL_S,
	D_TTFT_OVER_PREFILL_ITL,
	D_PREEMPTIONS,
	D_PREEMPTION_ITL_SHARE,
	D_ITL_P99_OVER_P50,
	D_ITL_MAX_OVER_P50,
	D_WAITING_OVER_RUNNING,
	D_MAX_NUM_SEQS_BASIS,
	D_MAX_NUM_SEQS,
	D_TTFT_BEYOND_P99,
	D_TTFT_BEYOND_P999,
	D_ITL_BEYOND_P999,
	D_ITL_BEYOND_P9999,
	D_SCHEDULED_TOKENS,
	D_SCHEDULED_TOKENS_MIN,
	D_FLOPS_MEASURED,
	D_FLOPS_PREDICTED,
	D_FLOPS_EXCESS_FRAC,
	D_RECOMPUTED_TOKENS,
	D_RELEASED_TOKENS_TOTAL,
	D_RECOMPUTE_S,
	D_RECOMPUTE_SHARE,
	D_RECOMPUTE_PREFILL_SHARE,
	D_RUNNING_OVER_LOG_X,
	D_HELD_TOKENS_PER_RUNNING,
	D_RELEASED_OVER_HELD,
	D_REQUEST_TOKENS_MEAN,
	D_IN_FLIGHT,
	D_OPEN_LOOP_KEPT,
	D_SENT_RPS,
	D_KV_HELD_MAX_FRAC,
	D_KV_HELD_MAX_TOKENS,
	D_E2EL_MEAN_S,
	D_DECODE_MEAN_S,
	D_QUEUE_OVER_E2EL,
	D_RECOMPUTED_PER_PREEMPTION,
	D_N
};

static const char *const D_KEY[D_N] = {
	"itl_p90_over_p50",
	"tpot_p50_over_itl_p50",
	"prefill_plus_itl_s",
	"ttft_p50_over_prefill_itl",
	"preemptions",
	"preemption_itl_share",
	"itl_p99_over_p50",
	"itl_max_over_p50",
	"waiting_peak_over_running_mean",
	"max_num_seqs_basis",
	"max_num_seqs_recommended",
	"ttft_samples_beyond_p99",
	"ttft_samples_beyond_p99_9",
	"itl_samples_beyond_p99_9",
	"itl_samples_beyond_p99_99",
	"scheduled_tokens",
	"scheduled_tokens_minimum",
	"flops_measured",
	"flops_predicted",
	"flops_excess_frac",
	"recomputed_tokens",
	"released_tokens_total",
	"recompute_s",
	"recompute_share_frac",
	"recompute_prefill_share_frac",
	"running_mean_over_log_max_concurrency",
	"held_tokens_per_running_request",
	"released_over_held",
	"request_tokens_mean",
	"requests_in_flight",
	"completed_over_offered_rate",
	"sent_rps",
	"kv_held_max_frac",
	"kv_held_max_tokens",
	"e2el_mean_s",
	"decode_mean_s",
	"queue_over_e2el_frac",
	"recomputed_per_preemption_tokens",
};

/* num: 1 when x is a finite number (NAN and ±Inf are "unknown"). */
static int
num(double x)
{
	return isfinite(x);
}

/* ratio: a / b when both are known and b > 0, else NAN. */
static double
ratio(double a, double b)
{
	return num(a) && num(b) && b > 0 ? a / b : NAN;
}

/* add: append one finding. */
static void
add(br_findings *f, const char *id, int severity, int kind)
{
	f->v = br_xrealloc(f->v, (f->n + 1) * sizeof *f->v);
	f->v[f->n].id = id;
	f->v[f->n].severity = severity;
	f->v[f->n].kind = kind;
	f->n++;
}

/*
 * ledger_row: the ledger row of `series`, or NULL when the ledger is
 * unavailable or has no such row.
 */
static const br_ledger_row *
ledger_row(const br_ledger *l, br_role role)
{
	if (!l->available || l->rows == NULL)
		return NULL;
	for (size_t i = 0; i < l->n_rows; i++)
		if (l->rows[i].series && l->rows[i].role == (int)role)
			return &l->rows[i];
	return NULL;
}

/*
 * metric_p: the latency statistics of metric k when it has any (has_stats,
 * or a positive count for blocks that predate has_stats), else NULL. From
 * the file's statistics the ITL count is 0 (unknown) while its percentiles
 * are known.
 */
static const br_describe_t *
metric_p(const br_latency *l, int k)
{
	return l->has_stats[k] || l->m[k].count > 0 ? &l->m[k] : NULL;
}

/*
 * preemption_count: Δ num_preemptions_total over the run: the preemption
 * block's count when known, else the residency block's; NAN when neither.
 */
double
br_preemption_count(const br_analysis *a)
{
	if (a->preemptions.count_available && num(a->preemptions.n_preemptions))
		return a->preemptions.n_preemptions;
	if (a->residency.available && num(a->residency.preemptions))
		return a->residency.preemptions;
	return NAN;
}

/*
 * has_flops_counter: 1 when the metrics hold vllm:estimated_flops_per_gpu_total
 * with at least one sampled value.
 */
static int
has_flops_counter(const br_run *r)
{
	if (r == NULL || r->metrics == NULL)
		return 0;
	const double *c = br_role_col(r->metrics, BR_ROLE_FLOPS);
	if (c == NULL)
		return 0;
	for (size_t i = 0; i < r->metrics->n_rows; i++)
		if (num(c[i]))
			return 1;
	return 0;
}

/*
 * log_has_preemption_numbers: 1 when any periodic stats line of the log
 * states a preemption count (vLLM since 2025-11) or a V0 cumulative total.
 */
int
br_log_states_preemptions(const br_server_log *l)
{
	if (num(l->v0_cumulative_preemptions))
		return 1;
	for (size_t i = 0; i < l->n_stats; i++)
		if (num(l->stats[i].preemptions))
			return 1;
	return 0;
}

/* Every number the rules compare, gathered once. */
typedef struct facts {
	double d[D_N];
	/* latency (ms unless _s) */
	double itl_p50, itl_p90, itl_p99, itl_p9999, itl_max, itl_n;
	double tpot_p50, ttft_p50_s, ttft_n;
	int itl_from_arrays;
	double preemptions;
	/* TTFT split */
	double prefill_s, queue_share;
	int max_num_seqs_by_workload;   /* the cap is P / (in + out), not the log's line */
} facts;

/*
 * gather: fill the facts and the derived numbers from the analysis blocks.
 * Every derived number is NAN unless all its inputs are known.
 */
static void
gather(const br_analysis *a, facts *x)
{
	for (int i = 0; i < D_N; i++)
		x->d[i] = NAN;
	const br_latency *l = &a->latency;
	const br_describe_t *itl = metric_p(l, BR_ITL), *ttft = metric_p(l, BR_TTFT);
	const br_describe_t *tpot = metric_p(l, BR_TPOT);
	x->itl_p50 = itl ? itl->median : NAN;
	x->itl_p90 = itl ? itl->p90 : NAN;
	x->itl_p99 = itl ? itl->p99 : NAN;
	x->itl_p9999 = itl ? itl->p9999 : NAN;
	/* the ITL count is the number of gaps only when recomputed from arrays;
	 * from the file's statistics it is the request count */
	x->itl_from_arrays = l->from_arrays && itl != NULL;
	x->itl_n = x->itl_from_arrays ? (double)itl->count : NAN;
	x->itl_max = x->itl_from_arrays ? itl->max : NAN;
	x->tpot_p50 = tpot ? tpot->median : NAN;
	x->ttft_p50_s = ttft && num(ttft->median) ? ttft->median / 1000.0 : NAN;
	x->ttft_n = ttft && ttft->count > 0 ? (double)ttft->count : NAN;
	x->preemptions = br_preemption_count(a);
	x->prefill_s = a->ttft_split.available ? a->ttft_split.prefill_s : NAN;
	x->queue_share = a->ttft_split.available ? a->ttft_split.queue_share : NAN;

	/* a request's life, mean over the successful requests: queue + prefill
	 * + frontend (the TTFT split, summing to the client's mean TTFT) +
	 * decode (E2EL mean - TTFT mean); the same requests on both sides */
	const br_describe_t *e2el = metric_p(l, BR_E2EL);
	const br_ttft_split *ts = &a->ttft_split;
	/* the server's histograms must have seen the requests E2EL covers: a
	 * count that differs (failed requests the server queued too) or a
	 * negative frontend residual means the two sides are other requests
	 * (brk23: 150 queued, 110 succeeded, "-4.20 s in the frontend") */
	if (ts->available && !ts->population_differs && !ts->frontend_negative && e2el && num(e2el->mean) &&
	    num(ts->client_ttft_mean_s) && num(ts->queue_s) && e2el->mean / 1000.0 >= ts->client_ttft_mean_s &&
	    num(ts->server_requests) && ts->server_requests == (double)e2el->count) {
		x->d[D_E2EL_MEAN_S] = e2el->mean / 1000.0;
		x->d[D_DECODE_MEAN_S] = x->d[D_E2EL_MEAN_S] - ts->client_ttft_mean_s;
		x->d[D_QUEUE_OVER_E2EL] = ratio(ts->queue_s, x->d[D_E2EL_MEAN_S]);
	}

	x->d[D_ITL_P90_OVER_P50] = ratio(x->itl_p90, x->itl_p50);
	x->d[D_TPOT_OVER_ITL] = ratio(x->tpot_p50, x->itl_p50);
	if (num(x->prefill_s) && num(x->itl_p50))
		x->d[D_PREFILL_PLUS_ITL_S] = x->prefill_s + x->itl_p50 / 1000.0;
	x->d[D_TTFT_OVER_PREFILL_ITL] = ratio(x->ttft_p50_s, x->d[D_PREFILL_PLUS_ITL_S]);
	x->d[D_PREEMPTIONS] = x->preemptions;
	x->d[D_PREEMPTION_ITL_SHARE] = ratio(x->preemptions, x->itl_n);
	x->d[D_ITL_P99_OVER_P50] = ratio(x->itl_p99, x->itl_p50);
	x->d[D_ITL_MAX_OVER_P50] = ratio(x->itl_max, x->itl_p50);
	if (a->residency.available)
		x->d[D_WAITING_OVER_RUNNING] = ratio(a->residency.waiting_peak,
		    a->residency.running_mean);

	/* --max-num-seqs: how many of this run's requests the pool holds at
	 * their full length (in + out). When that length is max_model_len
	 * (within 5%: the reference rounds) it is the log's "Maximum
	 * concurrency" line (else P / M); for shorter requests the log's line,
	 * which assumes max_model_len, would cap far below what fits. */
	const br_capacity *c = &a->capacity;
	double basis = NAN, seq = NAN;
	if (num(c->mean_input_tokens) && num(c->mean_output_tokens))
		seq = c->mean_input_tokens + c->mean_output_tokens;
	int at_model_len = num(seq) && num(c->max_model_len_tokens) && c->max_model_len_tokens > 0 &&
	    fabs(seq - c->max_model_len_tokens) <= 0.05 * c->max_model_len_tokens;
	x->max_num_seqs_by_workload = 0;
	if (at_model_len || !num(seq)) {
		if (num(c->log_max_concurrency_x) && c->log_max_concurrency_x >= 1)
			basis = c->log_max_concurrency_x;
		else if (num(c->predicted_max_concurrency) && c->predicted_max_concurrency >= 1)
			basis = c->predicted_max_concurrency;
	} else if (c->available && num(c->kv_pool_tokens) && seq > 0 && c->kv_pool_tokens / seq >= 1) {
		basis = c->kv_pool_tokens / seq;
		x->max_num_seqs_by_workload = 1;
	}
	x->d[D_MAX_NUM_SEQS_BASIS] = basis;
	x->d[D_MAX_NUM_SEQS] = num(basis) ? floor(basis) : NAN;

	if (num(x->ttft_n)) {
		x->d[D_TTFT_BEYOND_P99] = x->ttft_n * 0.01;
		x->d[D_TTFT_BEYOND_P999] = x->ttft_n * 0.001;
	}
	if (num(x->itl_n)) {
		x->d[D_ITL_BEYOND_P999] = x->itl_n * 0.001;
		x->d[D_ITL_BEYOND_P9999] = x->itl_n * 0.0001;
	}

	/* open loop: completions per second over the offered rate */
	if (a->run && a->run->bench.n > 0) {
		const br_bench *ob = &a->run->bench.runs[0];
		/* the rate the client really sent (its start times; a finite Poisson
		 * draw strays from request_rate: 8.07 for 8 req/s, twenty-first
		 * breaker), else the nominal one */
		double sent = br_bench_sent_rps(ob);
		x->d[D_SENT_RPS] = num(sent) ? sent : num(ob->request_rate_rps) ? ob->request_rate_rps : NAN;
		if (!num(ob->max_concurrency))
			x->d[D_OPEN_LOOP_KEPT] = ratio(ob->request_throughput_rps, x->d[D_SENT_RPS]);
	}

	/* the most KV cache the running requests can hold (br_kv_held_max_tokens), as a share of the pool */
	if (num(c->kv_pool_tokens) && c->kv_pool_tokens > 0) {
		x->d[D_KV_HELD_MAX_TOKENS] = br_kv_held_max_tokens(a->run, c, &a->residency);
		x->d[D_KV_HELD_MAX_FRAC] = x->d[D_KV_HELD_MAX_TOKENS] / c->kv_pool_tokens;
	}

	/* tokens per request (input + output), for the llama.cpp slot-context check */
	if (a->run && a->run->bench.n > 0 && a->run->bench.runs[0].completed > 0 &&
	    br_run_engine(a->run) == BR_ENGINE_LLAMACPP) {
		const br_bench *bb = &a->run->bench.runs[0];
		x->d[D_REQUEST_TOKENS_MEAN] = (bb->total_input_tokens + bb->total_output_tokens) / bb->completed;
		/* requests the client kept in flight: the capacity block's, else min(C, prompts) */
		double ceff = a->capacity.effective_concurrency;
		if (!num(ceff) && num(bb->max_concurrency))
			ceff = num(bb->num_prompts) && bb->num_prompts < bb->max_concurrency ? bb->num_prompts :
			    bb->max_concurrency;
		x->d[D_IN_FLIGHT] = ceff;
	}

	const br_ledger_row *it = ledger_row(&a->ledger, BR_ROLE_SCHEDULED_TOKENS);
	if (it && num(it->server_delta) && num(it->client_value)) {
		x->d[D_SCHEDULED_TOKENS] = it->server_delta;
		x->d[D_SCHEDULED_TOKENS_MIN] = it->client_value;
	}

	const br_flops_ledger *fl = &a->flops;
	if (fl->available) {
		x->d[D_FLOPS_MEASURED] = num(fl->m.flops) ? fl->m.flops : NAN;
		x->d[D_FLOPS_PREDICTED] = num(fl->predicted_flops) ? fl->predicted_flops : NAN;
		x->d[D_FLOPS_EXCESS_FRAC] = num(fl->excess_frac) ? fl->excess_frac : NAN;
		x->d[D_RECOMPUTED_TOKENS] = num(fl->recomputed_tokens) ? fl->recomputed_tokens : NAN;
		x->d[D_RELEASED_TOKENS_TOTAL] = num(fl->released_tokens_total) ?
		    fl->released_tokens_total : NAN;
		if (num(fl->recompute_s) && num(fl->recompute_share_frac)) {
			x->d[D_RECOMPUTE_S] = fl->recompute_s;
			x->d[D_RECOMPUTE_SHARE] = fl->recompute_share_frac;
		}
	}
	/* recomputed tokens per preemption (the reference: 286k / 37 = 7,732,
	 * against 6,529 released per preemption) */
	x->d[D_RECOMPUTED_PER_PREEMPTION] = num(x->preemptions) && x->preemptions > 0 ?
	    ratio(x->d[D_RECOMPUTED_TOKENS], x->preemptions) : NAN;
	/* recomputed prefill as a share of the prompt tokens (reference card "+33%") */
	const br_bench *bb = a->run && a->run->bench.n > 0 ? &a->run->bench.runs[0] : NULL;
	if (num(x->d[D_RECOMPUTED_TOKENS]) && num(x->preemptions) && x->preemptions > 0 && bb &&
	    num(bb->total_input_tokens) && bb->total_input_tokens > 0)
		x->d[D_RECOMPUTE_PREFILL_SHARE] = x->d[D_RECOMPUTED_TOKENS] / bb->total_input_tokens;
	if (a->residency.available && num(a->residency.running_mean) && a->capacity.available &&
	    num(a->capacity.log_max_concurrency_x) && a->capacity.log_max_concurrency_x > 0)
		x->d[D_RUNNING_OVER_LOG_X] = a->residency.running_mean / a->capacity.log_max_concurrency_x;
	/* tokens an average running request held just before each preemption:
	 * KV usage before × P / running before, averaged over the events */
	const br_preemptions *pe = &a->preemptions;
	if (pe->available && pe->events && pe->n_events > 0 && a->capacity.available &&
	    num(a->capacity.kv_pool_tokens)) {
		double sum = 0;
		size_t n = 0;
		for (size_t i = 0; i < pe->n_events; i++) {
			const br_preemption_event *e = &pe->events[i];
			if (num(e->kv_before_frac) && num(e->running_before) && e->running_before > 0) {
				sum += e->kv_before_frac * a->capacity.kv_pool_tokens / e->running_before;
				n++;
			}
		}
		if (n > 0) {
			x->d[D_HELD_TOKENS_PER_RUNNING] = sum / (double)n;
			if (!pe->released_unreadable && num(pe->mean_released_per_preemption_tokens))
				x->d[D_RELEASED_OVER_HELD] = pe->mean_released_per_preemption_tokens /
				    x->d[D_HELD_TOKENS_PER_RUNNING];
		}
	}
	/* the budget holds the same recompute time when the ledger's share is unknown */
	if (!num(x->d[D_RECOMPUTE_S]) && a->budget.available &&
	    num(a->budget.recompute_s) && num(a->budget.recompute_frac)) {
		x->d[D_RECOMPUTE_S] = a->budget.recompute_s;
		x->d[D_RECOMPUTE_SHARE] = a->budget.recompute_frac;
	}
}

/* preempted: the run is known to have preempted (a count above 0, a lower
 * bound included). */
static int
preempted(const facts *x)
{
	return num(x->preemptions) && x->preemptions > 0;
}

/* no_preemption: the run is proven free of preemptions: a count of 0 that
 * is not a lower bound. Neither this nor preempted: the count is unknown,
 * and a sentence may not read it either way (audit: "with no preemption in
 * the run" printed beside a preemption card reading n/a). */
static int
no_preemption(const br_analysis *a, const facts *x)
{
	return num(x->preemptions) && x->preemptions == 0 && !a->preemptions.count_lower_bound;
}

/*
 * token_counter_misses: 1 when the FLOPs counter exceeds the calibrated
 * model by more than FLOPS_EXCESS_MIN while Δ iteration_tokens_total_sum
 * equals Σ(in+out) within half a token: the recompute is in the FLOPs, not
 * in the token counter.
 */
static int
token_counter_misses(const facts *x)
{
	double st = x->d[D_SCHEDULED_TOKENS], sm = x->d[D_SCHEDULED_TOKENS_MIN];
	/* recompute needs a preemption: with none counted, or no count, the
	 * excess may be something else (the cost line, prefix reuse,
	 * speculation) */
	return num(x->d[D_FLOPS_EXCESS_FRAC]) && x->d[D_FLOPS_EXCESS_FRAC] > FLOPS_EXCESS_MIN &&
	    num(st) && num(sm) && fabs(st - sm) <= 0.5 && preempted(x);
}

/*
 * decode_slow: 1 when decoding itself is slow: ITL p90/p50 >= 1.5 or TPOT
 * p50 / ITL p50 >= 2 (the TPOT test only when TPOT is known); 0 when the
 * ITL spread is known and neither holds; -1 when the ITL spread is unknown.
 */
static int
decode_slow(const facts *x)
{
	double spread = x->d[D_ITL_P90_OVER_P50];
	if (!num(spread))
		return -1;
	if (spread >= ITL_SPREAD_MAX)
		return 1;
	double tr = x->d[D_TPOT_OVER_ITL];
	if (num(tr) && tr >= TPOT_OVER_ITL_MAX)
		return 1;
	return 0;
}

/*
 * ttft_exploded: 1 when TTFT p50 > 10 × (prefill + ITL p50) AND the queue
 * holds > 80% of the mean TTFT; 0 when both are known and either fails; -1
 * when a number is unknown (needs the TTFT split, i.e. metrics). Both tests
 * are required: a run with C slightly above the pool (1024/256) queues
 * most of a short TTFT (queue share 0.85) without TTFT exploding.
 */
static int
ttft_exploded(const facts *x)
{
	double r = x->d[D_TTFT_OVER_PREFILL_ITL];
	if (!num(r) || !num(x->queue_share))
		return -1;
	return r > TTFT_EXPLODED_FACTOR && x->queue_share > QUEUE_SHARE_MIN;
}

/* What the queued requests waited for, from the data (queue_holder). */
enum { HOLD_UNKNOWN, HOLD_KV, HOLD_SEQS, HOLD_BOTH };

/*
 * log_cap_reached: 1 when the running count reached the log's max_num_seqs
 * (llama.cpp: n_slots) at its peak; 0 when both are known and it did not
 * or either is unknown.
 */
static int
log_cap_reached(const br_analysis *a)
{
	const br_residency *res = &a->residency;
	double cap = br_log_cap(a->run, NULL, NULL);   /* NAN when the run contradicts the log */
	return res->available && num(res->running_peak) && num(cap) && cap > 0 && res->running_peak >= cap;
}

/*
 * oversubscribed: the demand of the requests in flight, C_eff·(in + out),
 * exceeds the KV pool by more than OVERSUB_MIN. With one request at a time
 * (C_eff <= 1) nothing shares the pool, so nothing can queue for it or be
 * preempted by another: a request longer than its context is
 * slot_context_short's finding, not oversubscription.
 */
static int
oversubscribed(const br_capacity *c)
{
	return c->available && num(c->oversubscription) && c->oversubscription > OVERSUB_MIN &&
	    !(num(c->effective_concurrency) && c->effective_concurrency > 0 && c->effective_concurrency <= 1);
}

/*
 * queue_holder: what the queued requests waited for. HOLD_KV when the KV
 * cache filled: its usage peak reached KV_FULL_FRAC of the pool, or left
 * less room than one mean prompt (1 − input / P: the admission gate needs
 * a whole prompt's blocks); without a KV usage series, when the scheduler
 * preempted, or demand exceeded the pool while running stayed below the
 * log's max_num_seqs. HOLD_SEQS when the running count
 * reached the log's max_num_seqs while the KV cache did not fill (known
 * from its usage series; llama.cpp: its n_slots reached, whatever the KV
 * usage). HOLD_BOTH when both limits were reached and the KV usage peak is
 * known. HOLD_UNKNOWN otherwise (no series, no log cap, or the cap
 * reached without a KV usage series).
 */
static int
queue_holder(const br_analysis *a, const facts *x)
{
	const br_residency *res = &a->residency;
	const br_capacity *c = &a->capacity;
	double kv_peak = res->available ? res->kv_peak_frac : NAN;
	double full = KV_FULL_FRAC;
	if (c->available && num(c->kv_pool_tokens) && c->kv_pool_tokens > 0 && num(c->mean_input_tokens) &&
	    1 - c->mean_input_tokens / c->kv_pool_tokens < full)
		full = 1 - c->mean_input_tokens / c->kv_pool_tokens;
	int oversub = oversubscribed(c);
	/* a KV usage series decides; without one, a preemption stands in for
	 * it, or demand above the pool while running stayed below a known cap
	 * on running requests (with the cap unknown, it may have held the
	 * queue first: audit, "requests wait for KV cache" said of a run held
	 * at max_num_seqs = 8 with no preemption, its args line gone) */
	double cap = br_log_cap(a->run, NULL, NULL);
	int below_cap = num(cap) && res->available && num(res->running_peak) && res->running_peak < cap;
	int kv_full = num(kv_peak) ? kv_peak >= full : (num(x->preemptions) && x->preemptions > 0) ||
	    (oversub && below_cap);
	int cap_reached = log_cap_reached(a);
	/* llama-server: requests wait for one of its slots (each with its own
	 * context); a KV usage series is not needed to say so */
	if (cap_reached && br_run_engine(a->run) == BR_ENGINE_LLAMACPP)
		return HOLD_SEQS;
	if (cap_reached && kv_full)
		return num(kv_peak) ? HOLD_BOTH : HOLD_UNKNOWN;   /* the sentences cite the KV peak */
	if (cap_reached)
		return num(kv_peak) ? HOLD_SEQS : HOLD_UNKNOWN;
	return kv_full ? HOLD_KV : HOLD_UNKNOWN;
}

/* ---- the rules ---- */

static void
findings_rules(const br_analysis *a, const facts *x, br_findings *f)
{
	const br_run *r = a->run;
	const br_capacity *c = &a->capacity;
	const br_residency *res = &a->residency;
	int slow = decode_slow(x), exploded = ttft_exploded(x), holder = queue_holder(a, x);
	int oversub = oversubscribed(c);

	/* One engine step stalled several requests at once (latency.c stall_event). */
	if (a->latency.stall_event_known &&
	    a->latency.stall_event_streams + a->latency.stall_event_first_tokens >= 3) {
		/* it gave waiting requests their first token and the run is proven
		 * free of preemptions (no recompute): a prefill step of chunked
		 * prefill, said as the normal thing it is */
		/* ... and the gap is of the run's own kind: within STEP_LIKE_P999 ×
		 * ITL p99.9 (the steps that carry prompt chunks recur through a run
		 * and reach p99.9; a gap far beyond them is an event: audit, a
		 * 5.2 s pause of the server called a prefill step where the run's
		 * longest step was 0.21 s) */
		const br_describe_t *itl = &a->latency.m[BR_ITL];
		int step_like = num(itl->p999) && itl->p999 > 0 &&
		    a->latency.stall_event_ms <= STEP_LIKE_P999 * itl->p999;
		int calm = no_preemption(a, x) && step_like;
		if (calm && a->latency.stall_event_first_tokens > 0)
			add(f, "engine_stall_prefill", BR_SEV_INFO, BR_FINDING);
		else if (calm && a->latency.itl_stalls_known && a->latency.itl_stalls >= 10)
			/* one of many such gaps and no preemption: the rhythm of prompt
			 * chunks sharing the steps (a prompt longer than the token budget
			 * takes several steps, its middle ones give no first token),
			 * not an event (twentieth breaker: "a pause of the server" for
			 * one of 512 alike gaps at C = 4 with 6,144-token prompts) */
			add(f, "engine_stall_chunks", BR_SEV_INFO, BR_FINDING);
		else
			add(f, "engine_stall", BR_SEV_NOTICE, BR_FINDING);
	}

	/* Inputs in the folder that are not this run's (provenance.c). */
	if (r && r->n_set_aside > 0)
		add(f, "inputs_set_aside", BR_SEV_PROBLEM, BR_FINDING);

	/* The server log ends in a traceback before the KV cache line. */
	if (r && r->log && r->log->did_not_start)
		add(f, "server_did_not_start", BR_SEV_PROBLEM, BR_FINDING);

	/* Any failed request (from the arrays, else the file's `failed`). */
	if (a->latency.n_failed > 0)
		add(f, a->latency.n_succeeded > 0 ? "failed_requests" :
		    a->latency.n_error_groups > 0 ? "all_requests_failed" : "all_requests_failed_no_errors",
		    BR_SEV_PROBLEM, BR_FINDING);

	/* Capacity, not compute: decode steady (ITL p90/p50 < 1.5 and TPOT/ITL
	 * < 2 when known) while TTFT exploded (see ttft_exploded). What the
	 * queue waited for is said only as far as the data show it
	 * (queue_holder): the KV cache, the running-request cap, both, or
	 * unknown. */
	if (slow == 0 && exploded == 1)
		add(f, holder == HOLD_KV ? "capacity_not_compute" : holder == HOLD_SEQS ? "capacity_not_compute_seqs" :
		    holder == HOLD_BOTH ? "capacity_not_compute_both" : "capacity_not_compute_queue",
		    BR_SEV_PROBLEM, BR_FINDING);

	/* Decode-bound: ITL p90/p50 >= 1.5 or TPOT p50/ITL p50 >= 2. But when
	 * requests spent 20% or more longer decoding than (out - 1) x ITL p50
	 * with no preemption to explain it (the budget's decode time stolen),
	 * the long gaps are steps shared with other requests' prefill chunks,
	 * and that is said instead of a slow decode (fifteenth breaker: a
	 * steady 21.5 ms median with a 116 ms p90 called "decoding itself is
	 * slow" while the budget put 86% more decode time on prefill). */
	if (slow == 1) {
		const br_budget *bg = &a->budget;
		int pre = preempted(x), none = no_preemption(a, x);
		/* under speculative decoding the budget counts gaps, not tokens, and
		 * cannot tell prefill from a longer verification: no "prefill" here */
		int stolen = num(bg->decode_stolen_frac) && bg->decode_stolen_frac >= 0.2 && !bg->decode_in_gaps;
		/* with preemptions the KV cache has its part in the uneven steps
		 * (recompute chunks, a victim's wait out of the batch): never "the
		 * GPU's step time, not the KV cache" (twentieth breaker: said beside
		 * 27 preemptions at 99.2% KV usage); with the count unknown, neither
		 * reading is proven and the sentence says so */
		add(f, stolen ? (pre ? "decode_shares_prefill_preempted" : none ? "decode_shares_prefill" :
		    "decode_shares_prefill_count_unknown") :
		    pre ? "decode_uneven_preempted" : none ? "decode_bound" : "decode_uneven_count_unknown",
		    BR_SEV_NOTICE, BR_FINDING);
	} else if (slow == 0 && num(a->budget.decode_stolen_frac) && a->budget.decode_stolen_frac >= 0.2 &&
	    !a->budget.decode_in_gaps && no_preemption(a, x)) {
		/* a steady p90, yet decode 20%+ longer than its median step predicts:
		 * the time sits in the few steps that carry a prefill chunk, beyond
		 * p90 (seventeenth breaker: "no rule fired" beside a 37.5% excess) */
		add(f, "decode_tail_prefill", BR_SEV_INFO, BR_FINDING);
	}

	/* llama.cpp: requests longer than a slot's context (mean input + output
	 * of the bench against the log's per-slot context) */
	if (r && r->log && br_run_engine(r) == BR_ENGINE_LLAMACPP && num(r->log->ctx_per_slot_tokens) &&
	    num(x->d[D_REQUEST_TOKENS_MEAN]) && x->d[D_REQUEST_TOKENS_MEAN] > r->log->ctx_per_slot_tokens)
		add(f, "slot_context_short", BR_SEV_PROBLEM, BR_FINDING);

	/* A slot server with more requests in flight than slots (llama.cpp:
	 * requests beyond n_slots wait, deferred; there is no preemption). */
	double log_cap = br_log_cap(r, NULL, NULL);
	int log_slots = num(log_cap);
	double n_slots = log_slots ? log_cap : a->capacity.n_slots_listed;
	if (r && br_run_engine(r) == BR_ENGINE_LLAMACPP && num(n_slots) &&
	    num(x->d[D_IN_FLIGHT]) && x->d[D_IN_FLIGHT] > n_slots) {
		if (log_slots)
			add(f, !res->available ? "slots_bound_no_series" :
			    num(res->waiting_peak) ? "slots_bound" : "slots_bound_no_queue", BR_SEV_PROBLEM, BR_FINDING);
		else   /* no log states n_slots: the count /slots listed (a series exists then) */
			add(f, num(res->waiting_peak) ? "slots_bound_listed" : "slots_bound_listed_no_queue",
			    BR_SEV_PROBLEM, BR_FINDING);
	}

	/* Oversubscription: demand C_eff·(in+out) > pool P, C_eff =
	 * min(max_concurrency, num_prompts) (capacity block). */
	if (oversub)
		add(f, "oversubscribed", BR_SEV_PROBLEM, BR_FINDING);

	/* Throughput cliff: oversubscribed and mean running / C_eff < 0.5. */
	if (oversub && res->available && num(res->resident_share) &&
	    res->resident_share < RESIDENT_SHARE_CLIFF)
		add(f, br_run_engine(r) == BR_ENGINE_LLAMACPP ? "throughput_cliff" :   /* its sentence names the slots */
		    holder == HOLD_SEQS ? "throughput_cliff_seqs" : holder == HOLD_BOTH ? "throughput_cliff_both" :
		    holder == HOLD_KV ? "throughput_cliff" : "throughput_cliff_queue", BR_SEV_PROBLEM, BR_FINDING);

	/* The preemption control loop: > 0 preemptions with >= 2 events
	 * located in the 1 Hz series (interval and trigger level known). */
	const br_preemptions *p = &a->preemptions;
	if (num(x->preemptions) && x->preemptions > 0 && p->available &&
	    p->n_events >= 2 && num(p->trigger_kv_frac) && num(p->mean_interval_s))
		add(f, !p->released_unreadable && num(p->mean_released_per_preemption_tokens) ? "preemption_loop" :
		    p->released_unreadable ? "preemption_loop_no_release" : "preemption_loop_no_pool",
		    BR_SEV_NOTICE, BR_FINDING);

	/* Preemption as part of the steady state: BR_PREEMPTION_STEADY_MIN or
	 * more preemptions over most of the window at a pace a constant rate
	 * explains (Kolmogorov-Smirnov, 5%; steady_pace in preemption.c; the
	 * reference's Figure 5) */
	if (p->available && num(p->steady_ks_d) && num(p->steady_ks_crit) && p->steady_ks_d < p->steady_ks_crit)
		add(f, "preemption_steady_state", BR_SEV_INFO, BR_FINDING);

	/* Preemptions invisible at p99: preemptions > 0, the longest ITL gap is
	 * a stall (> 10 × p50), and the preemption gaps are fewer than 1% of the
	 * ITL samples (preemptions / n < 0.01), so p99 cannot reach them. (The
	 * brief's "p99 < 10 × p50" test is not used: chunked prefill puts p99
	 * at ~10 × p50 on its own — round 1: 215.6 vs 214.6 ms.) A count
	 * from a capture cut at an edge is only a lower bound: the share it
	 * gives bounds nothing, so the rule stays silent. */
	if (num(x->preemptions) && x->preemptions > 0 && !a->preemptions.count_lower_bound &&
	    num(x->d[D_ITL_MAX_OVER_P50]) && x->d[D_ITL_MAX_OVER_P50] > STALL_FACTOR &&
	    num(x->d[D_PREEMPTION_ITL_SHARE]) && x->d[D_PREEMPTION_ITL_SHARE] < P99_TAIL_SHARE)
		/* most stalls past the threshold are then prefill steps, not
		 * preemptions: the count alone does not show them (twentieth
		 * breaker: 37 of 1,240 stalls were preemptions) */
		add(f, a->latency.itl_stalls_known && (double)a->latency.itl_stalls > 2 * x->preemptions ?
		    "preemptions_invisible_p99_prefill" : "preemptions_invisible_p99", BR_SEV_NOTICE, BR_FINDING);

	/* Token counter misses recompute: FLOPs excess > 5% over the calibrated
	 * model while Δ iteration_tokens_total_sum equals Σ(in+out) (within half
	 * a token). */
	if (token_counter_misses(x))
		add(f, num(x->d[D_RELEASED_TOKENS_TOTAL]) ? "token_counter_misses_recompute" :
		    "token_counter_misses_recompute_no_release", BR_SEV_NOTICE, BR_FINDING);

	/* Recompute share of the wall time: preemptions > 0 and a positive
	 * recompute time (FLOPs ledger, else the budget). */
	if (num(x->preemptions) && x->preemptions > 0 &&
	    num(x->d[D_RECOMPUTE_S]) && x->d[D_RECOMPUTE_S] > 0 &&
	    num(x->d[D_RECOMPUTE_SHARE]))
		add(f, "recompute_share", BR_SEV_NOTICE, BR_FINDING);

	/* One victim per preemption: the released tokens are about one running
	 * request's context and no sample holds more than one preemption. */
	if (num(x->d[D_RELEASED_OVER_HELD]) && x->d[D_RELEASED_OVER_HELD] >= ONE_VICTIM_LO &&
	    x->d[D_RELEASED_OVER_HELD] <= ONE_VICTIM_HI && a->preemptions.n_multi_events == 0 &&
	    a->preemptions.n_gap_multi_events == 0 && a->preemptions.n_events >= 2)
		add(f, "one_victim_per_preemption", BR_SEV_INFO, BR_FINDING);

	/* The log's capacity line is the red line: oversubscribed, and the mean
	 * running within [0.9, 1.25] of the log's maximum concurrency. */
	if (a->capacity.available && num(a->capacity.oversubscription) && a->capacity.oversubscription > OVERSUB_MIN &&
	    num(x->d[D_RUNNING_OVER_LOG_X]) && x->d[D_RUNNING_OVER_LOG_X] >= RED_LINE_LO &&
	    x->d[D_RUNNING_OVER_LOG_X] <= RED_LINE_HI)
		add(f, log_cap_reached(a) ? "capacity_red_line_capped" :
		    x->d[D_RUNNING_OVER_LOG_X] >= 1 ? "capacity_red_line" : "capacity_red_line_below",
		    BR_SEV_INFO, BR_FINDING);

	/* Open loop past capacity: requests sent at a finite rate, completed
	 * at less than OPEN_LOOP_KEEP_UP of it, while the waiting queue held at
	 * least one request on average and peaked at QUEUE_OVER_RESIDENT_MIN ×
	 * the mean running or more: arrivals outran the server (whatever held
	 * it; the other rules say what, where they can). */
	if (num(x->d[D_OPEN_LOOP_KEPT]) && x->d[D_OPEN_LOOP_KEPT] < OPEN_LOOP_KEEP_UP &&
	    res->available && num(res->waiting_mean) && res->waiting_mean >= 1 &&
	    num(x->d[D_WAITING_OVER_RUNNING]) && x->d[D_WAITING_OVER_RUNNING] >= QUEUE_OVER_RESIDENT_MIN)
		add(f, log_cap_reached(a) ? "open_loop_overloaded_cap" : "open_loop_overloaded",
		    BR_SEV_PROBLEM, BR_FINDING);

	/* Soft degradation: overloaded (oversubscribed or preempting), yet every
	 * prompt completed and none failed (all three counts known). */
	const br_bench *sb = a->run && a->run->bench.n > 0 ? &a->run->bench.runs[0] : NULL;
	int overloaded = (num(x->preemptions) && x->preemptions > 0) || oversubscribed(&a->capacity);
	if (overloaded && sb && num(sb->failed) && sb->failed == 0 && num(sb->completed) &&
	    num(sb->num_prompts) && sb->completed == sb->num_prompts && sb->completed > 0) {
		int pre = num(x->preemptions) && x->preemptions > 0;
		int over = oversubscribed(&a->capacity);
		add(f, pre && over ? "soft_degradation" : pre ? "soft_degradation_preemptions" :
		    "soft_degradation_no_preemption", BR_SEV_INFO, BR_FINDING);
	}

	/* Little's law: resident ratio and queue ratio both in [0.8, 1.25].
	 * With TTFT exploded (see ttft_exploded) the conclusion is that the
	 * queue explains TTFT; otherwise only that the law holds. */
	const br_littles_law *ll = &a->littles_law;
	if (ll->available && num(ll->resident_ratio) && num(ll->queue_ratio) &&
	    ll->resident_ratio >= LITTLE_LO && ll->resident_ratio <= LITTLE_HI &&
	    ll->queue_ratio >= LITTLE_LO && ll->queue_ratio <= LITTLE_HI)
		add(f, exploded == 1 ? "queue_explains_ttft" : "littles_law_holds",
		    BR_SEV_INFO, BR_FINDING);

	/* Where a request's time went: more than half of the mean E2EL waiting
	 * for admission (the reference round 1: 76% of a request's life) */
	if (num(x->d[D_QUEUE_OVER_E2EL]) && x->d[D_QUEUE_OVER_E2EL] > QUEUE_LIFE_MIN)
		add(f, "request_life_queue", BR_SEV_INFO, BR_FINDING);

	/* Server counters that disagree with the client. */
	if (a->ledger.available) {
		size_t bad = 0;
		for (size_t i = 0; i < a->ledger.n_rows; i++)
			if (a->ledger.rows[i].agrees == 0)
				bad++;
		/* a restart inside the window loses what the server did between
		 * its last scrape and the restart: a cause to name first (twenty-
		 * second breaker: page 1 suggested only a wrong window or another
		 * client, the restart was said at the end of the report) */
		if (bad > 0)
			add(f, a->preemptions.server_restarts > 0 ? "ledger_disagrees_restart" : "ledger_disagrees",
			    BR_SEV_PROBLEM, BR_FINDING);
	}

	/* The bench file's own statistics differ from the recomputation. */
	if (a->latency.n_mismatches > 0)
		add(f, "latency_file_mismatch", BR_SEV_NOTICE, BR_FINDING);
}

static void
recommendation_rules(const br_analysis *a, const facts *x, br_findings *f)
{
	const br_run *r = a->run;
	const br_capacity *c = &a->capacity;
	int oversub = oversubscribed(c);

	/* --max-num-seqs = floor(log max concurrency): only when oversubscribed
	 * (demand with C_eff above the pool) AND > 0 preemptions — the cap then
	 * removes the preemptions and their recompute; it adds no capacity, so
	 * the sentence must not present it as free. Also the recommended value
	 * below C_eff = min(max_concurrency, num_prompts) (else the cap never
	 * binds) and the server's max_num_seqs (when the log says) above it. */
	double rec = x->d[D_MAX_NUM_SEQS];
	double cur = br_log_cap(r, NULL, NULL);
	double ceff = r && r->bench.n > 0 ? br_effective_concurrency(&r->bench.runs[0], NULL) : NAN;
	/* with data-parallel engines max_num_seqs is per engine while the pool
	 * is their sum: no value is recommended (the sentence would name the
	 * server's capacity as one engine's) */
	const br_server_log *lg = r ? r->log : NULL;
	int dp = lg && num(lg->data_parallel_size) && lg->data_parallel_size > 1;
	if (oversub && !dp && num(x->preemptions) && x->preemptions > 0 && num(rec) &&
	    num(ceff) && rec < ceff && !(num(cur) && cur <= rec))
		add(f, x->max_num_seqs_by_workload ? "rec_max_num_seqs_workload" : "rec_max_num_seqs", BR_SEV_NOTICE,
		    BR_RECOMMENDATION);

	/* Admission control: waiting peak >= 2 × mean running. */
	if (num(x->d[D_WAITING_OVER_RUNNING]) &&
	    x->d[D_WAITING_OVER_RUNNING] >= QUEUE_OVER_RESIDENT_MIN)
		add(f, "rec_admission_control", BR_SEV_NOTICE, BR_RECOMMENDATION);

	if (r == NULL || r->bench.n == 0)
		return;
	const br_bench *b = &r->bench.runs[0];

	/* Nothing was measured: advice on percentiles, per-request arrays and
	 * FLOPs counters would bury the one thing to fix (the failures). */
	int measured = !(a->latency.n_succeeded == 0 && a->latency.n_failed > 0);

	/* An SGLang bench_serving result: the vLLM flags below do not apply; one
	 * recommendation says what to keep and pass instead. */
	if (b->backend && strncmp(b->backend, "sglang", 6) == 0) {
		add(f, "rec_sglang_inputs", BR_SEV_NOTICE, BR_RECOMMENDATION);
		return;
	}

	/* --metric-percentiles: the file states no ITL p99.9 or no p99.99.
	 * When the per-request arrays gave both here, the sentence says so: the
	 * advice is for the file's own statistics (what other tools read). */
	int has999 = num(br_bench_file_stat(b, "itl", "p", 99.9));
	int has9999 = num(br_bench_file_stat(b, "itl", "p", 99.99));
	int from_arrays = a->latency.from_arrays && num(a->latency.m[BR_ITL].p999) &&
	    num(a->latency.m[BR_ITL].p9999);
	/* no gap at all (every request one token long): no percentile to ask for */
	int no_itl = a->latency.from_arrays && a->latency.count_known[BR_ITL] && a->latency.n_samples[BR_ITL] == 0;
	/* under 10,000 gaps p99.9 and p99.99 are among the few largest (or the
	 * maximum): asking the file for them would not show a tail (thirty-fifth
	 * audit: "p99.9 27.72 ms and p99.99 27.72 ms" of 255 gaps); the small
	 * sample caveat says to run more prompts */
	int few_gaps = from_arrays && a->latency.count_known[BR_ITL] && a->latency.n_samples[BR_ITL] < 10000;
	if (no_itl || few_gaps)
		;
	else if (measured && (!has999 || !has9999) && from_arrays)
		add(f, "rec_metric_percentiles_arrays", BR_SEV_INFO, BR_RECOMMENDATION);
	else if (measured && !has9999)
		add(f, has999 ? "rec_metric_percentiles_9999" : "rec_metric_percentiles", BR_SEV_INFO, BR_RECOMMENDATION);
	else if (measured && !has999)
		add(f, "rec_metric_percentiles", BR_SEV_INFO, BR_RECOMMENDATION);

	/* --save-detailed: no per-request arrays. */
	if (measured && b->n_requests == 0)
		add(f, "rec_save_detailed", BR_SEV_NOTICE, BR_RECOMMENDATION);

	/* --enable-mfu-metrics: metrics without the FLOPs counter. Without any
	 * metrics the flag's state is unknown: rec_collect_metrics names it. */
	br_engine engine = br_run_engine(r);
	int vllm = engine == BR_ENGINE_VLLM || engine == BR_ENGINE_UNKNOWN;
	if (!vllm)
		;   /* the flag is vLLM's; SGLang and llama.cpp have no FLOPs counter at all */
	else if (measured && r->metrics != NULL && !has_flops_counter(r))
		add(f, "rec_enable_mfu_metrics", BR_SEV_INFO, BR_RECOMMENDATION);
	else if (measured && a->flops.m.counter_zero)
		add(f, "rec_enable_mfu_metrics_zero", BR_SEV_INFO, BR_RECOMMENDATION);

	/* Metrics: none at all, or snapshots only (no 1 Hz series). */
	if (br_run_metrics_set_aside(r) != NULL)
		add(f, "rec_keep_whole_metrics", BR_SEV_NOTICE, BR_RECOMMENDATION);
	else if (r->metrics_kind == BR_METRICS_NONE || r->metrics == NULL)
		add(f, "rec_collect_metrics", BR_SEV_NOTICE, BR_RECOMMENDATION);
	else if (r->metrics_kind == BR_METRICS_SNAPSHOT || r->metrics_kind == BR_METRICS_PAIR)
		add(f, "rec_sample_metrics", BR_SEV_NOTICE, BR_RECOMMENDATION);

	/* No server log: capacity numbers come from nowhere. */
	if (r->log == NULL) {
		add(f, br_run_set_aside_has(r, "the server log") ? "rec_keep_matching_log" : a->capacity.available ? "rec_keep_server_log_args" :
		    "rec_keep_server_log", BR_SEV_NOTICE, BR_RECOMMENDATION);
	}

	/* MFU from the FLOPs counter: the token counter stayed at the minimum
	 * while the FLOPs counter shows the recompute (the same test as the
	 * token_counter_misses_recompute finding). */
	if (token_counter_misses(x))
		add(f, "rec_mfu_from_flops_counter", BR_SEV_INFO, BR_RECOMMENDATION);
}

static void
caveat_rules(const br_analysis *a, const facts *x, br_findings *f)
{
	const br_run *r = a->run;
	const br_bench *b = r && r->bench.n > 0 ? &r->bench.runs[0] : NULL;

	/* Closed loop: max_concurrency set (with a finite rate too: an open
	 * loop under that cap). */
	if (b && num(b->max_concurrency)) {
		/* the cap holds the load only when more prompts than it were sent:
		 * one prompt is a lone request, a few all go at once (a burst) */
		int few = num(b->num_prompts) && b->num_prompts < b->max_concurrency;
		add(f, br_capped_open_loop(b) ? "capped_open_loop" : b->max_concurrency == 1 ? "closed_loop_one" :
		    few && b->num_prompts <= 1 ? "closed_loop_single_prompt" : few ? "closed_loop_burst" :
		    !num(x->ttft_p50_s) ? "closed_loop_no_ttft" : "closed_loop", BR_SEV_NOTICE, BR_CAVEAT);
	}

	/* TTFT tail: n·0.001 < 10 samples beyond p99.9, i.e. n < 10,000. */
	if (x->ttft_n == 1)
		add(f, "single_request_ttft", BR_SEV_NOTICE, BR_CAVEAT);
	else if (num(x->d[D_TTFT_BEYOND_P999]) && x->ttft_n > 0 &&
	    x->d[D_TTFT_BEYOND_P999] < TAIL_SAMPLES_MIN && num(a->latency.m[BR_TTFT].p99))
		add(f, "small_sample_ttft", BR_SEV_NOTICE, BR_CAVEAT);

	/* ITL tail (gaps from arrays): n·0.001 < 10 beyond p99.9 (n < 10,000),
	 * else n·0.0001 < 10 beyond p99.99 (n < 100,000). */
	if (num(x->d[D_ITL_BEYOND_P999]) && x->itl_n > 0) {
		if (x->d[D_ITL_BEYOND_P999] < TAIL_SAMPLES_MIN)
			add(f, "small_sample_itl_p99_9", BR_SEV_NOTICE, BR_CAVEAT);
		else if (x->d[D_ITL_BEYOND_P9999] < TAIL_SAMPLES_MIN)
			add(f, "small_sample_itl_p99_99", BR_SEV_INFO, BR_CAVEAT);
	}

	/* V1 writes no log line per preemption: preemptions > 0 counted by the
	 * metrics while the log (present, not failed) states no preemption count. */
	if (r && r->log && r->log->engine_kind != BR_ENGINE_SGLANG &&
	    r->log->engine_kind != BR_ENGINE_LLAMACPP && !r->log->did_not_start &&
	    num(x->preemptions) &&
	    x->preemptions > 0 && !br_log_states_preemptions(r->log))
		add(f, "log_silent_on_preemptions", BR_SEV_INFO, BR_CAVEAT);

	/* The FLOPs ledger's cost line is thin (2 calibration points: no error
	 * bars) or stretched (the run's mean context more than FLOPS_STRETCH_MAX
	 * times outside the calibration's): its excess and recompute numbers,
	 * which findings above may cite, are estimates. */
	const br_flops_ledger *fl = &a->flops;
	if (fl->available && (fl->cal_n_used == 2 || (num(fl->extrapolation) && fl->extrapolation > FLOPS_STRETCH_MAX)))
		add(f, "flops_basis_weak", BR_SEV_NOTICE, BR_CAVEAT);

	/* Closed loop: the server held more requests at once (running + waiting
	 * in one sample) than the client kept in flight, C_eff, with one of
	 * slack (a scrape between a finish and the client's next send): other
	 * traffic shared the server, or the series is of another server. */
	double ceff = b ? br_effective_concurrency(b, NULL) : NAN;
	if (a->residency.available && num(a->residency.in_system_peak) && num(ceff) &&
	    a->residency.in_system_peak > ceff + 1)
		add(f, "server_held_more_than_sent", BR_SEV_PROBLEM, BR_CAVEAT);

	/* The server restarted inside the run window: counters lost what
	 * happened between the last scrape and each restart. */
	if (a->preemptions.server_restarts > 0)
		add(f, "server_restarted", BR_SEV_PROBLEM, BR_CAVEAT);

	/* A single run: no repeat to tell noise from effect. */
	if (r && r->bench.n == 1)
		add(f, "single_run", BR_SEV_INFO, BR_CAVEAT);
}

/*
 * br_findings_evaluate: see findings.h. *out is overwritten (not freed):
 * pass a zeroed or freed struct.
 */
void
br_findings_evaluate(const br_analysis *a, br_findings *out)
{
	memset(out, 0, sizeof *out);
	facts x;
	gather(a, &x);
	out->num = br_xcalloc(D_N, sizeof *out->num);
	out->n_num = D_N;
	for (int i = 0; i < D_N; i++) {
		out->num[i].key = D_KEY[i];
		out->num[i].value = x.d[i];
	}
	findings_rules(a, &x, out);
	recommendation_rules(a, &x, out);
	caveat_rules(a, &x, out);
}

/* br_findings_free: release the arrays; safe on a zeroed struct and twice. */
void
br_findings_free(br_findings *f)
{
	if (f == NULL)
		return;
	free(f->v);
	free(f->num);
	memset(f, 0, sizeof *f);
}

/* br_findings_has: 1 when a finding with this id fired. */
int
br_findings_has(const br_findings *f, const char *id)
{
	for (size_t i = 0; f && id && i < f->n; i++)
		if (strcmp(f->v[i].id, id) == 0)
			return 1;
	return 0;
}

/* br_findings_number: the derived number of `key`, NAN when unknown or absent. */
double
br_findings_number(const br_findings *f, const char *key)
{
	for (size_t i = 0; f && key && i < f->n_num; i++)
		if (strcmp(f->num[i].key, key) == 0)
			return f->num[i].value;
	return NAN;
}
