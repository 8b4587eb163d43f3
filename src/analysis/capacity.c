/*
 * Capacity analysis (DESIGN.md §3.3): KV pool P, max_model_len M, predicted
 * max concurrency P/M, pool bytes per token, demand C·(in+out),
 * oversubscription demand/P and the resident estimate P/(in + out/2).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/analysis.h"
#include "benchreport/common.h"
#include "benchreport/model.h"

/*
 * pool_from_cache_config: P from vllm:cache_config_info (kv_cache_size_tokens,
 * else num_gpu_blocks × block_size), or NAN.
 */
static double
pool_from_cache_config(const br_cache_config *cc)
{
	if (br_isnum(cc->kv_cache_size_tokens) && cc->kv_cache_size_tokens > 0)
		return cc->kv_cache_size_tokens;
	if (br_isnum(cc->num_gpu_blocks) && br_isnum(cc->block_size) && cc->num_gpu_blocks > 0 &&
	    cc->block_size > 0)
		return cc->num_gpu_blocks * cc->block_size;
	return NAN;
}

/*
 * mean_lens_from_arrays: mean input and output tokens of the successful
 * requests of b (NAN when none).
 */
static void
mean_lens_from_arrays(const br_bench *b, double *in, double *out)
{
	double si = 0, so = 0;
	size_t n = 0;
	for (size_t i = 0; i < b->n_requests; i++) {
		const br_request *q = &b->requests[i];
		if (q->failed || !br_isnum(q->input_len_tokens) ||
		    !br_isnum(q->output_len_tokens))
			continue;
		si += q->input_len_tokens;
		so += q->output_len_tokens;
		n++;
	}
	*in = n ? si / (double)n : NAN;
	*out = n ? so / (double)n : NAN;
}

/*
 * br_effective_concurrency: see analysis_blocks.h. A closed loop of C
 * workers over N prompts never has more than N requests in flight, so
 * C_eff = min(C, N). N is num_prompts; files without it give N as the
 * number of per-request records, else completed + failed.
 */
/* br_capped_open_loop: see analysis_blocks.h. */
int
br_capped_open_loop(const br_bench *b)
{
	return b != NULL && isfinite(b->max_concurrency) && isfinite(b->request_rate_rps) && b->request_rate_rps > 0;
}

double
br_effective_concurrency(const br_bench *b, const char **reason)
{
	if (reason != NULL)
		*reason = NULL;
	if (b == NULL || !br_isnum(b->max_concurrency) || !(b->max_concurrency > 0))
		return NAN;
	double n = NAN;
	if (br_isnum(b->num_prompts) && b->num_prompts > 0)
		n = b->num_prompts;
	else if (b->n_requests > 0)
		n = (double)b->n_requests;
	else if (br_isnum(b->completed) && br_isnum(b->failed) && b->completed + b->failed > 0)
		n = b->completed + b->failed;
	if (br_isnum(n) && n < b->max_concurrency) {
		if (reason != NULL)
			*reason = "fewer prompts than max_concurrency: at most num_prompts requests were in flight";
		return n;
	}
	if (reason != NULL)
		*reason = br_isnum(n) ? "max_concurrency (num_prompts >= max_concurrency)" :
		    "max_concurrency (number of prompts unknown)";
	return b->max_concurrency;
}

/* br_log_cap: see analysis_blocks.h. */
double
br_log_cap(const br_run *run, double *seen_out, const char **where_out)
{
	if (seen_out != NULL)
		*seen_out = NAN;
	if (where_out != NULL)
		*where_out = NULL;
	const br_server_log *lg = run != NULL ? run->log : NULL;
	if (lg == NULL || !br_isnum(lg->max_num_seqs) || lg->max_num_seqs <= 0)
		return NAN;
	/* max_num_seqs bounds each data-parallel engine: the server runs up
	 * to that many per engine */
	double dp = br_isnum(lg->data_parallel_size) && lg->data_parallel_size > 1 ? lg->data_parallel_size : 1;
	double cap = lg->max_num_seqs * dp, seen = NAN;
	const char *where = NULL;
	const br_series *s = run->metrics;
	size_t b0, b1;
	const double *running = s != NULL && br_metrics_is_series(run->metrics_kind) ?
	    br_role_col(s, BR_ROLE_RUNNING) : NULL;
	if (running != NULL && br_run_busy_span(s, &b0, &b1) == 0)
		for (size_t i = b0; i <= b1; i++)
			if (br_isnum(running[i]) && running[i] > cap && !(running[i] <= seen)) {
				seen = running[i];
				where = "the metrics";
			}
	if (where == NULL)
		for (size_t i = 0; i < lg->n_stats; i++)
			if (br_isnum(lg->stats[i].running) && lg->stats[i].running > cap &&
			    !(lg->stats[i].running <= seen)) {
				seen = lg->stats[i].running;
				where = "the log's own statistics lines";
			}
	if (where == NULL)
		return cap;
	if (seen_out != NULL)
		*seen_out = seen;
	if (where_out != NULL)
		*where_out = where;
	return NAN;
}

/*
 * br_analyze_capacity: see analysis.h. P comes from run.json only when it
 * differs from the server log's value (an equal override changes nothing,
 * so the source stays "server log"); demand uses C_eff.
 */
void
br_analyze_capacity(const br_run *run, br_capacity *out)
{
	memset(out, 0, sizeof *out);
	out->kv_pool_tokens = out->max_model_len_tokens = out->log_cap_contradicted_by = NAN;
	out->predicted_max_concurrency = out->log_max_concurrency_x = NAN;
	out->kv_pool_gib = out->kv_bytes_per_token = NAN;
	out->concurrency = out->mean_input_tokens = out->mean_output_tokens = NAN;
	out->effective_concurrency = NAN;
	out->demand_tokens = out->oversubscription = out->resident_estimate = NAN;
	out->resident_kv_bound = out->n_slots_listed = NAN;
	out->missing = "needs the server log (GPU KV cache size line)";
	if (run == NULL)
		return;
	/* each engine states its pool in its own line */
	br_engine eng = br_run_engine(run);
	if (eng == BR_ENGINE_SGLANG)
		out->missing = "needs the SGLang server log (its max_total_num_tokens line)";
	else if (eng == BR_ENGINE_LLAMACPP)
		out->missing = "needs the llama-server log (its n_ctx / slot lines)";
	const br_server_log *log = run->log;
	/* the slots llama-server's /slots listed (known with or without a pool) */
	const double *slots = run->metrics ? br_series_col(run->metrics, "llamacpp_slots:total") : NULL;
	for (size_t i = 0; slots != NULL && i < run->metrics->n_rows; i++)
		if (isfinite(slots[i]) && slots[i] > 0 && !(slots[i] <= out->n_slots_listed))
			out->n_slots_listed = slots[i];

	double P = NAN;
	int log_has_p = log != NULL && br_isnum(log->kv_pool_tokens) && log->kv_pool_tokens > 0;
	/* the server's own capacity line wins over run.json's label (a pool
	 * the log contradicts would be paired with the log's GiB and bytes
	 * per token, and the metrics would disprove it); run.json's pool
	 * stands in where no log states one (ingest warns on a disagreement) */
	if (log_has_p) {
		P = log->kv_pool_tokens;
		out->kv_pool_source = "server log";
	} else if (br_isnum(run->kv_pool_tokens_override) && run->kv_pool_tokens_override > 0) {
		P = run->kv_pool_tokens_override;
		out->kv_pool_source = "run.json";
	}
	br_cache_config cc;
	int from_cc = 0;
	if (!br_isnum(P) && br_series_cache_config(run->metrics, &cc)) {
		P = pool_from_cache_config(&cc);
		if (br_isnum(P)) {
			out->kv_pool_source = "vllm:cache_config_info";
			from_cc = 1;
		}
	}
	if (!br_isnum(P)) {
		if (log != NULL && log->engine_kind == BR_ENGINE_SGLANG)
			out->missing = "needs the SGLang log's max_total_num_tokens line (or kv_pool_tokens in "
			    "run.json)";
		else if (log != NULL && log->engine_kind == BR_ENGINE_LLAMACPP)
			out->missing = "needs the llama-server log's KV cache size line or n_ctx (or kv_pool_tokens "
			    "in run.json)";
		else if (log != NULL)
			out->missing = "the server log given holds no readable GPU KV cache size line (a log cut "
			    "before the engine started, or the line damaged); give kv_pool_tokens in run.json to stand in";
		if (log != NULL && log->did_not_start)
			out->missing = "the server never started (its log ends in an error before the KV cache lines)";
		return;
	}
	out->available = 1;
	out->missing = NULL;
	out->kv_pool_tokens = P;

	if (log != NULL) {
		if (br_isnum(log->max_model_len_tokens) && log->max_model_len_tokens > 0)
			out->max_model_len_tokens = log->max_model_len_tokens;
		else if (br_isnum(log->max_concurrency_len_tokens) && log->max_concurrency_len_tokens > 0)
			out->max_model_len_tokens = log->max_concurrency_len_tokens;
		out->log_max_concurrency_x = log->max_concurrency_x;
		if (br_isnum(log->kv_pool_gib) && log->kv_pool_gib > 0) {
			/* the memory line is one GPU's; under decode context parallelism
			 * the logged pool counts the tokens of all DCP ranks, each rank
			 * holding P / dcp of them (vllm kv_cache_utils
			 * _report_kv_cache_config), so one token costs memory · dcp / P */
			double dcp = br_isnum(log->decode_context_parallel_size) &&
			    log->decode_context_parallel_size > 1 ? log->decode_context_parallel_size : 1;
			out->kv_pool_gib = log->kv_pool_gib;
			out->kv_bytes_per_token = log->kv_pool_gib * 1073741824.0 * dcp / P;
			/* the log prints 2 decimals: ±0.005 GiB, relative 0.005 / GiB */
			out->kv_gib_sig_digits = (int)fmax(1, fmin(15, ceil(-log10(0.005 / log->kv_pool_gib))));
		}
	}
	/* without a log: kv_cache_max_concurrency = P / max_model_len (the
	 * gauge's label of the log's "Maximum concurrency for M tokens" line) */
	if (from_cc && !br_isnum(out->max_model_len_tokens) && br_isnum(cc.kv_cache_max_concurrency) &&
	    cc.kv_cache_max_concurrency > 0) {
		out->log_max_concurrency_x = cc.kv_cache_max_concurrency;
		out->max_model_len_tokens = round(P / cc.kv_cache_max_concurrency);
	}
	if (br_isnum(out->max_model_len_tokens))
		out->predicted_max_concurrency = P / out->max_model_len_tokens;

	if (run->bench.n == 0 || run->bench.runs == NULL)
		return;
	const br_bench *b = &run->bench.runs[0];
	out->concurrency = br_isnum(b->max_concurrency) && b->max_concurrency > 0 ?
	    b->max_concurrency : NAN;
	out->effective_concurrency = br_effective_concurrency(b, &out->effective_concurrency_reason);
	if (br_isnum(b->completed) && b->completed > 0 &&
	    br_isnum(b->total_input_tokens) && br_isnum(b->total_output_tokens)) {
		out->mean_input_tokens = b->total_input_tokens / b->completed;
		out->mean_output_tokens = b->total_output_tokens / b->completed;
	} else if (b->n_requests > 0) {
		mean_lens_from_arrays(b, &out->mean_input_tokens, &out->mean_output_tokens);
	}
	double in = out->mean_input_tokens, o = out->mean_output_tokens;
	if (br_isnum(in) && br_isnum(o)) {
		out->demand_tokens = out->effective_concurrency * (in + o);   /* NAN for open loop */
		out->oversubscription = out->demand_tokens / P;
		if (in + o / 2 > 0)
			out->resident_estimate = P / (in + o / 2);
		/* the scheduler never runs more than max_num_seqs at once, however
		 * much KV cache is free */
		out->resident_kv_bound = out->resident_estimate;
		/* NAN when the run contradicts the log */
		double cap = br_log_cap(run, &out->log_cap_contradicted_by, &out->log_cap_contradicted_where);
		int from_slots = 0;
		if (!br_isnum(cap) && br_isnum(out->n_slots_listed)) {
			/* no log: llama-server's /slots lists its slots, one request each */
			cap = out->n_slots_listed;
			from_slots = 1;
		}
		if (br_isnum(cap) && br_isnum(out->resident_estimate) && out->resident_estimate > cap) {
			out->resident_estimate = cap;
			out->resident_capped_by_max_num_seqs = 1;
			out->resident_cap_from_slots = from_slots;
		}
	}
}

/* br_round_sig: see analysis_blocks.h. */
double
br_round_sig(double x, int digits)
{
	if (digits <= 0 || x == 0 || !isfinite(x))
		return x;
	double scale = pow(10, digits - 1 - (int)floor(log10(fabs(x))));
	return round(x * scale) / scale;
}
