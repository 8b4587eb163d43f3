/*
 * Unit tests of the A/B comparison (src/analysis/compare.c): the reference
 * round-1 vs round-2 table rebuilt from the DESIGN.md §6 aggregates, the
 * elasticity chain, the settings diff and campaign run matching.
 *
 * Expected relative changes computed by hand from the §6 numbers,
 * (B − A) / A:
 *   pool        (120064 − 86864) / 86864 = 33200 / 86864  = +0.382206  (+38.2%)
 *   running     (15.65 − 11.17) / 11.17  = 4.48 / 11.17    = +0.401074  (+40.1%)
 *   output tok/s (532.4 − 438.8) / 438.8 = 93.6 / 438.8    = +0.213309  (+21.3%)
 *   duration    (492 − 597) / 597        = −105 / 597      = −0.175879  (−17.6%)
 *   TTFT p50    (169 − 219) / 219        = −50 / 219       = −0.228311  (−22.8%;
 *               the brief's −22.9% comes from the unrounded seconds, e.g. 219.4 → 169.1)
 *   E2EL p50    (238 − 270) / 270        = −32 / 270       = −0.118519  (−11.9%)
 *   preemptions (38 − 37) / 37           = 1 / 37          = +0.027027  (+2.7%)
 *   waiting     (36.4 − 38.9) / 38.9     = −2.5 / 38.9     = −0.064267  (−6.4%)
 *   P/M         86864 / 8192 = 10.6035 → 120064 / 8192 = 14.6563: +0.382206
 *   oversub.    64·8192 / 86864 = 6.0357 → 524288 / 120064 = 4.3667: −0.276513
 *               (= 86864/120064 − 1 = −33200 / 120064)
 * Each is asserted to 0.05 percentage points (0.0005 as a fraction).
 */
#include "br_test.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/compare.h"

#define PP005 0.0005   /* 0.05 percentage points */

/* round_values: the §6 aggregates of round 1 (r = 1) or round 2. */
static void
round_values(int r, br_cmp_values *v)
{
	for (int i = 0; i < BR_CMP_N_METRICS; i++)
		v->v[i] = NAN;
	v->v[BR_CMP_KV_POOL_TOKENS] = r == 1 ? 86864 : 120064;
	v->v[BR_CMP_PRED_MAX_CONCURRENCY] = (r == 1 ? 86864.0 : 120064.0) / 8192.0;
	v->v[BR_CMP_OVERSUBSCRIPTION] = 64.0 * 8192.0 / (r == 1 ? 86864.0 : 120064.0);
	v->v[BR_CMP_RUNNING_MEAN] = r == 1 ? 11.17 : 15.65;
	v->v[BR_CMP_OUTPUT_TPS] = r == 1 ? 438.8 : 532.4;
	v->v[BR_CMP_DURATION_S] = r == 1 ? 597 : 492;
	v->v[BR_CMP_TTFT_P50_S] = r == 1 ? 219 : 169;
	v->v[BR_CMP_E2EL_P50_S] = r == 1 ? 270 : 238;
	v->v[BR_CMP_PREEMPTIONS] = r == 1 ? 37 : 38;
	v->v[BR_CMP_WAITING_MEAN] = r == 1 ? 38.9 : 36.4;
}

/* The reference A/B table: every relative change to 0.05 pp. */
static void
test_reference_table(void **state)
{
	(void)state;
	br_cmp_values a, b;
	round_values(1, &a);
	round_values(2, &b);
	br_cmp_row rows[BR_CMP_N_METRICS];
	br_cmp_rows(&a, &b, rows);
	assert_double_abs(rows[BR_CMP_KV_POOL_TOKENS].rel_change, 0.382206, PP005);
	assert_double_abs(rows[BR_CMP_KV_POOL_TOKENS].abs_change, 33200, 0);
	assert_double_abs(rows[BR_CMP_RUNNING_MEAN].rel_change, 0.401074, PP005);
	assert_double_abs(rows[BR_CMP_OUTPUT_TPS].rel_change, 0.213309, PP005);
	assert_double_abs(rows[BR_CMP_DURATION_S].rel_change, -0.175879, PP005);
	assert_double_abs(rows[BR_CMP_DURATION_S].abs_change, -105, 1e-12);
	assert_double_abs(rows[BR_CMP_TTFT_P50_S].rel_change, -0.228311, PP005);
	assert_double_abs(rows[BR_CMP_E2EL_P50_S].rel_change, -0.118519, PP005);
	assert_double_abs(rows[BR_CMP_PREEMPTIONS].rel_change, 0.027027, PP005);
	assert_double_abs(rows[BR_CMP_PREEMPTIONS].abs_change, 1, 0);
	assert_double_abs(rows[BR_CMP_WAITING_MEAN].rel_change, -0.064267, PP005);
	assert_double_abs(rows[BR_CMP_PRED_MAX_CONCURRENCY].a, 10.6035, 0.0001);
	assert_double_abs(rows[BR_CMP_PRED_MAX_CONCURRENCY].b, 14.6563, 0.0001);
	assert_double_abs(rows[BR_CMP_PRED_MAX_CONCURRENCY].rel_change, 0.382206, PP005);
	assert_double_abs(rows[BR_CMP_OVERSUBSCRIPTION].a, 6.0357, 0.0001);
	assert_double_abs(rows[BR_CMP_OVERSUBSCRIPTION].b, 4.3667, 0.0001);
	assert_double_abs(rows[BR_CMP_OVERSUBSCRIPTION].rel_change, -0.276513, PP005);
	/* absent numbers stay absent */
	assert_nan(rows[BR_CMP_ITL_P50_MS].abs_change);
	assert_nan(rows[BR_CMP_ITL_P50_MS].rel_change);
	/* the reference table has exactly these 10 rows */
	static const int ab[] = { BR_CMP_KV_POOL_TOKENS, BR_CMP_PRED_MAX_CONCURRENCY, BR_CMP_OVERSUBSCRIPTION,
		BR_CMP_RUNNING_MEAN, BR_CMP_WAITING_MEAN, BR_CMP_PREEMPTIONS, BR_CMP_DURATION_S,
		BR_CMP_OUTPUT_TPS, BR_CMP_TTFT_P50_S, BR_CMP_E2EL_P50_S };
	int n = 0;
	for (int i = 0; i < BR_CMP_N_METRICS; i++)
		n += br_cmp_metrics[i].in_ab_table;
	assert_int_equal(n, 10);
	for (size_t i = 0; i < sizeof ab / sizeof ab[0]; i++)
		assert_int_equal(br_cmp_metrics[ab[i]].in_ab_table, 1);
	/* P/M is a number of requests, printed without "×"; oversubscription is a ratio */
	assert_string_equal(br_cmp_metrics[BR_CMP_PRED_MAX_CONCURRENCY].unit, "requests");
	assert_string_equal(br_cmp_metrics[BR_CMP_OVERSUBSCRIPTION].unit, "x");
}

/* Elasticities: pool +38.2% → resident +40.1% → throughput +21.3%. */
static void
test_elasticities(void **state)
{
	(void)state;
	br_cmp_values a, b;
	round_values(1, &a);
	round_values(2, &b);
	br_cmp_row rows[BR_CMP_N_METRICS];
	br_cmp_rows(&a, &b, rows);
	br_cmp_elasticity e;
	br_cmp_elasticities(rows, &e);
	assert_int_equal(e.available, 1);
	assert_int_equal(e.pool_changed, 1);
	assert_double_abs(e.pool_rel, 0.382206, PP005);
	assert_double_abs(e.resident_rel, 0.401074, PP005);
	assert_double_abs(e.throughput_rel, 0.213309, PP005);
	/* 0.401074 / 0.382206 = 1.04937; 0.213309 / 0.401074 = 0.53184; 0.213309 / 0.382206 = 0.55810 */
	assert_double_abs(e.resident_per_pool, 1.04937, 1e-4);
	assert_double_abs(e.throughput_per_resident, 0.53184, 1e-4);
	assert_double_abs(e.throughput_per_pool, 0.55810, 1e-4);
	/* same pool: no per-pool elasticity (division by a zero change) */
	b.v[BR_CMP_KV_POOL_TOKENS] = a.v[BR_CMP_KV_POOL_TOKENS];
	br_cmp_rows(&a, &b, rows);
	br_cmp_elasticities(rows, &e);
	assert_int_equal(e.pool_changed, 0);
	assert_nan(e.resident_per_pool);
	assert_nan(e.throughput_per_pool);
	assert_double_abs(e.throughput_per_resident, 0.53184, 1e-4);
	/* resident +0.3% (11.20 -> 11.2336): under 1%, no ratio per 1% of it
	 * (fifteenth breaker: +0.1% / +0.3% printed as 0.49% per 1%); +1.0%
	 * exactly is divided: 0.213309 / 0.01 = 21.33 */
	a.v[BR_CMP_RUNNING_MEAN] = 11.20;
	b.v[BR_CMP_RUNNING_MEAN] = 11.2336;
	br_cmp_rows(&a, &b, rows);
	br_cmp_elasticities(rows, &e);
	assert_nan(e.throughput_per_resident);
	b.v[BR_CMP_RUNNING_MEAN] = 11.312;
	br_cmp_rows(&a, &b, rows);
	br_cmp_elasticities(rows, &e);
	assert_double_abs(e.throughput_per_resident, 21.3309, 1e-2);
	/* no residency in B: chain unavailable */
	b.v[BR_CMP_RUNNING_MEAN] = NAN;
	br_cmp_rows(&a, &b, rows);
	br_cmp_elasticities(rows, &e);
	assert_int_equal(e.available, 0);
}

/* br_cmp_change edge cases. */
static void
test_change_edges(void **state)
{
	(void)state;
	double d, r;
	br_cmp_change(0, 5, &d, &r);
	assert_double_abs(d, 5, 0);
	assert_nan(r);                       /* relative change from 0 is undefined */
	br_cmp_change(0, 0, &d, &r);
	assert_double_abs(r, 0, 0);
	br_cmp_change(NAN, 5, &d, &r);
	assert_nan(d);
	assert_nan(r);
	br_cmp_change(-4, -2, &d, &r);       /* (−2 − −4) / |−4| = +0.5 */
	assert_double_abs(r, 0.5, 1e-15);
	br_cmp_change(10, INFINITY, &d, &r);
	assert_nan(r);
	/* rounding noise of a residual is no change (twelfth breaker: the
	 * frontend row printed −0.000000000000158 s); 1e-6 relative still is */
	br_cmp_change(0.7389965848729, 0.7389965848729 - 1.58e-13, &d, &r);
	assert_double_abs(d, 0, 0);
	assert_double_abs(r, 0, 0);
	br_cmp_change(1.0, 1.0 + 1e-6, &d, &r);
	assert_double_rel(d, 1e-6, 1e-6);
}

/* settings of the reference rounds; pool given */
static void
ref_settings(br_cmp_settings *s, double pool, double conc)
{
	for (int i = 0; i < BR_SET_N; i++) {
		s->text[i] = NULL;
		s->num[i] = NAN;
	}
	s->text[BR_SET_MODEL] = "Qwen/Qwen2.5-7B-Instruct";
	s->text[BR_SET_GPU] = "NVIDIA GeForce RTX 4090";
	s->text[BR_SET_VLLM] = "0.27.1";
	s->num[BR_SET_INPUT_LEN] = 6144;
	s->num[BR_SET_OUTPUT_LEN] = 2048;
	s->num[BR_SET_CONCURRENCY] = conc;
	s->num[BR_SET_REQUEST_RATE] = INFINITY;
	s->num[BR_SET_MAX_NUM_SEQS] = 128;
	s->num[BR_SET_KV_POOL] = pool;
}

/* Only the pool differs → controlled; pool and concurrency → not, both named. */
static void
test_settings_diff(void **state)
{
	(void)state;
	br_cmp_settings a, b;
	br_cmp_diff d[BR_SET_N];
	size_t nd = 99;
	ref_settings(&a, 86864, 64);
	ref_settings(&b, 120064, 64);
	assert_int_equal(br_cmp_settings_diff(&a, &b, d, &nd), 1);
	assert_int_equal(nd, 1);
	for (int s = 0; s < BR_SET_N; s++)
		assert_int_equal(d[s].state, s == BR_SET_KV_POOL ? BR_DIFF_DIFFERS : BR_DIFF_SAME);
	/* counts in sentences carry thousands separators (86864 → "86,864") */
	assert_string_equal(d[BR_SET_KV_POOL].a_text, "86,864");
	assert_string_equal(d[BR_SET_KV_POOL].b_text, "120,064");
	assert_string_equal(d[BR_SET_REQUEST_RATE].a_text, "inf");
	assert_string_equal(br_cmp_setting_key[BR_SET_KV_POOL], "kv_pool_tokens");
	br_cmp_diffs_free(d);

	/* fractional settings keep their digits: a rate of 0.25 req/s printed
	 * "0.2" misstated the setting (fixed 2026-12-03); below 100 four
	 * significant digits, from 100 one decimal, thousands grouped */
	static const struct { double rate; const char *text; } rates[] = {
		{ 0.25, "0.25" }, { 0.5, "0.5" }, { 0.125, "0.125" }, { 2.5, "2.5" },
		{ 12.3456, "12.35" }, { 6144.5, "6,144.5" }, { 16, "16" },
	};
	for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
		ref_settings(&b, 86864, 64);
		b.num[BR_SET_REQUEST_RATE] = rates[i].rate;
		br_cmp_settings_diff(&a, &b, d, &nd);
		assert_string_equal(d[BR_SET_REQUEST_RATE].b_text, rates[i].text);
		br_cmp_diffs_free(d);
	}

	ref_settings(&b, 120064, 32);
	assert_int_equal(br_cmp_settings_diff(&a, &b, d, &nd), 0);
	assert_int_equal(nd, 2);
	assert_int_equal(d[BR_SET_KV_POOL].state, BR_DIFF_DIFFERS);
	assert_int_equal(d[BR_SET_CONCURRENCY].state, BR_DIFF_DIFFERS);
	assert_string_equal(d[BR_SET_CONCURRENCY].a_text, "64");
	assert_string_equal(d[BR_SET_CONCURRENCY].b_text, "32");
	assert_int_equal(d[BR_SET_MODEL].state, BR_DIFF_SAME);
	br_cmp_diffs_free(d);

	/* identical → 2 (a repeat); mean lengths within 1% count as equal */
	ref_settings(&b, 86864, 64);
	b.num[BR_SET_INPUT_LEN] = 6150;      /* |6150 − 6144| / 6150 = 0.1% */
	assert_int_equal(br_cmp_settings_diff(&a, &b, d, &nd), 2);
	assert_int_equal(nd, 0);
	br_cmp_diffs_free(d);

	/* unknown on one side: not counted as a difference, marked unknown */
	b.text[BR_SET_GPU] = NULL;
	b.num[BR_SET_INPUT_LEN] = 7000;      /* 12% off: differs */
	assert_int_equal(br_cmp_settings_diff(&a, &b, d, &nd), 1);
	assert_int_equal(d[BR_SET_GPU].state, BR_DIFF_UNKNOWN);
	assert_string_equal(d[BR_SET_GPU].b_text, "n/a");
	assert_int_equal(d[BR_SET_INPUT_LEN].state, BR_DIFF_DIFFERS);
	br_cmp_diffs_free(d);

	/* a finite request rate vs inf differs */
	b.num[BR_SET_INPUT_LEN] = 6144;
	b.text[BR_SET_GPU] = a.text[BR_SET_GPU];
	b.num[BR_SET_REQUEST_RATE] = 4;
	assert_int_equal(br_cmp_settings_diff(&a, &b, d, &nd), 1);
	assert_int_equal(d[BR_SET_REQUEST_RATE].state, BR_DIFF_DIFFERS);
	br_cmp_diffs_free(d);
}

/* Campaign runs matched by name; the rest listed per side. */
static void
test_match_names(void **state)
{
	(void)state;
	const char *a[] = { "c64-1024-256", "c64-6144-2048", "only-in-a", "cal-512-128" };
	const char *b[] = { "cal-512-128", "c64-6144-2048", "c64-1024-256", "only-in-b", "extra" };
	br_cmp_match m;
	br_cmp_match_names(a, NULL, 4, b, NULL, 5, &m);
	assert_int_equal(m.n_pairs, 3);
	assert_int_equal(m.pairs[0][0], 0);
	assert_int_equal(m.pairs[0][1], 2);
	assert_int_equal(m.pairs[1][0], 1);
	assert_int_equal(m.pairs[1][1], 1);
	assert_int_equal(m.pairs[2][0], 3);
	assert_int_equal(m.pairs[2][1], 0);
	assert_int_equal(m.n_only_a, 1);
	assert_int_equal(m.only_a[0], 2);
	assert_int_equal(m.n_only_b, 2);
	assert_int_equal(m.only_b[0], 3);
	assert_int_equal(m.only_b[1], 4);
	br_cmp_match_free(&m);
	br_cmp_match_names(a, NULL, 0, b, NULL, 0, &m);
	assert_int_equal(m.n_pairs, 0);
	br_cmp_match_free(&m);

	/* repeats told apart as "NAME [folder]": the exact names first, then the
	 * given names in folder order (A: one x, two y repeats; B: three x
	 * repeats, y [r1] exactly as in A, and y [r7]) */
	const char *ra[] = { "x", "y [r0]", "y [r1]" };
	const size_t ga[] = { (size_t)-1, 1, 1 };
	const char *rb[] = { "x [r0]", "x [r1]", "x [r2]", "y [r1]", "y [r7]" };
	const size_t gb[] = { 1, 1, 1, 1, 1 };
	br_cmp_match_names(ra, ga, 3, rb, gb, 5, &m);
	static const size_t want[3][2] = { { 0, 0 }, { 1, 4 }, { 2, 3 } };
	assert_int_equal(m.n_pairs, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(m.pairs[i][0], want[i][0]);
		assert_int_equal(m.pairs[i][1], want[i][1]);
	}
	assert_int_equal(m.n_only_a, 0);
	assert_int_equal(m.n_only_b, 2);
	assert_int_equal(m.only_b[0], 1);
	assert_int_equal(m.only_b[1], 2);
	br_cmp_match_free(&m);
	/* without given lengths "x" and "x [r0]" do not match */
	br_cmp_match_names(ra, NULL, 3, rb, NULL, 5, &m);
	assert_int_equal(m.n_pairs, 1);   /* y [r1] only */
	br_cmp_match_free(&m);
}

/*
 * The cross-engine diagnosis, worked by hand from its thresholds. Case 1 is
 * the round-2 reference's vLLM side (ITL p50 23.39 ms, TTFT p50 169 s)
 * against a made-up other engine at ITL 22 ms, TTFT 2 s: 169 >= 3·2 and
 * 23.39 <= 1.25·22 = 27.5 → capacity; seen from the other side, nothing.
 */
static void
test_engine_diagnosis(void **state)
{
	(void)state;
	static const struct {
		double ttft_x_s, itl_x_ms, ttft_y_s, itl_y_ms;
		const char *want;
	} cases[] = {
		{ 169, 23.39, 2, 22, "capacity" },
		{ 2, 22, 169, 23.39, NULL },
		{ 1, 35.09, 1, 23.39, "decode" },         /* 1.5 × 23.39 = 35.085 */
		{ 1, 35.0, 1, 23.39, NULL },              /* 1.496× : below 1.5, TTFT not 3× */
		{ 30, 27.5, 10, 22, "capacity" },         /* 3× TTFT, 1.25× ITL: both bounds met */
		{ 29.9, 27.5, 10, 22, NULL },             /* 2.99× TTFT */
		{ 30, 27.6, 10, 22, NULL },               /* 1.2545× ITL: above 1.25, below 1.5 */
		{ 169, NAN, 2, 22, NULL },                /* a number missing */
		{ NAN, 40, 2, 22, "decode" },             /* ITL alone decides "decode" */
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		br_cmp_values x, y;
		for (int i = 0; i < BR_CMP_N_METRICS; i++)
			x.v[i] = y.v[i] = NAN;
		x.v[BR_CMP_TTFT_P50_S] = cases[k].ttft_x_s;
		x.v[BR_CMP_ITL_P50_MS] = cases[k].itl_x_ms;
		y.v[BR_CMP_TTFT_P50_S] = cases[k].ttft_y_s;
		y.v[BR_CMP_ITL_P50_MS] = cases[k].itl_y_ms;
		const char *got = br_cmp_engine_diagnosis(&x, &y);
		if (cases[k].want == NULL ? got != NULL : got == NULL || strcmp(got, cases[k].want) != 0)
			fail_msg("case %zu: %s, expected %s", k, got ? got : "NULL",
			    cases[k].want ? cases[k].want : "NULL");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engine_diagnosis),
		cmocka_unit_test(test_reference_table),
		cmocka_unit_test(test_elasticities),
		cmocka_unit_test(test_change_edges),
		cmocka_unit_test(test_settings_diff),
		cmocka_unit_test(test_match_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
