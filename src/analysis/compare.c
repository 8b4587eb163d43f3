/*
 * Compare two rounds (DESIGN.md §3.12): pairs of numbers with their
 * changes, the elasticity chain pool → resident → throughput, the
 * settings diff (controlled A/B or not) and campaign run matching. Pure:
 * no I/O; see compare.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "benchreport/common.h"
#include "benchreport/compare.h"
#include "benchreport/knee.h"
#include "benchreport/model.h"
#include "benchreport/stats.h"

/* Keys, units, display decimals, reference-table membership. */
const br_cmp_metric_info br_cmp_metrics[BR_CMP_N_METRICS] = {
	[BR_CMP_KV_POOL_TOKENS]          = { "kv_pool_tokens", "tokens", 0, 1 },
	[BR_CMP_KV_POOL_GIB]             = { "kv_pool_gib", "GiB", 2, 0 },
	[BR_CMP_PRED_MAX_CONCURRENCY]    = { "predicted_max_concurrency", "requests", 2, 1 },
	[BR_CMP_DEMAND_TOKENS]           = { "demand_tokens", "tokens", 0, 0 },
	[BR_CMP_OVERSUBSCRIPTION]        = { "oversubscription", "x", 2, 1 },
	[BR_CMP_RUNNING_MEAN]            = { "running_mean", "requests", 2, 1 },
	[BR_CMP_RUNNING_MEDIAN]          = { "running_median", "requests", 1, 0 },
	[BR_CMP_RUNNING_PEAK]            = { "running_peak", "requests", 0, 0 },
	[BR_CMP_RESIDENT_SHARE]          = { "resident_share_frac", "frac", 1, 0 },
	[BR_CMP_WAITING_MEAN]            = { "waiting_mean", "requests", 1, 1 },
	[BR_CMP_WAITING_PEAK]            = { "waiting_peak", "requests", 0, 0 },
	[BR_CMP_KV_MEDIAN_FRAC]          = { "kv_usage_median_frac", "frac", 2, 0 },
	[BR_CMP_KV_SHARE_GE90]           = { "kv_usage_share_ge90_frac", "frac", 1, 0 },
	[BR_CMP_KV_SHARE_GE95]           = { "kv_usage_share_ge95_frac", "frac", 1, 0 },
	[BR_CMP_PREEMPTIONS]             = { "preemptions", "count", 0, 1 },
	[BR_CMP_PREEMPT_INTERVAL_S]      = { "preemption_interval_s", "s", 1, 0 },
	[BR_CMP_PREEMPT_TRIGGER_KV_FRAC] = { "preemption_trigger_kv_frac", "frac", 2, 0 },
	[BR_CMP_RELEASED_TOKENS]         = { "released_tokens_per_preemption", "tokens", 0, 0 },
	[BR_CMP_COMPLETED]               = { "completed", "requests", 0, 0 },
	[BR_CMP_FAILED]                  = { "failed", "requests", 0, 0 },
	[BR_CMP_DURATION_S]              = { "duration_s", "s", 1, 1 },
	[BR_CMP_REQUEST_RPS]             = { "request_throughput_rps", "req/s", 3, 0 },
	[BR_CMP_OUTPUT_TPS]              = { "output_throughput_tps", "tok/s", 1, 1 },
	[BR_CMP_TOTAL_TPS]               = { "total_token_throughput_tps", "tok/s", 1, 0 },
	[BR_CMP_TTFT_MEAN_S]             = { "ttft_mean_s", "s", 2, 0 },
	[BR_CMP_TTFT_P50_S]              = { "ttft_p50_s", "s", 2, 1 },
	[BR_CMP_TTFT_P99_S]              = { "ttft_p99_s", "s", 2, 0 },
	[BR_CMP_ITL_P50_MS]              = { "itl_p50_ms", "ms", 2, 0 },
	[BR_CMP_ITL_P90_MS]              = { "itl_p90_ms", "ms", 2, 0 },
	[BR_CMP_ITL_P99_MS]              = { "itl_p99_ms", "ms", 1, 0 },
	[BR_CMP_TPOT_P50_MS]             = { "tpot_p50_ms", "ms", 2, 0 },
	[BR_CMP_E2EL_P50_S]              = { "e2el_p50_s", "s", 2, 1 },
	[BR_CMP_E2EL_P99_S]              = { "e2el_p99_s", "s", 2, 0 },
	[BR_CMP_QUEUE_S]                 = { "ttft_queue_s", "s", 2, 0 },
	[BR_CMP_PREFILL_S]               = { "ttft_prefill_s", "s", 3, 0 },
	[BR_CMP_FRONTEND_S]              = { "ttft_frontend_s", "s", 3, 0 },
	[BR_CMP_ITL_STALLS]              = { "itl_stalls", "count", 0, 0 },
};

const char *const br_cmp_setting_key[BR_SET_N] = {
	"model", "gpu", "vllm_version", "input_tokens", "output_tokens",
	"max_concurrency", "request_rate_rps", "max_num_seqs", "kv_pool_tokens",
};

/* br_cmp_change: see compare.h. */
void
br_cmp_change(double a, double b, double *abs_change, double *rel_change)
{
	double d = NAN, r = NAN;
	if (isfinite(a) && isfinite(b)) {
		d = b - a;
		/* a difference within 1e-9 of the values is the rounding of a
		 * residual (frontend = TTFT − queue − prefill), not a change:
		 * the table printed "−0.000000000000158 s" */
		if (fabs(d) <= 1e-9 * fmax(fabs(a), fabs(b)))
			d = 0;
		if (a != 0)
			r = d / fabs(a);
		else if (b == 0)
			r = 0;
	}
	if (abs_change)
		*abs_change = d;
	if (rel_change)
		*rel_change = r;
}

/* lat_ms: statistic of a latency metric in ms: recomputed when counted,
 * else the bench file's own value (NAN when neither). stat: "mean",
 * "median" or "p" with percentile pct. */
static double
lat_ms(const br_analysis *a, int m, const char *stat, double pct)
{
	const br_describe_t *d = &a->latency.m[m];
	if (d->count > 0) {
		if (strcmp(stat, "mean") == 0)
			return d->mean;
		if (strcmp(stat, "median") == 0)
			return d->median;
		if (pct == 90)
			return d->p90;
		if (pct == 99)
			return d->p99;
		return NAN;
	}
	if (a->run == NULL || a->run->bench.n == 0)
		return NAN;
	const br_bench *b = &a->run->bench.runs[0];
	if (br_isnum(b->completed) && b->completed == 0)
		return NAN;     /* vLLM's 0 for an empty set is not a latency */
	return br_bench_file_stat(b, br_latency_metric_name[m], stat, pct);
}

/* br_cmp_values_from_analysis: see compare.h. */
void
br_cmp_values_from_analysis(const br_analysis *a, br_cmp_values *out)
{
	double *v = out->v;
	for (int i = 0; i < BR_CMP_N_METRICS; i++)
		v[i] = NAN;
	const br_capacity *c = &a->capacity;
	if (c->available) {
		v[BR_CMP_KV_POOL_TOKENS] = c->kv_pool_tokens;
		v[BR_CMP_KV_POOL_GIB] = c->kv_pool_gib;
		v[BR_CMP_PRED_MAX_CONCURRENCY] = c->predicted_max_concurrency;
		v[BR_CMP_DEMAND_TOKENS] = c->demand_tokens;
		v[BR_CMP_OVERSUBSCRIPTION] = c->oversubscription;
	}
	const br_residency *r = &a->residency;
	if (r->available) {
		v[BR_CMP_RUNNING_MEAN] = r->running_mean;
		v[BR_CMP_RUNNING_MEDIAN] = r->running_median;
		v[BR_CMP_RUNNING_PEAK] = r->running_peak;
		v[BR_CMP_RESIDENT_SHARE] = r->resident_share;
		v[BR_CMP_WAITING_MEAN] = r->waiting_mean;
		v[BR_CMP_WAITING_PEAK] = r->waiting_peak;
		v[BR_CMP_KV_MEDIAN_FRAC] = r->kv_median_frac;
		v[BR_CMP_KV_SHARE_GE90] = r->kv_share_ge90;
		v[BR_CMP_KV_SHARE_GE95] = r->kv_share_ge95;
	}
	const br_preemptions *p = &a->preemptions;
	if (p->count_available)
		v[BR_CMP_PREEMPTIONS] = p->n_preemptions;
	else if (a->run != NULL && br_run_engine(a->run) == BR_ENGINE_LLAMACPP)
		v[BR_CMP_PREEMPTIONS] = 0;   /* fixed slots: llama.cpp does not preempt (as the gate and index) */
	if (p->available) {
		v[BR_CMP_PREEMPT_INTERVAL_S] = p->mean_interval_s;
		v[BR_CMP_PREEMPT_TRIGGER_KV_FRAC] = p->trigger_kv_frac;
		v[BR_CMP_RELEASED_TOKENS] = p->mean_released_per_preemption_tokens;
	}
	if (a->run != NULL && a->run->bench.n > 0) {
		const br_bench *b = &a->run->bench.runs[0];
		v[BR_CMP_COMPLETED] = b->completed;
		v[BR_CMP_FAILED] = b->failed;
		v[BR_CMP_DURATION_S] = b->duration_s;
		v[BR_CMP_REQUEST_RPS] = b->request_throughput_rps;
		v[BR_CMP_OUTPUT_TPS] = b->output_throughput_tps;
		v[BR_CMP_TOTAL_TPS] = b->total_token_throughput_tps;
	}
	v[BR_CMP_TTFT_MEAN_S] = lat_ms(a, BR_TTFT, "mean", NAN) / 1000;
	v[BR_CMP_TTFT_P50_S] = lat_ms(a, BR_TTFT, "median", NAN) / 1000;
	v[BR_CMP_TTFT_P99_S] = lat_ms(a, BR_TTFT, "p", 99) / 1000;
	v[BR_CMP_ITL_P50_MS] = lat_ms(a, BR_ITL, "median", NAN);
	v[BR_CMP_ITL_P90_MS] = lat_ms(a, BR_ITL, "p", 90);
	v[BR_CMP_ITL_P99_MS] = lat_ms(a, BR_ITL, "p", 99);
	v[BR_CMP_TPOT_P50_MS] = lat_ms(a, BR_TPOT, "median", NAN);
	v[BR_CMP_E2EL_P50_S] = lat_ms(a, BR_E2EL, "median", NAN) / 1000;
	v[BR_CMP_E2EL_P99_S] = lat_ms(a, BR_E2EL, "p", 99) / 1000;
	const br_ttft_split *t = &a->ttft_split;
	/* the server's queue mean stands alone (SGLang has a queue histogram
	 * but no prefill one); prefill and the residual need the whole split */
	v[BR_CMP_QUEUE_S] = t->queue_s;
	if (t->available) {
		v[BR_CMP_PREFILL_S] = t->prefill_s;
		v[BR_CMP_FRONTEND_S] = t->frontend_s;
	}
	if (a->latency.from_arrays)
		v[BR_CMP_ITL_STALLS] = (double)a->latency.itl_stalls;
}

/* br_cmp_rows: see compare.h. */
void
br_cmp_rows(const br_cmp_values *a, const br_cmp_values *b, br_cmp_row rows[BR_CMP_N_METRICS])
{
	for (int i = 0; i < BR_CMP_N_METRICS; i++) {
		rows[i].metric = i;
		rows[i].a = a->v[i];
		rows[i].b = b->v[i];
		br_cmp_change(a->v[i], b->v[i], &rows[i].abs_change, &rows[i].rel_change);
	}
}

/* ratio: x / y, NAN when y is 0 or either is absent. */
static double
ratio(double x, double y)
{
	return isfinite(x) && isfinite(y) && y != 0 ? x / y : NAN;
}

/* br_cmp_elasticities: see compare.h. */
void
br_cmp_elasticities(const br_cmp_row rows[BR_CMP_N_METRICS], br_cmp_elasticity *out)
{
	memset(out, 0, sizeof *out);
	out->pool_rel = rows[BR_CMP_KV_POOL_TOKENS].rel_change;
	out->resident_rel = rows[BR_CMP_RUNNING_MEAN].rel_change;
	out->throughput_rel = rows[BR_CMP_OUTPUT_TPS].rel_change;
	out->available = isfinite(out->pool_rel) && isfinite(out->resident_rel) &&
	    isfinite(out->throughput_rel);
	out->pool_changed = isfinite(out->pool_rel) && fabs(out->pool_rel) > 0.001;
	out->resident_per_pool = out->pool_changed ? ratio(out->resident_rel, out->pool_rel) : NAN;
	out->throughput_per_pool = out->pool_changed ? ratio(out->throughput_rel, out->pool_rel) : NAN;
	/* a ratio of two changes under 1% is a ratio of noises (fifteenth
	 * breaker: resident +0.3%, throughput +0.1% gave "0.49% per 1%") */
	out->throughput_per_resident = isfinite(out->resident_rel) && fabs(out->resident_rel) >= 0.01 ?
	    ratio(out->throughput_rel, out->resident_rel) : NAN;
}

/* br_cmp_settings_from_run: see compare.h. */
void
br_cmp_settings_from_run(const br_run *run, const br_analysis *a, br_cmp_settings *out)
{
	for (int i = 0; i < BR_SET_N; i++) {
		out->text[i] = NULL;
		out->num[i] = NAN;
	}
	const br_bench *b = run && run->bench.n > 0 ? &run->bench.runs[0] : NULL;
	const br_server_log *l = run ? run->log : NULL;
	out->text[BR_SET_MODEL] = b && b->model_id && b->model_id[0] ? b->model_id
	    : l && l->model ? l->model : NULL;
	out->text[BR_SET_GPU] = run ? run->gpu : NULL;
	/* the server's version: vLLM's, or the SGLang version / llama.cpp build */
	out->text[BR_SET_VLLM] = br_run_server_version(run);
	if (b && b->completed > 0) {
		out->num[BR_SET_INPUT_LEN] = b->total_input_tokens / b->completed;
		out->num[BR_SET_OUTPUT_LEN] = b->total_output_tokens / b->completed;
	}
	if (b) {
		/* null max_concurrency = no limit, which is not 2 */
		out->num[BR_SET_CONCURRENCY] = isnan(b->max_concurrency) ? INFINITY : b->max_concurrency;
		out->num[BR_SET_REQUEST_RATE] = b->request_rate_rps;
	}
	if (l)
		out->num[BR_SET_MAX_NUM_SEQS] = l->max_num_seqs;
	/* a `vllm bench sweep serve` result states the server's max_num_seqs itself */
	if (b && isnan(out->num[BR_SET_MAX_NUM_SEQS])) {
		const char *v = br_bench_extra_get(b, "max_num_seqs");
		char *end = NULL;
		double x = v ? strtod(v, &end) : NAN;
		if (v && end != v && *end == '\0' && isfinite(x) && x > 0)
			out->num[BR_SET_MAX_NUM_SEQS] = x;
	}
	if (a && a->capacity.available)
		out->num[BR_SET_KV_POOL] = a->capacity.kv_pool_tokens;
	else if (run && isfinite(run->kv_pool_tokens_override))
		out->num[BR_SET_KV_POOL] = run->kv_pool_tokens_override;
}

/* is_text_setting: the setting is compared as a string. */
static int
is_text_setting(int s)
{
	return s == BR_SET_MODEL || s == BR_SET_GPU || s == BR_SET_VLLM;
}

/* num_text: a setting's number as text for sentences and tables ("inf",
 * "n/a", "64", "6,144", "120,064", "6,144.5": thousands grouped; below 100
 * four significant digits, so a rate of 0.25 req/s reads "0.25", not
 * "0.2"). */
static char *
num_text(double x)
{
	if (isinf(x) && x > 0)
		return br_xstrdup("inf");
	if (!isfinite(x))
		return br_xstrdup("n/a");
	char raw[64];
	if (x == floor(x) && fabs(x) < 1e15)
		snprintf(raw, sizeof raw, "%.0f", x);
	else if (fabs(x) >= 100)
		snprintf(raw, sizeof raw, "%.1f", x);
	else
		snprintf(raw, sizeof raw, "%.4g", x);
	/* group the integer digits (after an optional sign) by three */
	const char *d = raw[0] == '-' ? raw + 1 : raw;
	size_t nd = strspn(d, "0123456789");
	char out[96];
	size_t o = 0;
	if (d != raw)
		out[o++] = '-';
	for (size_t i = 0; i < nd; i++) {
		if (i > 0 && (nd - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = d[i];
	}
	snprintf(out + o, sizeof out - o, "%s", d + nd);
	return br_xstrdup(out);
}

/* same_label_nocase: x and y equal ignoring ASCII case and surrounding blanks. */
static int
same_label_nocase(const char *x, const char *y)
{
	while (*x == ' ' || *x == '\t')
		x++;
	while (*y == ' ' || *y == '\t')
		y++;
	size_t nx = strlen(x), ny = strlen(y);
	while (nx > 0 && (x[nx - 1] == ' ' || x[nx - 1] == '\t'))
		nx--;
	while (ny > 0 && (y[ny - 1] == ' ' || y[ny - 1] == '\t'))
		ny--;
	return nx == ny && g_ascii_strncasecmp(x, y, nx) == 0;
}

/* br_cmp_settings_diff: see compare.h. */
int
br_cmp_settings_diff(const br_cmp_settings *a, const br_cmp_settings *b,
    br_cmp_diff diffs[BR_SET_N], size_t *n_differ)
{
	size_t nd = 0;
	for (int s = 0; s < BR_SET_N; s++) {
		br_cmp_diff *d = &diffs[s];
		d->setting = s;
		if (is_text_setting(s)) {
			const char *x = a->text[s], *y = b->text[s];
			d->a_text = br_xstrdup(x ? x : "n/a");
			d->b_text = br_xstrdup(y ? y : "n/a");
			/* a GPU name is one product however it is capitalised or padded */
			d->state = x == NULL || y == NULL ? BR_DIFF_UNKNOWN
			    : (s == BR_SET_GPU ? same_label_nocase(x, y) : strcmp(x, y) == 0) ? BR_DIFF_SAME :
			    BR_DIFF_DIFFERS;
		} else {
			double x = a->num[s], y = b->num[s];
			d->a_text = s == BR_SET_CONCURRENCY && isinf(x) ? br_xstrdup("no limit") : num_text(x);
			d->b_text = s == BR_SET_CONCURRENCY && isinf(y) ? br_xstrdup("no limit") : num_text(y);
			if (isinf(x) && isinf(y) && x > 0 && y > 0)
				d->state = BR_DIFF_SAME;
			else if (isinf(x) != isinf(y) && !isnan(x) && !isnan(y))
				d->state = BR_DIFF_DIFFERS;       /* inf vs a finite rate */
			else if (!isfinite(x) || !isfinite(y))
				d->state = BR_DIFF_UNKNOWN;
			else
				d->state = fabs(x - y) <= 0.01 * fmax(fabs(x), fabs(y)) ? BR_DIFF_SAME : BR_DIFF_DIFFERS;
		}
		nd += d->state == BR_DIFF_DIFFERS;
	}
	/* two open-loop runs have no max_concurrency on either side: that is the same setting */
	if (diffs[BR_SET_CONCURRENCY].state == BR_DIFF_UNKNOWN && isnan(a->num[BR_SET_CONCURRENCY]) &&
	    isnan(b->num[BR_SET_CONCURRENCY]) && isfinite(a->num[BR_SET_INPUT_LEN]) && isfinite(b->num[BR_SET_INPUT_LEN]))
		diffs[BR_SET_CONCURRENCY].state = BR_DIFF_SAME;
	if (n_differ)
		*n_differ = nd;
	return nd == 1 ? 1 : nd == 0 ? 2 : 0;
}

/* br_cmp_diffs_free: see compare.h. */
void
br_cmp_diffs_free(br_cmp_diff diffs[BR_SET_N])
{
	for (int s = 0; s < BR_SET_N; s++) {
		free(diffs[s].a_text);
		free(diffs[s].b_text);
		diffs[s].a_text = diffs[s].b_text = NULL;
	}
}

/* sets_pool: 1 for an extra setting that changes the KV pool's size. */
static int
sets_pool(const char *name)
{
	static const char *const keys[] = { "arg gpu_memory_utilization", "arg kv_cache_memory",
		"arg kv_cache_memory_bytes", "arg max_model_len", "arg block_size", "arg kv_cache_dtype",
		"arg dtype", "arg quantization", "arg tensor_parallel_size", "arg pipeline_parallel_size",
		"arg num_gpu_blocks_override", "arg swap_space", "arg cpu_offload_gb",
		"arg enforce_eager", "arg max_num_seqs", "arg max_num_batched_tokens",
		"arg speculative_config", "arg enable_lora", "arg max_loras", "arg max_lora_rank",
		"arg max_cpu_loras", "arg compilation_config", "arg cudagraph_capture_sizes",
		"arg max_seq_len_to_capture", "arg cuda_graph_sizes", "arg limit_mm_per_prompt",
		"arg data_parallel_size", "arg enable_expert_parallel", "arg kv_transfer_config",
		"arg load_format", "arg mm_processor_cache_gb", "driver", "CUDA", "speculative decoding",
		/* SGLang's ServerArgs names (python/sglang/srt/server_args.py) */
		"arg mem_fraction_static", "arg max_total_tokens", "arg tp_size", "arg pp_size", "arg dp_size",
		"arg ep_size", "arg context_length", "arg page_size", "arg chunked_prefill_size",
		"arg max_prefill_tokens", "arg cuda_graph_max_bs", "arg cuda_graph_bs", "arg disable_cuda_graph",
		"arg enable_dp_attention", "arg speculative_algorithm", "arg speculative_num_draft_tokens",
		"arg lora_paths", "arg max_loras_per_batch", "arg max_running_requests",
		/* llama.cpp's context lines (-c, --parallel, --kv-unified) */
		"n_ctx", "kv_unified" };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(name, keys[i]) == 0)
			return 1;
	/* the engine-config line's settings ("config tensor_parallel_size") as their args */
	if (strncmp(name, "config ", 7) == 0) {
		char *a = br_xasprintf("arg %s", br_log_config_arg(name + 7));
		int r = sets_pool(a);
		free(a);
		return r;
	}
	return 0;
}

/* push_extra: append one compared setting (texts copied; NULL → "n/a"). */
static void
push_extra(br_cmp_pair_result *out, const char *name, const char *a, const char *b, int state)
{
	out->extra = br_xrealloc(out->extra, (out->n_extra + 1) * sizeof *out->extra);
	out->extra[out->n_extra++] = (br_cmp_extra){ br_xstrdup(name), br_xstrdup(a ? a : "n/a"),
		br_xstrdup(b ? b : "n/a"), state };
}

/* extra_text / extra_num: a setting one side does not state is unknown, not a
 * difference (an older bench file without "burstiness", a run.json without
 * "driver"): only two stated values can differ. */
static void
extra_text(br_cmp_pair_result *out, const char *name, const char *a, const char *b)
{
	push_extra(out, name, a, b, a == NULL || b == NULL ? BR_DIFF_UNKNOWN :
	    strcmp(a, b) == 0 ? BR_DIFF_SAME : BR_DIFF_DIFFERS);
}

static void
extra_num(br_cmp_pair_result *out, const char *name, double a, double b)
{
	char *ta = num_text(a), *tb = num_text(b);
	int st = isnan(a) || isnan(b) ? BR_DIFF_UNKNOWN : a == b ? BR_DIFF_SAME : BR_DIFF_DIFFERS;
	push_extra(out, name, ta, tb, st);
	free(ta);
	free(tb);
}

/* log_arg: argument `name` of the log's argument list, or NULL. */
static const br_log_arg *
log_arg(const br_server_log *l, const char *name)
{
	for (size_t i = 0; l && i < l->n_args; i++)
		if (strcmp(l->args[i].name, name) == 0)
			return &l->args[i];
	return NULL;
}

/*
 * arg_same: two printed values of one argument mean the same setting: the
 * same text (whole, not the clipped display), or two numbers of equal
 * value (1.0 and 1, 0.9 and 0.90).
 */
/* int_digits: for an integer literal ("-0042", "+7", "12345678901234567891"),
 * its sign (-1 or 1) in *sign and its first significant digit (the last
 * digit for zero); NULL when s is not one. */
static const char *
int_digits(const char *s, int *sign)
{
	*sign = 1;
	if (*s == '-' || *s == '+')
		*sign = *s++ == '-' ? -1 : 1;
	if (*s < '0' || *s > '9')
		return NULL;
	for (const char *q = s; *q; q++)
		if (*q < '0' || *q > '9')
			return NULL;
	while (s[0] == '0' && s[1] != '\0')
		s++;
	if (strcmp(s, "0") == 0)
		*sign = 1;
	return s;
}

static int
arg_same(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return 1;
	/* two integers by their digits: a double holds them exactly only to 2^53
	 * (a seed or a byte count beyond it would read as equal) */
	int sga, sgb;
	const char *da = int_digits(a, &sga), *db = int_digits(b, &sgb);
	if (da && db)
		return sga == sgb && strcmp(da, db) == 0;
	char *ea, *eb;
	double x = strtod(a, &ea), y = strtod(b, &eb);
	return ea != a && eb != b && *ea == '\0' && *eb == '\0' && isfinite(x) && x == y;
}

/*
 * distinct_display: two values that differ but print alike (both clipped at
 * 200 bytes with the same start, or both "(redacted)") shown so a reader
 * sees that they differ: a secret as "(redacted; not B's value)", a long
 * value as "… from byte N: " and 60 bytes from 20 before the first difference
 * ("..." when cut).
 * *ta and *tb are malloc'd; the caller frees them.
 */
static void
distinct_display(const br_log_arg *a, const br_log_arg *b, char **ta, char **tb)
{
	const br_log_arg *v[2] = { a, b };
	char **t[2] = { ta, tb };
	if (strcmp(a->value, "(redacted)") == 0) {
		/* no digest: a short hash of a guessable secret (a password in a
		 * URL whose user and host are known) could be searched for */
		*ta = br_xstrdup("(redacted; not B's value)");
		*tb = br_xstrdup("(redacted; not A's value)");
		return;
	}
	size_t d = 0;
	while (a->raw[d] && a->raw[d] == b->raw[d])
		d++;
	size_t from = d > 20 ? d - 20 : 0;
	for (int k = 0; k < 2; k++) {
		const char *r = v[k]->raw;
		size_t start = from;
		while (start > 0 && ((unsigned char)r[start] & 0xC0) == 0x80)
			start--;     /* not inside a UTF-8 character */
		size_t len = strlen(r + start);
		char *piece = br_clip_utf8(r + start, len, 60);
		*t[k] = br_xasprintf("… from byte %zu: %s", start + 1, piece);
		free(piece);
	}
}

/* skip_arg: arguments the fixed settings already cover (the running cap:
 * vLLM's max_num_seqs, SGLang's max_running_requests, whose value the
 * capacity line states), or that name no setting of the server's
 * behaviour (br_log_arg_incidental: host, port, SGLang's random_seed). */
static int
skip_arg(const br_server_log *l, const char *name)
{
	return strcmp(name, "max_num_seqs") == 0 ||
	    (l->engine_kind == BR_ENGINE_SGLANG && strcmp(name, "max_running_requests") == 0) ||
	    br_log_arg_incidental(l->engine_kind, name);
}

/* arg_name_cmp: qsort by argument name. */
static int
arg_name_cmp(const void *x, const void *y)
{
	return strcmp((*(const br_log_arg *const *)x)->name, (*(const br_log_arg *const *)y)->name);
}

/* br_cmp_server_fingerprint: see compare.h. */
char *
br_cmp_server_fingerprint(const br_run *run)
{
	if (run == NULL)
		return NULL;
	GString *s = g_string_new(NULL);
	const char *ver = br_run_server_version(run);
	const br_server_log *l = run->log;
	if (run->gpu && run->gpu[0])
		g_string_append_printf(s, "gpu=%s", run->gpu);
	if (ver && ver[0])
		g_string_append_printf(s, "%sversion=%s", s->len ? "; " : "", ver);
	if (l && br_isnum(l->max_num_seqs))
		g_string_append_printf(s, "%smax_num_seqs=%.0f", s->len ? "; " : "", l->max_num_seqs);
	if (l && l->n_args > 0) {
		const br_log_arg **v = br_xcalloc(l->n_args, sizeof *v);
		size_t n = 0;
		for (size_t i = 0; i < l->n_args; i++)
			if (!skip_arg(l, l->args[i].name))
				v[n++] = &l->args[i];
		qsort(v, n, sizeof *v, arg_name_cmp);
		for (size_t i = 0; i < n; i++)
			g_string_append_printf(s, "%sarg %s=%s", s->len ? "; " : "", v[i]->name, v[i]->value);
		free(v);
	}
	if (s->len == 0) {
		g_string_free(s, TRUE);
		return NULL;
	}
	return g_string_free(s, FALSE);
}

/* args_state: what one side's log says of its arguments when they cannot be compared. */
static const char *
args_state(const br_server_log *l, int listed)
{
	return listed ? "listed" : l == NULL ? "no server log" :
	    l->engine_kind == BR_ENGINE_LLAMACPP ? "not printed by llama-server" : "no args line";
}

/* config_arg: setting `key` of the log's engine-config line, or NULL. */
static const br_log_arg *
config_arg(const br_server_log *l, const char *key)
{
	for (size_t i = 0; l && i < l->n_config; i++)
		if (strcmp(l->config[i].name, key) == 0)
			return &l->config[i];
	return NULL;
}

/*
 * add_config: the settings of vLLM's engine-config line ("config
 * tensor_parallel_size", ...) when either log prints one (a setting the
 * other log does not print is unknown): what the engine ran with, also when
 * the args line does not list it (or is missing). A setting
 * either args line lists is left to the argument comparison (one fact, counted
 * once), unless both list it alike and the config lines differ (the
 * effective value differs); one the other line does not print is unknown.
 */
static void
add_config(const br_server_log *la, const br_server_log *lb, br_cmp_pair_result *out)
{
	/* one log with the line and one without (cut off, filtered, another
	 * logging setup): the settings it states are unknown on the other side,
	 * never silently dropped (thirty-second breaker: TP 2 and fp8 KV on A,
	 * nothing on B, and "controlled A/B") */
	if (la == NULL || lb == NULL || (la->n_config == 0 && lb->n_config == 0))
		return;
	for (int i = 0; br_log_config_keys[i] != NULL; i++) {
		const char *k = br_log_config_keys[i], *an = br_log_config_arg(k);
		const br_log_arg *aa = log_arg(la, an), *ab = log_arg(lb, an);
		const br_log_arg *ca = config_arg(la, k), *cb = config_arg(lb, k);
		/* an argument either line lists is compared as the argument, unless
		 * both list it alike while the engines ran with different values
		 * (--max-model-len auto resolved to two lengths): then the
		 * effective values differ, and that is said */
		if ((aa != NULL || ab != NULL) &&
		    !(aa && ab && arg_same(aa->raw, ab->raw) && ca && cb && !arg_same(ca->raw, cb->raw)))
			continue;
		if (ca == NULL && cb == NULL)
			continue;
		char *name = br_xasprintf("config %s", k);
		int st = ca && cb ? (arg_same(ca->raw, cb->raw) ? BR_DIFF_SAME : BR_DIFF_DIFFERS) : BR_DIFF_UNKNOWN;
		char *ta = NULL, *tb = NULL;
		if (st == BR_DIFF_DIFFERS && strcmp(ca->value, cb->value) == 0)
			distinct_display(ca, cb, &ta, &tb);
		push_extra(out, name, ta ? ta : ca ? ca->value : "not printed", tb ? tb : cb ? cb->value : "not printed", st);
		free(ta);
		free(tb);
		free(name);
	}
}

/*
 * len_spread: the sample sd (tokens) of the input (out = 0) or output
 * (out = 1) lengths over the requests of a detailed result (outputs over
 * the successful ones), into *sd and their mean into *mean
 * (br_mean_ci95); 0 when the file has no per-request arrays or fewer than
 * 2 such requests.
 */
static int
len_spread(const br_bench *b, int out, double *sd, double *mean)
{
	if (b == NULL || b->n_requests < 2)
		return 0;
	double *v = br_xmalloc(b->n_requests * sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < b->n_requests; i++)
		if (!(out && b->requests[i].failed))
			v[n++] = out ? b->requests[i].output_len_tokens : b->requests[i].input_len_tokens;
	br_mean_ci m;
	br_mean_ci95(v, n, &m);   /* skips values that are not numbers */
	free(v);
	*sd = m.sd;
	*mean = m.mean;
	return isfinite(m.sd);
}

/*
 * add_len_spreads: the spread of the request lengths, when both results
 * hold per-request arrays: the mean lengths alone called fixed 1,024-token
 * prompts and prompts uniform on 24-2,024 "a repeat" (thirty-second
 * breaker). The spreads differ when their sds are more than 10% of the
 * longer mean apart (two samples of one random-range workload differ by
 * about sd/sqrt(2n): 6% of the mean for 128 uniform prompts).
 */
static void
add_len_spreads(const br_bench *a, const br_bench *b, br_cmp_pair_result *out)
{
	static const char *const name[2] = { "input length sd (tokens)", "output length sd (tokens)" };
	for (int k = 0; k < 2; k++) {
		double sa, sb, ma, mb;
		if (!len_spread(a, k, &sa, &ma) || !len_spread(b, k, &sb, &mb))
			continue;
		char ta[32], tb[32];
		snprintf(ta, sizeof ta, "%.0f", sa);
		snprintf(tb, sizeof tb, "%.0f", sb);
		push_extra(out, name[k], ta, tb, fabs(sa - sb) > 0.1 * fmax(ma, mb) ? BR_DIFF_DIFFERS : BR_DIFF_SAME);
	}
}

/*
 * add_extras: every setting beyond the fixed table: bench backend,
 * tokenizer, num_prompts, burstiness; run.json driver and CUDA; the union
 * of both logs' non-default arguments (an argument one side lists and the
 * other does not was at its default there: "default"); for two SGLang logs
 * the union of both ServerArgs lines, which list every argument (one the
 * other does not print comes from another SGLang version: "not printed",
 * unknown). A side without a server log (or whose args line was cut off),
 * or logs of two engines, make the arguments unknown.
 */
static void
add_extras(const br_run *ra, const br_run *rb, br_cmp_pair_result *out)
{
	const br_bench *a = ra && ra->bench.n ? &ra->bench.runs[0] : NULL;
	const br_bench *b = rb && rb->bench.n ? &rb->bench.runs[0] : NULL;
	if (a && b) {
		extra_text(out, "backend", a->backend, b->backend);
		/* endpoint_type is --backend's other name (same value) in the files that
		 * have both; a separate setting only where it differs from the backend */
		if (a->endpoint_type && b->endpoint_type && !(a->backend && b->backend &&
		    strcmp(a->endpoint_type, a->backend) == 0 && strcmp(b->endpoint_type, b->backend) == 0))
			extra_text(out, "endpoint_type", a->endpoint_type, b->endpoint_type);
		extra_text(out, "tokenizer", a->tokenizer_id, b->tokenizer_id);
		extra_num(out, "num_prompts", a->num_prompts, b->num_prompts);
		add_len_spreads(a, b, out);
		/* burstiness shapes the gaps between arrivals at a finite rate; at
		 * request_rate inf every request is sent at once and vllm bench
		 * serve ignores it: not a setting of either run then */
		int inf_a = isinf(a->request_rate_rps) && a->request_rate_rps > 0;
		int inf_b = isinf(b->request_rate_rps) && b->request_rate_rps > 0;
		if (!(inf_a && inf_b))
			extra_num(out, "burstiness", a->burstiness, b->burstiness);
		/* vllm bench serve writes spec_decode_* keys only when the server
		 * decoded speculatively: one side with them and one without differ */
		int sa = br_isnum(a->spec_decode_acceptance_length) || br_isnum(a->spec_decode_acceptance_rate);
		int sb = br_isnum(b->spec_decode_acceptance_length) || br_isnum(b->spec_decode_acceptance_rate);
		if (sa || sb)
			extra_text(out, "speculative decoding", sa ? "on (spec_decode keys)" : "off (no spec_decode keys)",
			    sb ? "on (spec_decode keys)" : "off (no spec_decode keys)");
		/* the settings the results state besides (--metadata, the serve
		 * parameters `vllm bench sweep` writes: max_num_batched_tokens),
		 * as the knee reads them; max_num_seqs is in the table above
		 * (audit: two results stating 2048 and 8192 called no difference) */
		for (int side = 0; side < 2; side++) {
			const br_bench *x = side ? b : a, *o = side ? a : b;
			for (size_t i = 0; i < x->n_extras; i++) {
				const char *k = x->extras[i].key;
				if (strcmp(k, "max_num_seqs") == 0 || !br_bench_extra_is_setting(k, x->extras[i].value) ||
				    (side == 1 && br_bench_extra_get(o, k) != NULL))
					continue;   /* B's keys that A also states were compared from A's side */
				char *name = br_xasprintf("bench %s", k);
				const char *va = side ? br_bench_extra_get(a, k) : x->extras[i].value;
				const char *vb = side ? x->extras[i].value : br_bench_extra_get(b, k);
				extra_text(out, name, va, vb);
				free(name);
			}
		}
	}
	extra_text(out, "driver", ra ? ra->driver : NULL, rb ? rb->driver : NULL);
	extra_text(out, "CUDA", ra ? ra->cuda : NULL, rb ? rb->cuda : NULL);
	const br_server_log *la = ra ? ra->log : NULL, *lb = rb ? rb->log : NULL;
	add_config(la, lb, out);
	if (la && lb && la->engine_kind == BR_ENGINE_LLAMACPP && lb->engine_kind == BR_ENGINE_LLAMACPP) {
		/* llama-server prints no argument list; its context lines state what
		 * -c and --kv-unified set (the slots are max_num_seqs; the context per
		 * slot follows from the three, so it is not a setting of its own) */
		extra_num(out, "n_ctx", la->n_ctx_tokens, lb->n_ctx_tokens);
		extra_text(out, "kv_unified", la->kv_unified < 0 ? NULL : la->kv_unified ? "true" : "false",
		    lb->kv_unified < 0 ? NULL : lb->kv_unified ? "true" : "false");
	}
	int ka = la && la->args_line, kb = lb && lb->args_line;
	if (!ka || !kb) {
		push_extra(out, "server arguments", args_state(la, ka), args_state(lb, kb), BR_DIFF_UNKNOWN);
		return;
	}
	if (la->engine_kind != lb->engine_kind || la->args_all != lb->args_all) {
		push_extra(out, "server arguments", la->args_all ? "every argument (ServerArgs)" : "non-default list",
		    lb->args_all ? "every argument (ServerArgs)" : "non-default list", BR_DIFF_UNKNOWN);
		return;
	}
	/* a line cut off: the arguments it shows are compared, the rest are unknown */
	if (!la->args_complete || !lb->args_complete)
		push_extra(out, "server arguments", la->args_complete ? "listed" : "line cut off",
		    lb->args_complete ? "listed" : "line cut off", BR_DIFF_UNKNOWN);
	for (int side = 0; side < 2; side++) {
		const br_server_log *l = side ? lb : la, *o = side ? la : lb;
		for (size_t i = 0; i < l->n_args; i++) {
			const char *n = l->args[i].name;
			if (skip_arg(l, n) || (side == 1 && log_arg(o, n) != NULL))
				continue;   /* B's args that A also lists were compared from A's side */
			const br_log_arg *aa = side ? log_arg(la, n) : &l->args[i];
			const br_log_arg *ab = side ? &l->args[i] : log_arg(lb, n);
			/* missing from one side: not read (its line is cut), not printed by
			 * that version (SGLang lists every argument), or at its default (vLLM) */
			const br_server_log *ml = aa == NULL ? la : lb;
			const char *missing = !ml->args_complete ? "not read (line cut off)" :
			    ml->args_all ? "not printed" : "default";
			int st = aa && ab ? (arg_same(aa->raw, ab->raw) ? BR_DIFF_SAME : BR_DIFF_DIFFERS) :
			    !ml->args_complete || ml->args_all ? BR_DIFF_UNKNOWN : BR_DIFF_DIFFERS;
			char *name = br_xasprintf("arg %s", n);
			char *ta = NULL, *tb = NULL;
			if (st == BR_DIFF_DIFFERS && aa && ab && strcmp(aa->value, ab->value) == 0)
				distinct_display(aa, ab, &ta, &tb);
			push_extra(out, name, ta ? ta : aa ? aa->value : missing, tb ? tb : ab ? ab->value : missing, st);
			free(ta);
			free(tb);
			free(name);
		}
	}
}

/*
 * br_cmp_engine_diagnosis: see compare.h. What side x shows against side y when two engines
 * serve the same workload (the round-2 reference: vLLM's capacity problem,
 * TTFT exploding while ITL stays normal, against llama.cpp's decode
 * problem, ITL slow). "capacity" when x's TTFT p50 is at least 3 times y's
 * while its ITL p50 is at most 1.25 times y's; "decode" when x's ITL p50 is
 * at least 1.5 times y's; NULL otherwise or when a number is missing.
 */
const char *
br_cmp_engine_diagnosis(const br_cmp_values *x, const br_cmp_values *y)
{
	double tx = x->v[BR_CMP_TTFT_P50_S], ty = y->v[BR_CMP_TTFT_P50_S];
	double ix = x->v[BR_CMP_ITL_P50_MS], iy = y->v[BR_CMP_ITL_P50_MS];
	if (!(isfinite(ix) && isfinite(iy) && iy > 0))
		return NULL;
	if (ix >= 1.5 * iy)
		return "decode";
	if (isfinite(tx) && isfinite(ty) && ty > 0 && tx >= 3 * ty && ix <= 1.25 * iy)
		return "capacity";
	return NULL;
}

/*
 * arrivals: for two open-loop runs at finite rates, the rate each client
 * really sent and the achieved rate; when both kept up with what they were
 * sent (achieved >= 95% of it, the knee's keep-up bound) and the sent
 * rates differ by 2% or more, their throughputs are their arrivals', and
 * out->arrivals_set_throughput is set.
 */
static void
arrivals(const br_analysis *a, const br_analysis *b, br_cmp_pair_result *out)
{
	out->sent_rps_a = out->sent_rps_b = out->achieved_rps_a = out->achieved_rps_b = NAN;
	const br_bench *x = a->run && a->run->bench.n ? &a->run->bench.runs[0] : NULL;
	const br_bench *y = b->run && b->run->bench.n ? &b->run->bench.runs[0] : NULL;
	if (x == NULL || y == NULL || !(isfinite(x->request_rate_rps) && x->request_rate_rps > 0) ||
	    !(isfinite(y->request_rate_rps) && y->request_rate_rps > 0))
		return;
	out->sent_rps_a = br_bench_sent_rps(x);
	out->sent_rps_b = br_bench_sent_rps(y);
	out->achieved_rps_a = br_isnum(x->duration_s) && x->duration_s > 0 ? x->completed / x->duration_s : NAN;
	out->achieved_rps_b = br_isnum(y->duration_s) && y->duration_s > 0 ? y->completed / y->duration_s : NAN;
	int kept = out->achieved_rps_a >= BR_KNEE_KEEPUP_FRAC * out->sent_rps_a &&
	    out->achieved_rps_b >= BR_KNEE_KEEPUP_FRAC * out->sent_rps_b;
	out->arrivals_set_throughput = kept && fabs(out->sent_rps_b / out->sent_rps_a - 1) >= 0.02;
}

/* br_cmp_pair: see compare.h. */
void
br_cmp_pair(const br_analysis *a, const br_analysis *b, const char *name_a,
    const char *name_b, br_cmp_pair_result *out)
{
	memset(out, 0, sizeof *out);
	out->a = a;
	out->b = b;
	out->name_a = name_a;
	out->name_b = name_b;
	br_cmp_values_from_analysis(a, &out->va);
	br_cmp_values_from_analysis(b, &out->vb);
	br_cmp_rows(&out->va, &out->vb, out->rows);
	br_cmp_elasticities(out->rows, &out->elasticity);
	arrivals(a, b, out);
	br_cmp_settings sa, sb;
	br_cmp_settings_from_run(a->run, a, &sa);
	br_cmp_settings_from_run(b->run, b, &sb);
	br_cmp_settings_diff(&sa, &sb, out->diffs, &out->n_differ);
	/* max_num_seqs absent from a log's complete non-default list was at its default */
	const br_server_log *la = a->run ? a->run->log : NULL, *lb = b->run ? b->run->log : NULL;
	br_cmp_diff *mns = &out->diffs[BR_SET_MAX_NUM_SEQS];
	/* (listed but unreadable, e.g. beyond 2^53, stays unknown) */
	if (mns->state == BR_DIFF_UNKNOWN && la && lb && la->args_line && la->args_complete &&
	    lb->args_line && lb->args_complete && !la->args_all && !lb->args_all &&
	    (isfinite(la->max_num_seqs) || log_arg(la, "max_num_seqs") == NULL) &&
	    (isfinite(lb->max_num_seqs) || log_arg(lb, "max_num_seqs") == NULL)) {
		int ha = isfinite(la->max_num_seqs), hb = isfinite(lb->max_num_seqs);
		if (!ha) {
			free(mns->a_text);
			mns->a_text = br_xstrdup("default");
		}
		if (!hb) {
			free(mns->b_text);
			mns->b_text = br_xstrdup("default");
		}
		mns->state = ha || hb ? BR_DIFF_DIFFERS : BR_DIFF_SAME;
		out->n_differ += mns->state == BR_DIFF_DIFFERS;
	}
	add_extras(a->run, b->run, out);
	size_t n_extra_differ = 0, n_unknown = 0, n_hw = 0;
	for (size_t i = 0; i < out->n_extra; i++) {
		n_extra_differ += out->extra[i].state == BR_DIFF_DIFFERS;
		if (out->extra[i].state == BR_DIFF_UNKNOWN) {
			if (br_cmp_rarely_stated(out->extra[i].name))
				n_hw++;
			else
				n_unknown++;
		}
	}
	for (int k = 0; k < BR_SET_N; k++) {
		if (k == BR_SET_KV_POOL || out->diffs[k].state != BR_DIFF_UNKNOWN)
			continue;
		if (br_cmp_rarely_stated(br_cmp_setting_key[k]))
			n_hw++;
		else
			n_unknown++;
	}
	out->n_unchecked_hw = n_hw;
	if (out->diffs[BR_SET_KV_POOL].state == BR_DIFF_DIFFERS) {
		/* the pool is an outcome of the settings below, not a setting */
		out->n_differ--;
		int set = out->diffs[BR_SET_MODEL].state == BR_DIFF_DIFFERS ||
		    out->diffs[BR_SET_GPU].state == BR_DIFF_DIFFERS ||
		    out->diffs[BR_SET_VLLM].state == BR_DIFF_DIFFERS ||
		    out->diffs[BR_SET_MAX_NUM_SEQS].state == BR_DIFF_DIFFERS;
		for (size_t i = 0; i < out->n_extra && !set; i++)
			set = out->extra[i].state == BR_DIFF_DIFFERS && sets_pool(out->extra[i].name);
		/* "by itself" needs every setting that sizes the pool known alike:
		 * an unknown one may have moved it (audit: "the pool moved by
		 * itself" with B's server arguments unknown) */
		/* (the GPU, driver and CUDA, rarely stated, are among what the
		 * sentence names as moving it: they do not withhold it) */
		int unknown = out->diffs[BR_SET_MODEL].state == BR_DIFF_UNKNOWN ||
		    out->diffs[BR_SET_VLLM].state == BR_DIFF_UNKNOWN ||
		    out->diffs[BR_SET_MAX_NUM_SEQS].state == BR_DIFF_UNKNOWN;
		/* llama-server prints no argument list, but its context lines state
		 * all that sizes its cache (n_ctx, kv_unified: compared as extras) */
		int lcpp = br_run_engine(a->run) == BR_ENGINE_LLAMACPP && br_run_engine(b->run) == BR_ENGINE_LLAMACPP;
		for (size_t i = 0; i < out->n_extra && !unknown; i++)
			unknown = out->extra[i].state == BR_DIFF_UNKNOWN && !br_cmp_rarely_stated(out->extra[i].name) &&
			    (sets_pool(out->extra[i].name) || (!lcpp && strcmp(out->extra[i].name, "server arguments") == 0));
		out->pool_moved_alone = !set && !unknown;
	}
	out->n_differ += n_extra_differ;
	/* "the same settings" needs every setting checked (GPU, driver and CUDA
	 * are rarely stated, so they alone do not withhold it; the report lists
	 * them as unchecked) */
	out->n_unknown = n_unknown;
	out->verdict = out->pool_moved_alone ? 0 : out->n_differ == 1 ? (n_unknown > 0 ? 4 : 1) :
	    out->n_differ == 0 ? (n_unknown > 0 ? 3 : 2) : 0;
	/* two engines: each has its own scheduler, batching and defaults, so no
	 * setting can be credited with a change, whatever else matches */
	out->engine_a = br_run_engine(a->run);
	out->engine_b = br_run_engine(b->run);
	out->different_engines = out->engine_a != BR_ENGINE_UNKNOWN && out->engine_b != BR_ENGINE_UNKNOWN &&
	    out->engine_a != out->engine_b;
	if (out->different_engines) {
		out->verdict = 5;
		/* latencies are set against each other only for the same workload */
		out->same_workload = out->diffs[BR_SET_INPUT_LEN].state == BR_DIFF_SAME &&
		    out->diffs[BR_SET_OUTPUT_LEN].state == BR_DIFF_SAME &&
		    out->diffs[BR_SET_CONCURRENCY].state == BR_DIFF_SAME &&
		    out->diffs[BR_SET_REQUEST_RATE].state != BR_DIFF_DIFFERS;
		if (out->same_workload) {
			out->diagnosis_a = br_cmp_engine_diagnosis(&out->va, &out->vb);
			out->diagnosis_b = br_cmp_engine_diagnosis(&out->vb, &out->va);
		}
	}
}

/* br_cmp_rarely_stated: see compare.h. */
int
br_cmp_rarely_stated(const char *name)
{
	return name != NULL && (strcmp(name, br_cmp_setting_key[BR_SET_GPU]) == 0 || strcmp(name, "driver") == 0 ||
	    strcmp(name, "CUDA") == 0);
}

/* br_cmp_pair_free: see compare.h. */
void
br_cmp_pair_free(br_cmp_pair_result *p)
{
	br_cmp_diffs_free(p->diffs);
	for (size_t i = 0; i < p->n_extra; i++) {
		free(p->extra[i].name);
		free(p->extra[i].a_text);
		free(p->extra[i].b_text);
	}
	free(p->extra);
	p->extra = NULL;
	p->n_extra = 0;
}

/* given_eq: names a and b agree in their given parts (lengths la, lb;
 * (size_t)-1 = the whole name). */
static int
given_eq(const char *a, size_t la, const char *b, size_t lb)
{
	if (a == NULL || b == NULL)
		return 0;
	la = la == (size_t)-1 ? strlen(a) : la;
	lb = lb == (size_t)-1 ? strlen(b) : lb;
	return la == lb && memcmp(a, b, la) == 0;
}

/* br_cmp_match_names: see compare.h. */
void
br_cmp_match_names(const char *const *names_a, const size_t *given_a, size_t na,
    const char *const *names_b, const size_t *given_b, size_t nb, br_cmp_match *out)
{
	memset(out, 0, sizeof *out);
	char *used = br_xcalloc(nb + 1, 1);
	size_t *match = br_xcalloc(na + 1, sizeof *match);   /* B index + 1, 0 = none */
	out->pairs = br_xcalloc(na + 1, sizeof *out->pairs);
	out->only_a = br_xcalloc(na + 1, sizeof *out->only_a);
	out->only_b = br_xcalloc(nb + 1, sizeof *out->only_b);
	/* pass 1: the same name; pass 2: the same given name, in folder order
	 * (repeats a campaign told apart as "NAME [folder]") */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < na; i++) {
			if (match[i])
				continue;
			for (size_t j = 0; j < nb; j++) {
				int eq = pass == 0 ? names_a[i] && names_b[j] && strcmp(names_a[i], names_b[j]) == 0 :
				    given_eq(names_a[i], given_a ? given_a[i] : (size_t)-1, names_b[j],
				    given_b ? given_b[j] : (size_t)-1);
				if (!used[j] && eq) {
					used[j] = 1;
					match[i] = j + 1;
					break;
				}
			}
		}
	for (size_t i = 0; i < na; i++) {
		if (match[i]) {
			out->pairs[out->n_pairs][0] = i;
			out->pairs[out->n_pairs][1] = match[i] - 1;
			out->n_pairs++;
		} else {
			out->only_a[out->n_only_a++] = i;
		}
	}
	for (size_t j = 0; j < nb; j++)
		if (!used[j])
			out->only_b[out->n_only_b++] = j;
	free(match);
	free(used);
}

/* br_cmp_match_free: see compare.h. */
void
br_cmp_match_free(br_cmp_match *m)
{
	free(m->pairs);
	free(m->only_a);
	free(m->only_b);
	memset(m, 0, sizeof *m);
}

/* group_values: the finite values of metric m over group g's members. */
static size_t
group_values(const br_campaign *c, const br_config_group *g, int m, double *x)
{
	size_t n = 0;
	for (size_t j = 0; j < g->n; j++) {
		double v = c->measurements[g->members[j]].value[m];
		if (isfinite(v))
			x[n++] = v;
	}
	return n;
}

/* group_holds_copy: 1 when some member of gb is a copy of some member of ga
 * (br_run_same_bench: the same file, or re-saved): the two samples are not
 * independent, so no test may compare them. */
static int
group_holds_copy(const br_campaign *a, const br_config_group *ga, const br_campaign *b, const br_config_group *gb)
{
	for (size_t i = 0; i < ga->n; i++)
		for (size_t j = 0; j < gb->n; j++)
			if (br_run_same_bench(&a->runs[ga->members[i]], &b->runs[gb->members[j]]))
				return 1;
	return 0;
}

/*
 * holm: Holm's step-down adjustment (Holm 1979, "A simple sequentially
 * rejective multiple test procedure") over the testable tests (w.ok, some
 * spread): with the m p-values ascending, p_holm(k) = max over j <= k of
 * min(1, (m − j)·p(j)), j from 0; a test exceeds run-to-run variation when
 * p_holm < 0.05. It keeps the chance of calling any pure-noise difference
 * "larger than variation" at 5% over the whole comparison (audit: 24 tests
 * at 0.05 each, one false "larger" among seed-only repeats). Ties keep
 * their order (the adjustment is the same for equal p).
 */
static void
holm(br_cmp_repeat_test *t, size_t n)
{
	size_t *ord = br_xmalloc((n ? n : 1) * sizeof *ord), m = 0;
	for (size_t i = 0; i < n; i++) {
		t[i].p_holm = NAN;
		t[i].n_tests = 0;
		t[i].exceeds_noise = 0;
		if (t[i].w.ok && !t[i].no_spread && isfinite(t[i].w.p_two_sided))
			ord[m++] = i;
	}
	for (size_t i = 1; i < m; i++)   /* insertion sort by p: a few dozen tests */
		for (size_t j = i; j > 0 && t[ord[j]].w.p_two_sided < t[ord[j - 1]].w.p_two_sided; j--) {
			size_t x = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = x;
		}
	double run = 0;
	for (size_t k = 0; k < m; k++) {
		br_cmp_repeat_test *x = &t[ord[k]];
		double adj = fmin(1.0, (double)(m - k) * x->w.p_two_sided);
		run = fmax(run, adj);
		x->p_holm = run;
		x->n_tests = m;
		x->exceeds_noise = run < 0.05;
	}
	free(ord);
}

/* br_cmp_repeat_tests: see compare.h. */
void
br_cmp_repeat_tests(const br_campaign *a, const br_campaign *b, br_cmp_repeat_test **tests, size_t *n,
    const char ***copied, size_t *n_copied)
{
	*tests = NULL;
	*n = 0;
	*copied = NULL;
	*n_copied = 0;
	for (size_t i = 0; i < a->n_groups; i++) {
		const br_config_group *ga = &a->groups[i];
		if (ga->n < 2)
			continue;
		const br_config_group *gb = NULL;
		for (size_t j = 0; j < b->n_groups && gb == NULL; j++)
			if (b->groups[j].n >= 2 && strcmp(b->groups[j].label, ga->label) == 0)
				gb = &b->groups[j];
		if (gb == NULL)
			continue;
		if (group_holds_copy(a, ga, b, gb)) {
			*copied = br_xrealloc(*copied, (*n_copied + 1) * sizeof **copied);
			(*copied)[(*n_copied)++] = ga->label;
			continue;
		}
		double *xa = br_xcalloc(ga->n, sizeof *xa), *xb = br_xcalloc(gb->n, sizeof *xb);
		for (int m = 0; m < BR_REPEAT_N_METRICS; m++) {
			size_t na = group_values(a, ga, m, xa), nb = group_values(b, gb, m, xb);
			if (na < 2 || nb < 2)
				continue;
			*tests = br_xrealloc(*tests, (*n + 1) * sizeof **tests);
			br_cmp_repeat_test *t = &(*tests)[(*n)++];
			t->config = ga->label;
			t->metric = m;
			br_welch_test(xa, na, xb, nb, &t->w);
			double scale = fmax(fabs(t->w.mean_a), fabs(t->w.mean_b));
			t->no_spread = t->w.ok && !(t->w.se > 1e-12 * scale);
		}
		free(xa);
		free(xb);
	}
	holm(*tests, *n);
}
