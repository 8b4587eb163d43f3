/*
 * The campaign's story: the length contrast, recompute against the
 * concurrency collapse, ITL p90 under overload and the standard
 * expectations with verdicts (include/benchreport/story.h).
 *
 * Thresholds are documented where they are used; each is read from the
 * reference reports (../shared/seeds/round1-overload-report.zh.txt and
 * round2-overload-report.zh.txt).
 */
#include <math.h>
#include <string.h>
#include "benchreport/story.h"
#include "benchreport/compare.h"
#include "benchreport/findings.h"

const char *const br_verdict_name[4] = { "unknown", "holds", "partly", "does_not_hold" };

/* KV usage peak at or above this = "the pool ran full" (reference: 100.0%, 99.99%);
 * at or above KV_FULL_PARTLY it came close. */
#define KV_FULL_MIN 0.99
#define KV_FULL_PARTLY 0.90
/* p99 ITL focus / light: below SPIKE_PARTLY the p99 did not move (reference:
 * 215.6 vs 190–213 ms, ratio ≤ 1.13); from SPIKE_HOLDS on it spiked. */
#define SPIKE_PARTLY 1.5
#define SPIKE_HOLDS 3.0
/* TTFT p50 over (prefill + one ITL): above this TTFT exploded (the findings'
 * rule; reference 219 s vs 1.08 s); above TTFT_PARTLY it grew. */
#define TTFT_EXPLODED 10.0
#define TTFT_PARTLY 2.0
/* ITL p90 of the focus below this share of the light run's = "improved"
 * (reference: 22.1 vs 121.9 ms). */
#define ITL_P90_BETTER 0.8
/* Resident share below this = the concurrency collapsed (findings' cliff rule). */
#define RESIDENT_COLLAPSE 0.5

static int
num(double x)
{
	return isfinite(x);
}

/* same_str: both known and equal (an unknown side cannot prove sameness). */
static int
same_str(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/*
 * is_light: run i can stand beside the focus f in the length contrast: zero
 * preemptions, demand within the pool, and — by the compare module's
 * settings check (src/analysis/compare.c) — the same model, GPU, vLLM
 * version, concurrency, request rate (both closed loop: rate inf), KV pool,
 * max_num_seqs, bench backend, tokenizer, burstiness and every non-default
 * server argument, all of them stated on both sides (driver and CUDA: equal
 * or unstated); only the request lengths (which must differ) and the number
 * of prompts may differ.
 */
/* why_add: "NAME A → B" appended to why (len bytes, *o used), "; " between;
 * cut at the end of the buffer. */
static void
why_add(char *why, size_t len, size_t *o, const char *name, const char *a, const char *b)
{
	if (*o >= len)
		return;
	int w = snprintf(why + *o, len - *o, "%s%s %s → %s", *o ? "; " : "", name, a ? a : "n/a", b ? b : "n/a");
	if (w > 0)
		*o = *o + (size_t)w < len ? *o + (size_t)w : len;
}

/* name_add: NAME appended to names (len bytes, *o used), ", " between. */
static void
name_add(char *names, size_t len, size_t *o, const char *name)
{
	if (*o >= len)
		return;
	int w = snprintf(names + *o, len - *o, "%s%s", *o ? ", " : "", name);
	if (w > 0)
		*o = *o + (size_t)w < len ? *o + (size_t)w : len;
}

static int
is_light(const br_campaign *c, size_t i, size_t f, int *near, char *why, size_t why_len, char *unknown,
    size_t unknown_len)
{
	*near = 0;
	if (why_len > 0)
		why[0] = '\0';
	if (unknown_len > 0)
		unknown[0] = '\0';
	const br_analysis *a = &c->analyses[i], *fa = &c->analyses[f];
	const br_bench *b = &c->runs[i].bench.runs[0], *fb = &c->runs[f].bench.runs[0];
	if (i == f || !num(b->max_concurrency) || !(isinf(b->request_rate_rps) && isinf(fb->request_rate_rps)))
		return 0;
	if (!(br_preemption_count(a) == 0) || !a->capacity.available || !(a->capacity.oversubscription <= 1.0))
		return 0;
	if (!num(b->output_throughput_tps))
		return 0;
	/* the contrast cites how the light run sat in the pool (KV peak,
	 * running peak and mean): without them it cannot be told (audit:
	 * "KV peak n/a, no preemption, n/a of 64 resident") */
	if (!a->residency.available || !num(a->residency.kv_peak_frac) || !num(a->residency.running_peak) ||
	    !num(a->residency.running_mean))
		return 0;
	br_cmp_pair_result p;
	br_cmp_pair(a, fa, c->runs[i].name, c->runs[f].name, &p);
	/* every check is made (not stopping at the first failure) so that a
	 * run at the focus's concurrency that misses only by its settings can
	 * say which ones */
	int ok = 1, lengths_differ = 0;
	size_t o = 0, ou = 0;
	for (int k = 0; k < BR_SET_N; k++) {
		int st = p.diffs[k].state;
		if (k == BR_SET_INPUT_LEN || k == BR_SET_OUTPUT_LEN) {
			lengths_differ |= st == BR_DIFF_DIFFERS;
			ok &= st != BR_DIFF_UNKNOWN;
		} else if (st == BR_DIFF_DIFFERS) {
			ok = 0;
			why_add(why, why_len, &o, br_cmp_setting_key[k], p.diffs[k].a_text, p.diffs[k].b_text);
		} else if (st != BR_DIFF_SAME) {
			ok = 0;
			name_add(unknown, unknown_len, &ou, br_cmp_setting_key[k]);
		}
	}
	/* driver and CUDA (run.json labels) may be unstated; the sentence does not name them */
	for (size_t k = 0; k < p.n_extra; k++) {
		const char *n = p.extra[k].name;
		if (strcmp(n, "num_prompts") == 0 || p.extra[k].state == BR_DIFF_SAME ||
		    (p.extra[k].state == BR_DIFF_UNKNOWN && (strcmp(n, "driver") == 0 || strcmp(n, "CUDA") == 0)))
			continue;
		ok = 0;
		if (p.extra[k].state == BR_DIFF_DIFFERS)
			why_add(why, why_len, &o, n, p.extra[k].a_text, p.extra[k].b_text);
		else
			name_add(unknown, unknown_len, &ou, n);
	}
	/* the same C is the same load only when both runs had at least C
	 * prompts: with N < C at most N requests were ever in flight (aud31:
	 * "same C = 64" against a light run of 40 prompts) */
	{
		double eff = br_effective_concurrency(b, NULL), feff = br_effective_concurrency(fb, NULL);
		if (num(eff) && num(feff) && eff != feff) {
			char ea[32], eb[32];
			snprintf(ea, sizeof ea, "%.0f", eff);
			snprintf(eb, sizeof eb, "%.0f", feff);
			ok = 0;
			why_add(why, why_len, &o, "requests in flight at most (min of C and prompts)", ea, eb);
		}
	}
	ok = ok && !p.different_engines;   /* two engines are not one server at two lengths */
	/* near: the same concurrency, other lengths, kept up without preempting:
	 * only its settings keep it out of the contrast */
	*near = !ok && lengths_differ && !p.different_engines && p.diffs[BR_SET_CONCURRENCY].state == BR_DIFF_SAME &&
	    o + ou > 0;
	br_cmp_pair_free(&p);
	/* the lengths must differ, or it is a repeat, not a contrast */
	return ok && lengths_differ;
}

static double
lat(const br_analysis *a, int k, int which)
{
	const br_describe_t *m = &a->latency.m[k];
	if (!a->latency.has_stats[k] && m->count == 0)
		return NAN;
	return which == 50 ? m->median : which == 90 ? m->p90 : m->p99;
}

/*
 * slow_gap_frac: the share of a run's ITL gaps longer than SLOW_GAP × its
 * own median, from the per-request samples (NAN without them): the
 * steps that carried more than a plain decode (another request's prefill
 * chunk, a recompute, a stall).
 */
#define SLOW_GAP 3.0
static double
slow_gap_frac(const br_analysis *a)
{
	const br_ranked *r = a->latency.ranked[BR_ITL];
	size_t n = br_ranked_count(r);
	if (n == 0 || !num(a->latency.m[BR_ITL].median))
		return NAN;
	double lim = SLOW_GAP * a->latency.m[BR_ITL].median;
	return (double)br_ranked_count_above(r, lim) / (double)n;
}

static void
add(br_story *s, const char *id)
{
	if (s->n_ids < sizeof s->ids / sizeof s->ids[0])
		s->ids[s->n_ids++] = id;
}


/* br_expect_verdicts: see story.h. */
void
br_expect_verdicts(const br_analysis *a, double itl_p99_ratio, int verdict[BR_N_EXPECT])
{
	const br_run *r = a->run;
	double pre = br_preemption_count(a);
	for (int k = 0; k < BR_N_EXPECT; k++)
		verdict[k] = BR_VERDICT_UNKNOWN;
	if (a->residency.available && num(a->residency.kv_peak_frac))
		verdict[BR_EXPECT_KV_FULL] = a->residency.kv_peak_frac >= KV_FULL_MIN ? BR_VERDICT_HOLDS :
		    a->residency.kv_peak_frac >= KV_FULL_PARTLY ? BR_VERDICT_PARTLY : BR_VERDICT_FAILS;
	if (num(pre))
		verdict[BR_EXPECT_PREEMPTIONS] = pre > 0 ? BR_VERDICT_HOLDS : BR_VERDICT_FAILS;
	/* V1 writes no line per preemption; a V0 log or an unknown engine may,
	 * and the parser does not count those lines: unknown then */
	if (r && r->log && !r->log->did_not_start && r->log->n_preemption_lines > 0)
		/* the lines are there (V0's format); V0 prints one per 50
		 * preemptions, so fewer lines than preemptions is not a line each */
		/* (a count read from those very lines is their lower bound: it
		 * cannot show a line each either: audit, "holds" for 1 line) */
		verdict[BR_EXPECT_LOG_LINES] = num(pre) && (pre > (double)r->log->n_preemption_lines ||
		    a->preemptions.count_from_v0_log) ? BR_VERDICT_PARTLY : BR_VERDICT_HOLDS;
	else if (num(pre) && pre > 0 && r && r->log && !r->log->did_not_start && same_str(r->log->engine, "V1"))
		verdict[BR_EXPECT_LOG_LINES] = br_log_states_preemptions(r->log) ? BR_VERDICT_PARTLY :
		    BR_VERDICT_FAILS;
	/* p99 did not move, but the recompute gaps are there, beyond it (ITL
	 * stalls, at p99.99 in the reference rounds): the effect exists and
	 * looks different from the plan's, which is "partly" (the reference's
	 * tally: three hold, one partly, one does not) */
	int gaps_beyond_p99 = num(pre) && pre > 0 && a->latency.itl_stalls_known && a->latency.itl_stalls > 0;
	int none = num(pre) && pre == 0 && !a->preemptions.count_lower_bound;
	if (none)
		/* the expectation is a spike caused by recompute: with no
		 * preemption there was no recompute to cause one, whatever p99
		 * did (audit: "preemption gaps sit at p99.99" beside 0) */
		verdict[BR_EXPECT_ITL_P99_SPIKE] = BR_VERDICT_FAILS;
	else if (num(itl_p99_ratio))
		verdict[BR_EXPECT_ITL_P99_SPIKE] = itl_p99_ratio >= SPIKE_HOLDS ? BR_VERDICT_HOLDS :
		    itl_p99_ratio >= SPIKE_PARTLY || gaps_beyond_p99 ? BR_VERDICT_PARTLY : BR_VERDICT_FAILS;
	double ttft_s = lat(a, BR_TTFT, 50) / 1000.0, itl_s = lat(a, BR_ITL, 50) / 1000.0;
	double base = a->ttft_split.available ? a->ttft_split.prefill_s + itl_s : NAN;
	if (num(ttft_s) && num(base) && base > 0) {
		double q = ttft_s / base;
		verdict[BR_EXPECT_TTFT_EXPLODES] = q > TTFT_EXPLODED ? BR_VERDICT_HOLDS :
		    q > TTFT_PARTLY ? BR_VERDICT_PARTLY : BR_VERDICT_FAILS;
	}
}

/*
 * collapse_from_pool: 1 when the focus run's low residency is the KV pool's
 * doing: the running count stayed below the server log's cap on running
 * requests (max_num_seqs; unknown cap: not held against it) and, beside a
 * light run, below COLLAPSE_VS_LIGHT × that run's mean running. Two runs
 * held alike at the cap are not told apart by the pool.
 */
#define COLLAPSE_VS_LIGHT 0.9
static int
collapse_from_pool(const br_story *s, const br_analysis *fa)
{
	double cap = br_log_cap(fa->run, NULL, NULL);
	if (num(cap) && cap > 0 && num(s->focus_running_peak) && s->focus_running_peak >= cap)
		return 0;
	if (s->has_contrast && !(num(s->light_running_mean) && num(s->focus_running_mean) &&
	    s->focus_running_mean < COLLAPSE_VS_LIGHT * s->light_running_mean))
		return 0;
	return 1;
}

void
br_story_build(const br_campaign *c, br_story *s)
{
	memset(s, 0, sizeof *s);
	double *all[] = { &s->concurrency, &s->light_in_tokens, &s->light_out_tokens, &s->focus_in_tokens,
		&s->focus_out_tokens, &s->light_num_prompts, &s->focus_num_prompts, &s->light_out_tps,
		&s->focus_out_tps, &s->out_tps_change_frac, &s->light_ttft_p50_ms, &s->focus_ttft_p50_ms,
		&s->ttft_p50_ratio, &s->light_running_peak, &s->light_running_mean, &s->light_kv_peak_frac, &s->focus_running_mean,
		&s->focus_running_peak, &s->light_itl_p90_ms, &s->focus_itl_p90_ms, &s->light_itl_p99_ms,
		&s->focus_itl_p99_ms, &s->itl_p99_ratio, &s->recompute_share_frac, &s->recompute_s,
		&s->out_tps_kept_frac, &s->resident_share, &s->kv_pool_bytes, &s->light_slow_gap_frac,
		&s->focus_slow_gap_frac, &s->light_queue_s, &s->focus_queue_s, &s->light_prefill_s,
		&s->focus_prefill_s, &s->queue_ratio };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		*all[i] = NAN;
	if (c->n_runs == 0)
		return;
	size_t f = c->focus;
	const br_analysis *fa = &c->analyses[f];
	const br_bench *fb = &c->runs[f].bench.runs[0];
	double fpre = br_preemption_count(fa);
	int overloaded = (num(fpre) && fpre > 0) ||
	    (fa->capacity.available && fa->capacity.oversubscription > 1.0);
	s->overloaded = overloaded;
	/* the light run: the highest output throughput among the candidates;
	 * without one, the first run that misses only by its settings says why */
	for (size_t i = 0; overloaded && i < c->n_runs; i++) {
		int near = 0;
		char why[sizeof s->near_differs], unknown[sizeof s->near_unknown];
		if (!is_light(c, i, f, &near, why, sizeof why, unknown, sizeof unknown)) {
			if (near && !s->has_near) {
				s->has_near = 1;
				s->near = i;
				memcpy(s->near_differs, why, sizeof why);
				memcpy(s->near_unknown, unknown, sizeof unknown);
			}
			continue;
		}
		if (!s->has_contrast || c->runs[i].bench.runs[0].output_throughput_tps >
		    c->runs[s->light].bench.runs[0].output_throughput_tps) {
			s->has_contrast = 1;
			s->light = i;
		}
	}
	if (fa->residency.available) {
		s->focus_running_mean = fa->residency.running_mean;
		s->focus_running_peak = fa->residency.running_peak;
		s->resident_share = fa->residency.resident_share;
	}
	s->focus_out_tps = fb->output_throughput_tps;
	if (fa->capacity.available && num(fa->capacity.kv_pool_gib))
		/* to the digits the log's GiB carries: 4.64 GiB is 4,980,000,000
		 * bytes, not 4,982,162,063 (fifteenth breaker: false precision) */
		s->kv_pool_bytes = br_round_sig(fa->capacity.kv_pool_gib * 1073741824.0, fa->capacity.kv_gib_sig_digits);
	s->focus_ttft_p50_ms = lat(fa, BR_TTFT, 50);
	s->focus_itl_p90_ms = lat(fa, BR_ITL, 90);
	s->focus_itl_p99_ms = lat(fa, BR_ITL, 99);
	s->focus_in_tokens = fa->capacity.mean_input_tokens;
	s->focus_out_tokens = fa->capacity.mean_output_tokens;
	s->focus_num_prompts = fb->num_prompts;
	if (fa->flops.available) {
		s->recompute_share_frac = fa->flops.recompute_share_frac;
		s->recompute_s = fa->flops.recompute_s;
	}
	if (s->has_contrast) {
		const br_analysis *la = &c->analyses[s->light];
		const br_bench *lb = &c->runs[s->light].bench.runs[0];
		s->concurrency = fb->max_concurrency;
		s->light_in_tokens = la->capacity.mean_input_tokens;
		s->light_out_tokens = la->capacity.mean_output_tokens;
		s->light_num_prompts = lb->num_prompts;
		s->n_prompts_differ = !(lb->num_prompts == fb->num_prompts);
		s->light_out_tps = lb->output_throughput_tps;
		s->out_tps_kept_frac = s->focus_out_tps / s->light_out_tps;
		s->out_tps_change_frac = s->out_tps_kept_frac - 1.0;
		s->light_ttft_p50_ms = lat(la, BR_TTFT, 50);
		s->ttft_p50_ratio = s->focus_ttft_p50_ms / s->light_ttft_p50_ms;
		if (la->residency.available) {
			s->light_running_peak = la->residency.running_peak;
			s->light_running_mean = la->residency.running_mean;
			s->light_kv_peak_frac = la->residency.kv_peak_frac;
		}
		s->light_itl_p90_ms = lat(la, BR_ITL, 90);
		s->light_itl_p99_ms = lat(la, BR_ITL, 99);
		s->itl_p99_ratio = s->focus_itl_p99_ms / s->light_itl_p99_ms;
		s->light_slow_gap_frac = slow_gap_frac(la);
		s->focus_slow_gap_frac = slow_gap_frac(fa);
		if (la->ttft_split.available && fa->ttft_split.available) {
			s->light_queue_s = la->ttft_split.queue_s;
			s->focus_queue_s = fa->ttft_split.queue_s;
			s->light_prefill_s = la->ttft_split.prefill_s;
			s->focus_prefill_s = fa->ttft_split.prefill_s;
			s->queue_ratio = s->light_queue_s > 0 ? s->focus_queue_s / s->light_queue_s : NAN;
		}
	}
	if (!s->has_contrast && s->has_near)
		s->concurrency = fb->max_concurrency;
	br_expect_verdicts(fa, s->itl_p99_ratio, s->verdict);
	if (c->n_plan > 0) {
		s->plan = c->plan;
		s->n_plan = c->n_plan;
		s->plan_source = "campaign.json";
	} else if (c->runs[f].n_plan > 0) {
		s->plan = c->runs[f].plan;
		s->n_plan = c->runs[f].n_plan;
		s->plan_source = "run.json";
	}

	/* the campaign's findings */
	if (s->has_contrast && num(s->out_tps_change_frac) && num(s->ttft_p50_ratio))
		add(s, s->n_prompts_differ ? "length_contrast_n" : "length_contrast");
	else if (!s->has_contrast && s->has_near)
		/* settings proven to differ are named with both values; when none
		 * is, the ones not stated on both sides are what keeps the pair
		 * out (audit: "max_num_seqs n/a → n/a" read as a difference) */
		add(s, s->near_differs[0] ? "no_contrast_settings" : "no_contrast_unknown");
	/* recompute is the wound, the collapse the cliff: the focus run
	 * preempted, the recompute share is small against the throughput lost,
	 * and the concurrency collapsed through the pool (audit: said of two
	 * runs held alike at max_num_seqs = 8 with no preemption) */
	if (s->has_contrast && num(fpre) && fpre > 0 && num(s->recompute_share_frac) &&
	    num(s->out_tps_kept_frac) && num(s->resident_share) && s->resident_share < RESIDENT_COLLAPSE &&
	    collapse_from_pool(s, fa) && s->recompute_share_frac < 1.0 - s->out_tps_kept_frac)
		add(s, "wound_vs_cliff");
	/* ITL p90 better under overload, and the mechanism seen in the data:
	 * fewer gaps longer than 3 × the median (steps carrying a prefill) */
	if (s->has_contrast && num(s->focus_itl_p90_ms) && num(s->light_itl_p90_ms) &&
	    s->focus_itl_p90_ms < ITL_P90_BETTER * s->light_itl_p90_ms && num(s->focus_running_mean) &&
	    num(s->light_slow_gap_frac) && num(s->focus_slow_gap_frac) &&
	    s->focus_slow_gap_frac < s->light_slow_gap_frac)
		add(s, num(s->itl_p99_ratio) && s->itl_p99_ratio >= 0.8 && s->itl_p99_ratio <= 1.25 ?
		    "itl_p90_better" : "itl_p90_better_p99_moved");
	/* the designed experiment: the campaign shows pool → resident →
	 * throughput (oversubscribed focus whose concurrency collapsed) */
	if (fa->capacity.available && fa->capacity.oversubscription > 1.0 && num(s->resident_share) &&
	    s->resident_share < RESIDENT_COLLAPSE && collapse_from_pool(s, fa) && num(s->kv_pool_bytes))
		add(s, "rec_kv_pool_experiment");
}

int
br_story_has(const br_story *s, const char *id)
{
	for (size_t i = 0; i < s->n_ids; i++)
		if (strcmp(s->ids[i], id) == 0)
			return 1;
	return 0;
}
