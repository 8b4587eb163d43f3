/*
 * The campaign's story (issue 10; the round-1 / round-2 reference reports,
 * ../shared/seeds/): what the comparison across configurations says about
 * the focus run that no single run can say.
 *
 *  - The length contrast: a "light" run at the same concurrency C as the
 *    focus run, inside the KV pool and without preemptions, on the same
 *    model, GPU, vLLM version and pool: only the request lengths (and
 *    perhaps N) differ, so the drop in throughput and the rise in TTFT are
 *    the price of the longer requests alone.
 *  - Recompute against the collapse: the focus run's recompute share of the
 *    wall clock (FLOPs ledger) against the throughput it kept (focus /
 *    light) and the share of C that was resident.
 *  - ITL p90 under overload against the light run's.
 *  - The standard expectations of an overload test, each with a verdict
 *    from the data (holds, partly, does not hold, unknown).
 *
 * Numbers are NAN when unknown; a sentence that needs one never fires.
 * Ownership: br_story holds no heap memory; ids and keys are static.
 */
#ifndef BENCHREPORT_STORY_H
#define BENCHREPORT_STORY_H
#include <stddef.h>
#include "benchreport/campaign.h"

enum br_verdict { BR_VERDICT_UNKNOWN = 0, BR_VERDICT_HOLDS, BR_VERDICT_PARTLY, BR_VERDICT_FAILS };
extern const char *const br_verdict_name[4];   /* "unknown", "holds", "partly", "does_not_hold" */

/* The standard expectations of an overload test (the reference plan's five). */
enum {
	BR_EXPECT_KV_FULL,            /* KV cache usage reaches ~100% */
	BR_EXPECT_PREEMPTIONS,        /* the scheduler preempts requests */
	BR_EXPECT_LOG_LINES,          /* the server log shows a line per preemption ("is preempted by") */
	BR_EXPECT_ITL_P99_SPIKE,      /* p99 ITL spikes (preempted requests recompute) */
	BR_EXPECT_TTFT_EXPLODES,      /* TTFT grows far beyond prefill time (queueing) */
	BR_N_EXPECT
};
/* the ids are br_plan_check_id (run.h), in this order */
_Static_assert((int)BR_N_EXPECT == (int)BR_N_PLAN_CHECKS, "story expectations = plan checks");

typedef struct br_story {
	/* ---- the length contrast ---- */
	int has_contrast;             /* a light run exists (see the file comment) */
	size_t light;                 /* its index in br_campaign.runs (valid when has_contrast) */
	int n_prompts_differ;         /* 1 when N differs between the two runs */
	int has_near;                 /* (added) no light run, but run `near` is at the focus's
	                                 concurrency with other lengths and no preemption: only
	                                 its settings, near_differs, keep it out */
	size_t near;
	char near_differs[240];       /* "gpu NVIDIA GeForce RTX 4090 → NVIDIA H100; arg enforce_eager
	                                 default → True" (near → focus): the settings proven to
	                                 differ; "" when none */
	char near_unknown[240];       /* (added) "max_num_seqs, server arguments": the settings not
	                                 stated on both sides, so not proven the same; "" when none */
	double concurrency;           /* C of both, requests */
	double light_in_tokens, light_out_tokens, focus_in_tokens, focus_out_tokens;  /* mean per request */
	double light_num_prompts, focus_num_prompts;
	double light_out_tps, focus_out_tps;          /* output tokens/s */
	double out_tps_change_frac;                   /* focus / light − 1 (−0.69 = −69%) */
	double light_ttft_p50_ms, focus_ttft_p50_ms, ttft_p50_ratio;   /* ratio focus / light */
	double light_running_peak, light_running_mean, light_kv_peak_frac;
	double focus_running_mean, focus_running_peak;
	double light_itl_p90_ms, focus_itl_p90_ms;
	double light_itl_p99_ms, focus_itl_p99_ms, itl_p99_ratio;      /* ratio focus / light */
	double light_queue_s, focus_queue_s;          /* (added) server TTFT split (ttft_split): mean
	                                                 queue and prefill time per request, s */
	double light_prefill_s, focus_prefill_s;
	double queue_ratio;                            /* focus / light queue time */
	double light_slow_gap_frac, focus_slow_gap_frac;  /* share of ITL gaps > 3 × the run's own median
	                                                     (per-request arrays; NAN without them) */
	/* ---- recompute against the collapse ---- */
	double recompute_share_frac;  /* focus: recompute GPU time / duration (FLOPs ledger) */
	double recompute_s;
	double out_tps_kept_frac;     /* focus / light output throughput */
	double resident_share;        /* focus: mean running / C */
	double kv_pool_bytes;         /* focus: KV pool, bytes (GiB · 2^30), for --kv-cache-memory-bytes */
	/* ---- expectations ---- */
	int overloaded;               /* the focus run preempted or its demand exceeded the pool: the
	                                 standard expectations of an overload test apply */
	int verdict[BR_N_EXPECT];     /* enum br_verdict */
	/* ---- the plan: campaign.json's "expect", else the focus run's run.json's (not owned) ---- */
	const br_plan_item *plan;
	size_t n_plan;
	const char *plan_source;      /* "campaign.json", "run.json of RUN", NULL = no plan */
	/* ---- campaign findings, in order (template keys "story.<id>") ---- */
	const char *ids[8];
	size_t n_ids;
} br_story;

/*
 * br_story_build: fill *out from the campaign's analysed runs (c->analyses,
 * calibrated when the campaign has a calibration). Never fails: what the
 * runs cannot show stays NAN / unknown and its sentence is not chosen.
 */
void br_story_build(const br_campaign *c, br_story *out);

/*
 * br_expect_verdicts: the verdict of each standard expectation on run
 * analysis a (enum br_verdict into verdict[k], k as br_plan_check_id).
 * itl_p99_ratio: the run's ITL p99 over a light run's at the same C (NAN when
 * there is none: the p99 spike is then unknown). Thresholds in story.c.
 */
void br_expect_verdicts(const br_analysis *a, double itl_p99_ratio, int verdict[BR_N_EXPECT]);

/* br_story_has: 1 when id is among out->ids. */
int br_story_has(const br_story *s, const char *id);
#endif
