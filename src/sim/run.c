/*
 * br_sim_run: config → engine → summary numbers and ground truth
 * (include/benchreport/sim.h). No file is written here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/stats.h"
#include "sim_internal.h"

/* col_index: index of a metrics column by name, or -1. */
static long
col_index(const struct br_sim_run *run, const char *name)
{
	for (size_t i = 0; i < run->n_cols; i++)
		if (strcmp(run->col_names[i], name) == 0)
			return (long)i;
	return -1;
}

/* sorted_stat: percentile p of a copy of x[0..n) (NAN when n == 0). */
static double
sorted_pct(double *sorted, size_t n, double p)
{
	return br_percentile_sorted(sorted, n, p);
}

/*
 * summarize: fill the public summary from a finished run. Gauge statistics
 * use the 1 Hz rows inside the run window [0, t_end] (client seconds).
 */
static void
summarize(const struct br_sim_run *run, br_sim_result *out)
{
	const br_sim_config *c = &run->cfg;
	out->kv_pool_tokens = c->kv_pool_tokens;
	out->num_prompts = c->num_prompts;
	out->start_epoch_s = c->start_epoch_s;
	out->end_epoch_s = c->start_epoch_s + run->t_end;
	out->duration_s = run->t_end;
	out->n_steps = run->n_steps;
	out->max_victims_per_step = run->n_pre ? run->max_victims : 0;
	out->recomputed_tokens = run->recomputed_tokens;
	out->flops_total = run->flops_total;

	/* gauges over the run window */
	long c_run = col_index(run, "vllm:num_requests_running");
	long c_wait = col_index(run, "vllm:num_requests_waiting");
	long c_kv = col_index(run, "vllm:kv_cache_usage_perc");
	size_t nw = 0;
	double *rv = br_xmalloc((run->n_rows + 1) * sizeof(double));
	double *wv = br_xmalloc((run->n_rows + 1) * sizeof(double));
	double *kv = br_xmalloc((run->n_rows + 1) * sizeof(double));
	for (size_t i = 0; i < run->n_rows; i++) {
		const double *row = run->rows + i * run->n_cols;
		double t = row[0] - c->start_epoch_s;
		if (t < 0 || t > run->t_end)
			continue;
		rv[nw] = row[c_run];
		wv[nw] = row[c_wait];
		kv[nw] = row[c_kv];
		nw++;
	}
	out->mean_running = br_mean(rv, nw);
	out->mean_waiting = br_mean(wv, nw);
	double ge90 = 0, ge95 = 0;
	for (size_t i = 0; i < nw; i++) {
		ge90 += kv[i] >= 0.90;
		ge95 += kv[i] >= 0.95;
	}
	out->kv_share_ge90 = nw ? ge90 / (double)nw : NAN;
	out->kv_share_ge95 = nw ? ge95 / (double)nw : NAN;
	br_sort_doubles(rv, nw);
	br_sort_doubles(wv, nw);
	br_sort_doubles(kv, nw);
	out->median_running = sorted_pct(rv, nw, 50);
	out->peak_running = nw ? rv[nw - 1] : NAN;
	out->peak_waiting = nw ? wv[nw - 1] : NAN;
	out->kv_median_frac = sorted_pct(kv, nw, 50);
	free(rv);
	free(wv);
	free(kv);

	/* counters at the end */
	out->iteration_tokens_sum = run->hist[H_ITER].sum;
	const double *last = run->n_rows ? run->rows + (run->n_rows - 1) * run->n_cols : NULL;
	out->prompt_tokens_total = last ? last[col_index(run, "vllm:prompt_tokens_total")] : NAN;
	out->generation_tokens_total = last ? last[col_index(run, "vllm:generation_tokens_total")] : NAN;

	/* the same workload with every token computed exactly once */
	double fl = 0, completed = 0, gen = 0;
	size_t n = (size_t)run->n_req;
	double *ttft = br_xmalloc((n + 1) * sizeof(double));
	double *e2el = br_xmalloc((n + 1) * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		const br_sim_req *r = &run->req[i];
		double k = (double)r->in + r->out - 1;   /* the last token is never fed back */
		fl += k * c->flops_c0 + c->flops_c1 * k * (k + 1) / 2;
		completed += r->state == 3;
		gen += r->out;
		ttft[i] = r->t_first_tok + r->fe_out_s - r->t_client;
		e2el[i] = r->t_fin + r->fe_out_s - r->t_client;
	}
	out->flops_no_preemption = fl;
	out->completed = completed;
	out->failed = (double)n - completed;
	out->output_throughput_tps = gen / run->t_end;
	out->ttft_mean_s = br_mean(ttft, n);
	br_sort_doubles(ttft, n);
	br_sort_doubles(e2el, n);
	out->ttft_p50_s = sorted_pct(ttft, n, 50);
	out->ttft_p99_s = sorted_pct(ttft, n, 99);
	out->e2el_p50_s = sorted_pct(e2el, n, 50);
	free(ttft);
	free(e2el);
	double *itl = br_xmalloc_huge((run->n_itls + 1) * sizeof(double));
	memcpy(itl, run->itls, run->n_itls * sizeof(double));
	static const double itl_p[3] = { 50, 90, 99 };
	double itl_v[3];
	br_percentiles_select(itl, run->n_itls, itl_p, 3, itl_v);   /* millions of gaps: no sort */
	out->itl_p50_s = itl_v[0];
	out->itl_p90_s = itl_v[1];
	out->itl_p99_s = itl_v[2];
	free(itl);

	const br_sim_hist *hq = &run->hist[H_QUEUE], *hp = &run->hist[H_PREFILL];
	out->queue_time_mean_s = hq->count > 0 ? hq->sum / hq->count : NAN;
	out->prefill_time_mean_s = hp->count > 0 ? hp->sum / hp->count : NAN;

	out->n_preemptions = run->n_pre;
	out->preemptions = run->pre;
}

/*
 * br_sim_run: see sim.h. On failure *out is zeroed and nothing leaks.
 */
int
br_sim_run(const char *config_path, br_sim_result *out, char **cause)
{
	memset(out, 0, sizeof *out);
	struct br_sim_run *run = br_xcalloc(1, sizeof *run);
	if (br_sim_config_load(config_path, &run->cfg, cause) < 0) {
		free(run);
		return -1;
	}
	if (br_sim_engine_run(run, cause) < 0) {
		br_sim_run_free(run);
		free(run);
		return -1;
	}
	out->run = run;
	summarize(run, out);
	return 0;
}

/* br_sim_result_free: release a result and its run (safe on a zeroed one). */
void
br_sim_result_free(br_sim_result *r)
{
	if (r == NULL)
		return;
	if (r->run) {
		br_sim_run_free(r->run);
		free(r->run);
	}
	memset(r, 0, sizeof *r);
}
