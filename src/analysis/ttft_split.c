/*
 * TTFT decomposition (DESIGN.md §3.6).
 *
 *   queue    = Δ request_queue_time_seconds_sum   / Δ request_queue_time_seconds_count
 *   prefill  = Δ request_prefill_time_seconds_sum / Δ request_prefill_time_seconds_count
 *   frontend + IPC = client mean TTFT − queue − prefill   (a residual; flagged when < 0)
 *   server TTFT mean = Δ time_to_first_token_seconds_sum / Δ ..._count, beside the
 *   client mean (ratio server / client).
 *
 * Deltas are taken over the run window of a 1 Hz series (DESIGN.md §3.1) or
 * between the two rows of a before/after snapshot pair. Also home of the
 * shared helpers br_counter_span and br_hist_delta_mean (analysis_overload.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "benchreport/analysis_overload.h"
#include "benchreport/model.h"
#include "benchreport/common.h"

/*
 * br_counter_span: see analysis_overload.h. A series with a usable run
 * window uses it; a series without one (no running column, never busy)
 * falls back to every row, so counters still give the increase of the whole
 * recording.
 */
int
br_counter_span(const br_run *run, size_t *i0, size_t *i1, const char **source)
{
	if (run == NULL || run->metrics == NULL || run->metrics->n_rows < 2)
		return -1;
	const br_series *s = run->metrics;
	switch (run->metrics_kind) {
	case BR_METRICS_PAIR:
		*i0 = 0;
		*i1 = 1;
		*source = "before/after snapshots";
		return 0;
	case BR_METRICS_CSV:
	case BR_METRICS_SNAPSHOTS:
		if (br_run_counter_window(run, i0, i1) == 0) {
			*source = "metrics series window";
		} else {
			*i0 = 0;
			*i1 = s->n_rows - 1;
			*source = "whole metrics series";
		}
		return 0;
	default:
		return -1;
	}
}

/*
 * br_hist_delta_mean: see analysis_overload.h. Builds "<base>_sum" and
 * "<base>_count", looks both up, and divides their reset-aware deltas.
 */
double
br_hist_delta_mean(const br_series *s, const char *base, size_t i0, size_t i1,
    double *count)
{
	if (count != NULL)
		*count = NAN;
	if (s == NULL || base == NULL)
		return NAN;
	char name[256];
	snprintf(name, sizeof name, "%s_sum", base);
	const double *sum_col = br_series_col(s, name);
	snprintf(name, sizeof name, "%s_count", base);
	const double *cnt_col = br_series_col(s, name);
	if (sum_col == NULL || cnt_col == NULL)
		return NAN;
	double dsum = br_counter_delta(sum_col, i0, i1, NULL);
	double dcnt = br_counter_delta(cnt_col, i0, i1, NULL);
	if (count != NULL)
		*count = dcnt;
	if (!br_isnum(dsum) || !br_isnum(dcnt) || dcnt <= 0)
		return NAN;
	return dsum / dcnt;
}

/* br_capture_missed_requests: see analysis_overload.h. */
int
br_capture_missed_requests(const br_run *run, double hist_count)
{
	if (run == NULL || run->metrics_cut == 0 || run->bench.n == 0 || !br_isnum(hist_count))
		return 0;
	double done = run->bench.runs[0].completed;
	if (!br_isnum(done))
		return 0;
	return fabs(hist_count - done) >= 0.5;
}

/* br_hist_counts_failed: see analysis_overload.h. */
int
br_hist_counts_failed(const br_run *run, double hist_count)
{
	if (run == NULL || run->bench.n == 0 || !br_isnum(hist_count))
		return 0;
	const br_bench *b = &run->bench.runs[0];
	if (!br_isnum(b->failed) || !(b->failed > 0) || !br_isnum(b->completed))
		return 0;
	return fabs(hist_count - b->completed) >= 0.5;
}

/*
 * client_ttft_mean: client mean TTFT (s) from the latency block (its
 * source: arrays or the file's own mean), else the bench file's
 * mean_ttft_ms. NAN when neither has it.
 */
static double
client_ttft_mean(const br_run *run, const br_latency *lat, const char **source)
{
	if (lat != NULL && lat->m[BR_TTFT].count > 0 && br_isnum(lat->m[BR_TTFT].mean)) {
		*source = lat->from_arrays ? "per-request arrays" : "bench file mean_ttft_ms";
		return lat->m[BR_TTFT].mean / 1000.0;
	}
	if (run != NULL && run->bench.n > 0) {
		double ms = br_bench_file_stat(&run->bench.runs[0], "ttft", "mean", NAN);
		if (br_isnum(ms)) {
			*source = "bench file mean_ttft_ms";
			return ms / 1000.0;
		}
	}
	*source = NULL;
	return NAN;
}

/*
 * br_analyze_ttft_split: see analysis_overload.h. Unavailable (with the
 * reason) when there are no counter deltas, when the queue or prefill
 * histogram is absent or saw no request, or when no client mean TTFT
 * exists; whatever could be computed is still filled in.
 */
void
br_analyze_ttft_split(const br_run *run, const br_latency *lat, br_ttft_split *out)
{
	memset(out, 0, sizeof *out);
	out->server_requests = out->queue_s = out->prefill_s = NAN;
	out->client_ttft_mean_s = out->frontend_s = NAN;
	out->queue_share = out->prefill_share = out->frontend_share = NAN;
	out->server_ttft_mean_s = out->server_ttft_count = out->server_over_client = NAN;

	out->client_ttft_mean_s = client_ttft_mean(run, lat, &out->client_source);

	size_t i0, i1;
	if (br_counter_span(run, &i0, &i1, &out->window_source) != 0) {
		/* an engine whose metrics benchreport reads no prefill histogram
		 * from: metrics would not help, say why instead (thirty-second
		 * audit: "needs counter deltas" told SGLang and llama.cpp users to
		 * add an input that gives no split) */
		const char *why = br_role_absent(br_run_engine(run), BR_ROLE_PREFILL_HIST);
		out->missing = why != NULL ? why : "needs counter deltas: a metrics series or a before/after "
		    "pair of /metrics snapshots";
		return;
	}
	const br_series *s = run->metrics;
	out->queue_s = br_hist_delta_mean(s, br_role_name(s, BR_ROLE_QUEUE_HIST), i0, i1,
	    &out->server_requests);
	out->prefill_s = br_hist_delta_mean(s, br_role_name(s, BR_ROLE_PREFILL_HIST), i0, i1,
	    NULL);
	out->server_ttft_mean_s = br_hist_delta_mean(s, br_role_name(s, BR_ROLE_TTFT_HIST),
	    i0, i1, &out->server_ttft_count);
	if (br_isnum(out->server_ttft_mean_s) && br_isnum(out->client_ttft_mean_s) &&
	    out->client_ttft_mean_s > 0)
		out->server_over_client = out->server_ttft_mean_s / out->client_ttft_mean_s;

	if (!br_isnum(out->queue_s) || !br_isnum(out->prefill_s)) {
		br_engine e = br_series_engine(s);
		const char *why = br_role_absent(e, !br_isnum(out->prefill_s) ? BR_ROLE_PREFILL_HIST :
		    BR_ROLE_QUEUE_HIST);
		out->missing = why != NULL ? why : e == BR_ENGINE_SGLANG ?
		    "needs sglang:queue_time_seconds (_sum, _count) rising over the run" :
		    "needs vllm:request_queue_time_seconds and "
		    "vllm:request_prefill_time_seconds (_sum, _count) rising over the run";
		return;
	}
	if (!br_isnum(out->client_ttft_mean_s)) {
		out->missing = "needs the client mean TTFT (mean_ttft_ms or per-request ttfts)";
		return;
	}
	/* the histograms' means over other requests than the client's mean
	 * TTFT: a share of one in the other is no evidence */
	const char *differs = br_capture_missed_requests(run, out->server_requests) ?
	    "needs a metrics capture that covers the whole run: this one missed the start or end of the load, so "
	    "its queue and prefill histograms counted other requests than the client's mean TTFT covers" :
	    br_hist_counts_failed(run, out->server_requests) ?
	    "needs the same requests on both sides: the server's queue and prefill histograms timed requests "
	    "the client saw fail, while the client's mean TTFT covers its successful requests only" : NULL;
	if (differs != NULL) {
		out->population_differs = 1;
		out->server_over_client = NAN;
		out->missing = differs;
		return;
	}
	out->available = 1;
	out->missing = NULL;
	out->frontend_s = out->client_ttft_mean_s - out->queue_s - out->prefill_s;
	out->frontend_negative = out->frontend_s < 0;
	if (out->client_ttft_mean_s > 0) {
		out->queue_share = out->queue_s / out->client_ttft_mean_s;
		out->prefill_share = out->prefill_s / out->client_ttft_mean_s;
		out->frontend_share = out->frontend_s / out->client_ttft_mean_s;
	}
}
