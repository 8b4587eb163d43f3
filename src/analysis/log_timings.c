/*
 * Server-side request timings from llama-server's log (analysis_blocks.h
 * br_log_timings): its `prompt eval time` and `eval time` lines per
 * finished request (ENGINES.md §1.5), summarised as numpy-linear
 * percentiles, beside the client's TPOT.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/analysis_blocks.h"
#include "benchreport/common.h"
#include "benchreport/stats.h"

/* p_of: percentile p of v[0..n) (reordered), NAN for n == 0. */
static double
p_of(double *v, size_t n, double p)
{
	if (n == 0)
		return NAN;
	double out = NAN;
	br_percentiles_select(v, n, &p, 1, &out);
	return out;
}

void
br_analyze_log_timings(const br_run *run, const br_latency *lat, br_log_timings *out)
{
	memset(out, 0, sizeof *out);
	out->bench_completed = out->prompt_tokens_mean = out->prompt_ms_p50 = out->prompt_ms_p99 = NAN;
	out->prompt_tps_p50 = out->eval_tokens_mean = out->eval_ms_per_token_p50 = NAN;
	out->eval_ms_per_token_p99 = out->eval_tps_p50 = out->client_tpot_p50_ms = NAN;
	out->missing = "needs a llama-server log with per-request timing lines (prompt eval time, eval time)";
	if (run == NULL || run->log == NULL || run->log->n_requests == 0)
		return;
	const br_server_log *l = run->log;
	size_t n = l->n_requests;
	double *pms = br_xmalloc(n * sizeof *pms), *ptps = br_xmalloc(n * sizeof *ptps);
	double *ems = br_xmalloc(n * sizeof *ems), *etps = br_xmalloc(n * sizeof *etps);
	size_t np = 0, npt = 0, ne = 0, net = 0, nboth = 0;
	double sum_pt = 0, sum_et = 0;
	for (size_t i = 0; i < n; i++) {
		const br_log_request *r = &l->requests[i];
		if (!br_isnum(r->prompt_ms) || !br_isnum(r->eval_ms) || !br_isnum(r->prompt_tokens) ||
		    !br_isnum(r->eval_tokens))
			continue;
		nboth++;
		sum_pt += r->prompt_tokens;
		sum_et += r->eval_tokens;
		pms[np++] = r->prompt_ms;
		if (r->prompt_ms > 0 && r->prompt_tokens > 0)
			ptps[npt++] = r->prompt_tokens / (r->prompt_ms / 1000.0);
		if (r->eval_ms > 0 && r->eval_tokens > 0) {
			ems[ne++] = r->eval_ms / r->eval_tokens;
			etps[net++] = r->eval_tokens / (r->eval_ms / 1000.0);
		}
	}
	if (nboth > 0) {
		out->available = 1;
		out->missing = NULL;
		out->n = nboth;
		out->prompt_tokens_mean = sum_pt / (double)nboth;
		out->eval_tokens_mean = sum_et / (double)nboth;
		out->prompt_ms_p50 = p_of(pms, np, 50);
		out->prompt_ms_p99 = p_of(pms, np, 99);
		out->prompt_tps_p50 = p_of(ptps, npt, 50);
		out->eval_ms_per_token_p50 = p_of(ems, ne, 50);
		out->eval_ms_per_token_p99 = p_of(ems, ne, 99);
		out->eval_tps_p50 = p_of(etps, net, 50);
	}
	out->bench_input_tokens_mean = out->bench_output_tokens_mean = NAN;
	if (run->bench.n > 0) {
		const br_bench *b = &run->bench.runs[0];
		out->bench_completed = b->completed;
		if (br_isnum(b->completed) && b->completed > 0) {
			out->bench_input_tokens_mean = b->total_input_tokens / b->completed;
			out->bench_output_tokens_mean = b->total_output_tokens / b->completed;
		}
		/* the same requests generated the same tokens (eval tokens are
		 * every generated token, as output_lens count them); a cached
		 * prefix only lowers the prompt tokens evaluated, never raises
		 * them */
		double bo = out->bench_output_tokens_mean, bi = out->bench_input_tokens_mean;
		if (out->available && br_isnum(bo) && fabs(out->eval_tokens_mean - bo) > 0.1 * bo + 1)
			out->tokens_disagree = 1;
		if (out->available && br_isnum(bi) && out->prompt_tokens_mean > 1.1 * bi + 1)
			out->tokens_disagree = 1;
	}
	if (lat != NULL && lat->m[BR_TPOT].count > 0)
		out->client_tpot_p50_ms = lat->m[BR_TPOT].median;
	free(pms);
	free(ptps);
	free(ems);
	free(etps);
}
