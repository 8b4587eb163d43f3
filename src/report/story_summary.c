/*
 * The campaign story (include/benchreport/story.h) as summary.json's
 * "story" object: the numbers every story sentence cites, the light run's
 * name, the verdict of each standard expectation and the chosen sentence ids.
 */
#include <math.h>
#include "benchreport/report.h"
#include "benchreport/story.h"
#include "benchreport/model.h"

static json_t *
jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

json_t *
br_story_summary(const br_campaign *c, const br_story *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "has_contrast", json_boolean(s->has_contrast));
	json_object_set_new(o, "light_name", s->has_contrast ? json_string(c->runs[s->light].name) : json_null());
	/* no light run, but one at the focus's C kept out by its settings alone */
	json_object_set_new(o, "near_name", s->has_near ? json_string(c->runs[s->near].name) : json_null());
	json_object_set_new(o, "near_differs", s->has_near ? json_string(s->near_differs) : json_null());
	json_object_set_new(o, "near_unknown", s->has_near ? json_string(s->near_unknown) : json_null());
	json_object_set_new(o, "focus_name", c->n_runs ? json_string(c->runs[c->focus].name) : json_null());
	json_object_set_new(o, "num_prompts_differ", json_boolean(s->n_prompts_differ));
	struct { const char *k; double v; } nums[] = {
		{ "concurrency", s->concurrency },
		{ "light_input_tokens", s->light_in_tokens }, { "light_output_tokens", s->light_out_tokens },
		{ "focus_input_tokens", s->focus_in_tokens }, { "focus_output_tokens", s->focus_out_tokens },
		{ "light_num_prompts", s->light_num_prompts }, { "focus_num_prompts", s->focus_num_prompts },
		{ "light_output_tps", s->light_out_tps }, { "focus_output_tps", s->focus_out_tps },
		{ "output_tps_change_frac", s->out_tps_change_frac }, { "output_tps_kept_frac", s->out_tps_kept_frac },
		{ "light_ttft_p50_ms", s->light_ttft_p50_ms }, { "focus_ttft_p50_ms", s->focus_ttft_p50_ms },
		{ "ttft_p50_ratio", s->ttft_p50_ratio },
		{ "light_running_peak", s->light_running_peak }, { "light_running_mean", s->light_running_mean }, { "light_kv_peak_frac", s->light_kv_peak_frac },
		{ "focus_running_mean", s->focus_running_mean }, { "focus_running_peak", s->focus_running_peak },
		{ "light_itl_p90_ms", s->light_itl_p90_ms }, { "focus_itl_p90_ms", s->focus_itl_p90_ms },
		{ "light_itl_p99_ms", s->light_itl_p99_ms }, { "focus_itl_p99_ms", s->focus_itl_p99_ms },
		{ "itl_p99_ratio", s->itl_p99_ratio },
		{ "light_slow_gap_frac", s->light_slow_gap_frac }, { "focus_slow_gap_frac", s->focus_slow_gap_frac },
		{ "light_queue_s", s->light_queue_s }, { "focus_queue_s", s->focus_queue_s },
		{ "light_prefill_s", s->light_prefill_s }, { "focus_prefill_s", s->focus_prefill_s },
		{ "queue_ratio", s->queue_ratio },
		{ "recompute_share_frac", s->recompute_share_frac }, { "recompute_s", s->recompute_s },
		{ "resident_share", s->resident_share }, { "kv_pool_bytes", s->kv_pool_bytes },
	};
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
		json_object_set_new(o, nums[i].k, jnum(nums[i].v));
	json_t *v = json_object();
	for (int k = 0; k < BR_N_EXPECT; k++)
		json_object_set_new(v, br_plan_check_id[k], json_string(br_verdict_name[s->verdict[k]]));
	json_object_set_new(o, "expectations", v);
	json_object_set_new(o, "plan_source", s->plan_source ? json_string(s->plan_source) : json_null());
	/* a plan's checks always; the standard ones only for an overload test */
	json_object_set_new(o, "overloaded", json_boolean(s->overloaded));
	/* vLLM V0's line per preemption is no expectation of SGLang or llama.cpp
	 * (thirty-second audit: "... is preempted by ..." asked of an SGLang log) */
	br_engine fe = c->n_runs ? br_run_engine(&c->runs[c->focus]) : BR_ENGINE_UNKNOWN;
	json_object_set_new(o, "checks", s->n_plan > 0 || s->overloaded ?
	    br_plan_checks_json(s->plan, s->n_plan, s->verdict, fe == BR_ENGINE_SGLANG || fe == BR_ENGINE_LLAMACPP) :
	    json_array());
	json_t *ids = json_array();
	for (size_t i = 0; i < s->n_ids; i++)
		json_array_append_new(ids, json_string(s->ids[i]));
	json_object_set_new(o, "findings", ids);
	return o;
}

json_t *
br_plan_checks_json(const br_plan_item *plan, size_t n_plan, const int *verdict, int no_log_lines)
{
	json_t *a = json_array();
	size_t n = n_plan > 0 ? n_plan : BR_N_EXPECT;
	for (size_t i = 0; i < n; i++) {
		int k = n_plan > 0 ? plan[i].check : (int)i;
		if (n_plan == 0 && no_log_lines && k == BR_EXPECT_LOG_LINES)
			continue;
		const char *words = n_plan > 0 ? plan[i].plan : NULL;
		json_array_append_new(a, json_pack("{s:s, s:o, s:s}", "check", br_plan_check_id[k],
		    "plan", words ? json_string(words) : json_null(), "verdict", br_verdict_name[verdict[k]]));
	}
	return a;
}
