/*
 * FLOPs ledger (DESIGN.md §3.8, FLOPs part) and wall-clock budget (§3.9):
 * the reference numbers of DESIGN.md §6 (round 1), a hand-made 5-point
 * calibration checked against numpy, hand-built series for the p95 FLOP
 * rate and the skip rules, and simulated runs (benchreport simulate, whose
 * FLOPs model c0 + c1·(p+1) per computed token makes the exact calibration
 * derivable).
 *
 * Expected numbers come from /usr/bin/python3 + numpy (commands quoted in
 * the comments), not from the code under test.
 */
#include "br_test.h"
#include <unistd.h>
#include <sys/stat.h>
#include <jansson.h>
#include "benchreport/analysis.h"
#include "benchreport/analysis_flops.h"
#include "benchreport/common.h"

/* ---- hand-built runs ---- */

/*
 * make_run: a run with a bench result (completed, totals, duration) and a
 * 1 Hz series of n rows (t = 1000 + i s). flops / iter / pre may be NULL
 * (column absent). running is required for br_run_window.
 */
static br_run *
make_run(const char *name, double completed, double in_total, double out_total,
    double duration_s, size_t n, const double *running, const double *flops,
    const double *iter, const double *pre)
{
	br_run *r = br_xcalloc(1, sizeof *r);
	r->name = br_xstrdup(name);
	r->kv_pool_tokens_override = NAN;
	r->bench.n = 1;
	r->bench.runs = br_xcalloc(1, sizeof *r->bench.runs);
	br_bench *b = &r->bench.runs[0];
	b->completed = completed;
	b->total_input_tokens = in_total;
	b->total_output_tokens = out_total;
	b->duration_s = duration_s;
	b->max_concurrency = NAN;
	r->metrics_kind = BR_METRICS_CSV;
	r->metrics = br_xcalloc(1, sizeof *r->metrics);
	br_series *s = r->metrics;
	size_t cr = br_series_add_col(s, "vllm:num_requests_running");
	long cf = flops ? (long)br_series_add_col(s, "vllm:estimated_flops_per_gpu_total") : -1;
	long ci = iter ? (long)br_series_add_col(s, "vllm:iteration_tokens_total_sum") : -1;
	long cp = pre ? (long)br_series_add_col(s, "vllm:num_preemptions_total") : -1;
	for (size_t i = 0; i < n; i++) {
		size_t k = br_series_add_row(s, 1000.0 + (double)i);
		s->cols[cr][k] = running[i];
		if (cf >= 0)
			s->cols[cf][k] = flops[i];
		if (ci >= 0)
			s->cols[ci][k] = iter[i];
		if (cp >= 0)
			s->cols[cp][k] = pre[i];
	}
	return r;
}

static void
free_run(br_run *r)
{
	br_run_free(r);
	free(r);
}

/* ---- reference numbers (DESIGN.md §6, round 1) ---- */

/*
 * Round 1: 128 requests × (6144 + 2048) = 1,048,576 iteration tokens,
 * x = 4096, line 13.52 + 0.00034·x, measured 1.980e16.
 * python3: a, b = 13.52, 0.00034; pred = 1048576*(a + b*4096)*1e9
 *   pred       = 1.563703640064e16          (report: 1.564e16)
 *   excess     = 1.980e16 − pred = 4.16296359936e15, /pred = 0.2662246 (report +26.6%)
 *   a + b·R/2  = 13.52 + 0.00034·3264.5 = 14.62993 GFLOP/token (R = 6,529)
 *   recomputed = 4.16296359936e15 / 14.62993e9 = 284,551.16 (report ≈286k: −0.5%)
 *   37 × 6529  = 241,573 (report 242k); ratio 284,551.16 / 241,573 = 1.1779096
 *   recompute  = 4.16296359936e15 / 1.5e14 = 27.7530907 s; / 597 s = 0.0464876 (report ≈28 s, 4.7%)
 * Where the report's 14.57 GFLOP/token comes from: a + b·x = 14.57 needs
 * x ≈ 3088; x = in/2 = 3072 (the mean context of re-prefilling the 6144-token
 * prompt) gives 13.52 + 0.00034·3072 = 14.56448, and 4.17e15 / 14.56448e9
 * = 286,313 — the report's ≈286k. §3.8's a + b·R/2 (R = 6,529 tokens) gives
 * 14.63 and 4.17e15 / 14.63e9 = 285,031, 0.4% lower. The code follows §3.8.
 */
static void
fake_calibration(br_flops_calibration *cal, double a, double b)
{
	memset(cal, 0, sizeof *cal);
	cal->available = 1;
	cal->fit.a = a;
	cal->fit.b = b;
	cal->fit.se_a = cal->fit.se_b = cal->fit.r2 = NAN;
	cal->fit.n = 2;
}

static void
round1_measure(br_flops_measure *m)
{
	memset(m, 0, sizeof *m);
	m->available = 1;
	m->flops = 1.980e16;
	m->tokens = 1048576;
	m->gflop_per_token = m->flops / m->tokens / 1e9;
	m->mean_input_tokens = 6144;
	m->mean_output_tokens = 2048;
	m->mean_context_tokens = 4096;
	m->preemptions = 37;
	m->flop_rate_p95_per_s = 1.5e14;
	m->flop_rate_peak_per_s = m->flop_rate_prefill_per_s = 1.5e14;   /* the reference's measured 146-150 TF/s */
	m->duration_s = 597;
}

static void
test_reference_ledger(void **state)
{
	(void)state;
	br_flops_calibration cal;
	fake_calibration(&cal, 13.52, 0.00034);
	br_flops_measure m;
	round1_measure(&m);
	br_flops_ledger l;
	br_flops_ledger_compute(&m, &cal, 6529, 37, &l);
	assert_true(l.available);
	assert_null(l.missing);
	assert_double_rel(l.model_gflop_per_token, 14.91264, 1e-12);
	assert_double_rel(l.predicted_flops, 1.563703640064e16, 1e-12);
	assert_double_rel(l.predicted_flops, 1.564e16, 0.001);   /* report */
	assert_double_rel(l.excess_flops, 4.16296359936e15, 1e-9);
	assert_double_rel(l.excess_frac, 0.2662245896664675, 1e-9);
	assert_double_abs(l.excess_frac, 0.266, 0.0005);        /* report +26.6% */
	assert_double_rel(l.recompute_gflop_per_token, 14.62993, 1e-12);
	assert_double_rel(l.recomputed_tokens, 284551.1632222437, 1e-9);
	assert_double_rel(l.recomputed_tokens, 286000, 0.02);    /* report ≈286k */
	assert_double_rel(l.released_tokens_total, 241573, 1e-12);
	assert_double_rel(l.released_tokens_total, 242000, 0.002); /* report 242k */
	assert_double_rel(l.flops_to_release_ratio, 1.1779096307213295, 1e-9);
	assert_double_rel(l.recompute_s, 27.7530906624, 1e-9);
	assert_double_abs(l.recompute_s, 28, 0.5);               /* report ≈28 s */
	assert_double_rel(l.recompute_share_frac, 0.046487589049246235, 1e-9);
	/* report 4.7% = 27.8 s / 597 s = 0.04657 (rounded excess 4.17e15); with
	 * the rounded 1.980e16 the excess is 4.163e15 → 4.649% */
	assert_double_abs(l.recompute_share_frac, 0.047, 0.001);

	/* the report's own pairing: 4.17e15 excess at 14.57 GFLOP/token (x = in/2) */
	assert_double_rel(br_flops_cost_gflop(&cal, 3072), 14.56448, 1e-12);
	assert_double_rel(4.17e15 / (br_flops_cost_gflop(&cal, 3072) * 1e9), 286313.00259260886, 1e-9);
	assert_double_rel(4.17e15 / 1.5e14, 27.8, 1e-12);

	/* without R (the series cannot show what a preemption released): the
	 * recomputed tokens are costed at the run's mean context, 13.52 +
	 * 0.00034 * 4096 = 14.91264 GFLOP, so 4.16296359936e15 / 1.491264e10 =
	 * 279156.715...; no release total, no ratio; time unchanged */
	br_flops_ledger_compute(&m, &cal, NAN, 37, &l);
	assert_true(l.available);
	assert_double_rel(l.recompute_gflop_per_token, 14.91264, 1e-12);
	assert_double_rel(l.recomputed_tokens, 279156.71533410583, 1e-9);
	assert_nan(l.released_tokens_total);
	assert_nan(l.flops_to_release_ratio);
	assert_double_rel(l.recompute_s, 27.7530906624, 1e-9);

	/* what the line rests on: no points listed → span unknown */
	assert_int_equal(l.cal_n_used, 0);
	assert_nan(l.extrapolation);
	/* points at mean contexts 320 and 768 (used) and 9000 (skipped): the
	 * run's 4,096 lies 4096 / 768 = 5.3333× above the span; at 400 it is
	 * inside (1); at 160, 320 / 160 = 2× below */
	br_flops_cal_point pts[3] = { { .used = 1, .x_tokens = 320 }, { .used = 1, .x_tokens = 768 },
		{ .used = 0, .x_tokens = 9000 } };
	cal.points = pts;
	cal.n_points = 3;
	cal.n_used = 2;
	static const double xs[3] = { 4096, 400, 160 }, want[3] = { 4096.0 / 768, 1, 2 };
	for (int i = 0; i < 3; i++) {
		m.mean_context_tokens = xs[i];
		br_flops_ledger_compute(&m, &cal, 6529, 37, &l);
		assert_int_equal(l.cal_n_used, 2);
		assert_double_rel(l.cal_x_min_tokens, 320, 0);
		assert_double_rel(l.cal_x_max_tokens, 768, 0);
		assert_double_rel(l.extrapolation, want[i], 1e-15);
	}
	cal.points = NULL;
	cal.n_points = cal.n_used = 0;
	m.mean_context_tokens = 4096;

	/* no preemption counted: no recompute, whatever the excess (here +26.6%) */
	br_flops_ledger_compute(&m, &cal, 6529, 0, &l);
	assert_true(l.available);
	assert_double_rel(l.excess_frac, 0.2662245896664675, 1e-9);
	assert_nan(l.recomputed_tokens);
	assert_true(l.recompute_s == 0 && l.recompute_share_frac == 0);

	/* without calibration / without the counter */
	br_flops_calibration none;
	memset(&none, 0, sizeof none);
	br_flops_ledger_compute(&m, &none, 6529, 37, &l);
	assert_false(l.available);
	assert_string_equal(l.missing, "needs zero-preemption calibration runs (--calibration DIR...)");
	assert_nan(l.predicted_flops);
	assert_nan(l.excess_flops);
	br_flops_ledger_compute(&m, NULL, 6529, 37, &l);
	assert_false(l.available);
	m.available = 0;
	m.missing = NULL;
	br_flops_ledger_compute(&m, &cal, 6529, 37, &l);
	assert_false(l.available);
	assert_string_equal(l.missing,
	    "needs vllm:estimated_flops_per_gpu_total (vllm serve --enable-mfu-metrics)");
}

/*
 * Budget, round 1 inputs: Σ(out−1) = 128·2047 = 262,016, mean running 11.17,
 * ITL p50 21.46 ms, Σin = 786,432 (128·6144), rate 1.5e14, duration 597 s,
 * E2EL mean 240 s (made up: the table has no E2EL mean), TTFT mean 179 s.
 * python3:
 *   decode  = 262016/11.17*0.02146 = 503.38973679498656 s
 *   prefill = 786432*(13.52+0.00034*3072)*1e9/1.5e14 = 76.3598209024 s
 *   recompute (ledger above) = 27.7530906624 s
 *   rest = 597 − Σ = −10.502648359786551 s (negative: flagged)
 *   stolen: measured 240 − 179 = 61 s, expected 2047·0.02146 = 43.92862 s,
 *           diff 17.07138 s, +0.3886163507981812
 */
static void
test_reference_budget(void **state)
{
	(void)state;
	double zero2[2] = { 0, 0 };
	br_run *run = make_run("round1", 128, 786432, 262144, 597, 2, zero2, NULL, NULL, NULL);
	br_flops_calibration cal;
	fake_calibration(&cal, 13.52, 0.00034);
	br_flops_measure m;
	round1_measure(&m);
	br_flops_ledger fl;
	br_flops_ledger_compute(&m, &cal, 6529, 37, &fl);
	br_latency lat;
	memset(&lat, 0, sizeof lat);
	for (int k = 0; k < BR_N_LATENCY; k++)
		lat.m[k].mean = lat.m[k].median = NAN;
	lat.m[BR_ITL].median = 21.46;
	lat.m[BR_E2EL].mean = 240000;
	lat.m[BR_TTFT].mean = 179000;
	br_residency res;
	memset(&res, 0, sizeof res);
	res.available = 1;
	res.running_mean = 11.17;

	br_budget b;
	br_analyze_budget(run, &lat, &res, &cal, &fl, &b);
	assert_true(b.available);
	assert_double_rel(b.decode_tokens, 262016, 1e-15);
	assert_double_rel(b.decode_s, 503.38973679498656, 1e-12);
	assert_double_rel(b.prefill_gflop_per_token, 14.56448, 1e-12);
	assert_double_rel(b.prefill_s, 76.3598209024, 1e-12);
	assert_null(b.prefill_missing);
	assert_double_rel(b.recompute_s, 27.7530906624, 1e-9);
	assert_double_rel(b.rest_s, -10.502648359786551, 1e-8);
	assert_true(b.rest_negative);
	assert_double_rel(b.decode_frac, 503.38973679498656 / 597, 1e-12);
	assert_double_rel(b.decode_measured_s, 61, 1e-12);
	assert_double_rel(b.decode_expected_s, 43.92862, 1e-12);
	assert_double_rel(b.decode_stolen_s, 17.07138, 1e-9);
	assert_double_rel(b.decode_stolen_frac, 0.3886163507981812, 1e-9);
	/* an engine idle between sparse requests: the batch it stepped when it
	 * worked (mean running over the samples with requests, here 1) sets the
	 * decode steps, not the mean over the idle samples too (0.009: decode
	 * would be 111x the estimate). By hand: 262016 / 1 × 21.46 ms = 5622.86 s */
	res.running_mean = 0.009;
	res.running_mean_active = 1.0;
	br_analyze_budget(run, &lat, &res, &cal, &fl, &b);
	assert_double_rel(b.decode_s, 262016 * 21.46 / 1e3, 1e-12);
	assert_double_rel(b.running_mean, 1.0, 0);
	res.running_mean = 11.17;
	res.running_mean_active = NAN;

	/* no FLOPs ledger: decode and stolen only, prefill/recompute/rest NAN */
	br_analyze_budget(run, &lat, &res, NULL, NULL, &b);
	assert_true(b.available);
	assert_double_rel(b.decode_s, 503.38973679498656, 1e-12);
	assert_nan(b.prefill_s);
	assert_nan(b.recompute_s);
	assert_nan(b.rest_s);
	assert_non_null(b.prefill_missing);
	assert_non_null(b.recompute_missing);
	assert_false(b.rest_negative);

	/* no residency: decode unavailable, stolen still there */
	br_analyze_budget(run, &lat, NULL, &cal, &fl, &b);
	assert_false(b.available);
	assert_non_null(b.missing);
	assert_nan(b.decode_s);
	assert_nan(b.rest_s);
	assert_double_rel(b.decode_stolen_s, 17.07138, 1e-9);
	free_run(run);
}

/* ---- calibration fit (5 hand-made points) and the skip rules ---- */

/*
 * Points x = 640, 1280, 2048, 3072, 4096 on y = 13.52 + 0.00034·x plus
 * noise (+0.004, −0.006, +0.003, +0.005, −0.002): y = 13.7416, 13.9492,
 * 14.21932, 14.56948, 14.91064. Each run: 10 requests, in = out = x, so
 * (in+out)/2 = x; iteration tokens 1e6; FLOPs = y·1e15.
 * python3 (numpy.polyfit(x, y, 1)):
 *   a = 13.521008561643827, b = 0.00033990635702054866
 * and independently s² = Σres²/(n−2), se_b = sqrt(s²/Sxx) = 1.9434342914390658e-06,
 * se_a = sqrt(s²(1/n + x̄²/Sxx)) = 0.0049515032305239145 (equal to
 * sqrt(diag(polyfit(..., cov='unscaled'))·s²)), R² = 1 − SSR/SST =
 * 0.999901938210565 (= corrcoef² 0.9999019382105651).
 */
static br_run *
cal_run(const char *name, double x, double y, int preempt, int flops_col)
{
	double running[4] = { 0, 5, 5, 0 };
	double fl[4] = { 0, y * 4e14, y * 8e14, y * 1e15 };
	double it[4] = { 0, 4e5, 8e5, 1e6 };
	double pre[4] = { 0, 0, preempt, preempt };
	return make_run(name, 10, 10 * x, 10 * x, 3, 4, running, flops_col ? fl : NULL, it, pre);
}

static void
test_calibration_fit(void **state)
{
	(void)state;
	const double x[5] = { 640, 1280, 2048, 3072, 4096 };
	const double y[5] = { 13.7416, 13.9492, 14.21932, 14.56948, 14.91064 };
	br_run *runs[7];
	char name[32];
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "cal%d", i);
		runs[i] = cal_run(name, x[i], y[i], 0, 1);
	}
	runs[5] = cal_run("preempted", 5000, 20.0, 3, 1);   /* would wreck the fit */
	runs[6] = cal_run("nocounter", 5000, 20.0, 0, 0);
	br_flops_calibration cal;
	char *cause = NULL;
	assert_int_equal(br_flops_calibrate((const br_run *const *)runs, 7, &cal, &cause), 0);
	assert_null(cause);
	assert_true(cal.available);
	assert_int_equal(cal.n_points, 7);
	assert_int_equal(cal.n_used, 5);
	assert_true(cal.has_se);
	assert_null(cal.note);
	for (int i = 0; i < 5; i++) {
		assert_true(cal.points[i].used);
		assert_double_rel(cal.points[i].x_tokens, x[i], 1e-15);
		assert_double_rel(cal.points[i].y_gflop_per_token, y[i], 1e-14);
	}
	assert_false(cal.points[5].used);
	assert_string_equal(cal.points[5].why, "has preemptions");
	assert_double_rel(cal.points[5].preemptions, 3, 0);
	assert_false(cal.points[6].used);
	assert_string_equal(cal.points[6].name, "nocounter");
	assert_non_null(strstr(cal.points[6].why, "estimated_flops_per_gpu_total"));
	assert_double_rel(cal.fit.a, 13.521008561643827, 1e-12);
	assert_double_rel(cal.fit.b, 0.00033990635702054866, 1e-9);
	assert_double_rel(cal.fit.se_a, 0.0049515032305239145, 1e-7);
	assert_double_rel(cal.fit.se_b, 1.9434342914390658e-06, 1e-7);
	assert_double_rel(cal.fit.r2, 0.999901938210565, 1e-12);
	br_flops_calibration_free(&cal);

	/* two points: a line, no standard errors, and a note saying so */
	const br_run *two[2] = { runs[0], runs[4] };
	assert_int_equal(br_flops_calibrate(two, 2, &cal, &cause), 0);
	assert_int_equal(cal.n_used, 2);
	assert_false(cal.has_se);
	assert_non_null(cal.note);
	assert_nan(cal.fit.se_a);
	assert_nan(cal.fit.se_b);
	/* b = (14.91064 − 13.7416)/(4096 − 640) = 1.16904/3456 */
	assert_double_rel(cal.fit.b, 1.16904 / 3456, 1e-12);
	br_flops_calibration_free(&cal);

	/* one usable run: refused with a cause, skipped runs still listed */
	const br_run *bad[3] = { runs[0], runs[5], runs[6] };
	assert_int_equal(br_flops_calibrate(bad, 3, &cal, &cause), -1);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "1 usable run of 3"));
	/* the cause names each run left out and why */
	assert_non_null(strstr(cause, "(left out: preempted: has preemptions; nocounter: "));
	free(cause);
	cause = NULL;
	assert_false(cal.available);
	assert_string_equal(cal.missing, "needs zero-preemption calibration runs (--calibration DIR...)");
	assert_int_equal(cal.n_points, 3);
	assert_nan(br_flops_cost_gflop(&cal, 1000));
	br_flops_calibration_free(&cal);

	/* judged run preempted, one calibration folder: "of 1" counts the
	 * folder given, not the run judged (it had read "1 usable run of 2") */
	const br_run *one[2] = { runs[5], runs[0] };
	assert_int_equal(br_flops_calibrate_ref(one, 2, runs[5], &cal, &cause), -1);
	assert_non_null(strstr(cause, "1 usable run of 1;"));
	free(cause);
	cause = NULL;
	br_flops_calibration_free(&cal);

	/* two runs with the same x: no line */
	const br_run *same[2] = { runs[0], runs[0] };
	assert_int_equal(br_flops_calibrate(same, 2, &cal, &cause), -1);
	assert_non_null(strstr(cause, "same mean context"));
	free(cause);
	br_flops_calibration_free(&cal);

	/* judged against a run on another GPU: runs of other GPUs are left out,
	 * and the cause says so for each */
	runs[0]->gpu = br_xstrdup("NVIDIA GeForce RTX 4090");
	runs[1]->gpu = br_xstrdup("NVIDIA A100-SXM4-80GB");
	runs[2]->gpu = br_xstrdup("NVIDIA A100-SXM4-80GB");
	const br_run *gpus[3] = { runs[0], runs[1], runs[2] };
	cause = NULL;
	assert_int_equal(br_flops_calibrate_ref(gpus, 3, runs[0], &cal, &cause), -1);
	assert_non_null(strstr(cause, "1 usable run of 3"));
	assert_non_null(strstr(cause, "(left out: cal1: another GPU (NVIDIA A100-SXM4-80GB; the run judged: "
	    "NVIDIA GeForce RTX 4090); cal2: another GPU"));
	free(cause);
	br_flops_calibration_free(&cal);
	for (int i = 0; i < 3; i++) {
		free(runs[i]->gpu);
		runs[i]->gpu = NULL;
	}

	/* no runs at all */
	cause = NULL;
	assert_int_equal(br_flops_calibrate(NULL, 0, &cal, &cause), -1);
	free(cause);
	br_flops_calibration_free(&cal);
	for (int i = 0; i < 7; i++)
		free_run(runs[i]);
}

/*
 * Duplicate folders: the 5 calibration runs of test_calibration_fit in
 * folders cal0..cal4, offered again as cal0 through a symlink and cal2 with
 * a trailing slash (what `CAMPAIGN --calibration CAMPAIGN` or
 * `--calibration X X` produce). Each folder counts once: 5 used, the two
 * repeats skipped "same folder as run NAME", and the line is the 5-point
 * numpy fit of test_calibration_fit (a = 13.521008561643827, R² =
 * 0.999901938210565), where counting the repeats would give (numpy.polyfit
 * on x = 640,1280,2048,3072,4096,640,2048) a = 13.52254816, b = 3.39505e-4.
 */
static void
test_calibration_dedupe(void **state)
{
	(void)state;
	const double x[5] = { 640, 1280, 2048, 3072, 4096 };
	const double y[5] = { 13.7416, 13.9492, 14.21932, 14.56948, 14.91064 };
	char tmp[] = "/tmp/br-caldup-XXXXXX";
	assert_non_null(mkdtemp(tmp));
	br_run *runs[7];
	char name[32];
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "cal%d", i);
		runs[i] = cal_run(name, x[i], y[i], 0, 1);
		runs[i]->dir = br_xasprintf("%s/%s", tmp, name);
		assert_int_equal(mkdir(runs[i]->dir, 0755), 0);
	}
	char *alias = br_xasprintf("%s/alias", tmp);
	assert_int_equal(symlink(runs[0]->dir, alias), 0);
	runs[5] = cal_run("cal0-again", x[0], y[0], 0, 1);
	runs[5]->dir = br_xstrdup(alias);
	runs[6] = cal_run("cal2-again", x[2], y[2], 0, 1);
	runs[6]->dir = br_xasprintf("%s/cal2/", tmp);
	br_flops_calibration cal;
	char *cause = NULL;
	assert_int_equal(br_flops_calibrate((const br_run *const *)runs, 7, &cal, &cause), 0);
	assert_int_equal(cal.n_points, 7);
	assert_int_equal(cal.n_used, 5);
	for (int i = 0; i < 5; i++) {
		assert_true(cal.points[i].used);
		assert_int_equal(cal.points[i].duplicate_of, -1);
	}
	assert_false(cal.points[5].used);
	assert_int_equal(cal.points[5].duplicate_of, 0);
	assert_string_equal(cal.points[5].why, "same folder as run cal0");
	assert_false(cal.points[6].used);
	assert_int_equal(cal.points[6].duplicate_of, 2);
	assert_string_equal(cal.points[6].why, "same folder as run cal2");
	assert_double_rel(cal.fit.a, 13.521008561643827, 1e-12);
	assert_double_rel(cal.fit.b, 0.00033990635702054866, 1e-9);
	assert_double_rel(cal.fit.r2, 0.999901938210565, 1e-12);
	assert_int_equal(cal.fit.n, 5);
	br_flops_calibration_free(&cal);

	/* runs without a folder (hand-built, dir NULL) are never duplicates */
	free(runs[5]->dir);
	runs[5]->dir = NULL;
	free(runs[0]->dir);
	runs[0]->dir = NULL;
	assert_int_equal(br_flops_calibrate((const br_run *const *)runs, 6, &cal, &cause), 0);
	assert_int_equal(cal.n_used, 6);
	br_flops_calibration_free(&cal);

	unlink(alias);
	free(alias);
	for (int i = 0; i < 7; i++) {
		if (i < 5) {
			char *d = br_xasprintf("%s/cal%d", tmp, i);
			rmdir(d);
			free(d);
		}
		free_run(runs[i]);
	}
	rmdir(tmp);
}

/*
 * Mean context per token from the per-request lengths (brk23: a length
 * scan's (mean in + mean out)/2 read x = 1,609 where the tokens' mean
 * context was 2,006). Two successful requests of 100 + 100 and 300 + 300
 * tokens (L = 200, 600) and a failed one (ignored): x = Σ L² / (2 Σ L) =
 * (200² + 600²) / (2 · 800) = 250, where (mean in + mean out)/2 = 200.
 * Without the arrays the bench means give 200; one length gives L/2.
 */
static void
test_mean_context_lengths(void **state)
{
	(void)state;
	double running[4] = { 0, 2, 2, 0 }, fl[4] = { 0, 0, 100, 100 }, it[4] = { 0, 0, 800, 800 };
	br_run *r = make_run("lens", 2, 400, 400, 3, 4, running, fl, it, NULL);
	br_flops_measure m;
	br_flops_measure_run(r, &m);
	assert_double_rel(m.mean_context_tokens, 200, 0);   /* bench means only */
	br_bench *b = &r->bench.runs[0];
	b->requests = br_xcalloc(3, sizeof *b->requests);
	b->n_requests = 3;
	const double in[3] = { 100, 300, 5000 }, out[3] = { 100, 300, 0 };
	for (int i = 0; i < 3; i++) {
		b->requests[i].input_len_tokens = in[i];
		b->requests[i].output_len_tokens = out[i];
		b->requests[i].failed = i == 2;
	}
	br_flops_measure_run(r, &m);
	assert_double_rel(m.mean_context_tokens, 250, 1e-15);
	b->requests[0].input_len_tokens = b->requests[0].output_len_tokens = 300;   /* one length: L/2 */
	br_flops_measure_run(r, &m);
	assert_double_rel(m.mean_context_tokens, 300, 1e-15);
	free_run(r);
}

/*
 * p95 and peak FLOP rate and the window: rows t = 1000..1006, running
 * 0,0,2,2,2,0,0 → br_run_window rows 1..5. FLOPs 0, 0, 10, 30, 60, 100, 100:
 * intervals in the window 1→2..4→5 give rates 10, 20, 30, 40 FLOP/s;
 * numpy.percentile([10,20,30,40], 95) = 38.5 (h = 3·0.95 = 2.85 → 30 + 0.85·10).
 * Δflops = 100, Δtokens = 50 → 2e-9 GFLOP/token. A NaN sample is skipped.
 */
static void
test_measure_rate(void **state)
{
	(void)state;
	double running[7] = { 0, 0, 2, 2, 2, 0, 0 };
	double fl[7] = { 0, 0, 10, 30, 60, 100, 100 };
	double it[7] = { 0, 0, 10, 20, 30, 50, 50 };
	double pre[7] = { 0, 0, 0, 0, 0, 0, 0 };
	br_run *r = make_run("rate", 5, 100, 150, 4, 7, running, fl, it, pre);
	br_flops_measure m;
	br_flops_measure_run(r, &m);
	assert_true(m.available);
	assert_double_rel(m.flops, 100, 0);
	assert_double_rel(m.tokens, 50, 0);
	assert_double_rel(m.gflop_per_token, 2e-9, 1e-15);
	assert_int_equal(m.n_rate_intervals, 4);
	assert_double_rel(m.flop_rate_p95_per_s, 38.5, 1e-14);
	assert_double_rel(m.flop_rate_peak_per_s, 40, 0);   /* the largest interval rate */
	assert_double_rel(m.flop_rate_prefill_per_s, 38.5, 1e-14);   /* p95 >= peak / 2: p95 */
	assert_double_rel(m.mean_input_tokens, 20, 0);
	assert_double_rel(m.mean_output_tokens, 30, 0);
	assert_double_rel(m.mean_context_tokens, 25, 0);
	assert_double_rel(m.preemptions, 0, 0);
	assert_double_rel(m.duration_s, 4, 0);
	/* a NaN sample at row 3: intervals 2→3 and 3→4 are dropped; Δflops over
	 * the window skips the NaN (br_counter_delta); rates left 10, 40:
	 * percentile([10, 40], 95) = 10 + 0.95·30 = 38.5 */
	long c = br_series_col_index(r->metrics, "vllm:estimated_flops_per_gpu_total");
	r->metrics->cols[c][3] = NAN;
	br_flops_measure_run(r, &m);
	assert_int_equal(m.n_rate_intervals, 2);
	assert_double_rel(m.flop_rate_p95_per_s, 38.5, 1e-14);
	assert_double_rel(m.flop_rate_peak_per_s, 40, 0);
	assert_double_rel(m.flops, 100, 0);
	free_run(r);

	/* a run that mostly decodes: 18 intervals at 10 FLOP/s, one at 100 (a
	 * second of prefill) and the idle interval at each end of the window (0):
	 * numpy.percentile([0, 0] + [10]*18 + [100], 95) = 10 (h = 20·0.95 = 19),
	 * under half the peak 100, so the prefill rate is the peak */
	double run2[22], fl2[22], it2[22], pre2[22];
	for (int i = 0; i < 22; i++) {
		run2[i] = i == 0 || i == 21 ? 0 : 2;
		pre2[i] = 0;
		it2[i] = i;
	}
	fl2[0] = fl2[1] = 0;
	for (int i = 2; i < 22; i++)
		fl2[i] = fl2[i - 1] + (i == 11 ? 100 : 10);
	fl2[21] = fl2[20];   /* idle last sample */
	r = make_run("decode", 5, 100, 150, 21, 22, run2, fl2, it2, pre2);
	br_flops_measure_run(r, &m);
	assert_int_equal(m.n_rate_intervals, 21);
	assert_double_rel(m.flop_rate_p95_per_s, 10, 1e-14);
	assert_double_rel(m.flop_rate_peak_per_s, 100, 0);
	assert_double_rel(m.flop_rate_prefill_per_s, 100, 0);
	free_run(r);

	/* no FLOPs column: unavailable with the documented reason */
	r = make_run("nofl", 5, 100, 150, 4, 7, running, NULL, it, pre);
	br_flops_measure_run(r, &m);
	assert_false(m.available);
	assert_string_equal(m.missing,
	    "needs vllm:estimated_flops_per_gpu_total (vllm serve --enable-mfu-metrics)");
	br_flops_calibration cal;
	fake_calibration(&cal, 1, 0);
	br_flops_ledger l;
	br_analyze_flops(r, &cal, 100, 1, &l);
	assert_false(l.available);
	assert_string_equal(l.missing,
	    "needs vllm:estimated_flops_per_gpu_total (vllm serve --enable-mfu-metrics)");
	free_run(r);

	/* NULL run, and a run without metrics */
	br_flops_measure_run(NULL, &m);
	assert_false(m.available);
	assert_nan(m.flops);
}

/* ---- simulated runs ---- */

static char simdir[64];

/* sim_config: copy fixtures/configs/small-1024-256.json with new workload
 * lengths, concurrency and prompt count into simdir/NAME.json. */
static char *
sim_config(const char *name, int in, int out, int conc, int nprompts)
{
	char *src = br_test_src("fixtures/configs/small-1024-256.json");
	json_error_t err;
	json_t *o = json_load_file(src, 0, &err);
	if (o == NULL)
		fail_msg("%s: %s", src, err.text);
	json_t *w = json_object_get(o, "workload");
	json_object_set_new(w, "input_len", json_integer(in));
	json_object_set_new(w, "output_len", json_integer(out));
	json_object_set_new(w, "max_concurrency", json_integer(conc));
	json_object_set_new(w, "num_prompts", json_integer(nprompts));
	json_object_set_new(o, "name", json_string(name));
	char *path = br_xasprintf("%s/%s.json", simdir, name);
	assert_int_equal(json_dump_file(o, path, JSON_INDENT(2)), 0);
	json_decref(o);
	free(src);
	return path;
}

/* simulate: `$BR_BINARY simulate CFG -o simdir/NAME`, then br_run_load. */
static void
simulate(const char *cfg, const char *name, br_run *out)
{
	const char *bin = getenv("BR_BINARY");
	char *dir = br_xasprintf("%s/%s", simdir, name);
	char *cmd = br_xasprintf("'%s' simulate '%s' -o '%s' --force >/dev/null 2>&1", bin, cfg, dir);
	if (system(cmd) != 0)
		fail_msg("failed: %s", cmd);
	char *cause = NULL;
	if (br_run_load(dir, NULL, out, &cause) != 0)
		fail_msg("%s", cause);
	free(cmd);
	free(dir);
}

/* sim_truth: simulator.KEY of DIR/run.json (a number). */
static double
sim_truth(const char *name, const char *key)
{
	char *p = br_xasprintf("%s/%s/run.json", simdir, name);
	json_error_t err;
	json_t *o = json_load_file(p, 0, &err);
	if (o == NULL)
		fail_msg("%s: %s", p, err.text);
	json_t *v = json_object_get(json_object_get(o, "simulator"), key);
	if (!json_is_number(v))
		fail_msg("%s: no simulator.%s", p, key);
	double d = json_number_value(v);
	json_decref(o);
	free(p);
	return d;
}

/* mean of the array simulator.KEY of run.json */
static double
sim_truth_mean(const char *name, const char *key)
{
	char *p = br_xasprintf("%s/%s/run.json", simdir, name);
	json_error_t err;
	json_t *o = json_load_file(p, 0, &err);
	if (o == NULL)
		fail_msg("%s: %s", p, err.text);
	json_t *a = json_object_get(json_object_get(o, "simulator"), key);
	double s = 0;
	size_t n = json_array_size(a);
	for (size_t i = 0; i < n; i++)
		s += json_number_value(json_array_get(a, i));
	json_decref(o);
	free(p);
	return n ? s / (double)n : NAN;
}

/*
 * Calibration on simulated runs without preemption, focus round 1.
 * The simulator (src/sim/engine.c, run.c) charges a token at position p
 * c0 + c1·(p+1) FLOPs (c0 = 13.52e9, c1 = 3.4e5 in every config used here),
 * computes k = in + out − 1 tokens per request (the last one is never fed
 * back) and counts in + out iteration tokens. So with L = in + out a run
 * without preemption measures exactly
 *   y(L) = ((L−1)·c0 + c1·(L−1)·L/2) / L / 1e9 GFLOP/token at x = L/2,
 * not quite a line (the −c0/L term). Runs: L = 640 (512/128, C 64),
 * 1280 (the fixture, 1024/256, C 64), 2560 (2048/512, C 16), 4096
 * (3072/1024, C 8), 5120 (4096/1024, C 8): demand C·L ≤ 81,920 < pool 86,864,
 * so no preemption. python3:
 *   y = 13.607505, 13.7268675, 13.94974875, 14.21284921875, 14.387589375
 *   numpy.polyfit(L/2, y, 1) → a = 13.501530487190117, b = 0.00034709512380248276,
 *   R² = 0.9998628162787798
 *   round 1 predicted = 1048576·(a + b·4096)·1e9 = 1.5648143037468598e16 vs
 *   truth 128·(8191·c0 + c1·8191·8192/2) = 1.563512758272e16: +0.083%.
 * Recomputed tokens: expected = (flops_total − predicted) / ((a + b·R/2)·1e9)
 * with R = mean of simulator.preemption_released_tokens, computed here from
 * run.json's truth and the numpy line; within 15% of simulator.recomputed_tokens
 * (the brief's bound; observed ≈0.3%).
 */
static void
test_simulated(void **state)
{
	(void)state;
	const char *bin = getenv("BR_BINARY");
	if (bin == NULL || access(bin, X_OK) != 0) {
		fprintf(stderr, "note: BR_BINARY not set or not built; skipping\n");
		skip();
	}
	strcpy(simdir, "/tmp/br-flops-XXXXXX");
	assert_non_null(mkdtemp(simdir));
	struct { const char *name; int in, out, conc, n; } v[] = {
		{ "cal-512-128", 512, 128, 64, 128 },
		{ "cal-1024-256", 0, 0, 0, 0 },      /* the fixture itself */
		{ "cal-2048-512", 2048, 512, 16, 64 },
		{ "cal-3072-1024", 3072, 1024, 8, 32 },
		{ "cal-4096-1024", 4096, 1024, 8, 24 },
	};
	const double y_exact[5] = { 13.607505, 13.7268675, 13.94974875, 14.21284921875, 14.387589375 };
	const double x_exact[5] = { 320, 640, 1280, 2048, 2560 };
	br_run runs[5];
	const br_run *rp[5];
	for (int i = 0; i < 5; i++) {
		char *cfg = v[i].in ? sim_config(v[i].name, v[i].in, v[i].out, v[i].conc, v[i].n)
		    : br_test_src("fixtures/configs/small-1024-256.json");
		simulate(cfg, v[i].name, &runs[i]);
		assert_double_rel(sim_truth(v[i].name, "preemptions"), 0, 0);
		rp[i] = &runs[i];
		free(cfg);
	}
	br_flops_calibration cal;
	char *cause = NULL;
	if (br_flops_calibrate(rp, 5, &cal, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(cal.n_used, 5);
	for (int i = 0; i < 5; i++) {
		assert_double_rel(cal.points[i].x_tokens, x_exact[i], 1e-15);
		assert_double_rel(cal.points[i].y_gflop_per_token, y_exact[i], 1e-12);
	}
	assert_double_rel(cal.fit.a, 13.501530487190117, 1e-10);
	assert_double_rel(cal.fit.b, 0.00034709512380248276, 1e-8);
	assert_double_rel(cal.fit.r2, 0.9998628162787798, 1e-10);

	char *cfg = br_test_src("fixtures/configs/round1.json");
	br_run focus;
	simulate(cfg, "round1", &focus);
	free(cfg);
	double truth_np = sim_truth("round1", "flops_no_preemption");
	double truth_total = sim_truth("round1", "flops_total");
	double truth_rec = sim_truth("round1", "recomputed_tokens");
	double n_pre = sim_truth("round1", "preemptions");
	double R = sim_truth_mean("round1", "preemption_released_tokens");
	br_flops_ledger l;
	br_analyze_flops(&focus, &cal, R, n_pre, &l);
	assert_true(l.available);
	assert_double_rel(l.m.tokens, 1048576, 0);          /* 128 × 8192 */
	assert_double_rel(l.m.flops, truth_total, 1e-12);
	assert_double_rel(l.m.mean_context_tokens, 4096, 0);
	assert_double_rel(l.predicted_flops, 1.5648143037468598e16, 1e-9);
	assert_double_rel(l.predicted_flops, truth_np, 0.002);   /* derived +0.083% */
	double a = 13.501530487190117, b = 0.00034709512380248276;
	double want = (truth_total - 1.5648143037468598e16) / ((a + b * R / 2) * 1e9);
	assert_double_rel(l.recomputed_tokens, want, 1e-8);
	assert_double_rel(l.recomputed_tokens, truth_rec, 0.15);
	assert_double_rel(l.released_tokens_total, n_pre * R, 1e-12);
	assert_true(l.recompute_s > 0);
	assert_true(l.recompute_share_frac > 0 && l.recompute_share_frac < 0.2);
	fprintf(stderr, "note: simulated round 1: predicted %.6g (truth %.6g), excess %.4g FLOPs "
	    "(%+.1f%%), recomputed %.0f (truth %.0f), released %.0f, recompute %.1f s (%.1f%%), "
	    "prefill rate %.4g FLOP/s\n", l.predicted_flops, truth_np, l.excess_flops,
	    100 * l.excess_frac, l.recomputed_tokens, truth_rec, l.released_tokens_total,
	    l.recompute_s, 100 * l.recompute_share_frac, l.m.flop_rate_prefill_per_s);

	/* a preempting run offered as calibration is skipped */
	const br_run *mixed[3] = { rp[0], &focus, rp[2] };
	br_flops_calibration c2;
	assert_int_equal(br_flops_calibrate(mixed, 3, &c2, &cause), 0);
	assert_int_equal(c2.n_used, 2);
	assert_false(c2.points[1].used);
	assert_string_equal(c2.points[1].why, "has preemptions");
	br_flops_calibration_free(&c2);

	/* the budget on the simulated focus run, from its own analysis blocks;
	 * decode = Σ(out−1)/running × ITL p50 with 128·2047 = 262,016 tokens */
	br_latency lat;
	br_residency res;
	br_analyze_latency(&focus, &lat);
	br_analyze_residency(&focus, &res);
	br_budget bud;
	br_analyze_budget(&focus, &lat, &res, &cal, &l, &bud);
	assert_true(bud.available);
	assert_double_rel(bud.decode_tokens, 262016, 0);
	assert_double_rel(bud.decode_s, 262016 / res.running_mean * lat.m[BR_ITL].median / 1e3, 1e-12);
	/* prefill cost at x = 6144/2 from the numpy line */
	assert_double_rel(bud.prefill_gflop_per_token, a + b * 3072, 1e-9);
	assert_double_rel(bud.recompute_s, l.recompute_s, 0);
	assert_double_rel(bud.rest_s, bud.duration_s - bud.decode_s - bud.prefill_s - bud.recompute_s, 1e-12);
	fprintf(stderr, "note: simulated budget: T %.1f s = decode %.1f + prefill %.1f + recompute %.1f "
	    "+ rest %.1f; decode per request %.1f s vs %.1f s (%+.1f%%)\n", bud.duration_s,
	    bud.decode_s, bud.prefill_s, bud.recompute_s, bud.rest_s, bud.decode_measured_s,
	    bud.decode_expected_s, 100 * bud.decode_stolen_frac);
	br_analysis tmp = { .latency = lat };
	br_analysis_free(&tmp);

	br_flops_calibration_free(&cal);
	br_run_free(&focus);
	for (int i = 0; i < 5; i++)
		br_run_free(&runs[i]);
	char *rm = br_xasprintf("rm -rf '%s'", simdir);
	if (system(rm) != 0)
		fprintf(stderr, "note: could not remove %s\n", simdir);
	free(rm);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_ledger),
		cmocka_unit_test(test_reference_budget),
		cmocka_unit_test(test_calibration_fit),
		cmocka_unit_test(test_calibration_dedupe),
		cmocka_unit_test(test_measure_rate),
		cmocka_unit_test(test_mean_context_lengths),
		cmocka_unit_test(test_simulated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
