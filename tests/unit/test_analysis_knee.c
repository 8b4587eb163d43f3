/* Unit tests of the knee analysis (src/analysis/knee.c) on hand-made inputs. */
#include "br_test.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/bench.h"
#include "benchreport/knee.h"

/* SLO parser: canonical terms, units, percentiles. */
static void
test_slo_parse_ok(void **state)
{
	(void)state;
	br_slo s;
	char *cause = NULL;
	assert_int_equal(br_slo_parse(" ttft_p99<=500ms, e2el_p99.9 <= 20s ,TPOT_p50<=0.5ms", &s, &cause), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.terms[0].metric, BR_SLO_TTFT);
	assert_double_abs(s.terms[0].percentile, 99, 0);
	assert_double_abs(s.terms[0].limit_ms, 500, 0);
	assert_int_equal(s.terms[1].metric, BR_SLO_E2EL);
	assert_double_abs(s.terms[1].percentile, 99.9, 0);
	assert_double_abs(s.terms[1].limit_ms, 20000, 0);   /* 20 s */
	assert_int_equal(s.terms[2].metric, BR_SLO_TPOT);
	assert_double_abs(s.terms[2].limit_ms, 0.5, 0);
	assert_string_equal(s.text, "ttft_p99<=500ms,e2el_p99.9<=20s,tpot_p50<=0.5ms");
	assert_int_equal(s.terms[0].strict, 0);
	assert_string_equal(s.terms[1].name, "e2el_p99.9");
	assert_string_equal(s.terms[1].limit_text, "20s");
	/* "<" and "us", as --fail-on takes them: 800 us = 0.8 ms; a strict term
	 * fails at its limit, a "<=" one holds there */
	assert_int_equal(br_slo_parse("itl_p99<800us, ttft_p99 < 0.5s", &s, &cause), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.terms[0].strict, 1);
	assert_double_rel(s.terms[0].limit_ms, 0.8, 1e-15);
	assert_double_abs(s.terms[1].limit_ms, 500, 0);
	assert_string_equal(s.text, "itl_p99<800us,ttft_p99<0.5s");
	assert_int_equal(br_slo_term_holds(&s.terms[1], 499.999), 1);
	assert_int_equal(br_slo_term_holds(&s.terms[1], 500), 0);
	assert_int_equal(br_slo_term_holds(&s.terms[1], NAN), 0);
	assert_int_equal(br_slo_parse("ttft_p99<=500ms", &s, &cause), 0);
	assert_int_equal(br_slo_term_holds(&s.terms[0], 500), 1);
	assert_int_equal(br_slo_term_holds(&s.terms[0], 500.001), 0);
	/* a limit in us equal to the value in ms: equal, whatever the last bit
	 * of 394447.7670468165e-3 (third breaker: "394.4 ms > 394.448 ms") */
	assert_int_equal(br_slo_parse("ttft_p99<=394447.7670468165us", &s, &cause), 0);
	assert_int_equal(br_slo_term_holds(&s.terms[0], 394.4477670468165), 1);
	assert_int_equal(br_slo_parse("ttft_p99<394447.7670468165us", &s, &cause), 0);
	assert_int_equal(br_slo_term_holds(&s.terms[0], 394.4477670468165), 0);
	/* the percentiles --fail-on takes (twenty-fourth breaker: p99.99 refused):
	 * median = p50, max = p100 */
	assert_int_equal(br_slo_parse("ttft_p99.99<=1s,e2el_median<=20s,itl_max<=2s", &s, &cause), 0);
	assert_int_equal(s.n, 3);
	assert_double_abs(s.terms[0].percentile, 99.99, 0);
	assert_double_abs(s.terms[1].percentile, 50, 0);
	assert_double_abs(s.terms[2].percentile, 100, 0);
	assert_string_equal(s.text, "ttft_p99.99<=1s,e2el_median<=20s,itl_max<=2s");
}

/* Bad terms: -1 and a message naming the term and what was expected. */
static void
test_slo_parse_bad(void **state)
{
	(void)state;
	static const char *const bad[][2] = {
		{ "ttft_p99>=500ms", "'<=' or '<'" },
		{ "ttft_p99=<500ms", "an SLO is an upper limit" },
		{ "ttft_p99<-5ms", "a positive plain decimal after '<' " },
		{ "foo_p99<=1s", "metric ttft, tpot, itl or e2el" },
		{ "ttft_p42<=1s", "percentile p50" },
		{ "ttft_mean<=1s", "a percentile, not the mean" },
		{ "ttft_p50<=1s,ttft_median<=2s", "duplicate" },
		{ "ttft_p99<=5min", "unit ms, s or us" },
		{ "ttft_p99<=ms", "a positive plain decimal" },
		{ "ttft_p99<=2e3ms", "no exponent: 2000ms, not 2e3ms" },   /* once "expected unit ms or s" */
		{ "ttft_p99<=0ms", "greater than 0" },
		{ "ttft_p99<=1s,,e2el_p99<=2s", "stray comma" },
		{ "ttft_p99<=1s,ttft_p99<=2s", "duplicate" },
		{ "", "at least one term" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		br_slo s;
		char *cause = NULL;
		assert_int_equal(br_slo_parse(bad[i][0], &s, &cause), -1);
		assert_non_null(cause);
		assert_non_null(strstr(cause, bad[i][1]));
		free(cause);
	}
	/* the message names the bad term, not the good one before it */
	br_slo s;
	char *cause = NULL;
	assert_int_equal(br_slo_parse("ttft_p99<=1s,itl_p77<=2s", &s, &cause), -1);
	assert_non_null(strstr(cause, "term 2 'itl_p77<=2s'"));
	free(cause);
}

/* Knee over levels: rises then flattens; and failures. */
static void
test_knee_find(void **state)
{
	(void)state;
	long k, f;
	/* meets 1,1,1,0; goodput 1,2,2: the third level does not rise → knee index 1 */
	int m1[] = { 1, 1, 1, 0 };
	double g1[] = { 1, 2, 2, 0 };
	br_knee_find(m1, g1, 4, &k, &f);
	assert_int_equal(k, 1);
	assert_int_equal(f, 3);
	/* all pass, rising: knee = last, no failure */
	int m2[] = { 1, 1, 1 };
	double g2[] = { 1, 2, 3 };
	br_knee_find(m2, g2, 3, &k, &f);
	assert_int_equal(k, 2);
	assert_int_equal(f, -1);
	/* first level fails: no knee */
	int m3[] = { 0, 1 };
	double g3[] = { 0, 1 };
	br_knee_find(m3, g3, 2, &k, &f);
	assert_int_equal(k, -1);
	assert_int_equal(f, 0);
}

/* make_run: a detailed bench result with the given TTFTs (s), 3 output tokens, E2EL = ttft + 0.1 s. */
static void
make_run(br_bench *b, double rate, const double *ttft, size_t n, double duration)
{
	memset(b, 0, sizeof *b);
	b->source_path = "hand.json";
	b->model_id = "m";
	b->request_rate_rps = rate;
	b->burstiness = 1;
	b->max_concurrency = NAN;
	b->run_number = NAN;
	b->num_prompts = (double)n;
	b->completed = (double)n;
	b->failed = 0;
	b->duration_s = duration;
	b->total_input_tokens = 100.0 * (double)n;
	b->total_output_tokens = 3.0 * (double)n;
	b->output_throughput_tps = NAN;
	b->total_token_throughput_tps = NAN;
	b->requests = calloc(n, sizeof *b->requests);
	b->n_requests = n;
	b->has_latencies = 1;
	for (size_t i = 0; i < n; i++) {
		b->requests[i].input_len_tokens = 100;
		b->requests[i].output_len_tokens = 3;
		b->requests[i].ttft_s = ttft[i];
		b->requests[i].latency_s = ttft[i] + 0.1;
	}
}

/* Goodput, SLO status, grouping and knee on three hand-made runs. */
static void
test_analyze(void **state)
{
	(void)state;
	br_bench b[3];
	/* rate 1: TTFT 100..400 ms, p99 = 300 + 0.97·100 = 397 ms ≤ 500 (numpy linear); all good → 4/4 s = 1 req/s */
	const double t1[] = { 0.1, 0.2, 0.3, 0.4 };
	/* rate 2: p99 = 300 + 0.97·600 = 882 ms > 500: fails; good = 3 (0.9 s misses) → 3/2 = 1.5 req/s */
	const double t2[] = { 0.1, 0.2, 0.3, 0.9 };
	/* rate inf: all 0.1 s, duration 1 s → passes, goodput 4 req/s (but after a failure: not the knee) */
	const double t3[] = { 0.1, 0.1, 0.1, 0.1 };
	make_run(&b[0], 1, t1, 4, 4);
	make_run(&b[1], 2, t2, 4, 2);
	make_run(&b[2], INFINITY, t3, 4, 1);
	br_knee_input in[3] = { { &b[2], NULL, "inf", NULL }, { &b[0], NULL, "r1", NULL }, { &b[1], NULL, "r2", NULL } };
	br_slo slo;
	char *cause = NULL;
	assert_int_equal(br_slo_parse("ttft_p99<=500ms", &slo, &cause), 0);
	br_knee_result r;
	assert_int_equal(br_knee_analyze(in, 3, &slo, &r, &cause), 0);
	assert_int_equal(r.n_groups, 1);
	const br_knee_group *G = &r.groups[0];
	assert_int_equal(G->kind, BR_KNEE_RATE);
	assert_int_equal(G->n, 3);
	assert_double_abs(G->pts[0].x, 1, 0);          /* sorted: 1, 2, inf */
	assert_true(isinf(G->pts[2].x));
	assert_double_rel(G->pts[0].slo_value_ms[0], 397, 1e-12);
	assert_double_rel(G->pts[1].slo_value_ms[0], 882, 1e-12);
	assert_int_equal(G->pts[0].meets_slo, 1);
	assert_int_equal(G->pts[1].meets_slo, 0);
	assert_double_rel(G->pts[0].goodput_rps, 1.0, 1e-12);
	assert_double_rel(G->pts[1].goodput_rps, 1.5, 1e-12);
	assert_double_rel(G->pts[1].achieved_rps, 2.0, 1e-12);
	/* TPOT = 0.1 s / (3 - 1) = 50 ms for every request */
	assert_double_rel(G->pts[0].tpot_p99_ms, 50, 1e-12);
	assert_int_equal(G->knee_idx, 0);
	assert_int_equal(G->first_fail_idx, 1);
	assert_int_equal(G->first_gap_idx, -1);       /* 2 req/s achieved = offered */
	assert_nan(G->pts[0].waiting_share_frac);
	assert_int_equal(r.any_meets, 1);
	br_knee_free(&r);

	/* closed loop (C = 2 < N = 4) goes to its own concurrency curve */
	b[0].max_concurrency = 2;
	b[0].request_rate_rps = INFINITY;
	assert_int_equal(br_knee_analyze(in, 3, &slo, &r, &cause), 0);
	assert_int_equal(r.n_groups, 2);
	assert_int_equal(r.groups[0].kind, BR_KNEE_RATE);
	assert_int_equal(r.groups[1].kind, BR_KNEE_CONCURRENCY);
	assert_double_abs(r.groups[1].pts[0].x, 2, 0);
	br_knee_free(&r);
	for (int i = 0; i < 3; i++)
		free(b[i].requests);
}

/*
 * Repeats of one rate in separate files: the level's first repeat is the
 * one run first (the bench file's date), not the first by name. "z-warm"
 * ran first and its TTFT p99 (1,000 ms: all four 1 s) is about 10× the
 * others' median (100 and 100.097 ms) > 3×: a warm-up. Without dates the first by name ("a")
 * is tested: 100 ms is not 3× the others' median, nothing flagged.
 */
static void
test_warmup_by_date(void **state)
{
	(void)state;
	const double cold[] = { 1.0, 1.0, 1.0, 1.0 }, warm[] = { 0.1, 0.1, 0.1, 0.1 }, warm2[] = { 0.1, 0.1, 0.1, 0.1001 };
	br_bench b[3];
	make_run(&b[0], 2, warm, 4, 2);
	make_run(&b[1], 2, warm2, 4, 2);   /* not byte-identical: the knee drops duplicates */
	make_run(&b[2], 2, cold, 4, 2);
	b[0].date = "20260115-110000";
	b[1].date = "20260115-120000";
	b[2].date = "20260115-090000";
	br_knee_input in[3] = { { &b[0], NULL, "a", NULL }, { &b[1], NULL, "b", NULL }, { &b[2], NULL, "z-warm", NULL } };
	br_slo slo;
	char *cause = NULL;
	assert_int_equal(br_slo_parse("ttft_p99<=5s", &slo, &cause), 0);
	for (int dated = 1; dated >= 0; dated--) {
		if (!dated)
			b[0].date = b[1].date = b[2].date = NULL;
		br_knee_result r;
		assert_int_equal(br_knee_analyze(in, 3, &slo, &r, &cause), 0);
		const br_knee_group *G = &r.groups[0];
		assert_int_equal(G->n, 3);
		assert_string_equal(G->pts[0].name, dated ? "z-warm" : "a");
		assert_int_equal(G->level_warmup[0], dated);
		br_knee_free(&r);
	}
	for (int i = 0; i < 3; i++)
		free(b[i].requests);
}

/*
 * The first failing rate fails only through a warm-up-like first repeat.
 * Rate 1 (one run, TTFT 100 ms, goodput 4 / 4 s = 1 req/s) meets
 * ttft_p99 <= 500 ms. Rate 2 has three repeats: the first by date with every
 * TTFT 1 s (p99 1,000 ms: misses; 10x the others' 100 ms: a warm-up), two
 * more at 100 ms (meet; goodput 4 / 2 s = 2 req/s). Rate 4 (20 requests at
 * TTFT 600 ms over 5 s: p99 600 ms) misses. Every repeat must meet, so the
 * knee is rate 1 and the first failure rate 2 (pts index 1, the warm-up);
 * without the warm-up the knee is rate 2 and the first failure rate 4
 * (pts index 4, after the three rate-2 repeats).
 */
static void
test_first_fail_warmup_only(void **state)
{
	(void)state;
	const double fast[] = { 0.1, 0.1, 0.1, 0.1 }, fast2[] = { 0.1, 0.1, 0.1, 0.1001 };
	const double cold[] = { 1.0, 1.0, 1.0, 1.0 };
	double slow[20];
	for (int i = 0; i < 20; i++)
		slow[i] = 0.6;
	br_bench b[5];
	make_run(&b[0], 1, fast, 4, 4);
	make_run(&b[1], 2, cold, 4, 2);
	make_run(&b[2], 2, fast, 4, 2);
	make_run(&b[3], 2, fast2, 4, 2);
	make_run(&b[4], 4, slow, 20, 5);
	b[1].date = "20260115-090000";
	b[2].date = "20260115-100000";
	b[3].date = "20260115-110000";
	br_knee_input in[5] = { { &b[0], NULL, "r1", NULL }, { &b[1], NULL, "r2-a", NULL }, { &b[2], NULL, "r2-b", NULL },
		{ &b[3], NULL, "r2-c", NULL }, { &b[4], NULL, "r4", NULL } };
	br_slo slo;
	char *cause = NULL;
	assert_int_equal(br_slo_parse("ttft_p99<=500ms", &slo, &cause), 0);
	br_knee_result r;
	assert_int_equal(br_knee_analyze(in, 5, &slo, &r, &cause), 0);
	assert_int_equal(r.n_groups, 1);
	const br_knee_group *G = &r.groups[0];
	assert_int_equal(G->n, 5);
	assert_string_equal(G->pts[1].name, "r2-a");
	assert_int_equal(G->level_warmup[1], 1);
	assert_int_equal(G->knee_idx, 0);
	assert_int_equal(G->first_fail_idx, 1);
	assert_int_equal(G->first_fail_warmup_only, 1);
	assert_int_equal(G->knee_idx_without_warmup, 1);
	assert_int_equal(G->first_fail_idx_without_warmup, 4);
	br_knee_free(&r);
	/* the same rate-2 warm-up with one later repeat missing too: a real failure */
	const double miss[] = { 0.1, 0.1, 0.1, 0.9 };   /* p99 = 0.1 + 0.97 * 0.8 = 876 ms */
	free(b[3].requests);
	make_run(&b[3], 2, miss, 4, 2);
	b[3].date = "20260115-110000";
	assert_int_equal(br_knee_analyze(in, 5, &slo, &r, &cause), 0);
	G = &r.groups[0];
	assert_int_equal(G->first_fail_idx, 1);
	assert_int_equal(G->first_fail_warmup_only, 0);
	assert_int_equal(G->knee_idx_without_warmup, -1);
	br_knee_free(&r);
	for (int i = 0; i < 5; i++)
		free(b[i].requests);
}

/* Waiting share: over the busy span, as the run report's residency reads it. */
static void
test_waiting_share(void **state)
{
	(void)state;
	/* rows: running 0 0 2 3 3 1 0 0, waiting 0 0 0 2 1 0 0 0 → busy rows 2..5 (4 samples), 2 with
	 * waiting > 0: 2 / 4 (the window's idle brackets, rows 1 and 6, are left out) */
	double t[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	double run[8] = { 0, 0, 2, 3, 3, 1, 0, 0 }, wait[8] = { 0, 0, 0, 2, 1, 0, 0, 0 };
	char *names[2] = { "vllm:num_requests_running", "vllm:num_requests_waiting" };
	double *cols[2] = { run, wait };
	br_series s = { .n_rows = 8, .t_s = t, .n_cols = 2, .names = names, .cols = cols };
	size_t n = 0;
	assert_double_rel(br_knee_waiting_share(&s, &n), 2.0 / 4.0, 1e-12);
	assert_int_equal(n, 4);
	assert_nan(br_knee_waiting_share(NULL, &n));
}

/*
 * μ from the plateau (br_knee_mu_plateau), table-driven. Expected values by
 * hand: the top run of saturated levels, those within 5% of its largest
 * achieved rate (walking down), μ = their median, spread = (max − min) / μ.
 */
static void
test_mu_plateau(void **state)
{
	(void)state;
	static const struct {
		const char *what;
		double ach[6];
		int sat[6];
		size_t n;
		double mu;          /* NAN = no plateau */
		size_t first, np;
		double spread;
	} cases[] = {
		/* 0.95 × 3.68 = 3.496 ≤ 3.50: four levels; median (3.665 + 3.67) / 2; spread 0.18 / 3.6675 */
		{ "sim-like, 4 levels", { 1.0, 1.99, 3.50, 3.67, 3.68, 3.665 }, { 0, 0, 1, 1, 1, 1 }, 6,
		    3.6675, 2, 4, 0.18 / 3.6675 },
		/* 3.40 < 3.496 ends the plateau: median of 3.665, 3.67, 3.68 = 3.67; spread 0.015 / 3.67 */
		{ "lowest outside band", { 1.0, 1.99, 3.40, 3.67, 3.68, 3.665 }, { 0, 0, 1, 1, 1, 1 }, 6,
		    3.67, 3, 3, 0.015 / 3.67 },
		{ "one saturated level", { 1, 2, 3.5 }, { 0, 0, 1 }, 3, NAN, 0, 0, NAN },
		{ "none saturated", { 1, 2, 4 }, { 0, 0, 0 }, 3, NAN, 0, 0, NAN },
		/* 2.0 < 0.95 × 3.6 = 3.42: only the top level is in the band */
		{ "second level far below", { 1, 2.0, 3.6 }, { 0, 1, 1 }, 3, NAN, 0, 0, NAN },
		/* a level that kept up splits the top run: {3.6, 3.62}, median 3.61, spread 0.02 / 3.61 */
		{ "kept-up level splits", { 3.6, 3.6, 3.6, 3.62 }, { 1, 0, 1, 1 }, 4, 3.61, 2, 2, 0.02 / 3.61 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t first = 99, np = 99;
		double spread = 0;
		double mu = br_knee_mu_plateau(cases[i].ach, cases[i].sat, cases[i].n, &first, &np, &spread);
		if (isnan(cases[i].mu)) {
			assert_nan(mu);
			assert_int_equal(np, 0);
			continue;
		}
		assert_double_rel(mu, cases[i].mu, 1e-12);
		assert_int_equal(first, cases[i].first);
		assert_int_equal(np, cases[i].np);
		assert_double_rel(spread, cases[i].spread, 1e-9);
	}
}

/* Next rates: knee · (fail / knee)^(i/4), i = 1..3, to 3 significant digits (by hand). */
static void
test_next_rates(void **state)
{
	(void)state;
	static const struct {
		double knee, fail;
		size_t n;
		double r[3];
	} cases[] = {
		{ 2, 4, 3, { 2.38, 2.83, 3.36 } },     /* 2·2^0.25 = 2.3784, 2·√2 = 2.8284, 2·2^0.75 = 3.3636 */
		{ 1, 16, 3, { 2, 4, 8 } },             /* 16^0.25 = 2 */
		{ 10, 20, 3, { 11.9, 14.1, 16.8 } },   /* 11.892, 14.142, 16.818 */
		{ 4, 2, 0, { 0 } },
		{ 2, INFINITY, 0, { 0 } },
		{ 0, 4, 0, { 0 } },
		{ NAN, 4, 0, { 0 } },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double out[BR_KNEE_NEXT_RATES] = { 0 };
		assert_int_equal(br_knee_next_rates(cases[i].knee, cases[i].fail, out), cases[i].n);
		for (size_t k = 0; k < cases[i].n; k++)
			assert_double_rel(out[k], cases[i].r[k], 1e-12);
	}
}

/* Measured L: running + waiting integrated over the run window (the rows
 * of test_waiting_share) over the run's duration. By hand: window rows
 * 1..6 (t = 1..6 s) hold 0, 2, 5, 4, 1, 0; trapezoids (0+2)/2 + (2+5)/2 +
 * (5+4)/2 + (4+1)/2 + (1+0)/2 = 12 request-seconds; over a 6 s run 2.0,
 * over the samples' own 5 s span (no duration) 2.4. */
static void
test_in_system_mean(void **state)
{
	(void)state;
	double t[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	double run[8] = { 0, 0, 2, 3, 3, 1, 0, 0 }, wait[8] = { 0, 0, 0, 2, 1, 0, 0, 0 };
	char *names[2] = { "vllm:num_requests_running", "vllm:num_requests_waiting" };
	double *cols[2] = { run, wait };
	br_series s = { .n_rows = 8, .t_s = t, .n_cols = 2, .names = names, .cols = cols };
	size_t n = 0;
	assert_double_rel(br_knee_in_system_mean(&s, 6.0, &n), 2.0, 1e-12);
	assert_int_equal(n, 6);
	assert_double_rel(br_knee_in_system_mean(&s, NAN, &n), 2.4, 1e-12);
	s.n_cols = 1;     /* running only: the measured L is unknown, never 0 */
	assert_nan(br_knee_in_system_mean(&s, 6.0, &n));
	assert_int_equal(n, 0);
	assert_nan(br_knee_in_system_mean(NULL, 6.0, &n));
}

/*
 * Little's law, steady state and withheld verdicts per point, by hand
 * (make_run: E2EL = TTFT + 0.1 s, 4 requests):
 *   rate 1, TTFT .1–.4, 4 s: W = mean(.2,.3,.4,.5) = 0.35 s, λ = 1, L = 0.35;
 *     window 4/1 = 4 s ≥ 5 × 0.35 = 1.75: steady, meets → the knee
 *   rate 2, TTFT .1,.2,.3,.9, 2 s: W = 0.475, λ = 2, L = 0.95; window 2 s <
 *     2.375: short, but it misses (p99 882 ms): the miss stands
 *   rate 4, TTFT all .2, 1 s: W = 0.3, λ = 4, L = 1.2; window 1 s < 1.5:
 *     short and it meets the SLO: withheld, left out of the knee search
 */
static void
test_littles_points(void **state)
{
	(void)state;
	br_bench b[3];
	const double t1[] = { 0.1, 0.2, 0.3, 0.4 }, t2[] = { 0.1, 0.2, 0.3, 0.9 }, t4[] = { 0.2, 0.2, 0.2, 0.2 };
	make_run(&b[0], 1, t1, 4, 4);
	make_run(&b[1], 2, t2, 4, 2);
	make_run(&b[2], 4, t4, 4, 1);
	double t[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	double run[8] = { 0, 0, 2, 3, 3, 1, 0, 0 }, wait[8] = { 0, 0, 0, 2, 1, 0, 0, 0 };
	char *names[2] = { "vllm:num_requests_running", "vllm:num_requests_waiting" };
	double *cols[2] = { run, wait };
	br_series s = { .n_rows = 8, .t_s = t, .n_cols = 2, .names = names, .cols = cols };
	br_knee_input in[3] = { { &b[0], &s, "r1", NULL }, { &b[1], NULL, "r2", NULL }, { &b[2], NULL, "r4", NULL } };
	br_slo slo;
	char *cause = NULL;
	assert_int_equal(br_slo_parse("ttft_p99<=500ms", &slo, &cause), 0);
	br_knee_result r;
	assert_int_equal(br_knee_analyze(in, 3, &slo, &r, &cause), 0);
	const br_knee_group *G = &r.groups[0];
	assert_int_equal(G->n, 3);
	static const struct {
		double w_ms, l, window_s;
		int steady, withheld;
	} want[3] = {
		{ 350, 0.35, 4, 1, 0 },
		{ 475, 0.95, 2, 0, 0 },
		{ 300, 1.2, 1, 0, 1 },
	};
	for (size_t i = 0; i < 3; i++) {
		const br_knee_point *p = &G->pts[i];
		assert_double_rel(p->e2el_mean_ms, want[i].w_ms, 1e-12);
		assert_double_rel(p->littles_l_requests, want[i].l, 1e-12);
		assert_double_rel(p->arrival_window_s, want[i].window_s, 1e-12);
		assert_int_equal(p->steady_state, want[i].steady);
		assert_int_equal(p->verdict_withheld, want[i].withheld);
	}
	/* measured L only where a series was given: test_in_system_mean's 12
	 * request-seconds over r1's 4 s duration = 3.0 */
	assert_double_rel(G->pts[0].in_system_mean_requests, 3.0, 1e-12);
	assert_nan(G->pts[1].in_system_mean_requests);
	assert_int_equal(G->n_withheld, 1);
	assert_int_equal(G->knee_idx, 0);
	assert_int_equal(G->first_fail_idx, 1);   /* the short miss stands */
	/* queue: only r1 has a series, waiting > 0 in 2 of 6 samples ≥ 5% */
	assert_int_equal(G->n_queue_known, 1);
	assert_int_equal(G->queue_first_idx, 0);
	assert_int_equal(G->queue_last_empty_idx, -1);
	/* no rate saturates: μ unknown; the largest achieved rate is 4 req/s */
	assert_nan(G->mu_rps);
	assert_double_rel(G->max_achieved_rps, 4.0, 1e-12);
	br_knee_free(&r);
	for (int i = 0; i < 3; i++)
		free(b[i].requests);
}

/*
 * μ and the next rates on a curve, by hand: 8 requests each, TTFT 0.1 s
 * (E2EL 0.2 s), no start times:
 *   rate 1, 8 s → 1 req/s; rate 2, 4 s → 2 req/s (both keep up, meet: knee 2)
 *   rate 4, 4 s → 2 req/s; rate 8, 3.9 s → 8 / 3.9 = 2.051282 req/s: both
 *   < 95% of offered, and each outlasts its arrivals (4 − 2 = 2 s, 3.9 − 1 =
 *   2.9 s) by more than the median E2EL (0.2 s): cannot keep up, saturated.
 *   Plateau: 2.0 ≥ 0.95 × 2.051282 → μ = (2 + 2.051282) / 2 = 2.025641.
 *   First failing 4 (cannot keep up); next rates 2.38, 2.83, 3.36 with
 *   max(8, ceil(5 × R × 0.2 s)) = 8 prompts.
 */
static void
test_mu_curve(void **state)
{
	(void)state;
	static const double rate[4] = { 1, 2, 4, 8 }, dur[4] = { 8, 4, 4, 3.9 };
	const double tt[8] = { 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 };
	br_bench b[4];
	br_knee_input in[4];
	for (int i = 0; i < 4; i++) {
		make_run(&b[i], rate[i], tt, 8, dur[i]);
		for (size_t k = 0; k < 8; k++)
			b[i].requests[k].start_time_s = NAN;    /* no start times: no TTFT growth to look at */
		in[i] = (br_knee_input){ &b[i], NULL, "r", NULL };
	}
	br_slo slo;
	char *cause = NULL;
	assert_int_equal(br_slo_parse("ttft_p99<=500ms", &slo, &cause), 0);
	br_knee_result r;
	assert_int_equal(br_knee_analyze(in, 4, &slo, &r, &cause), 0);
	const br_knee_group *G = &r.groups[0];
	assert_int_equal(G->knee_idx, 1);
	assert_int_equal(G->first_fail_idx, 2);
	assert_int_equal(G->pts[2].cannot_keep_up, 1);
	assert_int_equal(G->pts[3].cannot_keep_up, 1);
	assert_double_rel(G->mu_rps, (2.0 + 8.0 / 3.9) / 2.0, 1e-12);
	assert_int_equal(G->mu_n_levels, 2);
	assert_int_equal(G->mu_first_idx, 2);
	assert_int_equal(G->n_next_rates, 3);
	static const double want[3] = { 2.38, 2.83, 3.36 };
	for (int i = 0; i < 3; i++) {
		assert_double_rel(G->next_rates_rps[i], want[i], 1e-12);
		assert_double_rel(G->next_num_prompts[i], 8, 0);
	}
	/* every run at a finite rate: window 8 / rate ≥ 1 s = 5 × 0.2 s → steady */
	for (int i = 0; i < 4; i++)
		assert_int_equal(G->pts[i].steady_state, 1);
	assert_int_equal(G->n_queue_known, 0);      /* no series: queue signal unknown */
	assert_int_equal(G->queue_first_idx, -1);
	br_knee_free(&r);
	for (int i = 0; i < 4; i++)
		free(b[i].requests);
}

/* has_note: 1 when some note of r contains `part`. */
static int
has_note(const br_knee_result *r, const char *part)
{
	for (size_t i = 0; i < r->n_notes; i++)
		if (strstr(r->notes[i], part))
			return 1;
	return 0;
}

/*
 * Measured results are never settings: two closed-loop runs (C = 4, rate
 * inf) whose only differing extras are results (the per-position
 * acceptance-rate array, rtfx, an unknown *_ms statistic, a throughput)
 * form ONE curve, and its label names none of them; a differing
 * `--metadata tp` string and a swept max_num_seqs do separate curves.
 */
static void
test_grouping_settings_only(void **state)
{
	(void)state;
	const double t[] = { 0.1, 0.2, 0.3, 0.4 };
	br_bench b[2];
	make_run(&b[0], INFINITY, t, 4, 4.0);
	make_run(&b[1], INFINITY, t, 4, 4.5);   /* another duration: not the same result */
	b[0].num_prompts = b[1].num_prompts = 16;
	b[0].max_concurrency = b[1].max_concurrency = 4;
	br_bench_extra e0[] = {
		{ "spec_decode_per_position_acceptance_rates", "[0.8091549295774648, 0.6119718309859155]" },
		{ "rtfx", "0.0" }, { "mean_queue_ms", "12.5" }, { "decode_throughput", "99.5" },
		{ "max_num_seqs", "4" }, { "tp", "1" },
	};
	br_bench_extra e1[] = {
		{ "spec_decode_per_position_acceptance_rates", "[0.8189473684210526, 0.6042105263157894]" },
		{ "rtfx", "0.1" }, { "mean_queue_ms", "13.0" }, { "decode_throughput", "97.0" },
		{ "max_num_seqs", "4" }, { "tp", "1" },
	};
	b[0].extras = e0;
	b[1].extras = e1;
	b[0].n_extras = b[1].n_extras = sizeof e0 / sizeof e0[0];
	br_knee_input in[2] = { { &b[0], NULL, "a", NULL }, { &b[1], NULL, "b", NULL } };
	br_slo slo;
	char *cause = NULL;
	assert_int_equal(br_slo_parse("ttft_p99<=5s", &slo, &cause), 0);
	br_knee_result r;
	assert_int_equal(br_knee_analyze(in, 2, &slo, &r, &cause), 0);
	assert_int_equal(r.n_groups, 1);
	assert_int_equal(r.groups[0].n, 2);
	assert_int_equal(r.groups[0].kind, BR_KNEE_CONCURRENCY);
	assert_null(strstr(r.groups[0].label, "spec_decode"));
	assert_null(strstr(r.groups[0].label, "rtfx"));
	assert_null(strstr(r.groups[0].label, "throughput"));
	assert_null(strstr(r.groups[0].label, "_ms"));
	assert_non_null(strstr(r.groups[0].label, "max_num_seqs=4"));
	assert_non_null(strstr(r.groups[0].label, "tp=1"));
	assert_null(strstr(r.groups[0].key, "spec_decode"));
	br_knee_free(&r);
	/* a setting that differs splits the curve: tp 1 vs 2 */
	e1[5].value = "2";
	assert_int_equal(br_knee_analyze(in, 2, &slo, &r, &cause), 0);
	assert_int_equal(r.n_groups, 2);
	br_knee_free(&r);
	e1[5].value = "1";
	e1[4].value = "8";   /* swept server parameter */
	assert_int_equal(br_knee_analyze(in, 2, &slo, &r, &cause), 0);
	assert_int_equal(r.n_groups, 2);
	br_knee_free(&r);
	for (int i = 0; i < 2; i++)
		free(b[i].requests);
}

/*
 * Loop rule: request_rate inf with a max_concurrency is a closed-loop point
 * whatever num_prompts is (a batch-1 run: C = 1, N = 1 → concurrency x = 1,
 * not "rate inf"); the exception is an inf run with cap >= N beside
 * open-loop finite rates of the same model (the simulator's saturation
 * point, rate-inf.json: cap 200 = N 200), which stays in the rate sweep.
 */
static void
test_loop_rule(void **state)
{
	(void)state;
	const double t[] = { 0.1, 0.2, 0.3, 0.4 };
	br_bench b[3];
	make_run(&b[0], INFINITY, t, 1, 7.8);
	b[0].max_concurrency = 1;          /* N = 1 = C */
	br_knee_input in1[1] = { { &b[0], NULL, "batch1", NULL } };
	br_slo slo;
	char *cause = NULL;
	assert_int_equal(br_slo_parse("ttft_p99<=5s", &slo, &cause), 0);
	br_knee_result r;
	assert_int_equal(br_knee_analyze(in1, 1, &slo, &r, &cause), 0);
	assert_int_equal(r.n_groups, 1);
	assert_int_equal(r.groups[0].kind, BR_KNEE_CONCURRENCY);
	assert_double_abs(r.groups[0].pts[0].x, 1, 0);
	assert_nan(r.groups[0].pts[0].offered_rps);
	assert_false(has_note(&r, "inf point sends every request at once"));
	br_knee_free(&r);
	free(b[0].requests);

	/* rate sweep 1, 2 req/s and inf with cap = N = 4: one rate curve, inf at the end */
	make_run(&b[0], 1, t, 4, 4);
	make_run(&b[1], 2, t, 4, 2);
	make_run(&b[2], INFINITY, t, 4, 1);
	b[2].max_concurrency = 4;
	br_knee_input in3[3] = { { &b[0], NULL, "r1", NULL }, { &b[1], NULL, "r2", NULL }, { &b[2], NULL, "rinf", NULL } };
	assert_int_equal(br_knee_analyze(in3, 3, &slo, &r, &cause), 0);
	assert_int_equal(r.n_groups, 1);
	assert_int_equal(r.groups[0].kind, BR_KNEE_RATE);
	assert_int_equal(r.groups[0].n, 3);
	assert_true(isinf(r.groups[0].pts[2].x));
	assert_true(has_note(&r, "inf point sends every request at once"));
	br_knee_free(&r);
	/* the same inf run of another model has no rates beside it: closed loop */
	b[2].model_id = "other";
	assert_int_equal(br_knee_analyze(in3, 3, &slo, &r, &cause), 0);
	assert_int_equal(r.n_groups, 2);
	assert_int_equal(r.groups[1].kind, BR_KNEE_CONCURRENCY);
	assert_double_abs(r.groups[1].pts[0].x, 4, 0);
	br_knee_free(&r);
	/* a finite rate with a binding cap (C = 2 < N = 4) stays open loop (capped rate sweep) */
	b[2].model_id = "m";
	b[2].request_rate_rps = 4;
	b[2].max_concurrency = 2;
	assert_int_equal(br_knee_analyze(in3, 3, &slo, &r, &cause), 0);
	assert_int_equal(r.n_groups, 2);
	assert_int_equal(r.groups[0].kind, BR_KNEE_RATE);
	assert_int_equal(r.groups[1].kind, BR_KNEE_RATE);
	assert_non_null(strstr(r.groups[1].label, "cap C=2"));
	br_knee_free(&r);
	for (int i = 0; i < 3; i++)
		free(b[i].requests);
}

/* The same run given twice (same object, or an identical copy) counts once, with a note. */
static void
test_dedup(void **state)
{
	(void)state;
	const double t[] = { 0.1, 0.2, 0.3, 0.4 };
	br_bench b[2], copy;
	make_run(&b[0], 1, t, 4, 4);
	make_run(&b[1], 2, t, 4, 2);
	copy = b[1];                              /* identical result object, other memory */
	copy.requests = calloc(4, sizeof *copy.requests);
	memcpy(copy.requests, b[1].requests, 4 * sizeof *copy.requests);
	br_knee_input in[4] = { { &b[0], NULL, "r1", NULL }, { &b[1], NULL, "r2", NULL }, { &b[0], NULL, "r1 again", NULL },
		{ &copy, NULL, "r2 copy", NULL } };
	br_slo slo;
	char *cause = NULL;
	assert_int_equal(br_slo_parse("ttft_p99<=5s", &slo, &cause), 0);
	br_knee_result r;
	assert_int_equal(br_knee_analyze(in, 4, &slo, &r, &cause), 0);
	assert_int_equal(r.n_runs, 2);
	assert_int_equal(r.groups[0].n, 2);
	assert_int_equal(r.groups[0].has_repeats, 0);
	assert_true(has_note(&r, "more than once"));
	br_knee_free(&r);
	/* one TTFT differs: a different run, kept (then a repeat of rate 2) */
	copy.requests[3].ttft_s = 0.5;
	assert_int_equal(br_knee_analyze(in, 4, &slo, &r, &cause), 0);
	assert_int_equal(r.n_runs, 3);
	assert_int_equal(r.groups[0].has_repeats, 1);
	br_knee_free(&r);
	free(copy.requests);
	for (int i = 0; i < 2; i++)
		free(b[i].requests);
}

/*
 * Real files: glm52-c4-detailed.json and the MTP run's stress.json are two
 * C = 4 closed-loop runs of one model that differ only in measured
 * spec-decode rates → one concurrency curve of 2 points; the batch-1 file
 * (C = 1, N = 1) is a concurrency point x = 1.
 */
static void
test_real_spec_decode(void **state)
{
	(void)state;
	char *f1 = br_test_real("bench/glm52-c4-detailed.json");
	char *f2 = br_test_real("runs/glm52-mtp3-c4-r2/stress.json");
	char *f3 = br_test_real("bench/glm52-batch1-detailed.json");
	if (!f1 || !f2 || !f3) {
		free(f1);
		free(f2);
		free(f3);
		skip();
	}
	br_bench_set s1, s2, s3;
	char *cause = NULL;
	assert_int_equal(br_bench_load(f1, &s1, &cause), 0);
	assert_int_equal(br_bench_load(f2, &s2, &cause), 0);
	assert_int_equal(br_bench_load(f3, &s3, &cause), 0);
	br_knee_input in[2] = { { &s1.runs[0], NULL, "c4", NULL }, { &s2.runs[0], NULL, "mtp", NULL } };
	br_slo slo;
	assert_int_equal(br_slo_parse("ttft_p99<=5s", &slo, &cause), 0);
	br_knee_result r;
	assert_int_equal(br_knee_analyze(in, 2, &slo, &r, &cause), 0);
	assert_int_equal(r.n_groups, 1);
	assert_int_equal(r.groups[0].kind, BR_KNEE_CONCURRENCY);
	assert_int_equal(r.groups[0].n, 2);
	assert_null(strstr(r.groups[0].label, "spec_decode"));
	br_knee_free(&r);
	br_knee_input in3[1] = { { &s3.runs[0], NULL, "batch1", NULL } };
	assert_int_equal(br_knee_analyze(in3, 1, &slo, &r, &cause), 0);
	assert_int_equal(r.groups[0].kind, BR_KNEE_CONCURRENCY);
	assert_double_abs(r.groups[0].pts[0].x, 1, 0);
	/* one request, TTFT 0.982063 s (ttfts[0] of the file) ≤ 5 s: the knee is C = 1 */
	assert_int_equal(r.groups[0].knee_idx, 0);
	assert_double_rel(r.groups[0].pts[0].ttft_p99_ms, 982.063325936906, 1e-9);
	br_knee_free(&r);
	br_bench_set_free(&s1);
	br_bench_set_free(&s2);
	br_bench_set_free(&s3);
	free(f1);
	free(f2);
	free(f3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slo_parse_ok),
		cmocka_unit_test(test_slo_parse_bad),
		cmocka_unit_test(test_knee_find),
		cmocka_unit_test(test_analyze),
		cmocka_unit_test(test_warmup_by_date),
		cmocka_unit_test(test_first_fail_warmup_only),
		cmocka_unit_test(test_waiting_share),
		cmocka_unit_test(test_mu_plateau),
		cmocka_unit_test(test_next_rates),
		cmocka_unit_test(test_in_system_mean),
		cmocka_unit_test(test_littles_points),
		cmocka_unit_test(test_mu_curve),
		cmocka_unit_test(test_grouping_settings_only),
		cmocka_unit_test(test_loop_rule),
		cmocka_unit_test(test_dedup),
		cmocka_unit_test(test_real_spec_decode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
