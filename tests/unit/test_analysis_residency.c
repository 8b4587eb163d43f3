/*
 * Residency and KV usage (DESIGN.md §3.4) over the run window of a
 * hand-made 10-row series; every expected number worked out by hand below.
 */
#include "br_test.h"
#include "benchreport/analysis.h"
#include "benchreport/common.h"

/*
 * t             100  101  102  103  104  105  106  107  108  109
 * running         0    3    4    4    2    4    5    1    0    0
 * waiting         0    5    2    0    0    1    0    0    0    0
 * kv_usage     0.10 0.50 0.91 0.95 0.80 0.97 0.99 0.30 0.05 0.02
 * preemptions     0    0    0    1    1    2    2    2    2    2
 * Busy rows 1..7 → window rows 0..8 (t 100..108); row 9 outside. Gauge
 * statistics use the busy rows 1..7 (7 samples; the idle brackets 0 and 8
 * lie outside the run), the preemption delta the whole window.
 * running: 3 4 4 2 4 5 1, sum 23 → mean 23/7 = 3.2857; sorted 1 2 3 4 4 4 5 →
 *   median 4, peak 5; C = 4 → resident share 23/28 = 0.82143.
 * waiting: 5 2 0 0 1 0 0, sum 8 → mean 8/7; sorted 0 0 0 0 1 2 5 → median 0, peak 5.
 * kv: sorted .30 .50 .80 .91 .95 .97 .99 → median 0.91, peak 0.99;
 *   >= 0.90: 4 of 7; >= 0.95: 3 of 7 (0.95 itself counts).
 * sample interval: every gap 1 s → median 1.
 * preemptions: Δ = 2.
 */
static double T[10] = { 100, 101, 102, 103, 104, 105, 106, 107, 108, 109 };
static double RUN[10] = { 0, 3, 4, 4, 2, 4, 5, 1, 0, 0 };
static double WAIT[10] = { 0, 5, 2, 0, 0, 1, 0, 0, 0, 0 };
static double KV[10] = { 0.10, 0.50, 0.91, 0.95, 0.80, 0.97, 0.99, 0.30, 0.05, 0.02 };
static double PRE[10] = { 0, 0, 0, 1, 1, 2, 2, 2, 2, 2 };
static char *NAMES[4] = { "vllm:num_requests_running", "vllm:num_requests_waiting",
	"vllm:kv_cache_usage_perc", "vllm:num_preemptions_total" };

static void
make_run(br_run *run, br_bench *b, br_series *s, double **cols, size_t ncols)
{
	cols[0] = RUN;
	cols[1] = WAIT;
	cols[2] = KV;
	cols[3] = PRE;
	memset(s, 0, sizeof *s);
	s->n_rows = 10;
	s->t_s = T;
	s->n_cols = ncols;
	s->names = NAMES;
	s->cols = cols;
	memset(b, 0, sizeof *b);
	b->max_concurrency = 4;
	memset(run, 0, sizeof *run);
	run->bench.runs = b;
	run->bench.n = 1;
	run->metrics = s;
	run->metrics_kind = BR_METRICS_CSV;
}

static void
test_hand_series(void **state)
{
	(void)state;
	br_run run;
	br_bench b;
	br_series s;
	double *cols[4];
	make_run(&run, &b, &s, cols, 4);
	br_residency r;
	br_analyze_residency(&run, &r);
	assert_int_equal(r.available, 1);
	assert_null(r.missing);
	assert_int_equal(r.n_samples, 7);
	assert_double_abs(r.sample_interval_s, 1, 0);
	assert_double_abs(r.window_start_t_s, 100, 0);
	assert_double_abs(r.window_end_t_s, 108, 0);
	assert_double_rel(r.running_mean, 23.0 / 7.0, 1e-15);
	assert_double_abs(r.running_median, 4, 0);
	assert_double_abs(r.running_peak, 5, 0);
	assert_double_rel(r.resident_share, 23.0 / 28.0, 1e-15);
	assert_double_rel(r.waiting_mean, 8.0 / 7.0, 1e-15);
	assert_double_abs(r.waiting_median, 0, 0);
	assert_double_abs(r.waiting_peak, 5, 0);
	assert_double_abs(r.kv_median_frac, 0.91, 0);
	assert_double_abs(r.kv_peak_frac, 0.99, 0);
	assert_double_rel(r.kv_share_ge90, 4.0 / 7.0, 1e-15);
	assert_double_rel(r.kv_share_ge95, 3.0 / 7.0, 1e-15);
	assert_double_abs(r.preemptions, 2, 0);

	/* fewer prompts than C: N = 2 < C = 4 → C_eff = 2, share
	 * (23/7) / 2 = 23/14 = 1.6429 (of what could run, not of C) */
	b.num_prompts = 2;
	br_analyze_residency(&run, &r);
	assert_double_rel(r.resident_share, 23.0 / 14.0, 1e-15);
	/* N = 4 = C: C */
	b.num_prompts = 4;
	br_analyze_residency(&run, &r);
	assert_double_rel(r.resident_share, 23.0 / 28.0, 1e-15);
	b.num_prompts = 0;

	/* open loop: no C → no resident share; the rest unchanged */
	b.max_concurrency = NAN;
	br_analyze_residency(&run, &r);
	assert_nan(r.resident_share);
	assert_double_abs(r.running_peak, 5, 0);

	/* without KV and preemption columns: those NAN, running still there */
	make_run(&run, &b, &s, cols, 2);
	br_analyze_residency(&run, &r);
	assert_int_equal(r.available, 1);
	assert_nan(r.kv_median_frac);
	assert_nan(r.kv_share_ge90);
	assert_nan(r.preemptions);
	assert_double_rel(r.running_mean, 23.0 / 7.0, 1e-15);

	/* a series that starts busy (row 0 running 2): no bracket before, so
	 * the busy rows 0..7 are the statistics' (8 samples, sum 25 → 25/8),
	 * the window still rows 0..8 */
	double run0[10];
	memcpy(run0, RUN, sizeof run0);
	run0[0] = 2;
	make_run(&run, &b, &s, cols, 4);
	cols[0] = run0;
	br_analyze_residency(&run, &r);
	assert_int_equal(r.n_samples, 8);
	assert_double_rel(r.running_mean, 25.0 / 8.0, 1e-15);
	assert_double_abs(r.window_end_t_s, 108, 0);
	assert_double_abs(r.preemptions, 2, 0);
}

static void
test_unavailable(void **state)
{
	(void)state;
	br_run run;
	br_bench b;
	br_series s;
	double *cols[4];
	br_residency r;

	make_run(&run, &b, &s, cols, 4);
	run.metrics_kind = BR_METRICS_PAIR;      /* two snapshots are not a series */
	br_analyze_residency(&run, &r);
	assert_int_equal(r.available, 0);
	assert_string_equal(r.missing, "needs a 1 Hz metrics series (metrics.csv)");
	assert_nan(r.running_mean);
	assert_nan(r.kv_peak_frac);

	make_run(&run, &b, &s, cols, 4);
	s.n_rows = 2;                            /* < 3 samples */
	br_analyze_residency(&run, &r);
	assert_int_equal(r.available, 0);

	make_run(&run, &b, &s, cols, 4);
	run.metrics = NULL;
	br_analyze_residency(&run, &r);
	assert_int_equal(r.available, 0);

	/* a series that is never busy */
	double zero[10] = { 0 };
	make_run(&run, &b, &s, cols, 4);
	cols[0] = zero;
	cols[1] = zero;
	br_analyze_residency(&run, &r);
	assert_int_equal(r.available, 0);
	assert_non_null(strstr(r.missing, "no activity"));
	assert_nan(r.running_mean);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_series),
		cmocka_unit_test(test_unavailable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
