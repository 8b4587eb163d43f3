/*
 * Unit tests of the CI gate (src/analysis/gate.c): the --fail-on grammar
 * as a table of (text, canonical text, limit) and (bad text, expected
 * message part), and evaluation on fixtures/runs/tiny.
 *
 * Expected values for tiny come from numpy 1.24 on fixtures/runs/tiny/stress.json
 * (np.percentile, linear, on ttfts·1000 and the concatenated itls·1000;
 * max(latencies)·1000) and by hand from its metrics.csv (the
 * vllm:num_preemptions_total column goes 0 → 1 inside the run).
 */
#include "br_test.h"
#include "benchreport/common.h"
#include "benchreport/run.h"
#include "benchreport/analysis.h"
#include "benchreport/gate.h"

static const struct {
	const char *text;
	const char *canonical;
	int quantity, op;
	double limit;           /* in the quantity's unit (ms for latency) */
} good_terms[] = {
	{ "ttft_p99<=2s", "ttft_p99<=2s", BR_GATE_LATENCY, BR_GATE_LE, 2000 },
	{ " ITL_p99 <= 100ms ", "itl_p99<=100ms", BR_GATE_LATENCY, BR_GATE_LE, 100 },
	{ "e2el_max<60s", "e2el_max<60s", BR_GATE_LATENCY, BR_GATE_LT, 60000 },
	{ "tpot_mean>=500us", "tpot_mean>=500us", BR_GATE_LATENCY, BR_GATE_GE, 0.5 },
	{ "itl_p99.99<=1.5s", "itl_p99.99<=1.5s", BR_GATE_LATENCY, BR_GATE_LE, 1500 },
	{ "failed==0", "failed==0", BR_GATE_FAILED, BR_GATE_EQ, 0 },
	{ "completed>100", "completed>100", BR_GATE_COMPLETED, BR_GATE_GT, 100 },
	{ "preemptions == 0", "preemptions==0", BR_GATE_PREEMPTIONS, BR_GATE_EQ, 0 },
	{ "failed_pct<1", "failed_pct<1", BR_GATE_FAILED_PCT, BR_GATE_LT, 1 },
	{ "failed_pct<=5%", "failed_pct<=5%", BR_GATE_FAILED_PCT, BR_GATE_LE, 5 },   /* % allowed, and kept */
	{ "output_tps>=1000.5", "output_tps>=1000.5", BR_GATE_OUTPUT_TPS, BR_GATE_GE, 1000.5 },
	{ "rps>2", "rps>2", BR_GATE_RPS, BR_GATE_GT, 2 },
};

static void
test_gate_parse_terms(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof good_terms / sizeof good_terms[0]; i++) {
		br_gate_spec s;
		char *cause = NULL;
		if (br_gate_parse(good_terms[i].text, &s, &cause) != 0)
			fail_msg("'%s': %s", good_terms[i].text, cause);
		assert_int_equal(s.n, 1);
		assert_string_equal(s.terms[0].text, good_terms[i].canonical);
		assert_int_equal(s.terms[0].quantity, good_terms[i].quantity);
		assert_int_equal(s.terms[0].op, good_terms[i].op);
		assert_double_rel(s.terms[0].limit, good_terms[i].limit, 1e-15);
	}
	br_gate_spec s;
	char *cause = NULL;
	assert_int_equal(br_gate_parse("ttft_p99<=2s, itl_p99<=100ms,failed==0,preemptions==0", &s, &cause), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.text, "ttft_p99<=2s,itl_p99<=100ms,failed==0,preemptions==0");
}

static const char *const bad_terms[][2] = {
	{ "", "at least one term" },
	{ "ttft_p99<=2s,", "term 2 '': expected a term" },
	{ "ttft_p99 2s", "an operator" },
	{ "ttft_p42<=2s", "a quantity before the operator" },
	{ "latency<=2s", "a quantity before the operator" },
	{ "ttft_p99=<2s", "an operator <=" },
	{ "ttft_p99<=2min", "a unit us, ms or s" },
	{ "ttft_p99<=2", "a unit us, ms or s" },
	{ "ttft_p99<=1e400ms", "no exponent: 2000ms, not 2e3ms" },   /* once "expected a unit" */
	{ "ttft_p99<=0x10s", "a number (0 or more, plain decimal" },   /* fourteenth breaker: "a unit" */
	/* 36 digits its echo would cut (twenty-ninth breaker: misquoted as 0.000…0s) */
	{ "ttft_p99<=0.000000000000000000000000000000000001s", "plain decimal of at most 31 characters" },
	{ "failed==0ms", "a plain number" },
	{ "failed<=5%", "a plain number" },   /* % is for failed_pct only */
	{ "failed==-1", "a number (0 or more" },
	{ "failed==1.2.3", "a number (0 or more" },
	{ "failed==0,failed==0", "term 2 'failed==0': expected each term once" },
};

static void
test_gate_parse_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad_terms / sizeof bad_terms[0]; i++) {
		br_gate_spec s;
		char *cause = NULL;
		if (br_gate_parse(bad_terms[i][0], &s, &cause) == 0)
			fail_msg("'%s' parsed", bad_terms[i][0]);
		if (strstr(cause, bad_terms[i][1]) == NULL)
			fail_msg("'%s': message '%s' lacks '%s'", bad_terms[i][0], cause, bad_terms[i][1]);
		assert_non_null(strstr(cause, "--fail-on: "));
		free(cause);
	}
}

static const struct {
	const char *term;
	int status;
	double value;           /* expected measured value; NAN = unknown */
} tiny_terms[] = {
	{ "ttft_p99<=2s", BR_GATE_PASS, 590.5062612730858 },     /* numpy */
	/* the measured p99 itself as the limit, in us and in ms: equal in both
	 * units (the us limit's double differs in its last bit once in ms) */
	{ "ttft_p99<=590506.2612730858us", BR_GATE_PASS, 590.5062612730858 },
	{ "ttft_p99<590506.2612730858us", BR_GATE_FAIL, 590.5062612730858 },
	{ "ttft_p99<=590.5062612730858ms", BR_GATE_PASS, 590.5062612730858 },
	{ "ttft_p99>=590506.2612730858us", BR_GATE_PASS, 590.5062612730858 },
	{ "ttft_p95<590ms", BR_GATE_FAIL, 590.1961425019806 },   /* numpy */
	{ "ttft_max<=0.59s", BR_GATE_FAIL, 590.5837909658621 },  /* max(ttfts) */
	{ "ttft_mean<=341ms", BR_GATE_PASS, 340.4730154755369 }, /* numpy mean */
	{ "itl_p99.99<=100ms", BR_GATE_FAIL, 850.7124642775595 },/* numpy, 99.99 */
	{ "itl_median<22ms", BR_GATE_PASS, 21.96766931283254 },  /* numpy median */
	{ "e2el_max<60s", BR_GATE_PASS, 2220.660773559644 },     /* max(latencies) */
	{ "failed==0", BR_GATE_PASS, 0 },
	{ "completed>=12", BR_GATE_PASS, 12 },
	{ "failed_pct<1", BR_GATE_PASS, 0 },
	{ "preemptions==0", BR_GATE_FAIL, 1 },                   /* metrics.csv 0 → 1 */
	{ "output_tps>=100", BR_GATE_PASS, 112.0934429897894 },  /* the file's output_throughput */
	{ "rps>2.34", BR_GATE_FAIL, 2.3393414189173436 },        /* the file's request_throughput */
};

static void
test_gate_evaluate_tiny(void **state)
{
	(void)state;
	char *dir = br_test_src("fixtures/runs/tiny");
	br_run run;
	br_analysis a;
	char *cause = NULL;
	if (br_run_load(dir, NULL, &run, &cause) != 0)
		fail_msg("br_run_load: %s", cause);
	br_analyze(&run, &a);
	size_t n = sizeof tiny_terms / sizeof tiny_terms[0];
	for (size_t i = 0; i < n; i++) {
		br_gate_spec s;
		br_gate_result r;
		if (br_gate_parse(tiny_terms[i].term, &s, &cause) != 0)
			fail_msg("%s", cause);
		br_gate_evaluate(&s, &a, &r);
		if (r.terms[0].status != tiny_terms[i].status)
			fail_msg("%s: status %d, expected %d (value %.17g)", tiny_terms[i].term,
			    r.terms[0].status, tiny_terms[i].status, r.terms[0].value);
		assert_double_rel(r.terms[0].value, tiny_terms[i].value, 1e-12);
		assert_int_equal(r.passed, tiny_terms[i].status == BR_GATE_PASS);
	}
	/* all at once: counts add up */
	br_gate_spec s;
	br_gate_result r;
	assert_int_equal(br_gate_parse("ttft_p99<=2s,preemptions==0,failed==0", &s, &cause), 0);
	br_gate_evaluate(&s, &a, &r);
	assert_int_equal(r.n_pass, 2);
	assert_int_equal(r.n_fail, 1);
	assert_int_equal(r.n_unknown, 0);
	assert_false(r.passed);
	char buf[48];
	assert_string_equal(br_gate_format_value(&s.terms[0], r.terms[0].value, buf, sizeof buf), "0.590506 s");
	br_analysis_free(&a);
	br_run_free(&run);
	free(dir);
}

/* Unknown values fail closed: a run folder without metrics cannot prove 0 preemptions. */
static void
test_gate_unknown_fails(void **state)
{
	(void)state;
	char *bench = br_test_src("fixtures/runs/tiny/stress.json");
	char *dir = br_test_src("fixtures/runs");
	br_run_opts o = { .bench_path = bench };
	br_run run;
	br_analysis a;
	char *cause = NULL;
	/* --bench FILE with the fixtures/runs folder: no metrics.csv, no server.log there */
	if (br_run_load(dir, &o, &run, &cause) != 0)
		fail_msg("br_run_load: %s", cause);
	br_analyze(&run, &a);
	br_gate_spec s;
	br_gate_result r;
	assert_int_equal(br_gate_parse("preemptions==0,failed==0", &s, &cause), 0);
	br_gate_evaluate(&s, &a, &r);
	assert_int_equal(r.terms[0].status, BR_GATE_UNKNOWN);
	assert_nan(r.terms[0].value);
	assert_non_null(strstr(r.terms[0].why_unknown, "no /metrics series"));
	assert_int_equal(r.terms[1].status, BR_GATE_PASS);
	assert_int_equal(r.n_unknown, 1);
	assert_false(r.passed);
	br_analysis_free(&a);
	br_run_free(&run);
	free(bench);
	free(dir);
}

/*
 * Without per-request arrays a percentile the file does not state can still
 * be settled by one it does (percentiles rise with p). The file here states
 * the TTFT median 55.68 ms and p99 734.40 ms (the real opt125m-v0.25.1.json
 * of ../shared/real/bench); by hand: p90 <= p99 = 734.40 <= 1000 passes,
 * p90 >= p50 = 55.68 >= 50 passes, p95 <= 734.40 < 1000 fails ">= 1 s",
 * p99.9 >= 734.40 > 500 fails "<= 500 ms"; "p90 <= 500 ms" lies between
 * 55.68 and 734.40 (unknown), and "==" is never settled by a bound. The
 * maximum (p100) is at least p99: ">= 700 ms" passes, "<= 500 ms" fails,
 * "<= 1 s" stays unknown.
 */
static const struct {
	const char *term;
	int status;
	double value;           /* NAN = unknown */
	int bound;
} bound_terms[] = {
	{ "ttft_p90<=1s", BR_GATE_PASS, 734.40, -1 },
	{ "ttft_p90>=50ms", BR_GATE_PASS, 55.68, 1 },
	{ "ttft_p95>=1s", BR_GATE_FAIL, 734.40, -1 },
	{ "ttft_p99.9<=500ms", BR_GATE_FAIL, 734.40, 1 },
	{ "ttft_p99.9<734.4ms", BR_GATE_FAIL, 734.40, 1 },   /* at least 734.40, not below it */
	{ "ttft_p99<=1s", BR_GATE_PASS, 734.40, 0 },         /* stated: the value itself */
	{ "ttft_p90<=500ms", BR_GATE_UNKNOWN, NAN, 0 },
	{ "ttft_p90==500ms", BR_GATE_UNKNOWN, NAN, 0 },
	/* the maximum is p100: at least the highest stated percentile (p99) */
	{ "ttft_max>=700ms", BR_GATE_PASS, 734.40, 1 },
	{ "ttft_max<=500ms", BR_GATE_FAIL, 734.40, 1 },
	{ "ttft_max<=1s", BR_GATE_UNKNOWN, NAN, 0 },          /* nothing bounds it from above */
};

static void
test_gate_percentile_bounds(void **state)
{
	(void)state;
	br_file_stat st[2] = { { .metric = "ttft", .stat = "median", .percentile = NAN, .value_ms = 55.68 },
		{ .metric = "ttft", .stat = "p", .percentile = 99, .value_ms = 734.40 } };
	br_bench b = { .completed = 100, .failed = 0, .stats = st, .n_stats = 2 };
	br_run run = { .bench = { .runs = &b, .n = 1 } };
	br_analysis a = { .run = &run };
	for (size_t i = 0; i < sizeof bound_terms / sizeof bound_terms[0]; i++) {
		br_gate_spec s;
		br_gate_result r;
		char *cause = NULL;
		if (br_gate_parse(bound_terms[i].term, &s, &cause) != 0)
			fail_msg("%s", cause);
		br_gate_evaluate(&s, &a, &r);
		if (r.terms[0].status != bound_terms[i].status || r.terms[0].bound != bound_terms[i].bound)
			fail_msg("%s: status %d bound %d, expected %d %d", bound_terms[i].term, r.terms[0].status,
			    r.terms[0].bound, bound_terms[i].status, bound_terms[i].bound);
		if (isnan(bound_terms[i].value))
			assert_nan(r.terms[0].value);
		else
			assert_double_rel(r.terms[0].value, bound_terms[i].value, 0);
	}
}

/*
 * Every request one output token long (output_len 1): no ITL and no TPOT
 * exists, and the file's 0s for them are vLLM's value for an empty set. The
 * gate must not pass on them: with per-request arrays (every ITL list
 * empty) and without (16 output tokens over 16 requests), the terms are
 * unknown; TTFT, which has samples, is evaluated (p99 = 500 ms, stated).
 */
static void
test_gate_one_token_outputs(void **state)
{
	(void)state;
	br_file_stat st[3] = { { .metric = "itl", .stat = "p", .percentile = 99, .value_ms = 0 },
		{ .metric = "tpot", .stat = "p", .percentile = 99, .value_ms = 0 },
		{ .metric = "ttft", .stat = "p", .percentile = 99, .value_ms = 500 } };
	for (int arrays = 0; arrays < 2; arrays++) {
		br_bench b = { .completed = 16, .failed = 0, .total_output_tokens = 16, .stats = st, .n_stats = 3,
			.has_itls = arrays };
		br_run run = { .bench = { .runs = &b, .n = 1 } };
		br_analysis a = { .run = &run };
		a.latency.from_arrays = arrays;   /* n_samples all 0: no ITL, no TPOT sample */
		double ttft_ms = 500;
		br_ranked *rk = br_ranked_new(&ttft_ms, 1, 1.0);
		if (arrays) {
			a.latency.samples_ms[BR_TTFT] = &ttft_ms;
			a.latency.n_samples[BR_TTFT] = 1;
			a.latency.ranked[BR_TTFT] = rk;
		}
		br_gate_spec s;
		br_gate_result r;
		char *cause = NULL;
		if (br_gate_parse("itl_p99<=100ms,tpot_p99<=50ms,itl_max<=10s,ttft_p99<=1s", &s, &cause) != 0)
			fail_msg("%s", cause);
		br_gate_evaluate(&s, &a, &r);
		for (int k = 0; k < 3; k++) {
			if (r.terms[k].status != BR_GATE_UNKNOWN)
				fail_msg("arrays %d, term %d: status %d, expected unknown", arrays, k, r.terms[k].status);
			assert_non_null(strstr(r.terms[k].why_unknown, "sample"));
		}
		assert_int_equal(r.terms[3].status, BR_GATE_PASS);
		assert_double_rel(r.terms[3].value, 500, 0);
		assert_false(r.passed);
		br_ranked_free(rk);
	}
}

/*
 * Prompts neither completed nor failed (num_prompts 10, completed 8,
 * failed 0: 2 unaccounted) may be failures: failed lies in [0, 2] and
 * failed_pct in [0, 20]; a term decides only when both ends agree (by
 * hand: "==0" and "<1" split the range, "<=2" and "<=20" hold at both
 * ends, ">=3" fails at both). Twentieth breaker: failed==0 passed. A
 * decided term states the end that settles it: the upper one, "at most 2"
 * (bound -1), for "<=2" passing and ">=3" failing; the lower, "at least 0"
 * (bound +1), for "<=-1" failing (twenty-ninth breaker: failed>100 FAIL
 * "measured at least 0").
 */
static const struct {
	const char *term;
	int status;
	double value;   /* the settling end (decided terms) */
	int bound;
} unaccounted_terms[] = {
	{ "failed==0", BR_GATE_UNKNOWN, 0, 0 },
	{ "failed<1", BR_GATE_UNKNOWN, 0, 0 },
	{ "failed<=2", BR_GATE_PASS, 2, -1 },
	{ "failed>=3", BR_GATE_FAIL, 2, -1 },
	{ "failed>100", BR_GATE_FAIL, 2, -1 },
	{ "failed_pct==0", BR_GATE_UNKNOWN, 0, 0 },
	{ "failed_pct<=20", BR_GATE_PASS, 20, -1 },
	{ "failed_pct<=10", BR_GATE_UNKNOWN, 0, 0 },
	{ "failed_pct>=0", BR_GATE_PASS, 0, 1 },
};

static void
test_gate_unaccounted_prompts(void **state)
{
	(void)state;
	for (int full = 0; full < 2; full++) {
		/* full: the same counts with num_prompts 8, nothing unaccounted: "==0" passes */
		br_bench b = { .num_prompts = full ? 8 : 10, .completed = 8, .failed = 0 };
		br_run run = { .bench = { .runs = &b, .n = 1 } };
		br_analysis a = { .run = &run };
		for (size_t i = 0; i < sizeof unaccounted_terms / sizeof unaccounted_terms[0]; i++) {
			br_gate_spec s;
			br_gate_result r;
			char *cause = NULL;
			assert_int_equal(br_gate_parse(unaccounted_terms[i].term, &s, &cause), 0);
			br_gate_evaluate(&s, &a, &r);
			int want = unaccounted_terms[i].status;
			if (full && want == BR_GATE_UNKNOWN)
				want = BR_GATE_PASS;   /* 0 failed of 8 sent: every split term holds */
			if (r.terms[0].status != want)
				fail_msg("num_prompts %g, %s: status %d, expected %d (%s)", b.num_prompts,
				    unaccounted_terms[i].term, r.terms[0].status, want, r.terms[0].why_unknown);
			if (!full && want == BR_GATE_UNKNOWN)
				assert_non_null(strstr(r.terms[0].why_unknown, "2 of the 10 prompts are neither completed nor failed"));
			if (!full && want != BR_GATE_UNKNOWN && (r.terms[0].value != unaccounted_terms[i].value ||
			    r.terms[0].bound != unaccounted_terms[i].bound))
				fail_msg("%s: value %g bound %d, expected %g bound %d", unaccounted_terms[i].term,
				    r.terms[0].value, r.terms[0].bound, unaccounted_terms[i].value, unaccounted_terms[i].bound);
		}
	}
}

/* The limit prints at the digits of the value beside it (twentieth
 * breaker: "measured 210.3530184 ms, limit >= 210.353 ms" read as a pass);
 * a value the gate holds equal (within 1e-12) prints as the limit. By hand. */
static void
test_gate_limit_digits(void **state)
{
	(void)state;
	static const struct { const char *term; double value; const char *v, *lim; } cases[] = {
		{ "itl_p99>=210.3530185ms", 210.3530184, "210.3530184 ms", "210.3530185 ms" },
		{ "itl_p99<=2s", 2500.0, "2.5 s", "2 s" },
		{ "itl_median>21.472489ms", 21.472489000018, "21.4725 ms", "21.4725 ms" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		br_gate_spec s;
		char *cause = NULL, v[48], lim[48];
		assert_int_equal(br_gate_parse(cases[i].term, &s, &cause), 0);
		br_gate_format_value(&s.terms[0], cases[i].value, v, sizeof v);
		br_gate_format_limit(&s.terms[0], cases[i].value, lim, sizeof lim);
		if (strcmp(v, cases[i].v) != 0 || strcmp(lim, cases[i].lim) != 0)
			fail_msg("%s: value '%s' limit '%s', expected '%s' '%s'", cases[i].term, v, lim, cases[i].v,
			    cases[i].lim);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_parse_terms),
		cmocka_unit_test(test_gate_parse_bad),
		cmocka_unit_test(test_gate_evaluate_tiny),
		cmocka_unit_test(test_gate_unknown_fails),
		cmocka_unit_test(test_gate_percentile_bounds),
		cmocka_unit_test(test_gate_one_token_outputs),
		cmocka_unit_test(test_gate_unaccounted_prompts),
		cmocka_unit_test(test_gate_limit_digits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
