/*
 * Latency analysis (DESIGN.md §3.2; definitions FORMATS.md §1): TTFT, TPOT,
 * ITL, E2EL recomputed from the per-request arrays of the bench result and
 * checked against every statistic the file states itself.
 */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/analysis.h"
#include "benchreport/common.h"

#define REL_TOL 1e-9
/* E2E rebuilt as ttft + Σitls when `latencies` is absent: vLLM's client
 * reads the clock once more for TTFT, so this sum exceeds its latency by
 * ~0.2 µs per request (measured on real/bench/glm52-c4-detailed.json:
 * TPOT statistics differ by 2–6e-8 relative). */
#define REL_TOL_REBUILT 1e-6

/*
 * metric_index: BR_TTFT.. for a file metric name, or -1 for metrics this
 * module does not recompute (client_queue_time, ...).
 */
static int
metric_index(const char *name)
{
	for (int k = 0; k < BR_N_LATENCY; k++)
		if (strcmp(name, br_latency_metric_name[k]) == 0)
			return k;
	return -1;
}

/*
 * recompute_stat: the statistic `fs` describes, from the index of the
 * samples (ms) of its metric and their describe block. NAN when there are no
 * samples or the stat is unknown.
 */
static double
recompute_stat(const br_file_stat *fs, const br_ranked *ranked, size_t n,
    const br_describe_t *d)
{
	if (n == 0)
		return NAN;
	if (strcmp(fs->stat, "mean") == 0)
		return d->mean;
	if (strcmp(fs->stat, "std") == 0)
		return d->std;
	if (strcmp(fs->stat, "median") == 0)
		return d->median;
	if (strcmp(fs->stat, "p") == 0 && br_isnum(fs->percentile)) {
		double v;
		br_ranked_percentiles(ranked, &fs->percentile, 1, &v);
		return v;
	}
	return NAN;
}

/*
 * add_checks: one br_latency_check per file statistic of a recomputed
 * metric. A metric with no samples agrees only when the file wrote 0
 * (vLLM writes an empty set as 0); the recomputed value stays NAN.
 */
static void
add_checks(const br_bench *b, br_latency *out, double tol_rebuilt_tpot_e2el)
{
	out->checks = br_xcalloc(b->n_stats ? b->n_stats : 1, sizeof *out->checks);
	for (size_t i = 0; i < b->n_stats; i++) {
		const br_file_stat *fs = &b->stats[i];
		int k = metric_index(fs->metric);
		if (k < 0 || (k == BR_ITL && out->itl_from_file) ||
		    ((k == BR_E2EL || k == BR_TPOT) && out->e2el_from_file))
			continue;   /* (from the file: nothing recomputed to compare) */
		br_latency_check *c = &out->checks[out->n_checks];
		snprintf(c->key, sizeof c->key, "%s", fs->key);
		c->file_ms = fs->value_ms;
		c->recomputed_ms = recompute_stat(fs, out->ranked[k],
		    out->n_samples[k], &out->m[k]);
		c->tolerance = (k == BR_TPOT || k == BR_E2EL) ?
		    tol_rebuilt_tpot_e2el : REL_TOL;
		if (out->n_samples[k] == 0) {
			c->rel_diff = NAN;
			c->agrees = c->file_ms == 0;
			if (c->agrees)
				out->n_checks_empty++;
		} else if (c->file_ms == c->recomputed_ms) {
			c->rel_diff = 0;
			c->agrees = 1;
		} else {
			double a = fabs(c->file_ms), r = fabs(c->recomputed_ms);
			double m = a > r ? a : r;
			/* a standard deviation's rounding error is relative to the
			 * samples, not to itself: near-equal samples give stds of
			 * 1e-12 ms that two summation orders put 1% apart */
			if (strcmp(fs->stat, "std") == 0 && br_isnum(out->m[k].mean) && fabs(out->m[k].mean) > m)
				m = fabs(out->m[k].mean);
			if (m < 1e-300)
				m = 1e-300;
			c->rel_diff = fabs(c->file_ms - c->recomputed_ms) / m;
			c->agrees = c->rel_diff <= c->tolerance;
		}
		if (!c->agrees)
			out->n_mismatches++;
		out->n_checks++;
	}
}

/* file_metric: m[k] from the file's own statistics of metric k; 1 when the
 * file states at least one. */
static int
file_metric(const br_bench *b, int k, br_describe_t *d)
{
	const char *mn = br_latency_metric_name[k];
	d->mean = br_bench_file_stat(b, mn, "mean", NAN);
	d->std = br_bench_file_stat(b, mn, "std", NAN);
	d->median = br_bench_file_stat(b, mn, "median", NAN);
	d->p90 = br_bench_file_stat(b, mn, "p", 90);
	d->p99 = br_bench_file_stat(b, mn, "p", 99);
	d->p999 = br_bench_file_stat(b, mn, "p", 99.9);
	d->p9999 = br_bench_file_stat(b, mn, "p", 99.99);
	d->max = br_bench_file_stat(b, mn, "p", 100);
	return br_isnum(d->mean) || br_isnum(d->median) ||
	    br_isnum(d->std) || br_isnum(d->p90) || br_isnum(d->p99) ||
	    br_isnum(d->p999) || br_isnum(d->p9999);
}

/*
 * from_file_values: without arrays, fill m[] from the file's own statistics.
 * has_stats[k] = the file gives at least one value of metric k. The count
 * is set only where the file implies it: TTFT, TPOT and E2EL have one value
 * per completed request (count = completed); the number of ITL gaps is not
 * in the file, so the ITL count stays 0 with count_known 0. Stalls need the
 * gaps themselves: itl_stalls_known stays 0 (threshold NAN). When the file
 * says completed = 0, its statistics (vLLM writes 0 for an empty set) are
 * not used: every metric stays absent.
 */
static void
from_file_values(const br_bench *b, br_latency *out)
{
	for (int k = 0; k < BR_N_LATENCY; k++) {
		br_describe_t *d = &out->m[k];
		int any = file_metric(b, k, d);
		if (any && br_isnum(b->completed) && b->completed == 0) {
			/* no request succeeded: vLLM writes 0 for every statistic of
			 * an empty set; those zeros are not latencies */
			br_describe(NULL, 0, d);
			any = 0;
		}
		out->has_stats[k] = any;
		if (any && k != BR_ITL && br_isnum(b->completed) && b->completed > 0) {
			d->count = (size_t)b->completed;
			out->count_known[k] = 1;
		} else {
			d->count = 0;
		}
	}
	out->n_succeeded = br_isnum(b->completed) && b->completed > 0 ?
	    (size_t)b->completed : 0;
	out->n_failed = br_isnum(b->failed) && b->failed > 0 ? (size_t)b->failed : 0;
	out->n_requests = out->n_succeeded + out->n_failed;
}

/*
 * error_message_key: the line of a request's error text that names the
 * error, without leading/trailing white space, at most 300 bytes (cut at a
 * UTF-8 boundary); "(no message)" when empty. That line is the first, except
 * in a Python traceback (vllm bench serve stores traceback.format_exc()),
 * whose first line "Traceback (most recent call last):" is the same for
 * every error: there it is the last non-blank line, the exception ("aiohttp.
 * client_exceptions.ServerDisconnectedError: Server disconnected").
 * Returns a malloc'd string.
 */
static char *
error_message_key(const char *e)
{
	if (e == NULL)
		e = "";
	while (*e == ' ' || *e == '\t' || *e == '\r' || *e == '\n')
		e++;
	static const char TB[] = "Traceback (most recent call last):";
	if (strncmp(e, TB, sizeof TB - 1) == 0) {
		/* the last non-blank line */
		const char *last = NULL;
		for (const char *p = e; *p;) {
			const char *q = p;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q != '\0' && *q != '\n' && *q != '\r')
				last = q;
			p += strcspn(p, "\n");
			if (*p == '\n')
				p++;
		}
		if (last != NULL)
			e = last;
	}
	size_t n = strcspn(e, "\r\n");
	while (n > 0 && (e[n - 1] == ' ' || e[n - 1] == '\t'))
		n--;
	if (n > 300) {
		n = 300;
		while (n > 0 && ((unsigned char)e[n] & 0xC0) == 0x80)
			n--;
	}
	if (n == 0)
		return br_xstrdup("(no message)");
	char *k = br_xmalloc(n + 1);
	memcpy(k, e, n);
	k[n] = '\0';
	return k;
}

/* group_cmp: most frequent first; ties in order of first appearance. */
static int
group_cmp(const void *pa, const void *pb)
{
	const br_error_group *a = pa, *b = pb;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->first_index[0] < b->first_index[0] ? -1 : a->first_index[0] > b->first_index[0];
}

/*
 * group_errors: out->error_groups from the failed requests of b (their
 * error texts). A GHashTable keyed by message keeps it linear in the number
 * of failures.
 */
static void
group_errors(const br_bench *b, br_latency *out)
{
	if (out->n_failed == 0)
		return;
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
	br_error_group *g = br_xcalloc(out->n_failed, sizeof *g);
	size_t ng = 0;
	for (size_t i = 0; i < out->n_failed; i++) {
		size_t idx = out->failed_index[i];
		char *key = error_message_key(b->requests[idx].error);
		gpointer slot;
		br_error_group *e;
		if (g_hash_table_lookup_extended(seen, key, NULL, &slot)) {
			e = &g[GPOINTER_TO_SIZE(slot) - 1];
			free(key);
		} else {
			e = &g[ng++];
			e->message = key;
			g_hash_table_insert(seen, key, GSIZE_TO_POINTER(ng));
		}
		if (e->n_index < BR_ERROR_GROUP_INDICES)
			e->first_index[e->n_index++] = idx;
		e->count++;
	}
	g_hash_table_destroy(seen);
	qsort(g, ng, sizeof *g, group_cmp);
	out->error_groups = g;
	out->n_error_groups = ng;
}

/*
 * stall_event: locate each stall gap in time (start + TTFT + the gaps
 * before it; perf_counter seconds). A gap is an engine step only when no
 * request received a token inside it (else the engine ran on and the gap is
 * one request's, e.g. a preempted victim's wait); the longest such gap
 * (among the 64 longest) is the event. Every other
 * request whose stall gap ends within tol = max(50 ms, 10% of it) of the
 * same moment stalled in the same engine step; every request whose first
 * token arrives within tol of it after a TTFT above the stall threshold
 * waited on it for its first token. Needs start times. A gap that ends
 * within the ramp-up is left out: until the last of the requests sent
 * before any first token came back (the opening batch) has its first
 * token, long steps are that batch's prefill, which every run has.
 */
/* One request's ITL gaps (s) as the stall search reads them: the bench's
 * own array, or the request's slice of the pool once the pool was built in
 * the bench's block (non-finite gaps may be left out: they are skipped). */
typedef struct itl_seq {
	const double *itl_s;
	size_t n;
} itl_seq;

/* A located stall gap: its length and end (s, perf_counter clock), its request. */
typedef struct stall_gap {
	double gap_s, end_s;
	size_t req;
} stall_gap;

static int
stall_gap_cmp(const void *pa, const void *pb)
{
	const stall_gap *a = pa, *b = pb;
	return a->gap_s > b->gap_s ? -1 : a->gap_s < b->gap_s;
}

/* An open interval (g0, g1) of time (s) and whether a token fell inside. */
typedef struct window {
	double g0, g1;
	size_t gap;             /* index of its stall gap */
	int hit;
} window;

static int
window_cmp(const void *pa, const void *pb)
{
	const window *a = pa, *b = pb;
	return a->g0 < b->g0 ? -1 : a->g0 > b->g0;
}

/*
 * tokens_inside: for each of the n windows w (sorted by g0 here), hit = 1
 * when any successful request got a token (first or later) strictly inside
 * (g0, g1). A request's token times t = start + ttft, then + each finite
 * ITL, summed left to right. When its ITLs are all >= 0 the times ascend,
 * so one sweep matches them against the windows in g0 order (the first
 * token after g0 only moves forward): O(tokens + windows) per request
 * instead of a scan of every token per window (64 scans of 5M tokens on a
 * 5,000 x 1,000 result). A request with a negative gap is checked token by
 * token against every window.
 */
static void
tokens_inside(const br_bench *b, const itl_seq *sq, window *w, size_t n)
{
	if (n == 0)
		return;
	qsort(w, n, sizeof *w, window_cmp);
	for (size_t i = 0; i < b->n_requests; i++) {
		const br_request *q = &b->requests[i];
		if (q->failed || !isfinite(q->start_time_s) || !isfinite(q->ttft_s))
			continue;
		const double *itl = sq[i].itl_s;
		size_t n_itl = sq[i].n;
		int ascending = 1;
		for (size_t j = 0; j < n_itl && ascending; j++)
			ascending = !(itl[j] < 0);
		double t = q->start_time_s + q->ttft_s;
		size_t j = 0;   /* next ITL to add */
		if (ascending) {
			for (size_t k = 0; k < n; k++) {
				/* advance to the first token time > g0 */
				while (!(t > w[k].g0) && j < n_itl) {
					if (isfinite(itl[j]))
						t += itl[j];
					j++;
				}
				if (!(t > w[k].g0))
					break;   /* every token is at or before g0 */
				if (t < w[k].g1)
					w[k].hit = 1;
			}
			continue;
		}
		for (;;) {
			for (size_t k = 0; k < n; k++)
				if (t > w[k].g0 && t < w[k].g1)
					w[k].hit = 1;
			while (j < n_itl && !isfinite(itl[j]))
				j++;
			if (j >= n_itl)
				break;
			t += itl[j++];
		}
	}
}

static void
stall_event(const br_bench *b, const itl_seq *sq, br_latency *out)
{
	double thr = out->itl_stall_threshold_ms / 1000.0;
	double t0 = INFINITY;
	stall_gap *gaps = NULL;
	size_t ng = 0;
	for (size_t i = 0; i < b->n_requests; i++) {
		const br_request *q = &b->requests[i];
		if (q->failed || !isfinite(q->start_time_s) || !isfinite(q->ttft_s))
			continue;
		if (q->start_time_s < t0)
			t0 = q->start_time_s;
		double t = q->start_time_s + q->ttft_s;
		for (size_t j = 0; j < sq[i].n; j++) {
			double g = sq[i].itl_s[j];
			if (!isfinite(g))
				continue;
			t += g;
			if (g > thr) {
				gaps = br_xrealloc(gaps, (ng + 1) * sizeof *gaps);
				gaps[ng++] = (stall_gap){ g, t, i };
			}
		}
	}
	/* the ramp-up: the opening batch, sent before the first token, is
	 * prefilled in chunks while its first members already decode */
	double first_tok = INFINITY, rampup_end = -INFINITY;
	for (size_t i = 0; i < b->n_requests; i++) {
		const br_request *q = &b->requests[i];
		if (!q->failed && isfinite(q->start_time_s) && isfinite(q->ttft_s))
			first_tok = fmin(first_tok, q->start_time_s + q->ttft_s);
	}
	for (size_t i = 0; i < b->n_requests; i++) {
		const br_request *q = &b->requests[i];
		if (!q->failed && isfinite(q->start_time_s) && isfinite(q->ttft_s) && q->start_time_s < first_tok)
			rampup_end = fmax(rampup_end, q->start_time_s + q->ttft_s);
	}
	size_t kept = 0;
	for (size_t k = 0; k < ng; k++)
		if (gaps[k].end_s > rampup_end + fmax(0.05, 0.1 * gaps[k].gap_s))
			gaps[kept++] = gaps[k];
	ng = kept;
	if (ng > 1)
		qsort(gaps, ng, sizeof *gaps, stall_gap_cmp);
	/* an engine step stalls everyone: when any request got a token inside
	 * a gap, the engine ran on and the gap is that request's own (a
	 * preempted victim waiting to be readmitted). The longest of the (at
	 * most 64 longest) gaps with no token inside is the event. */
	double best_end = NAN, best_gap = 0, tol = 0;
	size_t best_req = 0;
	size_t nw = ng < 64 ? ng : 64;
	window *w = br_xcalloc(nw ? nw : 1, sizeof *w);
	for (size_t k = 0; k < nw; k++) {
		double tl = fmax(0.05, 0.1 * gaps[k].gap_s);
		w[k] = (window){ gaps[k].end_s - gaps[k].gap_s + tl, gaps[k].end_s - tl, k, 0 };
	}
	tokens_inside(b, sq, w, nw);   /* sorts w by g0 */
	int *gap_hit = br_xcalloc(nw ? nw : 1, sizeof *gap_hit);
	for (size_t m = 0; m < nw; m++)
		gap_hit[w[m].gap] = w[m].hit;
	for (size_t k = 0; k < nw; k++) {
		if (!gap_hit[k]) {
			best_end = gaps[k].end_s;
			best_gap = gaps[k].gap_s;
			best_req = gaps[k].req;
			tol = fmax(0.05, 0.1 * gaps[k].gap_s);
			break;
		}
	}
	free(gap_hit);
	free(w);
	free(gaps);
	if (!isfinite(best_end))
		return;
	size_t streams = 0, firsts = 0;
	for (size_t i = 0; i < b->n_requests; i++) {
		const br_request *q = &b->requests[i];
		if (q->failed || !isfinite(q->start_time_s) || !isfinite(q->ttft_s))
			continue;
		double first = q->start_time_s + q->ttft_s;
		if (i != best_req && fabs(first - best_end) <= tol && q->ttft_s > thr)
			firsts++;
		double t = first;
		int hit = 0;
		for (size_t j = 0; j < sq[i].n && !hit; j++) {
			double g = sq[i].itl_s[j];
			if (!isfinite(g))
				continue;
			t += g;
			hit = g > thr && fabs(t - best_end) <= tol;
		}
		streams += (size_t)hit;
	}
	out->stall_event_known = 1;
	out->stall_event_ms = best_gap * 1000.0;
	out->stall_event_at_s = best_end - t0;
	out->stall_event_streams = streams;
	out->stall_event_first_tokens = firsts;
}

/*
 * in_order_slices: 1 when the ITL lists of b's requests lie in b's block in
 * request order without overlap (the fast loader's layout), so the pool can
 * be compacted inside it front to back: a request's gaps are never
 * overwritten before they are read.
 */
static int
in_order_slices(const br_bench *b)
{
	const double *next = b->itls_block;
	for (size_t i = 0; i < b->n_requests; i++) {
		const br_request *q = &b->requests[i];
		if (q->n_itls == 0)
			continue;
		if (q->itls_s < next)
			return 0;
		next = q->itls_s + q->n_itls;
	}
	return 1;
}

/* itls_expected: 1 when some successful request produced 2+ output tokens,
 * so its ITL list should hold gaps. */
static int
itls_expected(const br_bench *b)
{
	for (size_t i = 0; i < b->n_requests; i++)
		if (!b->requests[i].failed && br_isnum(b->requests[i].output_len_tokens) &&
		    b->requests[i].output_len_tokens > 1)
			return 1;
	return 0;
}

/*
 * analyze_latency: br_analyze_latency_taking (take may be NULL). From arrays
 * (successful requests only, ms): TTFT = ttft; E2EL = latency, else ttft +
 * Σitls (summed left to right like Python's sum); TPOT = (E2EL − TTFT)/(out
 * − 1) for out > 1; ITL pools every finite chunk gap in submission order
 * (numpy's summation order for the mean), left in that order and indexed
 * (br_ranked) for its percentiles and CDF. Stalls: ITL gaps >
 * 10 × median ITL, raised to 3 × ITL p99 when there are >= 1,000 gaps (p99
 * then rests on >= 10 samples and marks the normal tail); the longest is
 * located in time (stall_event). The threshold is read from the pool in s,
 * before it is scaled to ms, because the stall search walks each request's
 * gaps in s.
 */
static void
analyze_latency(const br_run *run, br_bench *take, br_latency *out)
{
	memset(out, 0, sizeof *out);
	for (int k = 0; k < BR_N_LATENCY; k++)
		br_describe(NULL, 0, &out->m[k]);
	out->itl_stall_threshold_ms = NAN;
	out->itl_max_ms = NAN;
	out->stall_event_ms = out->stall_event_at_s = NAN;
	if (run == NULL || run->bench.n == 0 || run->bench.runs == NULL)
		return;
	const br_bench *b = &run->bench.runs[0];
	for (int k = 0; k < BR_N_LATENCY; k++)
		out->file_disorder[k] = br_bench_file_pct_disorder(b, br_latency_metric_name[k],
		    &out->disorder_lo_pct[k], &out->disorder_lo_ms[k], &out->disorder_hi_pct[k],
		    &out->disorder_hi_ms[k]);

	if (b->n_requests == 0 || b->requests == NULL) {
		from_file_values(b, out);
		out->checks = NULL;
		return;
	}

	out->from_arrays = 1;
	out->n_requests = b->n_requests;
	br_dvec v[BR_N_LATENCY];
	memset(v, 0, sizeof v);
	int rebuilt = 0;
	size_t n_unbuildable = 0;   /* no latency and no gaps, yet 2+ tokens streamed */
	char *pooled = br_xcalloc(b->n_requests, 1);   /* 1: the request's gaps enter the ITL pool */
	size_t n_pool_max = 0, n_side = 0;
	out->failed_index = br_xcalloc(b->n_requests, sizeof *out->failed_index);
	for (size_t i = 0; i < b->n_requests; i++) {
		const br_request *q = &b->requests[i];
		if (q->failed) {
			out->failed_index[out->n_failed++] = i;
			continue;
		}
		out->n_succeeded++;
		double ttft = q->ttft_s;
		double lat = q->latency_s;
		if (!(b->has_latencies && br_isnum(lat))) {
			double s = 0;
			for (size_t j = 0; j < q->n_itls; j++)
				s += q->itls_s[j];
			lat = ttft + s;
			rebuilt = 1;
			/* no gaps for a request that streamed 2+ tokens: TTFT alone
			 * is not its latency */
			if (q->n_itls == 0 && br_isnum(q->output_len_tokens) && q->output_len_tokens > 1) {
				lat = NAN;
				n_unbuildable++;
			}
		}
		/* absent values (JSON null) are NAN and stay out of the samples */
		if (br_isnum(ttft)) {
			br_dvec_push(&v[BR_TTFT], ttft * 1000.0);
			out->n_ttft_zero += !(ttft > 0);   /* no first token arrives in no time */
		}
		if (br_isnum(lat))
			br_dvec_push(&v[BR_E2EL], lat * 1000.0);
		if (br_isnum(q->output_len_tokens) && q->output_len_tokens > 1 &&
		    br_isnum(lat) && br_isnum(ttft))
			br_dvec_push(&v[BR_TPOT],
			    (lat - ttft) / (q->output_len_tokens - 1) * 1000.0);
		/* gaps that add up to more than the request lasted (TTFT + Σ ITL >
		 * E2E latency + 1e-6 relative + 1 ms) are not this request's
		 * streaming: left out of the ITL pool and counted */
		double span = br_isnum(ttft) ? ttft : 0;
		for (size_t j = 0; j < q->n_itls; j++)
			if (br_isnum(q->itls_s[j]))
				span += q->itls_s[j];
		if (b->has_latencies && br_isnum(q->latency_s) && span > q->latency_s * (1 + 1e-6) + 1e-3) {
			out->n_itl_inconsistent++;
			n_side += q->n_itls;
			continue;
		}
		pooled[i] = 1;
		n_pool_max += q->n_itls;
	}

	/* the ITL pool (s, submission order) and each request's gaps as the
	 * stall search reads them. Taken: the pool is compacted inside the
	 * bench's block, so the gaps of requests left out of it (inconsistent
	 * ones) are first copied aside */
	int in_place = take != NULL && take == b && take->itls_block != NULL && n_pool_max > 0 &&
	    in_order_slices(b);
	itl_seq *sq = br_xcalloc(b->n_requests, sizeof *sq);
	double *pool, *side = NULL;
	size_t n_pool = 0;
	if (in_place) {
		side = br_xmalloc((n_side ? n_side : 1) * sizeof *side);
		size_t o = 0;
		for (size_t i = 0; i < b->n_requests; i++) {
			const br_request *q = &b->requests[i];
			if (q->failed || pooled[i])
				continue;
			memcpy(side + o, q->itls_s, q->n_itls * sizeof *side);
			sq[i] = (itl_seq){ side + o, q->n_itls };
			o += q->n_itls;
		}
		pool = take->itls_block;
	} else {
		pool = br_xmalloc((n_pool_max ? n_pool_max : 1) * sizeof *pool);
		for (size_t i = 0; i < b->n_requests; i++)
			if (!b->requests[i].failed)
				sq[i] = (itl_seq){ b->requests[i].itls_s, b->requests[i].n_itls };
	}
	for (size_t i = 0; i < b->n_requests; i++) {
		if (!pooled[i])
			continue;
		const br_request *q = &b->requests[i];
		size_t from = n_pool;
		for (size_t j = 0; j < q->n_itls; j++)
			if (br_isnum(q->itls_s[j]))
				pool[n_pool++] = q->itls_s[j];   /* in place: n_pool <= this gap's own index */
		if (in_place)
			sq[i] = (itl_seq){ pool + from, n_pool - from };
	}

	for (int k = 0; k < BR_N_LATENCY; k++) {
		if (k == BR_ITL)
			continue;
		/* describe on submission order (numpy's summation order), then
		 * keep the samples sorted for CDFs and percentiles */
		br_describe_sort(v[k].v, v[k].n, &out->m[k]);
		out->samples_ms[k] = v[k].v;
		out->n_samples[k] = v[k].n;
		out->ranked[k] = br_ranked_new(v[k].v, v[k].n, 1.0);
		out->has_stats[k] = v[k].n > 0;
		out->count_known[k] = 1;   /* the arrays give the count, 0 included */
		if (v[k].n == 0) {
			free(v[k].v);
			out->samples_ms[k] = NULL;
		}
	}
	if (n_pool > 0) {
		/* an index of the pool in s read as ms (the pool is scaled in
		 * place only after the stall search, which reads it in s) */
		br_ranked *in_s = br_ranked_new(pool, n_pool, 1000.0);
		double median_ms = br_ranked_median(in_s), p99_ms;
		br_ranked_percentiles(in_s, (const double[]){ 99 }, 1, &p99_ms);
		br_ranked_free(in_s);
		out->itl_stalls_known = 1;
		out->itl_stall_threshold_ms = 10.0 * median_ms;
		if (n_pool >= 1000 && 3.0 * p99_ms > out->itl_stall_threshold_ms) {
			out->itl_stall_threshold_ms = 3.0 * p99_ms;
			out->itl_stall_from_p99 = 1;
		}
		for (size_t j = 0; j < n_pool; j++)
			if (pool[j] * 1000.0 > out->itl_stall_threshold_ms)
				out->itl_stalls++;
	}
	if (out->itl_stalls > 0)
		stall_event(b, sq, out);
	free(sq);
	free(side);
	free(pooled);

	for (size_t j = 0; j < n_pool; j++)
		pool[j] *= 1000.0;
	out->n_samples[BR_ITL] = n_pool;
	out->has_stats[BR_ITL] = n_pool > 0;
	out->count_known[BR_ITL] = 1;
	if (in_place) {
		/* the block is the pool now: the requests keep no ITLs */
		for (size_t i = 0; i < take->n_requests; i++) {
			take->requests[i].itls_s = NULL;
			take->requests[i].n_itls = 0;
		}
		take->itls_block = NULL;
		take->itls_taken = 1;
		if (n_pool > 0)
			pool = br_xrealloc(pool, n_pool * sizeof *pool);
	}
	if (n_pool == 0) {
		free(pool);
		pool = NULL;
	}
	out->samples_ms[BR_ITL] = pool;
	/* describe from an index: the pool stays in submission order */
	out->ranked[BR_ITL] = br_ranked_new(pool, n_pool, 1.0);
	br_describe_ranked(pool, n_pool, out->ranked[BR_ITL], &out->m[BR_ITL]);
	if (n_pool > 0)
		out->itl_max_ms = out->m[BR_ITL].max;
	else if (itls_expected(b) && file_metric(b, BR_ITL, &out->m[BR_ITL])) {
		/* every ITL list empty although requests streamed many tokens (an
		 * edited or truncated file): the file's own ITL statistics stand */
		out->itl_from_file = 1;
		out->itl_array_absent = !b->has_itls;
		out->has_stats[BR_ITL] = 1;
		out->count_known[BR_ITL] = 0;
	}
	/* a latency that cannot be rebuilt for some request (no "latencies",
	 * its ITL list empty): E2EL and TPOT of the others alone would be
	 * another population than the file's, so the file's own statistics
	 * stand for both, not checked; absent when the file states none */
	if (n_unbuildable > 0) {
		static const int kk[2] = { BR_E2EL, BR_TPOT };
		for (int j = 0; j < 2; j++) {
			int k = kk[j];
			br_ranked_free(out->ranked[k]);
			out->ranked[k] = NULL;
			free(out->samples_ms[k]);
			out->samples_ms[k] = NULL;
			out->n_samples[k] = 0;
			memset(&out->m[k], 0, sizeof out->m[k]);
			out->has_stats[k] = file_metric(b, k, &out->m[k]);   /* NAN where it states none */
			out->m[k].min = NAN;
			out->m[k].count = br_isnum(b->completed) && b->completed >= 0 ? (size_t)b->completed : 0;
			out->count_known[k] = br_isnum(b->completed);
		}
		out->e2el_from_file = 1;
		out->n_e2el_unbuildable = n_unbuildable;
		rebuilt = 0;
	}
	out->e2el_rebuilt = rebuilt;
	add_checks(b, out, rebuilt ? REL_TOL_REBUILT : REL_TOL);
	group_errors(b, out);
	br_latency_fill_cdf(out);
}

/* br_latency_ranked: see analysis_blocks.h. */
const br_ranked *
br_latency_ranked(const br_latency *L, int m, br_ranked **own, double **copy)
{
	*own = NULL;
	*copy = NULL;
	const double *s = L->samples_ms[m];
	size_t n = L->n_samples[m];
	if (s == NULL || n == 0)
		return NULL;
	if (L->ranked[m] != NULL && br_ranked_count(L->ranked[m]) == n)
		return L->ranked[m];
	double *c = br_xmalloc(n * sizeof *c);
	size_t nf = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(s[i]))
			c[nf++] = s[i];
	*own = br_ranked_new(c, nf, 1.0);
	if (*own == NULL) {
		free(c);
		return NULL;
	}
	*copy = c;
	return *own;
}

/* br_latency_fill_cdf: see analysis_blocks.h. */
void
br_latency_fill_cdf(br_latency *L)
{
	for (int m = 0; m < BR_N_LATENCY; m++) {
		free(L->cdf_x_ms[m]);
		free(L->cdf_share[m]);
		L->cdf_x_ms[m] = L->cdf_share[m] = NULL;
		L->cdf_n[m] = L->cdf_count[m] = 0;
		L->cdf_mid_ms[m] = NAN;
		br_ranked *own;
		double *copy;
		const br_ranked *rk = br_latency_ranked(L, m, &own, &copy);
		size_t nf = br_ranked_count(rk);
		if (nf > 0) {
			size_t mid = nf / 2;
			br_ranked_at(rk, &mid, 1, &L->cdf_mid_ms[m]);
			L->cdf_count[m] = nf;
			L->cdf_n[m] = br_ranked_cdf(rk, BR_LATENCY_CDF_POINTS, BR_LATENCY_CDF_TAIL,
			    &L->cdf_x_ms[m], &L->cdf_share[m]);
		}
		br_ranked_free(own);
		free(copy);
	}
}

/* br_analyze_latency / br_analyze_latency_taking: see analysis_blocks.h. */
void
br_analyze_latency(const br_run *run, br_latency *out)
{
	analyze_latency(run, NULL, out);
}

void
br_analyze_latency_taking(const br_run *run, br_bench *take, br_latency *out)
{
	analyze_latency(run, take, out);
}

/* br_latency_from_file: see analysis_blocks.h. */
int
br_latency_from_file(const br_latency *l, const br_bench *b, int k)
{
	if (!l->from_arrays)
		return 1;
	return (k == BR_ITL && (l->itl_from_file || (b != NULL && !b->has_itls))) ||
	    ((k == BR_E2EL || k == BR_TPOT) && l->e2el_from_file);
}
