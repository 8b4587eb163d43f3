/*
 * Little's law readings (DESIGN.md §3.7): L = λ · W.
 *
 *   λ = completed / duration (client, req/s)
 *   resident: W_resident = L / λ with L = mean running (§3.4), beside the
 *     measured resident time = Δsum/Δcount request_prefill_time_seconds +
 *     Δsum/Δcount request_decode_time_seconds (else request_inference_time_
 *     seconds, else the end-to-end mean less the queue mean: SGLang);
 *     ratio W_resident / measured; implied L = λ · measured.
 *   queue: L_q = mean waiting (else C − mean running), W_q = L_q / λ, beside
 *     the measured queue time (Δsum/Δcount request_queue_time_seconds) and the
 *     client TTFT p50; ratios W_q / measured and W_q / TTFT p50; implied
 *     L_q = λ · measured queue time.
 *
 * With only a before/after pair (no residency) λ, the measured times and the
 * implied L are computed; the readings that need mean running/waiting are NAN.
 */
#include <math.h>
#include <string.h>
#include "benchreport/analysis_overload.h"
#include "benchreport/model.h"
#include "benchreport/common.h"

/* ratio: a / b, NAN unless both are numbers and b > 0. */
static double
ratio(double a, double b)
{
	return br_isnum(a) && br_isnum(b) && b > 0 ? a / b : NAN;
}

/*
 * ttft_p50: client TTFT median (s) from the latency block, else the bench
 * file's median_ttft_ms; NAN when neither has it.
 */
static double
ttft_p50(const br_bench *b, const br_latency *lat)
{
	if (lat != NULL && lat->m[BR_TTFT].count > 0 && br_isnum(lat->m[BR_TTFT].median))
		return lat->m[BR_TTFT].median / 1000.0;
	double ms = b != NULL ? br_bench_file_stat(b, "ttft", "median", NAN) : NAN;
	return br_isnum(ms) ? ms / 1000.0 : NAN;
}

/*
 * br_analyze_littles_law: see analysis_overload.h. Unavailable when λ
 * cannot be formed (no completed/duration) or when neither a residency
 * block nor counter deltas give anything to set against it.
 */
void
br_analyze_littles_law(const br_run *run, const br_residency *res,
    const br_latency *lat, br_littles_law *out)
{
	memset(out, 0, sizeof *out);
	out->completed = out->duration_s = out->lambda_rps = NAN;
	out->running_mean = out->w_resident_s = out->measured_resident_s = NAN;
	out->resident_ratio = out->implied_running = NAN;
	out->queue_length = out->w_queue_s = out->measured_queue_s = NAN;
	out->queue_ratio = out->ttft_p50_s = out->queue_ttft_ratio = NAN;
	out->implied_waiting = out->measured_requests = NAN;
	out->missing = "needs completed and duration in the bench result";
	if (run == NULL || run->bench.n == 0)
		return;
	const br_bench *b = &run->bench.runs[0];
	out->completed = b->completed;
	out->duration_s = b->duration_s;
	out->lambda_rps = ratio(b->completed, b->duration_s);
	out->ttft_p50_s = ttft_p50(b, lat);

	/* measured times from counter deltas */
	size_t i0, i1;
	const char *source;
	if (br_counter_span(run, &i0, &i1, &source) == 0) {
		const br_series *s = run->metrics;
		double pf = br_hist_delta_mean(s, br_role_name(s, BR_ROLE_PREFILL_HIST), i0, i1, NULL);
		double dc = br_hist_delta_mean(s, br_role_name(s, BR_ROLE_DECODE_HIST), i0, i1, NULL);
		if (br_isnum(pf) && br_isnum(dc)) {
			out->measured_resident_s = pf + dc;
			out->measured_resident_source = "prefill + decode time";
		} else {
			out->measured_resident_s = br_hist_delta_mean(s,
			    br_role_name(s, BR_ROLE_INFERENCE_HIST), i0, i1, NULL);
			if (br_isnum(out->measured_resident_s))
				out->measured_resident_source = "inference time";
		}
		double nq = NAN;
		out->measured_queue_s = br_hist_delta_mean(s, br_role_name(s, BR_ROLE_QUEUE_HIST),
		    i0, i1, &nq);
		if (!br_isnum(nq))
			(void)br_hist_delta_mean(s, br_role_name(s, BR_ROLE_PREFILL_HIST), i0, i1, &nq);
		out->measured_requests = nq;
		/* SGLang has neither: its end-to-end mean less its queue mean is the
		 * time from admission to the end, frontend included (thirty-second
		 * audit: "the metrics hold no request-time histograms" beside both) */
		if (!br_isnum(out->measured_resident_s)) {
			double e2e = br_hist_delta_mean(s, br_role_name(s, BR_ROLE_E2E_HIST), i0, i1, NULL);
			if (br_isnum(e2e) && br_isnum(out->measured_queue_s) && e2e > out->measured_queue_s) {
				out->measured_resident_s = e2e - out->measured_queue_s;
				out->measured_resident_source = "end-to-end − queue time, frontend included";
			}
		}
		/* a whole capture (metrics_cut 0) never misses requests
		 * (br_capture_missed_requests needs a cut) */
		int missed = br_capture_missed_requests(run, nq), counts_failed = br_hist_counts_failed(run, nq);
		if (counts_failed && run->metrics_cut == 0 && nq > b->completed && br_isnum(b->duration_s) &&
		    b->duration_s > 0) {
			/* the server ran requests to the end that the client gave up
			 * on (timeouts): they were in the running and waiting counts
			 * too, so λ is what the server completed (thirty-fourth
			 * breaker: λ of the 150 the client kept against L of all 200
			 * read W 3.9 s, measured 3.0 s, as "the capture missed part of
			 * the load" when it missed nothing) */
			out->lambda_from_server = 1;
			out->lambda_rps = nq / b->duration_s;
		} else if (missed || counts_failed) {
			/* other requests than λ counts: no measured time to set L/λ against */
			out->measured_population_differs = 1;
			out->measured_resident_s = out->measured_queue_s = NAN;
			out->measured_resident_source = NULL;
		}
	}

	/* readings from the residency block */
	if (res != NULL && res->available) {
		out->running_mean = res->running_mean;
		if (br_isnum(res->waiting_mean)) {
			out->queue_length = res->waiting_mean;
			out->queue_length_source = "mean waiting";
		} else if (br_isnum(br_effective_concurrency(b, NULL)) && br_isnum(res->running_mean)) {
			/* at most min(C, N) requests are in flight (audit: C = 64 with 40
			 * prompts read 53.9 waiting where at most 29.9 could) */
			double ceff = br_effective_concurrency(b, NULL);
			out->queue_length = ceff - res->running_mean;
			/* an upper bound: it takes every one of them in flight throughout,
			 * which a closed loop's tail is not (thirty-second audit: 12.0
			 * where the deferred mean was 10.4) */
			out->queue_length_source = ceff < b->max_concurrency ?
			    "min(C, N) − mean running, at most: that many in flight throughout assumed" :
			    "C − mean running, at most: C in flight throughout assumed";
		}
	}
	out->w_resident_s = ratio(out->running_mean, out->lambda_rps);
	out->resident_ratio = ratio(out->w_resident_s, out->measured_resident_s);
	out->w_queue_s = ratio(out->queue_length, out->lambda_rps);
	out->queue_ratio = ratio(out->w_queue_s, out->measured_queue_s);
	out->queue_ttft_ratio = ratio(out->w_queue_s, out->ttft_p50_s);
	if (br_isnum(out->lambda_rps)) {
		if (br_isnum(out->measured_resident_s))
			out->implied_running = out->lambda_rps * out->measured_resident_s;
		if (br_isnum(out->measured_queue_s))
			out->implied_waiting = out->lambda_rps * out->measured_queue_s;
	}

	if (!br_isnum(out->lambda_rps))
		return;
	if (!br_isnum(out->w_resident_s) && !br_isnum(out->w_queue_s) &&
	    !br_isnum(out->measured_resident_s) && !br_isnum(out->measured_queue_s)) {
		/* the request-time histograms each engine has (thirty-second audit:
		 * prefill/decode times named to SGLang and llama.cpp users) */
		br_engine e = br_run_engine(run);
		out->missing = e == BR_ENGINE_SGLANG ? "needs a 1 Hz metrics series (mean running/waiting) or "
		    "counter deltas of SGLang's end-to-end and queue-time histograms" :
		    e == BR_ENGINE_LLAMACPP ? "needs a 1 Hz metrics series of llama.cpp's /metrics (requests "
		    "processing and deferred): it has no request-time histograms" :
		    "needs a 1 Hz metrics series (mean running/waiting) or "
		    "counter deltas of request prefill/decode/queue times";
		return;
	}
	out->available = 1;
	out->missing = NULL;
}
