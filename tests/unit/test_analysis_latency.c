/*
 * Latency analysis (DESIGN.md §3.2): a hand-built bench with one failed
 * request (expected values by hand), the real detailed glm52 result
 * (expected values from the file itself and from numpy 1.24 run on the same
 * file), and a result without arrays.
 */
#include "br_test.h"
#include "benchreport/analysis.h"
#include "benchreport/common.h"

/* A bench with every number absent (NAN), as the parser leaves it. */
static void
bench_blank(br_bench *b)
{
	memset(b, 0, sizeof *b);
	double *nums[] = { &b->num_prompts, &b->request_rate_rps, &b->burstiness,
		&b->max_concurrency, &b->run_number, &b->duration_s, &b->completed,
		&b->failed, &b->total_input_tokens, &b->total_output_tokens,
		&b->request_throughput_rps, &b->request_goodput_rps,
		&b->output_throughput_tps, &b->total_token_throughput_tps,
		&b->input_throughput_tps, &b->max_output_tokens_per_s,
		&b->max_concurrent_requests, &b->spec_decode_acceptance_rate,
		&b->spec_decode_acceptance_length, &b->spec_decode_num_drafts,
		&b->spec_decode_draft_tokens, &b->spec_decode_accepted_tokens };
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
		*nums[i] = NAN;
}

/* analyze_hand: *b a blank bench (bench_blank) holding the n requests req
 * and the n_st file statistics st (NULL, 0: none), completed and failed as
 * given (NAN: absent); *run one result, *b; *a its latency analysis (free
 * with br_analysis_free). */
static void
analyze_hand(br_bench *b, br_run *run, br_analysis *a, br_request *req, size_t n,
    br_file_stat *st, size_t n_st, double completed, double failed)
{
	bench_blank(b);
	b->requests = req;
	b->n_requests = n;
	b->stats = st;
	b->n_stats = n_st;
	b->completed = completed;
	b->failed = failed;
	memset(run, 0, sizeof *run);
	run->bench.runs = b;
	run->bench.n = 1;
	memset(a, 0, sizeof *a);
	br_analyze_latency(run, &a->latency);
}

static void
set_req(br_request *q, double in, double out, double ttft, const double *itls,
    size_t n, int failed)
{
	memset(q, 0, sizeof *q);
	q->input_len_tokens = in;
	q->output_len_tokens = out;
	q->ttft_s = ttft;
	q->latency_s = NAN;
	q->start_time_s = q->queue_time_s = NAN;
	q->itls_s = (double *)itls;
	q->n_itls = n;
	q->failed = failed;
}

static void
set_stat(br_file_stat *s, const char *metric, const char *stat, double p, double v,
    const char *key)
{
	memset(s, 0, sizeof *s);
	snprintf(s->metric, sizeof s->metric, "%s", metric);
	snprintf(s->stat, sizeof s->stat, "%s", stat);
	s->percentile = p;
	s->value_ms = v;
	snprintf(s->key, sizeof s->key, "%s", key);
}

/*
 * Four requests, #1 failed. By hand (ms):
 *  r0 ttft 100, itls 20 30 25, out 4 → e2el 175, tpot 75/3 = 25
 *  r1 failed (ttft 0, out 0)
 *  r2 ttft 200, itls 50 500, out 3 → e2el 750, tpot 550/2 = 275
 *  r3 ttft 300, no itls, out 1 → e2el 300, no tpot
 * TTFT {100,200,300}: mean 200, median 200, std sqrt(20000/3) = 81.649658092772603,
 *   p99 at h = 1.98 → 200 + 0.98·100 = 298, max 300.
 * ITL {20,25,30,50,500}: median 30, mean 125, stall threshold 300 → 1 stall (500).
 * TPOT {25,275}: mean 150; E2EL {175,300,750}: median 300.
 */
/*
 * The stall event (stall_event in latency.c), by hand (s):
 *  r0 start 0, ttft 1.0, 10 gaps of 0.1 (tokens to 2.0), a 5.0 gap (token at
 *     7.0), 5 more of 0.1;
 *  r1 start 0, ttft 1.05, 9 of 0.1 (to 1.95), a 4.9 gap (to 6.85), 5 of 0.1;
 *  r2 start 20, ttft 0.5, an 8.0 gap (20.5 → 28.5): a victim, since
 *  r3 start 19, ttft 1.0, 100 of 0.1 (tokens 20.0 … 30.0, plus a −0.05 gap at
 *     the end, which sends r3 down the token-by-token path) streams through it;
 *  r4 start 3, ttft 4.1: first token at 7.1, after a TTFT above the threshold.
 * ITL median 100 ms (fewer than 1,000 gaps) → threshold 10 × 100 = 1,000 ms;
 * the gaps above it, longest first: r2 8.0 (window (21.3, 27.7) holds r3's
 * tokens), r0 5.0 (window (2.5, 6.5): no token of anyone) → the event: gap
 * 5,000 ms ending at 7.0 s after the first start, tol = max(0.05, 0.5) =
 * 0.5 s; streams stalled in it: r0 and r1 (ends 7.0 and 6.85) = 2; first
 * tokens waiting on it: r4 (7.1) = 1.
 */
static void
test_stall_event(void **state)
{
	(void)state;
	double it0[16], it1[15], it2[1] = { 8.0 }, it3[101], it4[3] = { 0.1, 0.1, 0.1 };
	for (int i = 0; i < 16; i++)
		it0[i] = i == 10 ? 5.0 : 0.1;
	for (int i = 0; i < 15; i++)
		it1[i] = i == 9 ? 4.9 : 0.1;
	for (int i = 0; i < 101; i++)
		it3[i] = i == 100 ? -0.05 : 0.1;
	br_request req[5];
	set_req(&req[0], 10, 17, 1.0, it0, 16, 0);
	set_req(&req[1], 10, 16, 1.05, it1, 15, 0);
	set_req(&req[2], 10, 2, 0.5, it2, 1, 0);
	set_req(&req[3], 10, 102, 1.0, it3, 101, 0);
	set_req(&req[4], 10, 4, 4.1, it4, 3, 0);
	const double starts[5] = { 0, 0, 20, 19, 3 };
	for (int i = 0; i < 5; i++)
		req[i].start_time_s = starts[i];
	br_bench b;
	br_run run;
	br_analysis a;
	analyze_hand(&b, &run, &a, req, 5, NULL, 0, NAN, NAN);
	const br_latency *L = &a.latency;
	assert_double_rel(L->itl_stall_threshold_ms, 1000, 1e-9);
	assert_int_equal(L->itl_stalls, 3);
	assert_true(L->stall_event_known);
	assert_double_rel(L->stall_event_ms, 5000, 1e-9);
	assert_double_rel(L->stall_event_at_s, 7.0, 1e-9);
	assert_int_equal(L->stall_event_streams, 2);
	assert_int_equal(L->stall_event_first_tokens, 1);
	br_analysis_free(&a);
}

/*
 * br_analyze_latency_taking against br_analyze_latency on the same requests
 * laid out in one block (the fast loader's layout): every number equal, the
 * sorted ITL samples equal bit for bit, the stall event the same; the taken
 * bench holds no ITLs afterwards. The requests: the stall-event fixture's
 * five (test_stall_event), a failed one with gaps, one whose gaps add up to
 * more than its latency (left out of the pool, but still walked by the stall
 * search), a NaN gap, and 6,000 gaps of 20-26 ms (so the pool passes 4,096
 * values and the threshold is read by radix selection). A block whose lists
 * are out of request order is copied, not taken.
 */
static void
build_block(br_bench *b, br_request *req, double **block, int reversed)
{
	/* #0 failed, #1 the inconsistent one with a NaN gap (both first, so the
	 * pool's compaction moves every later list), #2-#6 the stall fixture's
	 * r0-r4, #7 the 6,000 gaps, after the others in time */
	enum { NR = 8 };
	static const size_t n_itl[NR] = { 4, 3, 16, 15, 1, 101, 3, 6000 };
	static const double starts[NR] = { 1, 2, 0, 0, 20, 19, 3, 40 };
	static const double ttft[NR] = { 0.2, 0.3, 1.0, 1.05, 0.5, 1.0, 4.1, 0.05 };
	size_t total = 0;
	for (int i = 0; i < NR; i++)
		total += n_itl[i];
	*block = malloc(total * sizeof **block);
	size_t o = reversed ? total : 0;
	uint64_t r = 12345;
	bench_blank(b);
	b->has_latencies = 1;
	for (int i = 0; i < NR; i++) {
		if (reversed)
			o -= n_itl[i];
		double *g = *block + o;
		for (size_t j = 0; j < n_itl[i]; j++) {
			r ^= r << 13; r ^= r >> 7; r ^= r << 17;
			g[j] = i == 2 ? (j == 10 ? 5.0 : 0.1) : i == 3 ? (j == 9 ? 4.9 : 0.1) : i == 4 ? 8.0 :
			    i == 5 ? (j == 100 ? -0.05 : 0.1) : i == 1 && j == 1 ? NAN :
			    i == 7 ? 0.020 + 0.006 * (double)(r >> 11) / 9007199254740992.0 : 0.1;
		}
		set_req(&req[i], 10, (double)n_itl[i] + 1, ttft[i], g, n_itl[i], i == 0);
		req[i].start_time_s = starts[i];
		double sum = ttft[i];
		for (size_t j = 0; j < n_itl[i]; j++)
			sum += isfinite(g[j]) ? g[j] : 0;
		req[i].latency_s = i == 1 ? sum - 0.2 : sum;   /* #1: gaps beyond its latency */
		if (!reversed)
			o += n_itl[i];
	}
	b->requests = req;
	b->n_requests = NR;
	b->itls_block = *block;
}

static void
test_taking_itls(void **state)
{
	(void)state;
	for (int reversed = 0; reversed < 2; reversed++) {
		br_request rq_copy[8], rq_take[8];
		br_bench bc, bt;
		double *blk_copy, *blk_take;
		build_block(&bc, rq_copy, &blk_copy, reversed);
		build_block(&bt, rq_take, &blk_take, reversed);
		br_run rc, rt;
		memset(&rc, 0, sizeof rc);
		memset(&rt, 0, sizeof rt);
		rc.bench.runs = &bc;
		rc.bench.n = 1;
		rt.bench.runs = &bt;
		rt.bench.n = 1;
		br_analysis ac, at;
		memset(&ac, 0, sizeof ac);
		memset(&at, 0, sizeof at);
		br_analyze_latency(&rc, &ac.latency);
		br_analyze_latency_taking(&rt, &bt, &at.latency);
		const br_latency *C = &ac.latency, *T = &at.latency;
		assert_int_equal(C->n_succeeded, 7);
		assert_int_equal(C->n_itl_inconsistent, 1);
		assert_int_equal(C->n_samples[BR_ITL], 16 + 15 + 1 + 101 + 3 + 6000);   /* not #0 (failed), #1 */
		for (int k = 0; k < BR_N_LATENCY; k++) {
			assert_int_equal(C->n_samples[k], T->n_samples[k]);
			assert_memory_equal(&C->m[k], &T->m[k], sizeof C->m[k]);
			if (C->n_samples[k] > 0)
				assert_memory_equal(C->samples_ms[k], T->samples_ms[k], C->n_samples[k] * sizeof(double));
		}
		assert_true(C->itl_stall_threshold_ms == T->itl_stall_threshold_ms);
		assert_int_equal(C->itl_stalls, T->itl_stalls);
		assert_true(C->stall_event_known && T->stall_event_known);
		assert_true(C->stall_event_ms == T->stall_event_ms && C->stall_event_at_s == T->stall_event_at_s);
		assert_int_equal(C->stall_event_streams, T->stall_event_streams);
		assert_int_equal(C->stall_event_first_tokens, T->stall_event_first_tokens);
		/* the fixture's event survives the extra requests: r0's 5 s gap ending at 7.0 s */
		assert_double_rel(T->stall_event_ms, 5000, 1e-9);
		assert_double_rel(T->stall_event_at_s, 7.0, 1e-9);
		/* the copy leaves its bench alone; the take empties it unless the
		 * lists are out of order */
		assert_ptr_equal(bc.itls_block, blk_copy);
		assert_int_equal(bc.itls_taken, 0);
		assert_int_equal(bt.itls_taken, !reversed);
		assert_true(reversed ? bt.itls_block == blk_take && rq_take[7].n_itls == 6000 :
		    bt.itls_block == NULL && rq_take[2].itls_s == NULL && rq_take[7].n_itls == 0);
		br_analysis_free(&ac);
		br_analysis_free(&at);
		free(bc.itls_block);
		free(bt.itls_block);   /* NULL once taken: the samples owned it */
	}
}

static void
test_hand_built_with_failure(void **state)
{
	(void)state;
	static const double it0[] = { 0.020, 0.030, 0.025 }, it2[] = { 0.050, 0.500 };
	br_request req[4];
	set_req(&req[0], 10, 4, 0.100, it0, 3, 0);
	set_req(&req[1], 10, 0, 0.0, NULL, 0, 1);
	set_req(&req[2], 10, 3, 0.200, it2, 2, 0);
	set_req(&req[3], 10, 1, 0.300, NULL, 0, 0);
	br_file_stat st[4];
	set_stat(&st[0], "ttft", "mean", NAN, 200.0, "mean_ttft_ms");
	set_stat(&st[1], "ttft", "p", 99, 298.0, "p99_ttft_ms");
	set_stat(&st[2], "itl", "median", NAN, 31.0, "median_itl_ms");   /* wrong on purpose */
	set_stat(&st[3], "client_queue_time", "mean", NAN, 5.0, "mean_client_queue_time_ms"); /* not checked */
	br_bench b;
	br_run run;
	br_analysis a;
	analyze_hand(&b, &run, &a, req, 4, st, 4, 3, 1);
	br_latency *L = &a.latency;
	assert_int_equal(L->from_arrays, 1);
	assert_int_equal(L->n_requests, 4);
	assert_int_equal(L->n_succeeded, 3);
	assert_int_equal(L->n_failed, 1);
	assert_int_equal(L->failed_index[0], 1);

	assert_int_equal(L->m[BR_TTFT].count, 3);
	assert_double_rel(L->m[BR_TTFT].mean, 200, 1e-12);
	assert_double_rel(L->m[BR_TTFT].median, 200, 1e-12);
	assert_double_rel(L->m[BR_TTFT].std, 81.649658092772603, 1e-12);
	assert_double_rel(L->m[BR_TTFT].p99, 298, 1e-12);
	assert_double_rel(L->m[BR_TTFT].max, 300, 1e-12);

	assert_int_equal(L->n_samples[BR_ITL], 5);
	/* the ITL pool stays in submission order (r0: 20 30 25, r2: 50 500);
	 * its order statistics come from the index */
	static const double itl_in_order[5] = { 20, 30, 25, 50, 500 };
	for (int i = 0; i < 5; i++)
		assert_double_rel(L->samples_ms[BR_ITL][i], itl_in_order[i], 1e-12);
	double itl_at[2];
	br_ranked_at(L->ranked[BR_ITL], (const size_t[]){ 1, 2 }, 2, itl_at);
	assert_double_rel(itl_at[0], 25, 1e-12);
	assert_double_rel(itl_at[1], 30, 1e-12);
	assert_double_rel(L->m[BR_ITL].median, 30, 1e-12);
	assert_double_rel(L->m[BR_ITL].mean, 125, 1e-12);
	assert_double_rel(L->itl_stall_threshold_ms, 300, 1e-12);
	assert_int_equal(L->itl_stalls, 1);
	assert_double_rel(L->itl_max_ms, 500, 1e-12);

	assert_int_equal(L->m[BR_TPOT].count, 2);
	assert_double_rel(L->m[BR_TPOT].mean, 150, 1e-12);
	assert_double_rel(L->samples_ms[BR_TPOT][0], 25, 1e-12);
	assert_double_rel(L->samples_ms[BR_TPOT][1], 275, 1e-12);
	assert_int_equal(L->m[BR_E2EL].count, 3);
	assert_double_rel(L->m[BR_E2EL].median, 300, 1e-12);
	assert_double_rel(L->m[BR_E2EL].max, 750, 1e-12);

	assert_int_equal(L->n_checks, 3);
	assert_int_equal(L->n_mismatches, 1);
	assert_string_equal(L->checks[0].key, "mean_ttft_ms");
	assert_int_equal(L->checks[0].agrees, 1);
	assert_int_equal(L->checks[1].agrees, 1);
	assert_string_equal(L->checks[2].key, "median_itl_ms");
	assert_int_equal(L->checks[2].agrees, 0);
	assert_double_rel(L->checks[2].recomputed_ms, 30, 1e-12);
	assert_double_rel(L->checks[2].rel_diff, 1.0 / 31.0, 1e-9);
	br_analysis_free(&a);
}

/*
 * A standard deviation is checked against the samples' scale (the mean),
 * not against itself: three identical requests (TTFT 100 ms, ITLs 20 20 ms,
 * E2EL 140 ms) have std 0 here; a file's std of 1e-12 ms (another
 * summation order's rounding) agrees: 1e-12 / 100 = 1e-14 <= 1e-9; a std
 * of 5 ms on the E2EL does not: 5 / 140 = 0.0357.
 */
static void
test_std_checked_on_the_mean(void **state)
{
	(void)state;
	static const double it[] = { 0.020, 0.020 };
	br_request req[3];
	for (int i = 0; i < 3; i++)
		set_req(&req[i], 10, 3, 0.100, it, 2, 0);
	br_file_stat st[3];
	set_stat(&st[0], "ttft", "std", NAN, 1e-12, "std_ttft_ms");
	set_stat(&st[1], "e2el", "std", NAN, 5.0, "std_e2el_ms");
	set_stat(&st[2], "ttft", "mean", NAN, 100.0 + 1e-6, "mean_ttft_ms");   /* 1e-8 relative: disagrees */
	br_bench b;
	br_run run;
	br_analysis a;
	analyze_hand(&b, &run, &a, req, 3, st, 3, 3, 0);
	const br_latency *L = &a.latency;
	assert_int_equal(L->n_checks, 3);
	assert_double_rel(L->m[BR_TTFT].std + 1, 1, 1e-15);   /* 0 */
	assert_int_equal(L->checks[0].agrees, 1);
	assert_double_rel(L->checks[0].rel_diff, 1e-12 / 100.0, 1e-6);
	assert_int_equal(L->checks[1].agrees, 0);
	assert_double_rel(L->checks[1].rel_diff, 5.0 / 140.0, 1e-9);
	assert_int_equal(L->checks[2].agrees, 0);   /* a mean keeps its own scale */
	assert_int_equal(L->n_mismatches, 2);
	br_analysis_free(&a);
}

/* All requests failed: no samples, NAN statistics; the file's 0 agrees. */
static void
test_all_failed(void **state)
{
	(void)state;
	br_request req[2];
	set_req(&req[0], 10, 0, 0.0, NULL, 0, 1);
	set_req(&req[1], 10, 0, 0.0, NULL, 0, 1);
	br_file_stat st[1];
	set_stat(&st[0], "ttft", "mean", NAN, 0.0, "mean_ttft_ms");
	br_bench b;
	br_run run;
	br_analysis a;
	analyze_hand(&b, &run, &a, req, 2, st, 1, NAN, NAN);
	assert_int_equal(a.latency.n_failed, 2);
	assert_int_equal(a.latency.failed_index[1], 1);
	assert_int_equal(a.latency.m[BR_TTFT].count, 0);
	assert_nan(a.latency.m[BR_TTFT].mean);
	assert_null(a.latency.samples_ms[BR_TTFT]);
	assert_nan(a.latency.itl_stall_threshold_ms);
	assert_int_equal(a.latency.n_checks, 1);
	assert_nan(a.latency.checks[0].recomputed_ms);
	assert_int_equal(a.latency.checks[0].agrees, 1);
	assert_int_equal(a.latency.n_checks_empty, 1);    /* the file's 0 is a placeholder */
	br_analysis_free(&a);
}

/*
 * Error grouping, by hand: 14 failed requests with messages
 *   #0..#11 "Cannot connect" (12; #1 has trailing "\n  Traceback..." and a
 *   leading space, same first line), #12 "Server disconnected", #13 no text.
 * → groups: 12 × "Cannot connect" (first indices #0..#9, 10 kept),
 *   then 1 × "Server disconnected" (#12, first seen before #13), 1 × "(no message)".
 * Then whole Python tracebacks (what vllm bench serve stores): 3 ending in
 * ServerDisconnectedError (one with "\r\n" and trailing blank lines), 2 in
 * asyncio's TimeoutError → 3 × and 2 × by their last line, not 5 ×
 * "Traceback (most recent call last):".
 */
static void
test_error_groups(void **state)
{
	(void)state;
	br_request req[14];
	for (int i = 0; i < 14; i++) {
		set_req(&req[i], 10, 0, 0.0, NULL, 0, 1);
		req[i].error = (char *)(i == 1 ? " Cannot connect\n  Traceback (most recent call last)" :
		    i < 12 ? "Cannot connect" : i == 12 ? "Server disconnected" : "");
	}
	br_bench b;
	br_run run;
	br_analysis a;
	analyze_hand(&b, &run, &a, req, 14, NULL, 0, NAN, NAN);
	assert_int_equal(a.latency.n_error_groups, 3);
	assert_string_equal(a.latency.error_groups[0].message, "Cannot connect");
	assert_int_equal(a.latency.error_groups[0].count, 12);
	assert_int_equal(a.latency.error_groups[0].n_index, 10);
	assert_int_equal(a.latency.error_groups[0].first_index[9], 9);
	assert_string_equal(a.latency.error_groups[1].message, "Server disconnected");
	assert_int_equal(a.latency.error_groups[1].first_index[0], 12);
	assert_string_equal(a.latency.error_groups[2].message, "(no message)");
	assert_int_equal(a.latency.error_groups[2].count, 1);
	for (int i = 0; i < 14; i++)
		req[i].error = NULL;
	br_analysis_free(&a);

	static const char *const tb[5] = {
		"Traceback (most recent call last):\n  File \"x.py\", line 3, in f\n    await r\n"
		"aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected\n",
		"Traceback (most recent call last):\n  File \"x.py\", line 9, in g\n"
		"asyncio.exceptions.TimeoutError\n",
		"Traceback (most recent call last):\r\n  File \"x.py\", line 3, in f\r\n"
		"aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected\r\n\n  \n",
		"Traceback (most recent call last):\n  File \"x.py\", line 9, in g\n"
		"asyncio.exceptions.TimeoutError",
		"Traceback (most recent call last):\n  File \"y.py\", line 1, in h\n"
		"aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected",
	};
	for (int i = 0; i < 5; i++) {
		set_req(&req[i], 10, 0, 0.0, NULL, 0, 1);
		req[i].error = (char *)tb[i];
	}
	analyze_hand(&b, &run, &a, req, 5, NULL, 0, NAN, NAN);
	assert_int_equal(a.latency.n_error_groups, 2);
	assert_string_equal(a.latency.error_groups[0].message,
	    "aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected");
	assert_int_equal(a.latency.error_groups[0].count, 3);
	assert_string_equal(a.latency.error_groups[1].message, "asyncio.exceptions.TimeoutError");
	assert_int_equal(a.latency.error_groups[1].count, 2);
	for (int i = 0; i < 5; i++)
		req[i].error = NULL;
	br_analysis_free(&a);
}

static int
load_run(const char *rel, br_run *run)
{
	char *p = br_test_real(rel);
	if (p == NULL)
		return -1;
	memset(run, 0, sizeof *run);
	run->kv_pool_tokens_override = NAN;
	char *cause = NULL;
	int rc = br_bench_load(p, &run->bench, &cause);
	if (rc != 0)
		fail_msg("br_bench_load: %s", cause ? cause : "?");
	free(p);
	return 0;
}

/*
 * Real detailed result (16 requests, MTP, no `latencies`). Expected:
 * the file's own values, and numpy 1.24 on the same arrays
 * (/usr/bin/python3: ttfts·1000; tpot = (ttft+sum(itls) − ttft)/(out−1)·1000;
 * pooled itls·1000):
 *   ttft mean 631.00981268507894 median 466.66355046909302 p99 1525.2634473610669 std 368.04820540195914
 *   tpot mean 21.045364099771568 median 19.734039196434122 p99 31.444778074373438
 *   itl  mean 60.468370089484509 median 54.350239923223853 p90 57.866371958516538
 *        p99 340.17601626226678 p99.9 485.5714067563199 max 565.66073396243155 (n 1420)
 *   stall threshold 3 × p99 = 1020.5280487868003 ms (1,420 gaps >= 1,000;
 *   10 × median = 543.50 would flag 2 gaps of the normal tail): 0 stalls
 * The file's TPOT differs from the rebuilt one by 2–6e-8 relative (its
 * client latency is not stored), so TPOT checks use the 1e-6 tolerance.
 */
static void
test_real_glm52_detailed(void **state)
{
	(void)state;
	br_run run;
	if (load_run("bench/glm52-c4-detailed.json", &run) != 0) {
		skip();
		return;
	}
	br_analysis a;
	memset(&a, 0, sizeof a);
	br_analyze_latency(&run, &a.latency);
	br_latency *L = &a.latency;
	const br_bench *b = &run.bench.runs[0];
	assert_int_equal(L->from_arrays, 1);
	assert_int_equal(L->n_requests, 16);
	assert_int_equal(L->n_failed, 0);
	assert_int_equal(L->n_samples[BR_ITL], 1420);
	assert_int_equal(L->n_samples[BR_TPOT], 16);

	/* against the file's own values, 1e-9 */
	assert_double_rel(L->m[BR_TTFT].mean, br_bench_file_stat(b, "ttft", "mean", NAN), 1e-9);
	assert_double_rel(L->m[BR_TTFT].median, br_bench_file_stat(b, "ttft", "median", NAN), 1e-9);
	assert_double_rel(L->m[BR_TTFT].p99, br_bench_file_stat(b, "ttft", "p", 99), 1e-9);
	assert_double_rel(L->m[BR_TTFT].std, br_bench_file_stat(b, "ttft", "std", NAN), 1e-9);
	assert_double_rel(L->m[BR_ITL].mean, br_bench_file_stat(b, "itl", "mean", NAN), 1e-9);
	assert_double_rel(L->m[BR_ITL].median, br_bench_file_stat(b, "itl", "median", NAN), 1e-9);
	assert_double_rel(L->m[BR_ITL].p99, br_bench_file_stat(b, "itl", "p", 99), 1e-9);
	assert_double_rel(L->m[BR_ITL].std, br_bench_file_stat(b, "itl", "std", NAN), 1e-9);
	assert_double_rel(L->m[BR_TPOT].mean, br_bench_file_stat(b, "tpot", "mean", NAN), 1e-6);
	assert_double_rel(L->m[BR_TPOT].median, br_bench_file_stat(b, "tpot", "median", NAN), 1e-6);
	assert_double_rel(L->m[BR_TPOT].p99, br_bench_file_stat(b, "tpot", "p", 99), 1e-6);
	/* literal file values, in case the parser mislabelled a key */
	assert_double_rel(L->m[BR_TTFT].mean, 631.0098126850789, 1e-9);
	assert_double_rel(L->m[BR_ITL].p99, 340.1760162622668, 1e-9);
	assert_double_rel(L->m[BR_TPOT].p99, 31.444777176925438, 1e-6);

	/* against numpy on the same arrays */
	assert_double_rel(L->m[BR_TTFT].mean, 631.00981268507894, 1e-12);
	assert_double_rel(L->m[BR_TTFT].median, 466.66355046909302, 1e-12);
	assert_double_rel(L->m[BR_TTFT].p99, 1525.2634473610669, 1e-12);
	assert_double_rel(L->m[BR_TTFT].std, 368.04820540195914, 1e-12);
	assert_double_rel(L->m[BR_TPOT].mean, 21.045364099771568, 1e-12);
	assert_double_rel(L->m[BR_TPOT].median, 19.734039196434122, 1e-12);
	assert_double_rel(L->m[BR_TPOT].p99, 31.444778074373438, 1e-12);
	assert_double_rel(L->m[BR_ITL].mean, 60.468370089484509, 1e-12);
	assert_double_rel(L->m[BR_ITL].median, 54.350239923223853, 1e-12);
	assert_double_rel(L->m[BR_ITL].p90, 57.866371958516538, 1e-12);
	assert_double_rel(L->m[BR_ITL].p99, 340.17601626226678, 1e-12);
	assert_double_rel(L->m[BR_ITL].p999, 485.5714067563199, 1e-12);
	assert_double_rel(L->m[BR_ITL].max, 565.66073396243155, 1e-12);
	/* 1,420 gaps (>= 1,000): the threshold is max(10 × median 543.50, 3 × p99
	 * = 3 × 340.17601626226678 = 1020.5280487868003 ms); the longest gap
	 * (565.66 ms) is on the normal tail, so no stall */
	assert_int_equal(L->itl_stalls, 0);
	assert_true(L->itl_stalls_known);
	assert_true(L->count_known[BR_ITL]);
	assert_int_equal(L->m[BR_ITL].count, 1420);
	assert_double_rel(L->itl_stall_threshold_ms, 1020.5280487868003, 1e-12);
	assert_false(L->stall_event_known);

	/* every stated statistic checked, none mismatched */
	assert_int_equal(L->n_checks, 12);
	assert_int_equal(L->n_mismatches, 0);
	for (size_t i = 0; i < L->n_checks; i++) {
		const br_latency_check *c = &L->checks[i];
		if (strstr(c->key, "ttft") || strstr(c->key, "itl"))
			assert_true(c->rel_diff <= 1e-9);
		if (strstr(c->key, "tpot"))
			assert_double_abs(c->tolerance, 1e-6, 0);
	}
	br_analysis_free(&a);
	br_bench_set_free(&run.bench);
}

/* No per-request arrays (stress.json): the file's own values, count = completed. */
static void
test_real_no_arrays(void **state)
{
	(void)state;
	br_run run;
	if (load_run("runs/glm52-mtp3-c4-r2/stress.json", &run) != 0) {
		skip();
		return;
	}
	br_analysis a;
	memset(&a, 0, sizeof a);
	br_analyze_latency(&run, &a.latency);
	br_latency *L = &a.latency;
	assert_int_equal(L->from_arrays, 0);
	assert_null(L->samples_ms[BR_TTFT]);
	assert_int_equal(L->m[BR_TTFT].count, 16);
	assert_double_rel(L->m[BR_TTFT].mean, 782.6371825503884, 1e-15);   /* file: mean_ttft_ms */
	assert_double_rel(L->m[BR_ITL].p99, 368.2818606123328, 1e-15);     /* file: p99_itl_ms */
	assert_double_rel(L->m[BR_TPOT].std, 5.499386824795715, 1e-15);    /* file: std_tpot_ms */
	assert_nan(L->m[BR_TTFT].p90);                                      /* not stated */
	assert_int_equal(L->m[BR_E2EL].count, 0);                           /* no e2el keys */
	assert_nan(L->m[BR_E2EL].mean);
	assert_int_equal(L->n_succeeded, 16);
	assert_int_equal(L->n_failed, 0);
	assert_int_equal(L->n_checks, 0);
	/* counts: one TTFT/TPOT per completed request (16, the file's
	 * `completed`); the number of ITL gaps is not in the file → 0 and
	 * marked unknown, although its statistics are there */
	assert_true(L->count_known[BR_TTFT]);
	assert_true(L->count_known[BR_TPOT]);
	assert_int_equal(L->m[BR_TPOT].count, 16);
	assert_true(L->has_stats[BR_ITL]);
	assert_false(L->count_known[BR_ITL]);
	assert_int_equal(L->m[BR_ITL].count, 0);
	assert_false(L->has_stats[BR_E2EL]);
	/* stalls need the gaps: unknown, not 0 */
	assert_false(L->itl_stalls_known);
	assert_nan(L->itl_stall_threshold_ms);
	br_analysis_free(&a);
	br_bench_set_free(&run.bench);
}

/*
 * Hand-built bench without arrays: completed 5, ITL median 20 and p99 40
 * stated → ITL count 0 (unknown), TTFT count 5 (known). A file with no TTFT
 * key at all keeps TTFT count 0 and has_stats 0.
 */
static void
test_file_values_counts(void **state)
{
	(void)state;
	br_bench b;
	bench_blank(&b);
	b.completed = 5;
	b.failed = 0;
	br_file_stat st[3];
	set_stat(&st[0], "itl", "median", NAN, 20.0, "median_itl_ms");
	set_stat(&st[1], "itl", "p", 99, 40.0, "p99_itl_ms");
	set_stat(&st[2], "ttft", "mean", NAN, 100.0, "mean_ttft_ms");
	b.stats = st;
	b.n_stats = 3;
	br_run run;
	memset(&run, 0, sizeof run);
	run.bench.runs = &b;
	run.bench.n = 1;
	br_latency L;
	br_analyze_latency(&run, &L);
	assert_int_equal(L.from_arrays, 0);
	assert_true(L.has_stats[BR_ITL]);
	assert_false(L.count_known[BR_ITL]);
	assert_int_equal(L.m[BR_ITL].count, 0);
	assert_double_abs(L.m[BR_ITL].median, 20.0, 0);
	assert_double_abs(L.m[BR_ITL].p99, 40.0, 0);
	assert_true(L.has_stats[BR_TTFT]);
	assert_true(L.count_known[BR_TTFT]);
	assert_int_equal(L.m[BR_TTFT].count, 5);
	assert_false(L.has_stats[BR_TPOT]);
	assert_int_equal(L.m[BR_TPOT].count, 0);
	assert_false(L.itl_stalls_known);
	assert_int_equal(L.itl_stalls, 0);
	assert_nan(L.itl_stall_threshold_ms);
	br_analysis a;
	memset(&a, 0, sizeof a);
	a.latency = L;
	br_analysis_free(&a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_built_with_failure),
		cmocka_unit_test(test_stall_event),
		cmocka_unit_test(test_taking_itls),
		cmocka_unit_test(test_std_checked_on_the_mean),
		cmocka_unit_test(test_all_failed),
		cmocka_unit_test(test_error_groups),
		cmocka_unit_test(test_real_glm52_detailed),
		cmocka_unit_test(test_real_no_arrays),
		cmocka_unit_test(test_file_values_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
