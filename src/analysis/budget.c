/*
 * Wall-clock budget (DESIGN.md §3.9): where the run's duration T went.
 *
 *   decode    = Σ(out − 1) / mean running × ITL p50
 *               (decode steps needed if the mean resident batch advanced
 *               together, each taking the median inter-token gap; mean
 *               running over the samples where requests ran, so idle time
 *               between sparse requests stays in "rest"),
 *   prefill   = Σ in · cost/token ÷ FLOP rate, cost/token = a + b·in/2 from
 *               the §3.8 calibration line (a prompt of `in` tokens has mean
 *               context in/2), FLOP rate = the FLOPs ledger's prefill rate (p95 of
 *               Δflops/Δt, or the peak when the p95 is under half of it),
 *   recompute = excess FLOPs / the same rate (§3.8),
 *   rest      = T − decode − prefill − recompute (negative = the parts overlap,
 *               e.g. chunked prefill sharing steps with decode; flagged).
 * Decode time stolen: measured mean per-request decode time
 * mean(E2EL) − mean(TTFT) against (mean out − 1) × ITL p50; difference and %.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/analysis_flops.h"
#include "benchreport/common.h"

/*
 * prefill_gflop: Σ over successful requests of in·(a + b·in/2) in GFLOP
 * (per-request arrays), or Σin·(a + b·mean_in/2) without them; the two agree
 * when every prompt has the same length. NAN when unknown.
 */
static double
prefill_gflop(const br_bench *b, const br_flops_calibration *cal, double mean_in)
{
	if (b->n_requests > 0) {
		double g = 0;
		size_t k = 0;
		for (size_t i = 0; i < b->n_requests; i++) {
			const br_request *r = &b->requests[i];
			if (r->failed || !br_isnum(r->input_len_tokens))
				continue;
			g += r->input_len_tokens * br_flops_cost_gflop(cal, r->input_len_tokens / 2);
			k++;
		}
		if (k > 0)
			return g;
	}
	return b->total_input_tokens * br_flops_cost_gflop(cal, mean_in / 2);
}

/*
 * br_analyze_budget: see analysis_flops.h. `available` means the decode
 * term could be computed; prefill and recompute carry their own reasons
 * when NAN, and rest is NAN unless all three terms are numbers. The stolen
 * decode time needs only the latency block and the bench means.
 */
void
br_analyze_budget(const br_run *run, const br_latency *lat, const br_residency *res,
    const br_flops_calibration *cal, const br_flops_ledger *flops, br_budget *out)
{
	memset(out, 0, sizeof *out);
	out->duration_s = out->decode_tokens = out->decode_steps = out->running_mean = out->itl_p50_ms = NAN;
	out->decode_s = out->prefill_tokens = out->prefill_gflop_per_token = NAN;
	out->flop_rate_prefill_per_s = out->prefill_s = out->recompute_s = out->rest_s = NAN;
	out->decode_frac = out->prefill_frac = out->recompute_frac = out->rest_frac = NAN;
	out->decode_measured_s = out->decode_expected_s = NAN;
	out->decode_stolen_s = out->decode_stolen_frac = NAN;
	out->missing = "needs the bench result";
	out->prefill_missing = "needs the FLOPs ledger (calibration and FLOPs counter)";
	out->recompute_missing = "needs the FLOPs ledger (calibration and FLOPs counter)";
	if (run == NULL || run->bench.n == 0)
		return;
	const br_bench *b = &run->bench.runs[0];
	double completed = b->completed;
	if (!br_isnum(completed) || !(completed > 0)) {
		out->missing = "needs completed requests in the bench result";
		return;
	}
	out->duration_s = b->duration_s;
	out->decode_tokens = b->total_output_tokens - completed;
	out->decode_steps = out->decode_tokens;
	out->prefill_tokens = b->total_input_tokens;
	double mean_out = b->total_output_tokens / completed;
	double mean_in = b->total_input_tokens / completed;
	/* speculative decoding: ITL is the gap between chunks of several
	 * tokens (the acceptance length), so a request's decode is its gaps ×
	 * ITL p50, not (out − 1) × it (audit: decode 217% of the run, "from a
	 * few metrics samples", for MTP at acceptance length 2.89) */
	double per_request_steps = mean_out - 1;
	if ((br_isnum(b->spec_decode_acceptance_length) || br_isnum(b->spec_decode_acceptance_rate)) &&
	    lat != NULL && lat->from_arrays && lat->count_known[BR_ITL] && lat->n_samples[BR_ITL] > 0 &&
	    lat->n_succeeded > 0) {
		out->decode_in_gaps = 1;
		out->decode_steps = (double)lat->n_samples[BR_ITL];
		per_request_steps = out->decode_steps / (double)lat->n_succeeded;
	}

	/* decode time stolen */
	if (lat != NULL) {
		out->itl_p50_ms = lat->m[BR_ITL].median;
		double e2el = lat->m[BR_E2EL].mean, ttft = lat->m[BR_TTFT].mean;
		if (br_isnum(e2el) && br_isnum(ttft))
			out->decode_measured_s = (e2el - ttft) / 1e3;
		if (br_isnum(out->itl_p50_ms) && br_isnum(per_request_steps))
			out->decode_expected_s = per_request_steps * out->itl_p50_ms / 1e3;
		out->decode_stolen_s = out->decode_measured_s - out->decode_expected_s;
		if (out->decode_expected_s > 0)
			out->decode_stolen_frac = out->decode_stolen_s / out->decode_expected_s;
	}

	/* decode */
	/* the batch the engine stepped when it worked: samples where it idled
	 * between sparse requests would divide the decode steps by a mean near
	 * 0 (twentieth breaker: 3 requests at 0.001 req/s, "decode 1,293 s, 90.8%
	 * of the run" for about 12 s of decoding) */
	if (res != NULL && res->available)
		out->running_mean = br_isnum(res->running_mean_active) && res->running_mean_active > 0 ?
		    res->running_mean_active : res->running_mean;
	if (!br_isnum(out->itl_p50_ms)) {
		/* arrays without a single gap: every request one token long */
		out->missing = lat != NULL && lat->from_arrays && lat->count_known[BR_ITL] && lat->n_samples[BR_ITL] == 0 ?
		    "no decode to estimate: every request produced a single output token, so there is no ITL" :
		    "needs the ITL median (per-request arrays or median_itl_ms)";
	} else if (!br_isnum(out->running_mean) || !(out->running_mean > 0)) {
		out->missing = "needs the mean number of running requests (metrics series)";
	} else if (!br_isnum(out->decode_tokens)) {
		out->missing = "needs total_output_tokens in the bench result";
	} else {
		out->decode_s = out->decode_steps / out->running_mean * out->itl_p50_ms / 1e3;
		out->available = 1;
		out->missing = NULL;
	}

	/* prefill and recompute at the run's prefill FLOP rate */
	if (flops != NULL && flops->available && cal != NULL && cal->available) {
		out->flop_rate_prefill_per_s = flops->m.flop_rate_prefill_per_s;
		if (!br_isnum(out->flop_rate_prefill_per_s) || !(out->flop_rate_prefill_per_s > 0)) {
			out->prefill_missing = out->recompute_missing =
			    "needs a FLOP rate (a 1 Hz metrics series with the FLOPs counter)";
		} else {
			double g = prefill_gflop(b, cal, mean_in);
			if (br_isnum(g) && out->prefill_tokens > 0) {
				out->prefill_gflop_per_token = g / out->prefill_tokens;
				out->prefill_s = g * 1e9 / out->flop_rate_prefill_per_s;
				out->prefill_missing = NULL;
			} else {
				out->prefill_missing = "needs total_input_tokens in the bench result";
			}
			if (br_isnum(flops->recompute_s)) {
				out->recompute_s = flops->recompute_s;
				out->recompute_missing = NULL;
			}
		}
	}

	double T = out->duration_s;
	if (br_isnum(out->decode_s) && br_isnum(out->prefill_s) && br_isnum(out->recompute_s) &&
	    br_isnum(T)) {
		out->rest_s = T - out->decode_s - out->prefill_s - out->recompute_s;
		out->rest_negative = out->rest_s < 0;
	}
	if (br_isnum(T) && T > 0) {
		out->decode_frac = out->decode_s / T;
		out->prefill_frac = out->prefill_s / T;
		out->recompute_frac = out->recompute_s / T;
		out->rest_frac = out->rest_s / T;
	}
}
