/*
 * summary.json: every number of the report, machine-readable, units in the
 * key names, NAN → null. The PDF's sentences are filled from this object,
 * so a number appears in the report only if it is here.
 */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/report.h"
#include "benchreport/model.h"
#include "benchreport/story.h"
#include "benchreport/findings.h"

/* jnum: a JSON real, or null when x is NaN/±Inf (JSON has no such values). */
static json_t *
jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* jint: a JSON integer for whole numbers, else as jnum. */
static json_t *
jint(double x)
{
	if (isfinite(x) && x == floor(x) && fabs(x) < 9e15)
		return json_integer((json_int_t)x);
	return jnum(x);
}

static json_t *
jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static void
set(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v ? v : json_null());
}

static json_t *
describe_json(const br_describe_t *d, int count_known)
{
	json_t *o = json_object();
	set(o, "count", count_known ? json_integer((json_int_t)d->count) : json_null());
	set(o, "mean_ms", jnum(d->mean));
	set(o, "std_ms", jnum(d->std));
	set(o, "median_ms", jnum(d->median));
	set(o, "p90_ms", jnum(d->p90));
	set(o, "p99_ms", jnum(d->p99));
	set(o, "p99_9_ms", jnum(d->p999));
	set(o, "p99_99_ms", jnum(d->p9999));
	set(o, "min_ms", jnum(d->min));
	set(o, "max_ms", jnum(d->max));
	return o;
}

static json_t *
latency_json(const br_latency *l)
{
	json_t *o = json_object();
	set(o, "from_arrays", json_boolean(l->from_arrays));
	set(o, "itl_from_file", json_boolean(l->itl_from_file));
	set(o, "itl_array_absent", json_boolean(l->itl_array_absent));
	set(o, "e2el_rebuilt", json_boolean(l->e2el_rebuilt));
	set(o, "e2el_from_file", json_boolean(l->e2el_from_file));
	set(o, "n_e2el_unbuildable", json_integer((json_int_t)l->n_e2el_unbuildable));
	for (int m = 0; m < BR_N_LATENCY; m++)
		set(o, br_latency_metric_name[m], describe_json(&l->m[m], l->count_known[m]));
	set(o, "n_requests", json_integer((json_int_t)l->n_requests));
	set(o, "n_succeeded", json_integer((json_int_t)l->n_succeeded));
	set(o, "n_failed", json_integer((json_int_t)l->n_failed));
	json_t *failed = json_array();
	for (size_t i = 0; i < l->n_failed && l->failed_index; i++)
		json_array_append_new(failed, json_integer((json_int_t)l->failed_index[i]));
	set(o, "failed_request_index", failed);
	set(o, "itl_stalls", l->itl_stalls_known ? json_integer((json_int_t)l->itl_stalls) : json_null());
	set(o, "itl_stall_threshold_ms", jnum(l->itl_stall_threshold_ms));
	set(o, "itl_stall_rule", isfinite(l->itl_stall_threshold_ms) ?
	    json_string(l->itl_stall_from_p99 ? "3 × ITL p99" : "10 × median ITL") : json_null());
	set(o, "n_itl_inconsistent_requests", json_integer((json_int_t)l->n_itl_inconsistent));
	set(o, "n_ttft_zero_requests", json_integer((json_int_t)l->n_ttft_zero));
	json_t *ev = json_object();
	set(ev, "known", json_boolean(l->stall_event_known));
	set(ev, "gap_ms", jnum(l->stall_event_known ? l->stall_event_ms : NAN));
	set(ev, "at_s", jnum(l->stall_event_known ? l->stall_event_at_s : NAN));
	set(ev, "streams", l->stall_event_known ? json_integer((json_int_t)l->stall_event_streams) : json_null());
	set(ev, "first_tokens", l->stall_event_known ? json_integer((json_int_t)l->stall_event_first_tokens) : json_null());
	set(ev, "requests", l->stall_event_known ?
	    json_integer((json_int_t)(l->stall_event_streams + l->stall_event_first_tokens)) : json_null());
	set(o, "stall_event", ev);
	json_t *dis = json_object();   /* per metric: the file's percentiles that contradict each other */
	for (int m = 0; m < BR_N_LATENCY; m++) {
		json_t *d = json_null();
		if (l->file_disorder[m]) {
			d = json_object();
			set(d, "lower_pct", jnum(l->disorder_lo_pct[m]));
			set(d, "lower_ms", jnum(l->disorder_lo_ms[m]));
			set(d, "higher_pct", jnum(l->disorder_hi_pct[m]));
			set(d, "higher_ms", jnum(l->disorder_hi_ms[m]));
		}
		set(dis, br_latency_metric_name[m], d);
	}
	set(o, "file_percentiles_disordered", dis);
	json_t *checks = json_array();
	for (size_t i = 0; i < l->n_checks; i++) {
		const br_latency_check *c = &l->checks[i];
		json_t *co = json_object();
		set(co, "key", json_string(c->key));
		set(co, "file_ms", jnum(c->file_ms));
		set(co, "recomputed_ms", jnum(c->recomputed_ms));
		set(co, "rel_diff", jnum(c->rel_diff));
		set(co, "agrees", json_boolean(c->agrees));
		json_array_append_new(checks, co);
	}
	set(o, "file_checks", checks);
	set(o, "n_file_checks", json_integer((json_int_t)l->n_checks));
	set(o, "n_file_checks_empty", json_integer((json_int_t)l->n_checks_empty));
	set(o, "n_file_checks_compared", json_integer((json_int_t)(l->n_checks - l->n_checks_empty)));
	set(o, "n_mismatches", json_integer((json_int_t)l->n_mismatches));
	json_t *groups = json_array();
	for (size_t i = 0; i < l->n_error_groups; i++) {
		const br_error_group *g = &l->error_groups[i];
		json_t *go = json_object(), *idx = json_array();
		for (size_t k = 0; k < g->n_index; k++)
			json_array_append_new(idx, json_integer((json_int_t)g->first_index[k]));
		set(go, "message", json_string(g->message));
		set(go, "count", json_integer((json_int_t)g->count));
		set(go, "first_request_index", idx);
		json_array_append_new(groups, go);
	}
	set(o, "error_groups", groups);
	set(o, "n_error_groups", json_integer((json_int_t)l->n_error_groups));
	set(o, "error_groups_top_message", jstr(l->n_error_groups ? l->error_groups[0].message : NULL));
	set(o, "error_groups_top_count", l->n_error_groups ?
	    json_integer((json_int_t)l->error_groups[0].count) : json_null());
	return o;
}

static json_t *
capacity_json(const br_capacity *c)
{
	json_t *o = json_object();
	set(o, "available", json_boolean(c->available));
	set(o, "missing", jstr(c->available ? NULL : c->missing));
	set(o, "kv_pool_tokens", jint(c->kv_pool_tokens));
	set(o, "kv_pool_source", jstr(c->kv_pool_source));
	set(o, "max_model_len_tokens", jint(c->max_model_len_tokens));
	set(o, "predicted_max_concurrency", jnum(c->predicted_max_concurrency));
	set(o, "log_max_concurrency_x", jnum(c->log_max_concurrency_x));
	set(o, "kv_pool_gib", jnum(c->kv_pool_gib));
	set(o, "kv_bytes_per_token", jnum(c->kv_bytes_per_token));
	set(o, "concurrency", jint(c->concurrency));
	set(o, "effective_concurrency", jint(c->effective_concurrency));
	set(o, "effective_concurrency_reason", jstr(c->effective_concurrency_reason));
	set(o, "mean_input_tokens", jnum(c->mean_input_tokens));
	set(o, "mean_output_tokens", jnum(c->mean_output_tokens));
	set(o, "demand_tokens", jnum(c->demand_tokens));
	/* on the pool's own basis (one GPU's memory for P tokens), so the two
	 * GiB figures compare as the token counts do: under decode context
	 * parallelism a token's bytes over all ranks (kv_bytes_per_token) made
	 * the demand 4x the pool's scale (thirty-fifth audit: 0.1 GiB beside a
	 * 13.52 GiB pool at 0.00246x) */
	double gib_per_token = isfinite(c->kv_pool_gib) && c->kv_pool_tokens > 0 ?
	    c->kv_pool_gib / c->kv_pool_tokens : NAN;
	set(o, "demand_gib", jnum(c->demand_tokens * gib_per_token));
	/* one request at full length (in + out), in MiB: the reference's 8,192 x 56 KiB = 448 MiB */
	set(o, "request_kv_mib", jnum(c->effective_concurrency > 0 ?
	    c->demand_tokens / (double)c->effective_concurrency * gib_per_token * 1024.0 : NAN));
	set(o, "oversubscription", jnum(c->oversubscription));
	set(o, "resident_estimate", jnum(c->resident_estimate));
	set(o, "resident_kv_bound", jnum(c->resident_kv_bound));
	set(o, "resident_capped_by_max_num_seqs", json_boolean(c->resident_capped_by_max_num_seqs));
	set(o, "resident_cap_from_slots", json_boolean(c->resident_cap_from_slots));
	set(o, "n_slots_listed", jint(c->n_slots_listed));
	return o;
}

static json_t *
ledger_json(const br_ledger *l)
{
	json_t *o = json_object();
	set(o, "available", json_boolean(l->available));
	set(o, "missing", jstr(l->available ? NULL : l->missing));
	set(o, "window_source", jstr(l->window_source));
	set(o, "window_start_unix_s", jnum(l->window_start_t_s));
	set(o, "window_end_unix_s", jnum(l->window_end_t_s));
	set(o, "counter_resets", json_integer(l->counter_resets));
	json_t *rows = json_array();
	size_t agree = 0, disagree = 0;
	for (size_t i = 0; i < l->n_rows; i++) {
		const br_ledger_row *r = &l->rows[i];
		json_t *ro = json_object();
		set(ro, "series", jstr(r->series));
		set(ro, "label", jstr(r->label));
		set(ro, "server_delta", jnum(r->server_delta));
		set(ro, "client_value", jnum(r->client_value));
		set(ro, "client_key", jstr(r->client_label));
		set(ro, "relation", jstr(r->relation));
		set(ro, "agrees", r->agrees < 0 ? json_null() : json_boolean(r->agrees));
		if (r->tolerance > 0)   /* (added) only for counters printed rounded */
			set(ro, "print_tolerance", jnum(r->tolerance));
		set(ro, "capture_short", json_boolean(r->capture_short));
		json_array_append_new(rows, ro);
		if (r->agrees == 1)
			agree++;
		else if (r->agrees == 0)
			disagree++;
	}
	set(o, "rows", rows);
	set(o, "n_agree", json_integer((json_int_t)agree));
	set(o, "n_disagree", json_integer((json_int_t)disagree));
	set(o, "n_capture_short", json_integer((json_int_t)l->n_capture_short));
	set(o, "window_cut", l->window_cut == 3 ? jstr("start and end") : l->window_cut == 1 ? jstr("start") :
	    l->window_cut == 2 ? jstr("end") : json_null());
	return o;
}

static json_t *
residency_json(const br_residency *r)
{
	json_t *o = json_object();
	set(o, "available", json_boolean(r->available));
	set(o, "missing", jstr(r->available ? NULL : r->missing));
	set(o, "n_samples", json_integer((json_int_t)r->n_samples));
	set(o, "sample_interval_s", jnum(r->sample_interval_s));
	set(o, "window_start_unix_s", jnum(r->window_start_t_s));
	set(o, "window_end_unix_s", jnum(r->window_end_t_s));
	set(o, "window_s", jnum(r->window_end_t_s - r->window_start_t_s));
	set(o, "running_mean", jnum(r->running_mean));
	set(o, "running_mean_active", jnum(r->running_mean_active));
	set(o, "running_median", jnum(r->running_median));
	set(o, "running_peak", jnum(r->running_peak));
	set(o, "waiting_mean", jnum(r->waiting_mean));
	set(o, "waiting_median", jnum(r->waiting_median));
	set(o, "waiting_peak", jnum(r->waiting_peak));
	set(o, "in_system_peak", jnum(r->in_system_peak));
	set(o, "resident_share", jnum(r->resident_share));
	set(o, "kv_usage_median_frac", jnum(r->kv_median_frac));
	set(o, "kv_usage_peak_frac", jnum(r->kv_peak_frac));
	set(o, "kv_usage_share_ge90", jnum(r->kv_share_ge90));
	set(o, "kv_usage_share_ge95", jnum(r->kv_share_ge95));
	set(o, "preemptions", jint(r->preemptions));
	return o;
}

static json_t *
preemptions_json(const br_preemptions *p)
{
	json_t *o = json_object();
	set(o, "available", json_boolean(p->available));
	set(o, "missing", jstr(p->available ? NULL : p->missing));
	set(o, "count_available", json_boolean(p->count_available));
	set(o, "count_source", jstr(p->count_source));
	set(o, "count_from_v0_log", json_boolean(p->count_from_v0_log));
	set(o, "count_is_lower_bound", json_boolean(p->count_lower_bound));
	set(o, "server_restarts", json_integer(p->server_restarts));
	set(o, "n_preemptions", jint(p->count_available ? p->n_preemptions : NAN));
	if (p->count_lower_bound)   /* the wording templates print "at least N" */
		set(o, "n_preemptions_is_lower_bound", json_true());
	set(o, "n_events", json_integer((json_int_t)p->n_events));
	set(o, "n_multi_events", json_integer((json_int_t)p->n_multi_events));
	set(o, "max_per_event", jint(p->max_per_event));
	set(o, "n_gap_events", json_integer((json_int_t)p->n_gap_events));
	set(o, "max_gap_event_s", jnum(p->max_gap_event_s));
	set(o, "window_s", jnum(p->window_s));
	set(o, "trigger_kv_frac", jnum(p->trigger_kv_frac));
	set(o, "trigger_min_kv_frac", jnum(p->trigger_min_kv_frac));
	set(o, "n_below_band", json_integer((json_int_t)p->n_below_band));
	set(o, "below_band_min_kv_frac", jnum(p->below_band_min_kv_frac));
	set(o, "mean_interval_s", jnum(p->mean_interval_s));
	set(o, "steady_first_s", jnum(p->steady_first_s));
	set(o, "steady_last_s", jnum(p->steady_last_s));
	set(o, "steady_ks_d", jnum(p->steady_ks_d));
	set(o, "steady_ks_crit", jnum(p->steady_ks_crit));
	set(o, "rate_per_min", jnum(p->rate_per_min));
	set(o, "mean_released_tokens_per_event", jnum(p->mean_released_tokens));
	set(o, "mean_released_tokens_per_preemption", jnum(p->mean_released_per_preemption_tokens));
	set(o, "released_unreadable", json_boolean(p->released_unreadable));
	set(o, "sample_step_s", jnum(p->sample_step_s));
	set(o, "coarse_samples", json_boolean(p->coarse));
	set(o, "n_release_readings", json_integer((json_int_t)p->n_release_readings));
	set(o, "n_release_negative", json_integer((json_int_t)p->n_release_negative));
	set(o, "n_release_used", json_integer((json_int_t)p->n_release_used));
	set(o, "total_released_tokens", jnum(p->total_released_tokens));
	json_t *ev = json_array();
	for (size_t i = 0; i < p->n_events; i++) {
		const br_preemption_event *e = &p->events[i];
		json_t *eo = json_object();
		set(eo, "t_unix_s", jnum(e->t_epoch_s));
		set(eo, "t_since_start_s", jnum(e->t_since_start_s));
		set(eo, "count", jint(e->count));
		set(eo, "kv_before_frac", jnum(e->kv_before_frac));
		set(eo, "kv_after_frac", jnum(e->kv_after_frac));
		set(eo, "released_tokens", jnum(e->released_tokens));
		set(eo, "running_before", jnum(e->running_before));
		set(eo, "running_after", jnum(e->running_after));
		set(eo, "span_s", jnum(e->span_s));
		set(eo, "across_gap", json_boolean(e->across_gap));
		set(eo, "below_band", json_boolean(e->below_band));
		json_array_append_new(ev, eo);
	}
	set(o, "events", ev);
	return o;
}

static json_t *
ttft_split_json(const br_ttft_split *t)
{
	json_t *o = json_object();
	set(o, "available", json_boolean(t->available));
	set(o, "missing", jstr(t->available ? NULL : t->missing));
	set(o, "window_source", jstr(t->window_source));
	set(o, "server_requests", jint(t->server_requests));
	set(o, "queue_s", jnum(t->queue_s));
	set(o, "prefill_s", jnum(t->prefill_s));
	set(o, "frontend_s", jnum(t->frontend_s));
	set(o, "frontend_negative", json_boolean(t->frontend_negative));
	set(o, "client_ttft_mean_s", jnum(t->client_ttft_mean_s));
	set(o, "client_source", jstr(t->client_source));
	set(o, "queue_share", jnum(t->queue_share));
	set(o, "prefill_share", jnum(t->prefill_share));
	set(o, "frontend_share", jnum(t->frontend_share));
	set(o, "server_ttft_mean_s", jnum(t->server_ttft_mean_s));
	set(o, "server_over_client", jnum(t->server_over_client));
	set(o, "population_differs", json_boolean(t->population_differs));
	return o;
}

/* log_timings_json: the br_log_timings block (llama-server's timing lines). */
static json_t *
log_timings_json(const br_log_timings *t)
{
	json_t *o = json_object();
	set(o, "available", json_boolean(t->available));
	set(o, "missing", jstr(t->missing));
	set(o, "n_requests", json_integer((json_int_t)t->n));
	set(o, "bench_completed", jint(t->bench_completed));
	set(o, "prompt_tokens_mean", jnum(t->prompt_tokens_mean));
	set(o, "prompt_ms_p50", jnum(t->prompt_ms_p50));
	set(o, "prompt_ms_p99", jnum(t->prompt_ms_p99));
	set(o, "prompt_tps_p50", jnum(t->prompt_tps_p50));
	set(o, "eval_tokens_mean", jnum(t->eval_tokens_mean));
	set(o, "eval_ms_per_token_p50", jnum(t->eval_ms_per_token_p50));
	set(o, "eval_ms_per_token_p99", jnum(t->eval_ms_per_token_p99));
	set(o, "eval_tps_p50", jnum(t->eval_tps_p50));
	set(o, "client_tpot_p50_ms", jnum(t->client_tpot_p50_ms));
	set(o, "client_minus_server_ms", jnum(t->client_tpot_p50_ms - t->eval_ms_per_token_p50));
	set(o, "bench_input_tokens_mean", jnum(t->bench_input_tokens_mean));
	set(o, "bench_output_tokens_mean", jnum(t->bench_output_tokens_mean));
	set(o, "tokens_disagree", json_boolean(t->tokens_disagree));
	return o;
}

static json_t *
littles_law_json(const br_littles_law *l)
{
	json_t *o = json_object();
	set(o, "available", json_boolean(l->available));
	set(o, "missing", jstr(l->available ? NULL : l->missing));
	set(o, "lambda_rps", jnum(l->lambda_rps));
	/* λ of the requests the server completed (the client saw some fail) */
	set(o, "lambda_from_server", json_boolean(l->lambda_from_server));
	set(o, "running_mean", jnum(l->running_mean));
	set(o, "w_resident_s", jnum(l->w_resident_s));
	set(o, "measured_resident_s", jnum(l->measured_resident_s));
	set(o, "measured_resident_source", jstr(l->measured_resident_source));
	set(o, "resident_ratio", jnum(l->resident_ratio));
	set(o, "implied_running", jnum(l->implied_running));
	set(o, "queue_length", jnum(l->queue_length));
	set(o, "queue_length_source", jstr(l->queue_length_source));
	set(o, "w_queue_s", jnum(l->w_queue_s));
	set(o, "measured_queue_s", jnum(l->measured_queue_s));
	set(o, "queue_ratio", jnum(l->queue_ratio));
	set(o, "ttft_p50_s", jnum(l->ttft_p50_s));
	set(o, "queue_ttft_ratio", jnum(l->queue_ttft_ratio));
	set(o, "implied_waiting", jnum(l->implied_waiting));
	set(o, "measured_requests", jnum(l->measured_requests));
	set(o, "measured_population_differs", json_boolean(l->measured_population_differs));
	return o;
}

static json_t *
flops_json(const br_flops_ledger *f)
{
	json_t *o = json_object();
	set(o, "available", json_boolean(f->available));
	set(o, "missing", jstr(f->available ? NULL : f->missing));
	set(o, "measured_flops", jnum(f->m.flops));
	set(o, "tokens", jnum(f->m.tokens));
	set(o, "measured_gflop_per_token", jnum(f->m.gflop_per_token));
	set(o, "mean_context_tokens", jnum(f->m.mean_context_tokens));
	set(o, "flop_rate_p95_per_s", jnum(f->m.flop_rate_p95_per_s));
	set(o, "flop_rate_peak_per_s", jnum(f->m.flop_rate_peak_per_s));
	set(o, "flop_rate_prefill_per_s", jnum(f->m.flop_rate_prefill_per_s));
	set(o, "model_gflop_per_token", jnum(f->model_gflop_per_token));
	set(o, "predicted_flops", jnum(f->predicted_flops));
	set(o, "excess_flops", jnum(f->excess_flops));
	set(o, "excess_frac", jnum(f->excess_frac));
	set(o, "released_tokens_per_preemption", jnum(f->released_tokens_per_preemption));
	set(o, "recompute_gflop_per_token", jnum(f->recompute_gflop_per_token));
	set(o, "recomputed_tokens", jnum(f->recomputed_tokens));
	set(o, "preemptions", jnum(f->preemptions));
	set(o, "released_tokens_total", jnum(f->released_tokens_total));
	set(o, "flops_to_release_ratio", jnum(f->flops_to_release_ratio));
	set(o, "recompute_s", jnum(f->recompute_s));
	set(o, "recompute_share_frac", jnum(f->recompute_share_frac));
	set(o, "calibration_points_used", f->available ? json_integer((json_int_t)f->cal_n_used) : json_null());
	set(o, "calibration_x_min_tokens", jnum(f->cal_x_min_tokens));
	set(o, "calibration_x_max_tokens", jnum(f->cal_x_max_tokens));
	set(o, "extrapolation_factor", jnum(f->extrapolation));
	return o;
}

static json_t *
budget_json(const br_budget *b)
{
	json_t *o = json_object();
	set(o, "available", json_boolean(b->available));
	set(o, "missing", jstr(b->available ? NULL : b->missing));
	set(o, "duration_s", jnum(b->duration_s));
	set(o, "decode_tokens", jnum(b->decode_tokens));
	set(o, "decode_in_gaps", json_boolean(b->decode_in_gaps));
	set(o, "decode_steps", jnum(b->decode_steps));
	set(o, "decode_s", jnum(b->decode_s));
	set(o, "prefill_tokens", jnum(b->prefill_tokens));
	set(o, "prefill_s", jnum(b->prefill_s));
	set(o, "prefill_missing", jstr(b->prefill_missing));
	set(o, "recompute_s", jnum(b->recompute_s));
	set(o, "recompute_missing", jstr(b->recompute_missing));
	set(o, "rest_s", jnum(b->rest_s));
	set(o, "rest_negative", json_boolean(b->rest_negative));
	set(o, "decode_frac", jnum(b->decode_frac));
	set(o, "prefill_frac", jnum(b->prefill_frac));
	set(o, "recompute_frac", jnum(b->recompute_frac));
	set(o, "rest_frac", jnum(b->rest_frac));
	set(o, "decode_measured_s", jnum(b->decode_measured_s));
	set(o, "decode_expected_s", jnum(b->decode_expected_s));
	set(o, "decode_stolen_s", jnum(b->decode_stolen_s));
	set(o, "decode_stolen_frac", jnum(b->decode_stolen_frac));
	return o;
}

json_t *
br_summary_calibration(const br_flops_calibration *c)
{
	json_t *o = json_object();
	set(o, "available", json_boolean(c->available));
	set(o, "missing", jstr(c->available ? NULL : c->missing));
	set(o, "a_gflop_per_token", jnum(c->fit.a));
	set(o, "b_gflop_per_token_per_context_token", jnum(c->fit.b));
	set(o, "se_a", jnum(c->fit.se_a));
	set(o, "se_b", jnum(c->fit.se_b));
	set(o, "r2", jnum(c->fit.r2));
	set(o, "n_used", json_integer((json_int_t)c->n_used));
	set(o, "note", jstr(c->note));
	json_t *pts = json_array();
	for (size_t i = 0; i < c->n_points; i++) {
		const br_flops_cal_point *p = &c->points[i];
		json_t *po = json_object();
		set(po, "run", jstr(p->name));
		set(po, "used", json_boolean(p->used));
		set(po, "why_skipped", jstr(p->why));
		/* used though one of it and the run judged names no GPU: same GPU assumed */
		set(po, "gpu_assumed", p->gpu_assumed ? json_true() : json_false());
		set(po, "x_mean_context_tokens", jnum(p->x_tokens));
		set(po, "y_gflop_per_token", jnum(p->y_gflop_per_token));
		json_array_append_new(pts, po);
	}
	set(o, "points", pts);
	return o;
}

/*
 * engine_json: the engine that served the run (br_run_engine) and, for its
 * metrics, where each role came from: roles.KEY = the series read (null
 * when absent), absent.KEY = why the engine has none (only for roles the
 * engine does not expose), caveats.KEY = how a series read means something
 * other than vLLM's (model.h br_role_caveat).
 */
static json_t *
engine_json(const br_run *r)
{
	br_engine e = br_run_engine(r);
	json_t *o = json_object();
	set(o, "key", json_string(br_engine_key(e)));
	set(o, "name", json_string(br_engine_name(e)));
	json_t *roles = json_object(), *absent = json_object(), *caveats = json_object();
	for (int k = 0; k < BR_N_ROLES; k++) {
		const char *name = br_role_name(r->metrics, (br_role)k);
		set(roles, br_role_key((br_role)k), jstr(name));
		const char *cv = name ? br_role_caveat(e, (br_role)k) : NULL;
		if (cv != NULL)
			set(caveats, br_role_key((br_role)k), json_string(cv));
		const char *why = name ? NULL : br_role_absent(e, (br_role)k);
		if (why != NULL)
			set(absent, br_role_key((br_role)k), json_string(why));
	}
	set(o, "roles", r->metrics ? roles : (json_decref(roles), json_null()));
	/* (added) the server's version as stated, and by whom: the log, or run.json */
	const char *v = br_run_server_version(r);
	set(o, "server_version", jstr(v));
	set(o, "server_version_source", v == NULL ? json_null() :
	    json_string(v == r->server_version ? "run.json" : "server log"));
	set(o, "absent", absent);
	set(o, "caveats", caveats);
	return o;
}

static json_t *
log_json(const br_server_log *l)
{
	json_t *o = json_object();
	set(o, "present", json_boolean(l != NULL));
	if (l == NULL)
		return o;
	set(o, "path", jstr(l->source_path));
	set(o, "server", json_string(br_engine_key((br_engine)l->engine_kind)));
	if (l->engine_kind != BR_ENGINE_VLLM) {
		set(o, "engine_version", jstr(l->engine_version));
		set(o, "n_ctx_tokens", jint(l->n_ctx_tokens));
		set(o, "ctx_per_slot_tokens", jint(l->ctx_per_slot_tokens));
		set(o, "kv_unified", l->kv_unified < 0 ? json_null() : json_boolean(l->kv_unified));
		set(o, "n_timed_requests", json_integer((json_int_t)l->n_requests));
	}
	set(o, "vllm_version", jstr(l->vllm_version));
	set(o, "engine", jstr(l->engine));
	/* for sentences: "V1 engine", or what is known when the log does not say */
	char *et = l->engine ? br_xasprintf("%s engine", l->engine) : br_xstrdup("engine version not stated");
	set(o, "engine_text", jstr(et));
	free(et);
	set(o, "model", jstr(l->model));
	set(o, "max_model_len_tokens", jint(l->max_model_len_tokens));
	set(o, "max_num_seqs", jint(l->max_num_seqs));
	set(o, "data_parallel_size", jint(l->data_parallel_size));
	set(o, "max_num_batched_tokens", jint(l->max_num_batched_tokens));
	set(o, "tensor_parallel_size", jint(l->tensor_parallel_size));
	set(o, "gpu_memory_utilization", jnum(l->gpu_memory_utilization));
	set(o, "block_size_tokens", jint(l->block_size_tokens));
	set(o, "kv_pool_tokens", jint(l->kv_pool_tokens));
	set(o, "kv_pool_gib", jnum(l->kv_pool_gib));
	set(o, "max_concurrency_x", jnum(l->max_concurrency_x));
	set(o, "max_concurrency_len_tokens", jint(l->max_concurrency_len_tokens));
	set(o, "n_capacity_lines", json_integer(l->n_capacity_lines));
	{
		/* every entry of the log's non-default args line, as printed */
		json_t *args = json_object();
		GString *txt = g_string_new(NULL);
		for (size_t i = 0; i < l->n_args; i++) {
			json_t *v = json_string(l->args[i].value);
			set(args, l->args[i].name, v ? v : json_string("(not UTF-8)"));
			g_string_append_printf(txt, "%s%s %s", i ? ", " : "", l->args[i].name, l->args[i].value);
		}
		/* vLLM's line lists the non-default arguments; SGLang's ServerArgs
		 * every argument (server_args*, added) */
		int nd = !l->args_all;
		set(o, "non_default_args", l->args_line && nd ? json_incref(args) : json_null());
		set(o, "n_non_default_args", json_integer(nd ? (json_int_t)l->n_args : 0));
		set(o, "non_default_args_line", l->args_line && nd ? json_integer(l->args_line) : json_null());
		set(o, "non_default_args_complete", json_boolean(nd && l->args_line && l->args_complete));
		set(o, "non_default_args_text", nd && l->n_args ? json_string(txt->str) : json_null());
		set(o, "server_args", l->args_line && !nd ? json_incref(args) : json_null());
		set(o, "n_server_args", json_integer(nd ? 0 : (json_int_t)l->n_args));
		set(o, "server_args_line", l->args_line && !nd ? json_integer(l->args_line) : json_null());
		set(o, "server_args_complete", json_boolean(!nd && l->args_line && l->args_complete));
		json_decref(args);
		g_string_free(txt, TRUE);
	}
	set(o, "did_not_start", json_boolean(l->did_not_start));
	set(o, "preemption_lines", json_integer((json_int_t)l->n_preemption_lines));
	set(o, "v0_preemption_lines_in_run", json_integer((json_int_t)l->n_v0_in_run));
	set(o, "failure_message", jstr(l->failure_message));
	set(o, "failure_line", json_integer(l->failure_line));
	set(o, "n_stats_lines", json_integer((json_int_t)l->n_stats));
	double peak_run = NAN, peak_wait = NAN, peak_kv = NAN, preempt = NAN;
	for (size_t i = 0; i < l->n_stats; i++) {
		const br_log_stat *s = &l->stats[i];
		if (isfinite(s->preemptions))
			preempt = (isnan(preempt) ? 0 : preempt) + s->preemptions;
		if (isfinite(s->running) && !(s->running <= peak_run))
			peak_run = s->running;
		if (isfinite(s->waiting) && !(s->waiting <= peak_wait))
			peak_wait = s->waiting;
		if (isfinite(s->kv_usage_frac) && !(s->kv_usage_frac <= peak_kv))
			peak_kv = s->kv_usage_frac;
	}
	set(o, "stats_running_peak", jnum(peak_run));
	set(o, "stats_preemptions", jnum(preempt));   /* summed over the log's stats lines; NAN when none states it */
	set(o, "stats_waiting_peak", jnum(peak_wait));
	set(o, "stats_kv_usage_peak_frac", jnum(peak_kv));
	return o;
}

static json_t *
bench_json(const br_bench *b)
{
	json_t *o = json_object();
	set(o, "path", jstr(b->source_path));
	set(o, "date", jstr(b->date));
	/* "20261101-120030" → "2026-11-01 12:00:30" (local time of the client, no zone) */
	int Y, M, D, h, m, sec;
	char tail;
	int vllm_date = b->date && sscanf(b->date, "%4d%2d%2d-%2d%2d%2d%c", &Y, &M, &D, &h, &m, &sec, &tail) == 6;
	if (vllm_date)
		set(o, "date_text", json_sprintf("%04d-%02d-%02d %02d:%02d:%02d", Y, M, D, h, m, sec));
	else
		set(o, "date_text", jstr(b->date));
	/* (added) only vllm bench serve's YYYYMMDD-HHMMSS is known to be the
	 * run's end in client local time; another text is shown as stated */
	set(o, "date_is_run_end_local", json_boolean(vllm_date));
	set(o, "backend", jstr(b->backend));
	set(o, "label", jstr(b->label));
	set(o, "model_id", jstr(b->model_id));
	set(o, "tokenizer_id", jstr(b->tokenizer_id));
	set(o, "num_prompts", jint(b->num_prompts));
	if (isinf(b->request_rate_rps) && b->request_rate_rps > 0)
		set(o, "request_rate", json_string("inf"));
	else
		set(o, "request_rate", jnum(b->request_rate_rps));
	/* --burstiness inf (evenly spaced arrivals) is "inf", as request_rate's, not null */
	if (isinf(b->burstiness) && b->burstiness > 0)
		set(o, "burstiness", json_string("inf"));
	else
		set(o, "burstiness", jnum(b->burstiness));
	set(o, "max_concurrency", jint(b->max_concurrency));
	set(o, "closed_loop", json_boolean(isfinite(b->max_concurrency)));
	set(o, "duration_s", jnum(b->duration_s));
	set(o, "completed", jint(b->completed));
	set(o, "failed", jint(b->failed));
	set(o, "failed_derived", json_boolean(b->failed_derived));
	set(o, "total_input_tokens", jint(b->total_input_tokens));
	set(o, "total_output_tokens", jint(b->total_output_tokens));
	/* every request failed: the prompts sent still have their lengths */
	double in_sent = NAN;
	if (!(b->completed > 0) && b->n_requests > 0) {
		double sum = 0;
		size_t k = 0;
		for (size_t i = 0; i < b->n_requests; i++)
			if (isfinite(b->requests[i].input_len_tokens)) {
				sum += b->requests[i].input_len_tokens;
				k++;
			}
		in_sent = k ? sum / (double)k : NAN;
	}
	set(o, "mean_input_tokens", jnum(b->completed > 0 ? b->total_input_tokens / b->completed : in_sent));
	set(o, "mean_output_tokens", jnum(b->completed > 0 ? b->total_output_tokens / b->completed : NAN));
	set(o, "request_throughput_rps", jnum(b->request_throughput_rps));
	set(o, "request_goodput_rps", jnum(b->request_goodput_rps));
	set(o, "output_throughput_tps", jnum(b->output_throughput_tps));
	set(o, "total_token_throughput_tps", jnum(b->total_token_throughput_tps));
	set(o, "max_output_tokens_per_s", jnum(b->max_output_tokens_per_s));
	set(o, "max_concurrent_requests", jint(b->max_concurrent_requests));
	json_t *sd = json_object();
	set(sd, "acceptance_rate_pct", jnum(b->spec_decode_acceptance_rate));
	set(sd, "acceptance_length", jnum(b->spec_decode_acceptance_length));
	set(sd, "num_drafts", jint(b->spec_decode_num_drafts));
	set(sd, "draft_tokens", jint(b->spec_decode_draft_tokens));
	set(sd, "accepted_tokens", jint(b->spec_decode_accepted_tokens));
	set(sd, "present", json_boolean(isfinite(b->spec_decode_num_drafts)));
	set(sd, "draft_tokens_per_draft", jnum(b->spec_decode_num_drafts > 0 ?
	    b->spec_decode_draft_tokens / b->spec_decode_num_drafts : NAN));
	/* tokens per decode step = 1 + accepted drafts per step, as vLLM defines
	 * acceptance_length; the ITL a client sees is per step (one chunk) */
	set(sd, "accepted_tokens_per_draft", jnum(b->spec_decode_num_drafts > 0 ?
	    b->spec_decode_accepted_tokens / b->spec_decode_num_drafts : NAN));
	set(o, "spec_decode", sd);
	return o;
}

/* br_summary_english_titles: see report.h. */
void
br_summary_english_titles(json_t *figures, const br_template *t)
{
	size_t i;
	json_t *f;
	json_array_foreach(figures, i, f) {
		const char *id = json_string_value(json_object_get(f, "id"));
		if (id == NULL)
			continue;
		char key[160];
		/* knee figures are numbered per curve: figK<n>-<kind>-<what>,
		 * titled figtext.figK-<what>.title_<kind> */
		const char *p = id + 4;
		if (strncmp(id, "figK", 4) == 0 && *p >= '0' && *p <= '9') {
			while (*p >= '0' && *p <= '9')
				p++;
			const char *kind = *p == '-' ? p + 1 : NULL, *what = kind ? strchr(kind, '-') : NULL;
			if (what == NULL)
				continue;
			snprintf(key, sizeof key, "figtext.figK%s.title_%.*s", what, (int)(what - kind), kind);
		} else {
			snprintf(key, sizeof key, "figtext.%s.title", id);
			/* a title variant chosen by what the figure draws
			 * ("figtext.fig2-waveform.title_no_preemptions"): the one
			 * whose text in the report's language is the figure's title */
			static const char *const variants[] = { "_no_preemptions", "_requests", "_generic", "_partial",
				"_sglang" };
			const char *now = json_string_value(json_object_get(f, "title"));
			for (size_t k = 0; now != NULL && k < sizeof variants / sizeof variants[0]; k++) {
				char vk[sizeof key];
				if (snprintf(vk, sizeof vk, "%s%s", key, variants[k]) >= (int)sizeof vk)
					continue;
				const char *vt = br_template_get(t, vk);
				if (vt != NULL && strcmp(vt, now) == 0) {
					memcpy(key, vk, sizeof key);
					break;
				}
			}
		}
		const char *en = br_template_english(t, key);
		if (en != NULL && strchr(en, '{') == NULL)
			json_object_set_new(f, "title", json_string(en));
	}
}

json_t *
br_summary_build(const br_analysis *a, const br_figure *figs, size_t n_figs)
{
	const br_run *r = a->run;
	json_t *s = json_object();
	set(s, "schema_version", json_integer(BR_SUMMARY_SCHEMA_VERSION));
	json_t *tool = json_object();
	set(tool, "name", json_string("benchreport"));
	set(tool, "version", json_string("0.1.0"));
	set(s, "tool", tool);

	json_t *run = json_object();
	set(run, "name", jstr(r->name));
	set(run, "dir", jstr(r->dir));
	{
		/* (added) the folder as an absolute path: run.dir is as given on the
		 * command line, relative to a working directory nothing records */
		char *abs = r->dir ? realpath(r->dir, NULL) : NULL;
		set(run, "dir_abs", jstr(abs));
		free(abs);
	}
	set(run, "gpu", jstr(r->gpu));
	set(run, "driver", jstr(r->driver));
	set(run, "cuda", jstr(r->cuda));
	set(run, "notes", jstr(r->notes));
	set(run, "server_version", jstr(r->server_version));
	static const char *const kinds[] = { "none", "csv series", "single snapshot",
		"before/after snapshots", "snapshot series", "server log batch lines", "llama-server /slots snapshots" };
	set(run, "metrics_kind", json_string((size_t)r->metrics_kind < sizeof kinds / sizeof kinds[0] ?
	    kinds[r->metrics_kind] : "unknown"));
	set(run, "metrics_rows", json_integer(r->metrics ? (json_int_t)r->metrics->n_rows : 0));
	set(run, "n_bench_results", json_integer((json_int_t)r->bench.n));
	json_t *aside = json_array();
	GString *aside_text = g_string_new(NULL);
	for (size_t i = 0; i < r->n_set_aside; i++) {
		const br_set_aside *x = &r->set_aside[i];
		json_array_append_new(aside, json_pack("{s:s, s:s, s:s}", "path", x->path, "what", x->what,
		    "reason", x->reason));
		if (x->files != NULL)
			g_string_append_printf(aside_text, "%s%s (%s) are not used: %s.", i ? " " : "", x->files,
			    x->what, x->reason);
		else
			g_string_append_printf(aside_text, "%s%s (%s) is not used: %s.", i ? " " : "",
			    br_basename(x->path), x->what, x->reason);
	}
	set(run, "set_aside", aside);
	set(run, "n_set_aside", json_integer((json_int_t)r->n_set_aside));
	set(run, "set_aside_text", r->n_set_aside ? json_string(aside_text->str) : json_null());
	g_string_free(aside_text, TRUE);
	set(s, "run", run);

	set(s, "engine", engine_json(r));
	set(s, "bench", bench_json(&r->bench.runs[0]));
	set(s, "server_log", log_json(r->log));
	set(s, "latency", latency_json(&a->latency));
	set(s, "capacity", capacity_json(&a->capacity));
	set(s, "ledger", ledger_json(&a->ledger));
	set(s, "residency", residency_json(&a->residency));
	if (a->preemptions.count_lower_bound)
		set(json_object_get(s, "residency"), "preemptions_is_lower_bound", json_true());
	set(s, "preemptions", preemptions_json(&a->preemptions));
	set(s, "ttft_split", ttft_split_json(&a->ttft_split));
	set(s, "littles_law", littles_law_json(&a->littles_law));
	if (a->log_timings.available)   /* (added) only llama-server logs have these lines */
		set(s, "log_timings", log_timings_json(&a->log_timings));
	{
		/* §3.10: which rules fired (the sentences live in the template) and
		 * the derived numbers they cite */
		br_findings f;
		br_findings_evaluate(a, &f);
		json_t *ids = json_array(), *derived = json_object();
		static const char *finding_kinds[] = { "finding", "recommendation", "caveat" };
		for (size_t i = 0; i < f.n; i++) {
			json_t *o = json_object();
			set(o, "id", json_string(f.v[i].id));
			set(o, "kind", json_string(finding_kinds[f.v[i].kind % 3]));
			set(o, "severity", json_integer(f.v[i].severity));
			json_array_append_new(ids, o);
		}
		for (size_t i = 0; i < f.n_num; i++)
			set(derived, f.num[i].key, jnum(f.num[i].value));
		if (a->preemptions.count_lower_bound && json_object_get(derived, "preemptions") != NULL)
			set(derived, "preemptions_is_lower_bound", json_true());
		set(s, "findings", ids);
		set(s, "derived", derived);
		br_findings_free(&f);
	}
	set(s, "flops", flops_json(&a->flops));
	set(s, "budget", budget_json(&a->budget));
	/* run.json's experiment plan, each check decided from this run alone
	 * (the ITL p99 spike needs a light run to compare with: unknown here) */
	if (r && r->n_plan > 0) {
		int verdict[BR_N_EXPECT];
		br_expect_verdicts(a, NAN, verdict);
		set(s, "plan", json_pack("{s:s, s:o}", "source", "run.json",
		    "checks", br_plan_checks_json(r->plan, r->n_plan, verdict, 0)));
	} else
		set(s, "plan", json_null());

	json_t *warn = json_array();
	for (size_t i = 0; i < r->n_warnings; i++)
		json_array_append_new(warn, json_string(r->warnings[i]));
	set(s, "warnings", warn);

	json_t *inputs = json_array();
	for (size_t i = 0; i < r->n_inputs; i++) {
		json_t *f = json_object();
		set(f, "path", jstr(r->inputs[i].path));
		set(f, "role", jstr(r->inputs[i].role));
		set(f, "size_bytes", json_integer(r->inputs[i].size_bytes));
		set(f, "sha256", json_string(r->inputs[i].sha256));
		json_array_append_new(inputs, f);
	}
	set(s, "inputs", inputs);

	set(s, "figures", br_summary_figures(figs, n_figs));
	return s;
}

/* fig_rel: "figures/" + the file name of path, or null. */
static json_t *
fig_rel(const char *path)
{
	if (path == NULL || *path == '\0')
		return json_null();
	char *rel = br_xasprintf("figures/%s", br_basename(path));
	json_t *v = json_string(rel);
	free(rel);
	return v;
}

/* br_summary_figures: see report.h. */
json_t *
br_summary_figures(const br_figure *figs, size_t n_figs)
{
	json_t *fj = json_array();
	for (size_t i = 0; i < n_figs; i++) {
		json_t *f = json_object();
		set(f, "id", jstr(figs[i].id));
		set(f, "title", jstr(figs[i].title));
		set(f, "png", fig_rel(figs[i].png_path));
		set(f, "svg", fig_rel(figs[i].svg_path));
		set(f, "csv", fig_rel(figs[i].csv_path));
		json_array_append_new(fj, f);
	}
	return fj;
}

int
br_summary_write(const json_t *summary, const char *path, char **cause)
{
	char *text = json_dumps(summary, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
	if (text == NULL) {
		*cause = br_xasprintf("%s: cannot serialise the summary", path);
		return -1;
	}
	char *with_nl = br_xasprintf("%s\n", text);
	free(text);
	int rc = br_write_atomic(path, with_nl, strlen(with_nl), cause);
	free(with_nl);
	return rc;
}
