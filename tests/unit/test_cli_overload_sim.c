/*
 * Overload analyses (DESIGN.md §3.5–§3.7) on a simulated round 1
 * (fixtures/configs/round1.json): the simulator's ground truth against what
 * the analyses read back from the folder it writes.
 *
 * This test is named test_cli_* because it needs both br_sim (to simulate)
 * and br_analysis (to analyse); br_cli is the one library that links both
 * (CMakeLists.txt links test_<module>_* against br_<module> only).
 */
#include "br_test.h"
#include <unistd.h>
#include "benchreport/analysis.h"
#include "benchreport/analysis_overload.h"
#include "benchreport/common.h"
#include "benchreport/run.h"
#include "benchreport/sim.h"
#include "sim/sim_internal.h"

/* rm_run_dir: remove the four files br_sim_write makes and its marker,
 * then the folder. */
static void
rm_run_dir(const char *dir)
{
	const char *files[] = { "stress.json", "metrics.csv", "server.log", "run.json", ".benchreport-output" };
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *p = br_path_join(dir, files[i]);
		unlink(p);
		free(p);
	}
	rmdir(dir);
}

static void
test_sim_round1(void **state)
{
	(void)state;
	char *cfg = br_test_src("fixtures/configs/round1.json");
	br_sim_result r;
	char *cause = NULL;
	if (br_sim_run(cfg, &r, &cause) != 0)
		fail_msg("br_sim_run: %s", cause);
	free(cfg);

	char tmpl[] = "/tmp/br-overload-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	char *dir = br_path_join(tmpl, "run");
	if (br_sim_write(&r, dir, 0, &cause) != 0)
		fail_msg("br_sim_write: %s", cause);
	br_run run;
	if (br_run_load(dir, NULL, &run, &cause) != 0)
		fail_msg("br_run_load: %s", cause);
	assert_int_equal(run.metrics_kind, BR_METRICS_CSV);
	br_analysis a;
	br_analyze(&run, &a);

	/* ---- §3.5: every event within 1 s after the truth, counts exact ---- */
	br_preemptions p;
	br_analyze_preemptions(&run, &a.residency, &a.capacity, &p);
	assert_int_equal(p.available, 1);
	assert_int_equal(r.n_preemptions, 37);          /* the simulator's truth */
	assert_double_abs(p.n_preemptions, 37, 0);
	double sum_counts = 0;
	size_t matched = 0;
	for (size_t k = 0; k < p.n_events; k++) {
		const br_preemption_event *e = &p.events[k];
		double prev_t = run.metrics->t_s[e->row - 1];
		/* truth events in (previous sample, this sample] */
		size_t in = 0;
		for (size_t j = 0; j < r.n_preemptions; j++) {
			double tt = r.preemptions[j].t_epoch_s;
			if (tt > prev_t && tt <= e->t_epoch_s) {
				in++;
				assert_true(e->t_epoch_s - tt <= 1.0);
			}
		}
		if ((double)in != e->count)
			fail_msg("event at %.3f holds %g preemptions, truth has %zu",
			    e->t_epoch_s, e->count, in);
		matched += in;
		sum_counts += e->count;
	}
	assert_int_equal(matched, r.n_preemptions);
	assert_double_abs(sum_counts, 37, 0);
	/* every truth event is matched by a detected one 0..1 s later */
	for (size_t j = 0; j < r.n_preemptions; j++) {
		double tt = r.preemptions[j].t_epoch_s;
		int found = 0;
		for (size_t k = 0; k < p.n_events; k++) {
			double d = p.events[k].t_epoch_s - tt;
			found |= d >= 0 && d <= 1.0;
		}
		if (!found)
			fail_msg("truth preemption at %.3f not detected", tt);
	}
	/* one victim per step in this run → one preemption per event, unless two
	 * steps fall into the same second */
	assert_int_equal(r.max_victims_per_step, 1);
	/* summary against the truth: the trigger level is the KV of the sample
	 * before (truth: KV just before the victim was freed, 1.0 here), the
	 * released tokens a 1 Hz reading of the truth's per-victim tokens
	 * (§6 reference: 99.58 % and 6,529 tokens). */
	double kvb = 0, rel = 0;
	for (size_t j = 0; j < r.n_preemptions; j++) {
		kvb += r.preemptions[j].kv_before_frac;
		rel += r.preemptions[j].released_tokens;
	}
	kvb /= (double)r.n_preemptions;
	rel /= (double)r.n_preemptions;
	assert_double_abs(p.trigger_kv_frac, kvb, 0.01);
	assert_double_abs(p.trigger_kv_frac, 0.9958, 0.005);
	assert_double_rel(p.mean_released_tokens, rel, 0.10);
	/* interval: mean gap of the sample times vs the truth's mean gap */
	double gap_truth = (r.preemptions[r.n_preemptions - 1].t_epoch_s -
	    r.preemptions[0].t_epoch_s) / (double)(r.n_preemptions - 1);
	assert_double_abs(p.mean_interval_s, gap_truth, 1.0 / 36.0 + 1e-9);
	assert_double_rel(p.rate_per_min, 37.0 / p.window_s * 60.0, 1e-15);
	/* the window: the residency's busy samples and one idle bracket on each
	 * side, n + 2 samples 1 s apart */
	assert_double_abs(p.window_s, (double)(a.residency.n_samples + 1), 1e-6);

	/* ---- §3.6: queue mean vs the simulator's own request times ---- */
	struct br_sim_run *sr = r.run;
	double qsum = 0, psum = 0;
	for (int i = 0; i < sr->n_req; i++) {
		qsum += sr->req[i].t_first_sched - sr->req[i].t_send;
		psum += sr->req[i].t_first_tok - sr->req[i].t_first_sched;
	}
	double q_truth = qsum / sr->n_req, p_truth = psum / sr->n_req;
	br_ttft_split t;
	br_analyze_ttft_split(&run, &a.latency, &t);
	assert_int_equal(t.available, 1);
	assert_string_equal(t.window_source, "metrics series window");
	assert_double_abs(t.server_requests, 128, 0);
	assert_double_rel(t.queue_s, q_truth, 1e-6);
	assert_double_rel(t.prefill_s, p_truth, 1e-6);
	/* The step model pins the prefill mean: a 6,144-token prompt takes three
	 * full chunks of ~2,037 tokens (the 2,048 budget less ~11 decodes), each a
	 * step as long as the ITL p99 (215.6 ms in the reference, the steps that
	 * carry a full chunk), plus a 33-token tail and any budget shared with a
	 * recompute: at least 3 × p99 (0.63 s here; 0.82 s measured). The
	 * reference's 1.06 s cannot be reached while p99 stays within its 10%:
	 * that needs ~0.35 s chunks, i.e. a p99 near 0.35 s (README, simulator
	 * limits). */
	assert_true(t.prefill_s >= 3 * r.itl_p99_s);
	assert_true(t.prefill_s < 1.06);
	assert_double_rel(t.client_ttft_mean_s, r.ttft_mean_s, 1e-9);
	/* queue + prefill + frontend = client mean TTFT by construction */
	assert_double_rel(t.queue_s + t.prefill_s + t.frontend_s, t.client_ttft_mean_s, 1e-14);
	assert_int_equal(t.frontend_negative, 0);
	/* the simulator's client-side delay is each request's frontend time
	 * (round1.json: Gamma, mean 0.005 + 1.18e-4 · 6144 = 0.73 s, half of it
	 * before the engine): the residual is its mean over the requests, and the
	 * server TTFT histogram (from the client's send to the engine's first
	 * token) is the client mean minus the mean outbound part */
	double fe_truth = 0, fe_out_truth = 0;
	for (int i = 0; i < sr->n_req; i++) {
		fe_truth += sr->req[i].fe_in_s + sr->req[i].fe_out_s;
		fe_out_truth += sr->req[i].fe_out_s;
	}
	fe_truth /= sr->n_req;
	fe_out_truth /= sr->n_req;
	assert_double_rel(t.frontend_s, fe_truth, 1e-6);
	assert_double_rel(t.client_ttft_mean_s - t.server_ttft_mean_s, fe_out_truth, 1e-6);
	assert_double_rel(t.frontend_s, 0.73, 0.15);

	br_littles_law l;
	br_analyze_littles_law(&run, &a.residency, &a.latency, &l);
	/* λ from the client; W_resident from the residency block; the ratio as
	 * in §6 round 1 (52.2 / 55.9 = 0.934), the queue reading ≈ measured */
	assert_int_equal(l.available, 1);
	assert_double_rel(l.lambda_rps, r.completed / r.duration_s, 1e-9);
	assert_double_rel(l.running_mean, a.residency.running_mean, 0);
	assert_double_rel(l.running_mean, r.mean_running, 0.01);
	assert_double_rel(l.w_resident_s, l.running_mean / l.lambda_rps, 1e-15);
	assert_double_abs(l.resident_ratio, 52.2 / 55.9, 0.02);
	assert_string_equal(l.queue_length_source, "mean waiting");
	assert_double_rel(l.measured_queue_s, q_truth, 1e-6);
	assert_double_abs(l.queue_ratio, 1.0, 0.03);
	assert_double_rel(l.ttft_p50_s, r.ttft_p50_s, 1e-9);

	br_preemptions_free(&p);
	br_analysis_free(&a);
	br_run_free(&run);
	br_sim_result_free(&r);
	rm_run_dir(dir);
	free(dir);
	rmdir(tmpl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_round1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
