/*
 * Overload analyses (DESIGN.md §3.5 preemption events, §3.6 TTFT split,
 * §3.7 Little's law) on hand-made inputs, the reference aggregates of
 * DESIGN.md §6, and the real before/after pair glm52-mtp3-c4-r2. Every
 * expected number is worked out by hand (or with python3 from the .prom
 * files) in the comment above its assertion. The simulated round-1 check
 * lives in test_cli_overload_sim.c (it needs br_sim, which br_analysis does
 * not link).
 */
#include "br_test.h"
#include "benchreport/analysis.h"
#include "benchreport/analysis_overload.h"
#include "benchreport/common.h"
#include "benchreport/run.h"

/* ------------------------------------------------------------------ */
/* §3.5 preemption events on a hand-made 11-row series                 */
/* ------------------------------------------------------------------ */

/*
 * t          100  101  102  103  104  105  106  107  108  109  110
 * running      0    4    4    3    4    4    2    4    3    0    0
 * waiting      0    3    3    3    2    1    1    0    0    0    0
 * kv         .05  .60  .98  .80  .90  .99  .70  .95  .50  .02  .02
 * preempt      5    5    5    6    6    6    8    8    9    9   10
 * Busy rows 1..8 → window rows 0..9 (t 100..109, 9 s). The counter starts at
 * 5 (an earlier run) and the rise at row 10 lies outside the window.
 * Events (P = 1000 tokens):
 *   row 3, t 103 (+3 s): count 1, KV .98 → .80, released .18·1000 = 180, running 4 → 3
 *   row 6, t 106 (+6 s): count 2, KV .99 → .70, released .29·1000 = 290, running 4 → 2
 *   row 8, t 108 (+8 s): count 1, KV .95 → .50, released .45·1000 = 450, running 4 → 3
 * n preemptions = 9 − 5 = 4 in 3 events, one holding 2.
 * trigger = (.98 + .99 + .95)/3 = 2.92/3 = 0.973333...
 * interval = (108 − 103)/2 = 2.5 s; rate = 4 / 9 s · 60 = 26.666... per min.
 * released: Σ 920, per event 920/3 = 306.667, per preemption 920/4 = 230.
 */
static double PT[11] = { 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110 };
static double PRUN[11] = { 0, 4, 4, 3, 4, 4, 2, 4, 3, 0, 0 };
static double PWAIT[11] = { 0, 3, 3, 3, 2, 1, 1, 0, 0, 0, 0 };
static double PKV[11] = { .05, .60, .98, .80, .90, .99, .70, .95, .50, .02, .02 };
static double PPRE[11] = { 5, 5, 5, 6, 6, 6, 8, 8, 9, 9, 10 };
static char *PNAMES[4] = { "vllm:num_requests_running", "vllm:num_requests_waiting",
	"vllm:kv_cache_usage_perc", "vllm:num_preemptions_total" };

static void
make_pre_run(br_run *run, br_bench *b, br_series *s, double **cols)
{
	cols[0] = PRUN;
	cols[1] = PWAIT;
	cols[2] = PKV;
	cols[3] = PPRE;
	memset(s, 0, sizeof *s);
	s->n_rows = 11;
	s->t_s = PT;
	s->n_cols = 4;
	s->names = PNAMES;
	s->cols = cols;
	memset(b, 0, sizeof *b);
	b->max_concurrency = 4;
	b->completed = b->duration_s = NAN;
	memset(run, 0, sizeof *run);
	run->bench.runs = b;
	run->bench.n = 1;
	run->metrics = s;
	run->metrics_kind = BR_METRICS_CSV;
}

/*
 * analyze_cols: the preemption analysis of a series with the given columns
 * (n rows; waiting NULL keeps the hand series' PWAIT, which needs n = 11)
 * and a KV pool of pool_tokens (0: none). The caller frees *p.
 */
static void
analyze_cols(size_t n, double *t, double *running, double *waiting, double *kv, double *pre,
    double pool_tokens, br_preemptions *p)
{
	br_run run;
	br_bench b;
	br_series s;
	double *cols[4];
	make_pre_run(&run, &b, &s, cols);
	s.n_rows = n;
	s.t_s = t;
	cols[0] = running;
	if (waiting)
		cols[1] = waiting;
	cols[2] = kv;
	cols[3] = pre;
	br_capacity cap;
	memset(&cap, 0, sizeof cap);
	cap.available = 1;
	cap.kv_pool_tokens = pool_tokens;
	br_analyze_preemptions(&run, NULL, pool_tokens > 0 ? &cap : NULL, p);
}

static void
test_preemptions_hand(void **state)
{
	(void)state;
	br_run run;
	br_bench b;
	br_series s;
	double *cols[4];
	make_pre_run(&run, &b, &s, cols);
	br_residency res;
	br_analyze_residency(&run, &res);
	br_capacity cap;
	memset(&cap, 0, sizeof cap);
	cap.available = 1;
	cap.kv_pool_tokens = 1000;

	br_preemptions p;
	br_analyze_preemptions(&run, &res, &cap, &p);
	assert_int_equal(p.available, 1);
	assert_null(p.missing);
	assert_int_equal(p.count_available, 1);
	assert_string_equal(p.count_source, "metrics series window");
	assert_double_abs(p.n_preemptions, 4, 0);
	assert_double_abs(p.window_start_t_s, 100, 0);
	assert_double_abs(p.window_end_t_s, 109, 0);
	assert_double_abs(p.window_s, 9, 0);
	assert_int_equal(p.n_events, 3);
	assert_int_equal(p.n_multi_events, 1);
	assert_double_abs(p.max_per_event, 2, 0);

	const double t[3] = { 103, 106, 108 }, cnt[3] = { 1, 2, 1 };
	const double kb[3] = { .98, .99, .95 }, ka[3] = { .80, .70, .50 };
	const double rel[3] = { 180, 290, 450 };
	const double rb[3] = { 4, 4, 4 }, ra[3] = { 3, 2, 3 };
	const size_t row[3] = { 3, 6, 8 };
	for (int k = 0; k < 3; k++) {
		const br_preemption_event *e = &p.events[k];
		assert_int_equal(e->row, row[k]);
		assert_double_abs(e->t_epoch_s, t[k], 0);
		assert_double_abs(e->t_since_start_s, t[k] - 100, 0);
		assert_double_abs(e->count, cnt[k], 0);
		assert_double_abs(e->kv_before_frac, kb[k], 0);
		assert_double_abs(e->kv_after_frac, ka[k], 0);
		assert_double_rel(e->released_tokens, rel[k], 1e-12);
		assert_double_abs(e->running_before, rb[k], 0);
		assert_double_abs(e->running_after, ra[k], 0);
	}
	assert_double_rel(p.trigger_kv_frac, 2.92 / 3.0, 1e-14);
	assert_double_rel(p.mean_interval_s, 2.5, 1e-15);
	assert_double_rel(p.rate_per_min, 4.0 / 9.0 * 60.0, 1e-14);
	assert_double_rel(p.total_released_tokens, 920, 1e-12);
	assert_double_rel(p.mean_released_tokens, 920.0 / 3.0, 1e-12);
	assert_double_rel(p.mean_released_per_preemption_tokens, 230, 1e-12);
	/* .95 lies 3 points below the median .98, but 3 readings are too few to
	 * call a band (5 needed): nothing is set aside */
	assert_int_equal(p.n_below_band, 0);
	assert_nan(p.below_band_min_kv_frac);
	br_preemptions_free(&p);
	assert_null(p.events);

	/* without P: events and trigger still there, released tokens NAN */
	br_analyze_preemptions(&run, NULL, NULL, &p);
	assert_int_equal(p.available, 1);
	assert_int_equal(p.n_events, 3);
	assert_nan(p.events[1].released_tokens);
	assert_nan(p.mean_released_tokens);
	assert_nan(p.mean_released_per_preemption_tokens);
	assert_double_rel(p.trigger_kv_frac, 2.92 / 3.0, 1e-14);
	/* window from the series itself (no residency block): the same 100..109 */
	assert_double_rel(p.rate_per_min, 4.0 / 9.0 * 60.0, 1e-14);
	br_preemptions_free(&p);

	/* a counter reset inside the window: 5 5 5 6 6 6 [0] 1 2 2 10.
	 * Rises: row 3 (+1); row 6: 6 → 0 is a restart, 0 new, no event;
	 * row 7: +1; row 8: +1 → 3 preemptions in 3 single events. */
	double reset[11] = { 5, 5, 5, 6, 6, 6, 0, 1, 2, 2, 10 };
	cols[3] = reset;
	br_analyze_preemptions(&run, NULL, &cap, &p);
	assert_double_abs(p.n_preemptions, 3, 0);
	assert_int_equal(p.n_events, 3);
	assert_int_equal(p.n_multi_events, 0);
	assert_int_equal(p.events[0].row, 3);
	assert_int_equal(p.events[1].row, 7);
	assert_int_equal(p.events[2].row, 8);
	br_preemptions_free(&p);
}

/*
 * An event read across a gap in the series (issue 14 breaker: 60 dropped
 * rows gave an event "released -3,680 tokens" with its KV before read 61 s
 * earlier). The hand series above, the row-6 event (count 2) put after a
 * gap two ways:
 *   dropped rows: t = 100..105, then 110..114 → row 6 is 5 s after row 5;
 *   missed scrapes: rows 4 and 5 empty (t stays 1 Hz) → the counter was last
 *   read at row 3, 3 s before row 6.
 * Both > BR_PREEMPTION_COARSE_STEP_S (2.5 s): the event keeps its count (2)
 * and KV after (.70) but has no KV before, release or running before; it is
 * no multi-preemption sample. By hand, from the two readable events (rows 3
 * and 8): trigger (.98 + .95)/2 = .965, released 180 + 450 = 630 in all,
 * 630 / 2 = 315 per preemption; n_preemptions 4; max_per_event 1.
 */
static void
test_preemptions_across_gap(void **state)
{
	(void)state;
	static double T_DROP[11] = { 100, 101, 102, 103, 104, 105, 110, 111, 112, 113, 114 };
	static double RUN_MISS[11] = { 0, 4, 4, 3, NAN, NAN, 2, 4, 3, 0, 0 };
	static double KV_MISS[11] = { .05, .60, .98, .80, NAN, NAN, .70, .95, .50, .02, .02 };
	static double PRE_MISS[11] = { 5, 5, 5, 6, NAN, NAN, 8, 8, 9, 9, 10 };
	static const struct { const char *what; double *t, *run, *kv, *pre; double span_s; } cases[] = {
		{ "dropped rows", T_DROP, PRUN, PKV, PPRE, 5 },
		{ "missed scrapes", PT, RUN_MISS, KV_MISS, PRE_MISS, 3 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		br_preemptions p;
		analyze_cols(11, cases[k].t, cases[k].run, NULL, cases[k].kv, cases[k].pre, 1000, &p);
		print_message("case %s\n", cases[k].what);
		assert_double_abs(p.n_preemptions, 4, 0);
		assert_int_equal(p.n_events, 3);
		const br_preemption_event *g = &p.events[1];
		assert_int_equal(g->row, 6);
		assert_true(g->across_gap);
		assert_double_abs(g->span_s, cases[k].span_s, 1e-12);
		assert_double_abs(g->count, 2, 0);
		assert_double_abs(g->kv_after_frac, .70, 0);
		assert_nan(g->kv_before_frac);
		assert_nan(g->released_tokens);
		assert_nan(g->running_before);
		assert_false(p.events[0].across_gap);
		assert_false(p.events[2].across_gap);
		assert_int_equal(p.n_gap_events, 1);
		assert_double_abs(p.max_gap_event_s, cases[k].span_s, 1e-12);
		assert_int_equal(p.n_multi_events, 0);
		assert_double_abs(p.max_per_event, 1, 0);
		assert_double_rel(p.trigger_kv_frac, (.98 + .95) / 2, 1e-14);
		assert_double_rel(p.total_released_tokens, 630, 1e-12);
		assert_double_rel(p.mean_released_per_preemption_tokens, 315, 1e-12);
		br_preemptions_free(&p);
	}
}

/*
 * A reading below the band (issue 10 audit: simulated round 2 read one
 * preemption at KV 95.11% -> 95.04%, "80 tokens", among triggers at
 * 98.5-99.99%). Six events, P = 1000 tokens, one preemption each:
 *   row                         2    4    6    8    10   12
 *   KV before (rows 1, 3, ...)  .99  .995 .992 .951 .997 .993
 *   KV after                    .90  .91  .90  (a)  .92  .91
 * Median KV before (.992 + .993)/2 = .9925; .951 < .9925 - .02 = .9725, so
 * the row-8 reading is below the band; the others released 90, 85, 92, 77,
 * 83 tokens (median 85). (a) KV after .95: it released 1 token, under 25% of
 * 85: a climb and release the samples missed, set aside: trigger =
 * (.99 + .995 + .992 + .997 + .993)/5 = .9934 (lowest .99), released 427
 * over 5 readings, 85.4 each. (b) KV after .85: it released 101 tokens, a
 * victim's worth: it fired there and stays in (brk23): trigger =
 * 5.918 / 6 = .98633 (lowest .951), released 528 / 6 = 88. 6 preemptions
 * counted either way.
 */
static void
test_preemptions_below_band(void **state)
{
	(void)state;
	static const struct {
		double kv_after_row8;
		size_t n_below;
		double trigger, trigger_min, total, per_preemption;
	} cases[] = {
		{ .95, 1, .9934, .99, 427, 85.4 },
		{ .85, 0, 5.918 / 6, .951, 528, 88 },
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		double t[14], run_[14], wait_[14];
		double kv[14] = { .02, .99, .90, .995, .91, .992, .90, .951, cases[c].kv_after_row8, .997, .92, .993, .91, .02 };
		double pre[14] = { 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6 };
		for (int i = 0; i < 14; i++) {
			t[i] = 100 + i;
			run_[i] = i == 0 || i == 13 ? 0 : 4;
			wait_[i] = run_[i] > 0;
		}
		br_preemptions p;
		analyze_cols(14, t, run_, wait_, kv, pre, 1000, &p);
		print_message("case %zu: KV after at row 8 %.2f\n", c, cases[c].kv_after_row8);
		assert_int_equal(p.n_events, 6);
		assert_double_abs(p.n_preemptions, 6, 0);
		assert_int_equal(p.n_below_band, cases[c].n_below);
		for (size_t k = 0; k < 6; k++)
			assert_int_equal(p.events[k].below_band, k == 3 && cases[c].n_below == 1);
		if (cases[c].n_below)
			assert_double_abs(p.below_band_min_kv_frac, .951, 0);
		else
			assert_nan(p.below_band_min_kv_frac);
		assert_double_rel(p.trigger_kv_frac, cases[c].trigger, 1e-12);
		assert_double_abs(p.trigger_min_kv_frac, cases[c].trigger_min, 0);
		assert_int_equal(p.n_release_readings, 6);   /* every reading, for the unreadable rule */
		assert_int_equal(p.n_release_negative, 0);
		assert_int_equal(p.n_release_used, 6 - cases[c].n_below);
		assert_double_rel(p.total_released_tokens, cases[c].total, 1e-12);
		assert_double_rel(p.mean_released_per_preemption_tokens, cases[c].per_preemption, 1e-12);
		br_preemptions_free(&p);
	}
}

/*
 * The pace of the preemptions against a constant rate (Kolmogorov-Smirnov,
 * the reference's Figure 5 "part of the steady state"). A 1 Hz series, rows
 * t = 100 + i (i = 0..94), busy rows 1..93, so the window is rows 0..94
 * (94 s) and an event at row r is r s into it; one preemption per row
 * listed. Expected by hand (python3 + numpy):
 *   20 even, rows 2, 6, ..., 78 (span 76 s >= 2/3 of 94): D = 1/20 = 0.05,
 *     crit(20) = 1.358 / (sqrt 20 + 0.12 + 0.11 / sqrt 20) = 0.2941474;
 *   19 in a burst at rows 2..20 and one at 78: D = 0.95 - 18/76 = 0.7131579;
 *   20 in a burst at rows 2..21 (span 19 s < 62.7 s): not tested, NAN;
 *   19 even (rows 2, 6, ..., 74): fewer than the 20 tested, NAN.
 */
static void
test_preemptions_steady_pace(void **state)
{
	(void)state;
	static struct {
		size_t rows[20], n;
		double d, crit, first, last;
	} cases[4];
	for (size_t k = 0; k < 20; k++) {
		cases[0].rows[k] = 2 + 4 * k;
		cases[1].rows[k] = k < 19 ? 2 + k : 78;
		cases[2].rows[k] = 2 + k;
		cases[3].rows[k] = 2 + 4 * k;
	}
	cases[0].n = cases[1].n = cases[2].n = 20;
	cases[3].n = 19;
	cases[0].d = 0.05;
	cases[1].d = 0.7131578947368421;
	cases[2].d = cases[3].d = NAN;
	for (int c = 0; c < 2; c++) {
		cases[c].crit = 0.2941474171096116;
		cases[c].first = 2;
		cases[c].last = 78;
	}
	enum { NR = 95 };
	static double t[NR], run_[NR], wait_[NR], kv[NR], pre[NR];
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		double count = 0;
		for (size_t i = 0; i < NR; i++) {
			t[i] = 100 + (double)i;
			run_[i] = i >= 1 && i <= 93 ? 4 : 0;
			wait_[i] = run_[i] > 0 ? 1 : 0;
			kv[i] = run_[i] > 0 ? .99 : .02;
			for (size_t k = 0; k < cases[c].n; k++)
				count += cases[c].rows[k] == i;
			pre[i] = count;
		}
		br_preemptions p;
		analyze_cols(NR, t, run_, wait_, kv, pre, 0, &p);
		print_message("case %zu\n", c);
		assert_int_equal(p.n_events, cases[c].n);
		assert_double_abs(p.window_s, 94, 0);
		if (isnan(cases[c].d)) {
			assert_nan(p.steady_ks_d);
			assert_nan(p.steady_ks_crit);
			assert_nan(p.steady_first_s);
		} else {
			assert_double_rel(p.steady_ks_d, cases[c].d, 1e-12);
			assert_double_rel(p.steady_ks_crit, cases[c].crit, 1e-12);
			assert_double_abs(p.steady_first_s, cases[c].first, 1e-12);
			assert_double_abs(p.steady_last_s, cases[c].last, 1e-12);
		}
		br_preemptions_free(&p);
	}
}

static void
test_preemptions_unavailable(void **state)
{
	(void)state;
	br_run run;
	br_bench b;
	br_series s;
	double *cols[4];
	br_preemptions p;

	/* no metrics at all */
	make_pre_run(&run, &b, &s, cols);
	run.metrics = NULL;
	run.metrics_kind = BR_METRICS_NONE;
	br_analyze_preemptions(&run, NULL, NULL, &p);
	assert_int_equal(p.available, 0);
	assert_int_equal(p.count_available, 0);
	assert_string_equal(p.missing,
	    "needs a 1 Hz metrics series with vllm:num_preemptions_total");
	assert_nan(p.n_preemptions);
	assert_nan(p.trigger_kv_frac);
	assert_int_equal(p.n_events, 0);
	br_preemptions_free(&p);

	/* a series without the counter column */
	make_pre_run(&run, &b, &s, cols);
	s.n_cols = 3;
	br_analyze_preemptions(&run, NULL, NULL, &p);
	assert_int_equal(p.available, 0);
	assert_int_equal(p.count_available, 0);
	assert_nan(p.rate_per_min);
	br_preemptions_free(&p);

	/* a before/after pair (rows 0 and 1 = counter 5 → 5): count 0 known,
	 * the events need a series */
	make_pre_run(&run, &b, &s, cols);
	s.n_rows = 2;
	run.metrics_kind = BR_METRICS_PAIR;
	br_analyze_preemptions(&run, NULL, NULL, &p);
	assert_int_equal(p.available, 0);
	assert_int_equal(p.count_available, 1);
	assert_string_equal(p.count_source, "before/after snapshots");
	assert_double_abs(p.n_preemptions, 0, 0);
	assert_non_null(strstr(p.missing, "pair gives the count only"));
	assert_int_equal(p.n_events, 0);
	assert_nan(p.mean_interval_s);
	br_preemptions_free(&p);

	/* a single snapshot: nothing */
	make_pre_run(&run, &b, &s, cols);
	s.n_rows = 1;
	run.metrics_kind = BR_METRICS_SNAPSHOT;
	br_analyze_preemptions(&run, NULL, NULL, &p);
	assert_int_equal(p.available, 0);
	assert_int_equal(p.count_available, 0);
	br_preemptions_free(&p);
}

/* ------------------------------------------------------------------ */
/* §3.6 TTFT split and §3.7 Little's law on hand-made counters         */
/* ------------------------------------------------------------------ */

/*
 * A 3-row series (idle, busy, idle) whose counters reproduce the round-1
 * reference of DESIGN.md §6 over 128 requests:
 *   queue   sum 0 → 128·177.6 = 22732.8, count 0 → 128  → 177.6 s
 *   prefill sum 0 → 128·1.06  = 135.68,  count 0 → 128  → 1.06 s
 *   decode  sum 0 → 128·54.84 = 7019.52, count 0 → 128  → 54.84 s
 *   server TTFT sum 0 → 128·178.5 = 22848, count 0 → 128 → 178.5 s
 * (prefill + decode = 55.9 s, the "measured" W of §6).
 */
static double LT[3] = { 0, 300, 600 };
static double LRUN[3] = { 0, 11, 0 };
static double LQS[3] = { 0, 5000, 22732.8 }, LQC[3] = { 0, 40, 128 };
static double LPS[3] = { 0, 50, 135.68 }, LPC[3] = { 0, 40, 128 };
static double LDS[3] = { 0, 10, 7019.52 }, LDC[3] = { 0, 1, 128 };
static double LTS[3] = { 0, 5000, 22848 }, LTC[3] = { 0, 40, 128 };
static char *LNAMES[9] = { "vllm:num_requests_running",
	"vllm:request_queue_time_seconds_sum", "vllm:request_queue_time_seconds_count",
	"vllm:request_prefill_time_seconds_sum", "vllm:request_prefill_time_seconds_count",
	"vllm:request_decode_time_seconds_sum", "vllm:request_decode_time_seconds_count",
	"vllm:time_to_first_token_seconds_sum", "vllm:time_to_first_token_seconds_count" };

static void
make_ref_run(br_run *run, br_bench *b, br_series *s, double **cols)
{
	double *c[9] = { LRUN, LQS, LQC, LPS, LPC, LDS, LDC, LTS, LTC };
	memcpy(cols, c, sizeof c);
	memset(s, 0, sizeof *s);
	s->n_rows = 3;
	s->t_s = LT;
	s->n_cols = 9;
	s->names = LNAMES;
	s->cols = cols;
	memset(b, 0, sizeof *b);
	b->max_concurrency = 64;
	b->completed = 128;
	b->duration_s = 597;
	memset(run, 0, sizeof *run);
	run->bench.runs = b;
	run->bench.n = 1;
	run->metrics = s;
	run->metrics_kind = BR_METRICS_CSV;
}

static void
test_ttft_split_hand(void **state)
{
	(void)state;
	br_run run;
	br_bench b;
	br_series s;
	double *cols[9];
	make_ref_run(&run, &b, &s, cols);
	br_latency lat;
	memset(&lat, 0, sizeof lat);
	lat.from_arrays = 1;
	lat.m[BR_TTFT].count = 128;
	lat.m[BR_TTFT].mean = 179.39e3;    /* client mean TTFT 179.39 s */
	lat.m[BR_TTFT].median = 219e3;

	/* frontend = 179.39 − 177.6 − 1.06 = 0.73 s (the §6 round-1 split);
	 * server/client = 178.5 / 179.39 = 0.995039... */
	br_ttft_split t;
	br_analyze_ttft_split(&run, &lat, &t);
	assert_int_equal(t.available, 1);
	assert_null(t.missing);
	assert_string_equal(t.window_source, "metrics series window");
	assert_string_equal(t.client_source, "per-request arrays");
	assert_double_abs(t.server_requests, 128, 0);
	assert_double_rel(t.queue_s, 177.6, 1e-13);
	assert_double_rel(t.prefill_s, 1.06, 1e-13);
	assert_double_rel(t.client_ttft_mean_s, 179.39, 1e-15);
	assert_double_rel(t.frontend_s, 0.73, 1e-10);
	assert_int_equal(t.frontend_negative, 0);
	assert_double_rel(t.queue_share, 177.6 / 179.39, 1e-13);
	assert_double_rel(t.prefill_share, 1.06 / 179.39, 1e-13);
	assert_double_rel(t.frontend_share, 0.73 / 179.39, 1e-10);
	assert_double_rel(t.server_ttft_mean_s, 178.5, 1e-13);
	assert_double_abs(t.server_ttft_count, 128, 0);
	assert_double_rel(t.server_over_client, 178.5 / 179.39, 1e-13);

	/* a client mean below queue + prefill: residual 178 − 178.66 = −0.66, flagged */
	lat.m[BR_TTFT].mean = 178e3;
	br_analyze_ttft_split(&run, &lat, &t);
	assert_int_equal(t.available, 1);
	assert_double_rel(t.frontend_s, -0.66, 1e-10);
	assert_int_equal(t.frontend_negative, 1);

	/* no client TTFT anywhere: queue and prefill still there, split unavailable */
	br_analyze_ttft_split(&run, NULL, &t);
	assert_int_equal(t.available, 0);
	assert_non_null(strstr(t.missing, "client mean TTFT"));
	assert_double_rel(t.queue_s, 177.6, 1e-13);
	assert_nan(t.frontend_s);
	assert_nan(t.server_over_client);

	/* without the prefill histogram */
	s.n_cols = 3;
	br_analyze_ttft_split(&run, &lat, &t);
	assert_int_equal(t.available, 0);
	assert_non_null(strstr(t.missing, "request_prefill_time_seconds"));
	assert_nan(t.prefill_s);
	assert_nan(t.frontend_s);

	/* no metrics */
	run.metrics = NULL;
	br_analyze_ttft_split(&run, &lat, &t);
	assert_int_equal(t.available, 0);
	assert_non_null(strstr(t.missing, "before/after pair"));
	assert_nan(t.queue_s);
}

static void
test_littles_law_reference(void **state)
{
	(void)state;
	br_run run;
	br_bench b;
	br_series s;
	double *cols[9];
	make_ref_run(&run, &b, &s, cols);
	br_residency res;
	memset(&res, 0, sizeof res);
	res.available = 1;
	res.running_mean = 11.17;          /* §6 round 1 */
	res.waiting_mean = 38.9;
	br_latency lat;
	memset(&lat, 0, sizeof lat);
	lat.m[BR_TTFT].count = 128;
	lat.m[BR_TTFT].mean = 179e3;
	lat.m[BR_TTFT].median = 219e3;     /* §6 round 1 TTFT p50 */

	/* Round 1: λ = 128/597 = 0.214405...; W = 11.17·597/128 = 6668.49/128 = 52.097578125 s
	 * (§6 quotes 52.2 from the rounded λ 0.214: 11.17/0.214 = 52.196);
	 * measured 1.06 + 54.84 = 55.9 s → ratio 52.097578125/55.9 = 0.931978...;
	 * implied L = 55.9·128/597 = 11.98526.
	 * Queue: L_q = 38.9 → W_q = 38.9·597/128 = 181.43203125 s; measured 177.6 s;
	 * ratio 1.021576...; vs TTFT p50 219 s: 0.828457...; implied L_q =
	 * 177.6·128/597 = 38.07839. */
	br_littles_law l;
	br_analyze_littles_law(&run, &res, &lat, &l);
	assert_int_equal(l.available, 1);
	assert_null(l.missing);
	assert_double_rel(l.lambda_rps, 128.0 / 597.0, 1e-15);
	assert_double_abs(l.lambda_rps, 0.2144, 1e-4);
	assert_double_rel(l.w_resident_s, 52.097578125, 1e-13);
	assert_double_rel(l.w_resident_s, 52.2, 0.005);
	assert_string_equal(l.measured_resident_source, "prefill + decode time");
	assert_double_rel(l.measured_resident_s, 55.9, 1e-13);
	assert_double_rel(l.resident_ratio, 52.097578125 / 55.9, 1e-13);
	assert_double_rel(l.implied_running, 55.9 * 128.0 / 597.0, 1e-13);
	assert_string_equal(l.queue_length_source, "mean waiting");
	assert_double_rel(l.queue_length, 38.9, 0);
	assert_double_rel(l.w_queue_s, 181.43203125, 1e-13);
	assert_double_rel(l.measured_queue_s, 177.6, 1e-13);
	assert_double_rel(l.queue_ratio, 181.43203125 / 177.6, 1e-13);
	assert_double_rel(l.ttft_p50_s, 219, 1e-15);
	assert_double_rel(l.queue_ttft_ratio, 181.43203125 / 219, 1e-13);
	assert_double_rel(l.implied_waiting, 177.6 * 128.0 / 597.0, 1e-13);

	/* Round 2: 128 requests in 492 s, waiting 36.4, TTFT p50 169 s:
	 * W_q = 36.4·492/128 = 139.9125 s ≈ 140 (§6: 36.4/0.260 = 140);
	 * vs TTFT p50: 139.9125/169 = 0.827885... */
	b.duration_s = 492;
	res.running_mean = 15.65;
	res.waiting_mean = 36.4;
	lat.m[BR_TTFT].median = 169e3;
	br_analyze_littles_law(&run, &res, &lat, &l);
	assert_double_rel(l.lambda_rps, 128.0 / 492.0, 1e-15);
	assert_double_abs(l.lambda_rps, 0.260, 0.0002);
	assert_double_rel(l.w_queue_s, 139.9125, 1e-13);
	assert_double_abs(l.w_queue_s, 140, 0.1);
	assert_double_rel(l.queue_ttft_ratio, 139.9125 / 169, 1e-13);
	/* W_resident = 15.65·492/128 = 60.15469 s */
	assert_double_rel(l.w_resident_s, 15.65 * 492.0 / 128.0, 1e-13);

	/* waiting unavailable: L_q = C − mean running = 64 − 15.65 = 48.35,
	 * W_q = 48.35·492/128 = 185.8453125 s */
	res.waiting_mean = NAN;
	br_analyze_littles_law(&run, &res, &lat, &l);
	assert_string_equal(l.queue_length_source, "C − mean running, at most: C in flight throughout assumed");
	assert_double_rel(l.queue_length, 48.35, 1e-13);
	assert_double_rel(l.w_queue_s, 185.8453125, 1e-13);

	/* without decode: the resident time falls back to inference (absent
	 * here) → NAN, and the ratio too; queue readings stay */
	s.n_cols = 5;
	res.waiting_mean = 36.4;
	br_analyze_littles_law(&run, &res, &lat, &l);
	assert_nan(l.measured_resident_s);
	assert_null(l.measured_resident_source);
	assert_nan(l.resident_ratio);
	assert_double_rel(l.w_queue_s, 139.9125, 1e-13);
	assert_int_equal(l.available, 1);

	/* no completed/duration: unavailable */
	b.completed = NAN;
	br_analyze_littles_law(&run, &res, &lat, &l);
	assert_int_equal(l.available, 0);
	assert_nan(l.lambda_rps);
	assert_nan(l.w_resident_s);
	assert_nan(l.w_queue_s);
}

/* ------------------------------------------------------------------ */
/* The real before/after pair glm52-mtp3-c4-r2                         */
/* ------------------------------------------------------------------ */

/*
 * Deltas after − before from metrics-before.prom / metrics-after.prom (grep
 * of the _sum/_count lines, python3 float arithmetic):
 *   request_queue_time_seconds   Δsum 1.3423734344542027e-04 − 7.43658747524023e-05
 *                                = 5.987146869301796e-05, Δcount 33 − 17 = 16
 *                                → 3.7419667933136225e-06 s
 *   request_prefill_time_seconds Δsum 23.69930362678133 − 14.02291482547298
 *                                = 9.676388801308349 / 16 → 0.6047743000817718 s
 *   request_decode_time_seconds  Δsum 85.61769433016889 / 16 → 5.3511058956355555 s
 *   time_to_first_token_seconds  Δsum 12.459801435470581 / 16 → 0.7787375897169113 s
 *   num_preemptions_total        0 → 0
 * stress.json: mean_ttft_ms 782.6371825503884, median_ttft_ms 506.79694942664355,
 * completed 16, duration 26.112403583014384 (no per-request arrays).
 *   frontend = 0.7826371825503884 − 3.7419667933136225e-06 − 0.6047743000817718
 *            = 0.17785914050182328 s
 *   server/client = 0.7787375897169113 / 0.7826371825503884 = 0.995017368302424
 *   λ = 16/26.112403583014384 = 0.6127356276925687 req/s
 *   measured resident = 0.6047743000817718 + 5.3511058956355555 = 5.955880195717327 s
 *   implied L = λ · 5.955880195717327 = 3.649379990184596 (C = 4)
 *   implied L_q = λ · 3.7419667933136225e-06 = 2.292836371905771e-06
 */
static void
test_real_glm52_pair(void **state)
{
	(void)state;
	char *bench = br_test_real("runs/glm52-mtp3-c4-r2/stress.json");
	if (bench == NULL)
		skip();
	free(bench);
	char *dir = br_test_real("runs/glm52-mtp3-c4-r2/metrics-after.prom");
	assert_non_null(dir);
	*strrchr(dir, '/') = '\0';
	br_run run;
	char *cause = NULL;
	if (br_run_load(dir, NULL, &run, &cause) != 0)
		fail_msg("br_run_load: %s", cause);
	free(dir);
	assert_int_equal(run.metrics_kind, BR_METRICS_PAIR);
	br_analysis a;
	br_analyze(&run, &a);

	br_ttft_split t;
	br_analyze_ttft_split(&run, &a.latency, &t);
	assert_int_equal(t.available, 1);
	assert_string_equal(t.window_source, "before/after snapshots");
	assert_string_equal(t.client_source, "bench file mean_ttft_ms");
	assert_double_abs(t.server_requests, 16, 0);
	assert_double_rel(t.queue_s, 3.7419667933136225e-06, 1e-9);
	assert_double_rel(t.prefill_s, 0.6047743000817718, 1e-12);
	assert_double_rel(t.client_ttft_mean_s, 0.7826371825503884, 1e-15);
	assert_double_rel(t.frontend_s, 0.17785914050182328, 1e-10);
	assert_int_equal(t.frontend_negative, 0);
	assert_double_rel(t.server_ttft_mean_s, 0.7787375897169113, 1e-12);
	assert_double_rel(t.server_over_client, 0.995017368302424, 1e-12);

	br_preemptions p;
	br_analyze_preemptions(&run, &a.residency, &a.capacity, &p);
	assert_int_equal(p.available, 0);
	assert_int_equal(p.count_available, 1);
	assert_double_abs(p.n_preemptions, 0, 0);
	assert_string_equal(p.count_source, "before/after snapshots");
	assert_non_null(strstr(p.missing, "need a 1 Hz metrics series"));
	assert_int_equal(p.n_events, 0);
	assert_nan(p.rate_per_min);
	br_preemptions_free(&p);

	br_littles_law l;
	br_analyze_littles_law(&run, &a.residency, &a.latency, &l);
	assert_int_equal(l.available, 1);
	assert_double_rel(l.lambda_rps, 0.6127356276925687, 1e-15);
	assert_double_rel(l.measured_resident_s, 5.955880195717327, 1e-12);
	assert_double_rel(l.implied_running, 3.649379990184596, 1e-12);
	assert_double_rel(l.measured_queue_s, 3.7419667933136225e-06, 1e-9);
	assert_double_rel(l.implied_waiting, 2.292836371905771e-06, 1e-9);
	assert_double_rel(l.ttft_p50_s, 0.50679694942664355, 1e-15);
	/* no series: the residency readings are NAN */
	assert_nan(l.running_mean);
	assert_nan(l.w_resident_s);
	assert_nan(l.resident_ratio);
	assert_nan(l.w_queue_s);
	assert_nan(l.queue_ratio);
	assert_nan(l.queue_ttft_ratio);

	br_analysis_free(&a);
	br_run_free(&run);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_preemptions_hand),
		cmocka_unit_test(test_preemptions_across_gap),
		cmocka_unit_test(test_preemptions_below_band),
		cmocka_unit_test(test_preemptions_steady_pace),
		cmocka_unit_test(test_preemptions_unavailable),
		cmocka_unit_test(test_ttft_split_hand),
		cmocka_unit_test(test_littles_law_reference),
		cmocka_unit_test(test_real_glm52_pair),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
