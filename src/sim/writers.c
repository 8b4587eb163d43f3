/*
 * Writers of a simulated run folder, in the real formats:
 *  - stress.json: `vllm bench serve --save-result --save-detailed` (FORMATS.md
 *    §1): one line, Python json.dump separators ", " and ": ", floats as
 *    Python repr() (shortest round-trip), key order of vLLM's result dict.
 *    Written with our own buffered printer: the itls array of a 5,000 × 1,000
 *    run holds 5 million numbers, too many to build as jansson objects;
 *    jansson is used to escape strings.
 *  - metrics.csv: canonical 1 Hz CSV (DESIGN.md §1).
 *  - server.log: V1 banner, non-default args, capacity lines, 10 s stats.
 *  - run.json: labels plus the simulator's ground truth (jansson).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib.h>
#include <jansson.h>
#include "benchreport/common.h"
#include "benchreport/outdir.h"
#include "benchreport/stats.h"
#include "sim_internal.h"

/*
 * br_sim_fmt_pyfloat: x as Python's repr(float) writes it: the shortest
 * digit string that reads back as x (br_shortest_digits, the digits
 * Python's float_repr_style 'short' picks), fixed
 * notation when -4 <= exponent < 16 (with ".0" for whole numbers), else
 * "1.5e-05" / "1e+16"; NaN/Infinity as json.dump writes them. Returns the
 * length written (buf must hold >= 32 bytes).
 */
int
br_sim_fmt_pyfloat(char *buf, size_t cap, double x)
{
	if (isnan(x))
		return snprintf(buf, cap, "NaN");
	if (isinf(x))
		return snprintf(buf, cap, x > 0 ? "Infinity" : "-Infinity");
	if (x == 0)
		return snprintf(buf, cap, signbit(x) ? "-0.0" : "0.0");
	/* 1e-4 <= |x| < 1e16 (nearly every number the simulator writes): repr is
	 * the shortest fixed notation, ".0" added to a whole number */
	if (cap >= 34) {
		int n = br_shortest_fixed(x, buf);
		if (n >= 0) {
			if (x == floor(x)) {   /* a whole number: fixed notation has no point */
				buf[n++] = '.';
				buf[n++] = '0';
				buf[n] = '\0';
			}
			return n;
		}
	}
	char dig[24];
	int point;
	int nd = br_shortest_digits(x, dig, &point);
	int neg = x < 0;
	int ex = point - 1;   /* x = d.ddd × 10^ex */
	dig[nd] = '\0';
	char *o = buf;
	char *end = buf + cap - 1;
#define PUT(ch) do { if (o < end) *o++ = (ch); } while (0)
	if (neg)
		PUT('-');
	if (ex >= -4 && ex < 16) {
		if (ex >= 0) {
			for (int i = 0; i <= ex; i++)
				PUT(i < nd ? dig[i] : '0');
			PUT('.');
			if (nd > ex + 1)
				for (int i = ex + 1; i < nd; i++)
					PUT(dig[i]);
			else
				PUT('0');
		} else {
			PUT('0');
			PUT('.');
			for (int i = 0; i < -ex - 1; i++)
				PUT('0');
			for (int i = 0; i < nd; i++)
				PUT(dig[i]);
		}
	} else {
		PUT(dig[0]);
		if (nd > 1) {
			PUT('.');
			for (int i = 1; i < nd; i++)
				PUT(dig[i]);
		}
		char ebuf[16];
		snprintf(ebuf, sizeof ebuf, "e%c%02d", ex < 0 ? '-' : '+', ex < 0 ? -ex : ex);
		for (char *q = ebuf; *q; q++)
			PUT(*q);
	}
#undef PUT
	*o = '\0';
	return (int)(o - buf);
}

/* ---- small output helpers ---- */

static void
put_f(FILE *fp, double x)
{
	char b[40];
	int n = br_sim_fmt_pyfloat(b, sizeof b, x);
	fwrite(b, 1, (size_t)n, fp);
}

/* The "itls" lists of requests [from, to), formatted into memory:
 * "[x, ...]" each, ", " before all but request 0's (a second thread does
 * one half; this one the other in batches). */
typedef struct itl_job {
	const struct br_sim_run *run;
	size_t from, to;
	char *buf;      /* malloc'd (br_xmalloc_huge); reused by the next job when cap fits */
	size_t cap;     /* bytes allocated at buf */
	size_t len;
} itl_job;

/* itl_job_run: GThreadFunc of an itl_job; the run is only read. The
 * buffer is sized for the longest repr (24 characters) of every number;
 * one left in j->buf by an earlier job is reused when large enough (the
 * batches of 256 requests each took a fresh 6 MB: 1,600 page faults). */
static gpointer
itl_job_run(gpointer data)
{
	itl_job *j = data;
	size_t total = 0;
	for (size_t i = j->from; i < j->to; i++)
		total += (size_t)(j->run->req[i].out > 1 ? j->run->req[i].out - 1 : 0);
	size_t need = total * 26 + (j->to - j->from) * 4 + 64;
	if (j->buf == NULL || j->cap < need) {
		free(j->buf);
		j->buf = br_xmalloc_huge(need);
		j->cap = need;
	}
	char *o = j->buf;
	for (size_t i = j->from; i < j->to; i++) {
		const br_sim_req *r = &j->run->req[i];
		if (i) {
			*o++ = ',';
			*o++ = ' ';
		}
		*o++ = '[';
		for (int k = 0; k < r->out - 1; k++) {
			if (k) {
				*o++ = ',';
				*o++ = ' ';
			}
			o += br_sim_fmt_pyfloat(o, 40, j->run->itls[r->itl_off + (size_t)k]);
		}
		*o++ = ']';
	}
	j->len = (size_t)(o - j->buf);
	return NULL;
}

/* put_str: a JSON string literal, escaped by jansson with ensure_ascii as
 * Python's json.dump does by default. */
static void
put_str(FILE *fp, const char *s)
{
	json_t *j = json_string(s);
	char *t = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;
	fputs(t ? t : "\"\"", fp);
	free(t);
	json_decref(j);
}

static void
key(FILE *fp, const char *k, int *first)
{
	if (!*first)
		fputs(", ", fp);
	*first = 0;
	fprintf(fp, "\"%s\": ", k);
}

static void
kv_f(FILE *fp, const char *k, double x, int *first)
{
	key(fp, k, first);
	put_f(fp, x);
}

static void
kv_i(FILE *fp, const char *k, double x, int *first)
{
	key(fp, k, first);
	fprintf(fp, "%.0f", x);
}

/* The four statistics vLLM writes per metric, in ms. */
typedef struct stat4_ms {
	double mean, median, std, p99;
} stat4_ms;

/* stat4_of: mean/median/std/p99 (ms) of x (seconds, n values; reordered);
 * an empty set gives 0 (vLLM: `np.mean(x or 0)`). */
static stat4_ms
stat4_of(double *x, size_t n)
{
	stat4_ms o = { 0, 0, 0, 0 };
	if (n > 0) {
		o.mean = br_mean(x, n) * 1000;
		o.std = br_std_pop(x, n) * 1000;
		static const double pct[2] = { 50, 99 };
		double v[2];
		br_percentiles_select(x, n, pct, 2, v);
		o.median = v[0] * 1000;
		o.p99 = v[1] * 1000;
	}
	return o;
}

/* The ITL statistics, computed on another thread while the ITLs are
 * formatted (they only read run->itls). */
typedef struct itl_stats_job {
	const struct br_sim_run *run;
	stat4_ms out;
} itl_stats_job;

static gpointer
itl_stats_run(gpointer data)
{
	itl_stats_job *j = data;
	double *x = br_xmalloc_huge(j->run->n_itls * sizeof(double) + sizeof(double));
	memcpy(x, j->run->itls, j->run->n_itls * sizeof(double));
	j->out = stat4_of(x, j->run->n_itls);
	free(x);
	return NULL;
}

/* stat4_put: write the four statistics of metric as vLLM names them. */
static void
stat4_put(FILE *fp, const char *metric, stat4_ms st, int *first)
{
	char k[64];
	double mean = st.mean, med = st.median, sd = st.std, p99 = st.p99;
	snprintf(k, sizeof k, "mean_%s_ms", metric);
	kv_f(fp, k, mean, first);
	snprintf(k, sizeof k, "median_%s_ms", metric);
	kv_f(fp, k, med, first);
	snprintf(k, sizeof k, "std_%s_ms", metric);
	kv_f(fp, k, sd, first);
	snprintf(k, sizeof k, "p99_%s_ms", metric);
	kv_f(fp, k, p99, first);
}

/*
 * write_stress: stress.json (see the file comment). All requests succeed in
 * the model, so every statistic is over all of them. Returns 0 or -1.
 */
static int
write_stress(const struct br_sim_run *run, FILE *fp)
{
	const br_sim_config *c = &run->cfg;
	size_t n = (size_t)run->n_req;
	double dur = run->t_end;
	double tin = 0, tout = 0;
	for (size_t i = 0; i < n; i++) {
		tin += run->req[i].in;
		tout += run->req[i].out;
	}
	char date[32];
	time_t te = (time_t)floor(c->start_epoch_s + run->t_end);
	struct tm tm;
	gmtime_r(&te, &tm);   /* vLLM writes local time; we use UTC so output is deterministic */
	strftime(date, sizeof date, "%Y%m%d-%H%M%S", &tm);

	int first = 1;
	fputc('{', fp);
	key(fp, "date", &first);
	put_str(fp, date);
	key(fp, "endpoint_type", &first);
	put_str(fp, "openai");
	key(fp, "backend", &first);
	put_str(fp, c->engine == BR_ENGINE_VLLM ? "vllm" : "openai");   /* vllm bench serve --backend
	                                                                   openai against another server */
	key(fp, "label", &first);
	fputs("null", fp);
	key(fp, "model_id", &first);
	put_str(fp, c->model_name);
	key(fp, "tokenizer_id", &first);
	put_str(fp, c->model_name);
	kv_i(fp, "num_prompts", c->num_prompts, &first);
	key(fp, "request_rate", &first);
	if (isinf(c->request_rate))
		put_str(fp, "inf");
	else
		put_f(fp, c->request_rate);
	kv_f(fp, "burstiness", c->burstiness, &first);
	key(fp, "max_concurrency", &first);
	if (c->max_concurrency > 0)
		fprintf(fp, "%d", c->max_concurrency);
	else
		fputs("null", fp);
	kv_f(fp, "duration", dur, &first);
	kv_i(fp, "completed", (double)n, &first);
	kv_i(fp, "failed", 0, &first);
	kv_i(fp, "total_input_tokens", tin, &first);
	kv_i(fp, "total_output_tokens", tout, &first);
	kv_f(fp, "request_throughput", (double)n / dur, &first);
	key(fp, "request_goodput", &first);
	fputs("null", fp);
	kv_f(fp, "output_throughput", tout / dur, &first);
	kv_f(fp, "total_token_throughput", (tin + tout) / dur, &first);

	key(fp, "input_lens", &first);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%s%d", i ? ", " : "[", run->req[i].in);
	fputs(n ? "]" : "[]", fp);
	key(fp, "output_lens", &first);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%s%d", i ? ", " : "[", run->req[i].out);
	fputs(n ? "]" : "[]", fp);
	key(fp, "ttfts", &first);
	fputc('[', fp);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", fp);
		put_f(fp, run->req[i].t_first_tok + run->req[i].fe_out_s - run->req[i].t_client);
	}
	fputc(']', fp);
	itl_stats_job itl_st = { .run = run };
	GThread *st_th = run->n_itls > 100000 ? g_thread_new("itl-stats", itl_stats_run, &itl_st) : NULL;
	if (st_th == NULL)
		itl_stats_run(&itl_st);
	key(fp, "itls", &first);
	fputc('[', fp);
	/* millions of numbers: the second half of the requests is formatted on
	 * the other core while this one writes the first */
	size_t mid = n / 2;
	itl_job later = { .run = run, .from = mid, .to = n };
	GThread *th = n > 64 ? g_thread_new("itls", itl_job_run, &later) : NULL;
	itl_job part = { .run = run };
	for (size_t b = 0, end = th ? mid : n; b < end; b += 256) {
		part.from = b;
		part.to = b + 256 < end ? b + 256 : end;
		itl_job_run(&part);
		fwrite(part.buf, 1, part.len, fp);
	}
	free(part.buf);
	if (th) {
		g_thread_join(th);
		fwrite(later.buf, 1, later.len, fp);
		free(later.buf);
	}
	fputc(']', fp);
	key(fp, "latencies", &first);
	fputc('[', fp);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", fp);
		put_f(fp, run->req[i].t_fin + run->req[i].fe_out_s - run->req[i].t_client);
	}
	fputc(']', fp);
	/* perf_counter-like clock: arbitrary origin 1000.0 s before t = 0 */
	key(fp, "start_times", &first);
	fputc('[', fp);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", fp);
		put_f(fp, 1000.0 + run->req[i].t_client);
	}
	fputc(']', fp);
	key(fp, "generated_texts", &first);
	for (size_t i = 0; i < n; i++)
		fputs(i ? ", \"\"" : "[\"\"", fp);
	fputs(n ? "]" : "[]", fp);
	key(fp, "errors", &first);
	for (size_t i = 0; i < n; i++)
		fputs(i ? ", \"\"" : "[\"\"", fp);
	fputs(n ? "]" : "[]", fp);

	/* vLLM: tokens per whole second since the first start, and requests
	 * alive in each second (counts a request in every second it touches). */
	size_t nsec = (size_t)ceil(dur) + 2;
	double *tok = br_xcalloc(nsec, sizeof(double));
	double *conc = br_xcalloc(nsec, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		const br_sim_req *r = &run->req[i];
		double t = r->t_first_tok + r->fe_out_s;
		size_t s = (size_t)t;
		if (s < nsec)
			tok[s] += 1;
		for (int k = 0; k < r->out - 1; k++) {
			t += run->itls[r->itl_off + (size_t)k];
			s = (size_t)t;
			if (s < nsec)
				tok[s] += 1;
		}
		size_t s0 = (size_t)r->t_client, s1 = (size_t)(r->t_fin + r->fe_out_s);
		for (size_t q = s0; q <= s1 && q < nsec; q++)
			conc[q] += 1;
	}
	double mt = 0, mc = 0;
	for (size_t q = 0; q < nsec; q++) {
		if (tok[q] > mt)
			mt = tok[q];
		if (conc[q] > mc)
			mc = conc[q];
	}
	free(tok);
	free(conc);
	kv_f(fp, "max_output_tokens_per_s", mt, &first);
	kv_i(fp, "max_concurrent_requests", mc, &first);
	kv_f(fp, "rtfx", 0.0, &first);

	double *x = br_xmalloc(n * sizeof(double) + sizeof(double));
	for (size_t i = 0; i < n; i++)
		x[i] = run->req[i].t_first_tok + run->req[i].fe_out_s - run->req[i].t_client;
	stat4_put(fp, "ttft", stat4_of(x, n), &first);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const br_sim_req *r = &run->req[i];
		if (r->out > 1)
			x[m++] = (r->t_fin - r->t_first_tok) / (r->out - 1);
	}
	stat4_put(fp, "tpot", stat4_of(x, m), &first);
	if (st_th != NULL)
		g_thread_join(st_th);
	stat4_put(fp, "itl", itl_st.out, &first);
	for (size_t i = 0; i < n; i++)
		x[i] = run->req[i].t_fin + run->req[i].fe_out_s - run->req[i].t_client;
	stat4_put(fp, "e2el", stat4_of(x, n), &first);
	free(x);
	fputc('}', fp);
	return 0;
}

/* put_csv_name: a CSV header cell, quoted (inner quotes doubled) when it
 * holds a quote or comma. */
static void
put_csv_name(FILE *fp, const char *s)
{
	if (strpbrk(s, "\",") == NULL) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

/* write_metrics: metrics.csv, timestamp with millisecond precision; for
 * SGLang and llama.cpp the columns under their names, the others left out. */
static int
write_metrics(const struct br_sim_run *run, FILE *fp)
{
	char *keep = br_xmalloc(run->n_cols ? run->n_cols : 1);
	for (size_t k = 0; k < run->n_cols; k++) {
		char *name = br_sim_engine_col_name(run->cfg.engine, run->col_names[k]);
		keep[k] = name != NULL;
		if (name == NULL)
			continue;
		if (k)
			fputc(',', fp);
		put_csv_name(fp, name);
		free(name);
	}
	fputc('\n', fp);
	for (size_t i = 0; i < run->n_rows; i++) {
		const double *row = run->rows + i * run->n_cols;
		fprintf(fp, "%.3f", row[0]);
		for (size_t k = 1; k < run->n_cols; k++) {
			if (!keep[k])
				continue;
			fputc(',', fp);
			put_f(fp, row[k]);
		}
		fputc('\n', fp);
	}
	free(keep);
	return 0;
}

/* thousands: n with ',' separators, as vLLM prints `{:,}`. */
static void
thousands(char *buf, size_t cap, long long n)
{
	char raw[32];
	snprintf(raw, sizeof raw, "%lld", n < 0 ? -n : n);
	size_t len = strlen(raw), o = 0;
	if (n < 0 && o + 1 < cap)
		buf[o++] = '-';
	for (size_t i = 0; i < len && o + 2 < cap; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
}

/* stamp: "MM-DD HH:MM:SS" (UTC) of sim time t. */
static void
stamp(const br_sim_config *c, double t, char *buf, size_t cap)
{
	time_t te = (time_t)floor(c->start_epoch_s + t);
	struct tm tm;
	gmtime_r(&te, &tm);
	strftime(buf, cap, "%m-%d %H:%M:%S", &tm);
}

/* write_log: server.log with the lines the log parser reads (FORMATS.md §3). */
static int
write_log(const struct br_sim_run *run, FILE *fp)
{
	const br_sim_config *c = &run->cfg;
	if (c->engine == BR_ENGINE_SGLANG)
		return br_sim_write_log_sglang(run, fp);
	if (c->engine == BR_ENGINE_LLAMACPP)
		return br_sim_write_log_llamacpp(run, fp);
	char ts[32];
	double t0 = -c->server_startup_s;
	const char *api = "(APIServer pid=1) INFO";
	const char *core = "(EngineCore_DP0 pid=2) INFO";
	stamp(c, t0, ts, sizeof ts);
	fprintf(fp, "%s %s [api_server.py:1] vLLM API server version %s\n", api, ts, c->vllm_version);
	fprintf(fp, "%s %s [utils.py:253] non-default args: {'model_tag': '%s', 'model': '%s', "
	    "'max_model_len': %d, 'max_num_seqs': %d", api, ts, c->model_name, c->model_name,
	    c->max_model_len, c->max_num_seqs);
	if (c->max_num_batched_tokens != 2048)
		fprintf(fp, ", 'max_num_batched_tokens': %d", c->max_num_batched_tokens);
	if (c->block_size != 16)
		fprintf(fp, ", 'block_size': %d", c->block_size);
	if (!c->chunked_prefill)
		fprintf(fp, ", 'enable_chunked_prefill': False");
	if (!c->async_scheduling)
		fprintf(fp, ", 'async_scheduling': False");
	if (c->kv_pool_from_arg)   /* --kv-cache-memory-bytes: the pool is exactly P tokens */
		fprintf(fp, ", 'kv_cache_memory_bytes': %.0f", c->kv_pool_tokens * c->kv_bytes_per_token);
	fprintf(fp, ", 'enable_prefix_caching': False, 'enable_mfu_metrics': True}\n");
	stamp(c, t0 + 0.1 * c->server_startup_s, ts, sizeof ts);
	fprintf(fp, "%s %s [core.py:93] Initializing a V1 LLM engine (v%s) with config: model='%s', "
	    "speculative_config=None, tokenizer='%s', skip_tokenizer_init=False, tokenizer_mode=auto, "
	    "revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=%d, "
	    "download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, "
	    "data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, "
	    "enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, "
	    "served_model_name=%s, enable_prefix_caching=False, enable_chunked_prefill=%s\n",
	    core, ts, c->vllm_version, c->model_name, c->model_name, c->max_model_len, c->model_name,
	    c->chunked_prefill ? "True" : "False");
	stamp(c, t0 + 0.6 * c->server_startup_s, ts, sizeof ts);
	fprintf(fp, "%s %s [gpu_worker.py:298] Available KV cache memory: %.2f GiB\n", core, ts, c->kv_pool_gib);
	char pool[32], mml[32];
	thousands(pool, sizeof pool, (long long)c->kv_pool_tokens);
	thousands(mml, sizeof mml, c->max_model_len);
	fprintf(fp, "%s %s [kv_cache_utils.py:1087] GPU KV cache size: %s tokens\n", core, ts, pool);
	fprintf(fp, "%s %s [kv_cache_utils.py:1091] Maximum concurrency for %s tokens per request: %.2fx\n",
	    core, ts, mml, c->kv_pool_tokens / c->max_model_len);
	stamp(c, t0 + 0.9 * c->server_startup_s, ts, sizeof ts);
	fprintf(fp, "%s %s [api_server.py:1] Starting vLLM API server 0 on http://0.0.0.0:8000\n", api, ts);
	fprintf(fp, "%s %s [launcher.py:46] Route: /metrics, Methods: GET\n", api, ts);
	for (size_t i = 0; i < run->n_log; i++) {
		const br_sim_logline *l = &run->log[i];
		if (l->t < t0 + 0.9 * c->server_startup_s)
			continue;   /* no stats line before the server started (twentieth breaker: 08:59:53 after 08:59:54) */
		stamp(c, l->t, ts, sizeof ts);
		/* a V1 server's periodic line carries no preemption count (the real
		 * logs of ../shared/real/runs print none), so the simulated run's
		 * preemptions are visible only in vllm:num_preemptions_total */
		fprintf(fp, "%s %s [loggers.py:123] Engine 000: Avg prompt throughput: %.1f tokens/s, "
		    "Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs, "
		    "GPU KV cache usage: %.1f%%, Prefix cache hit rate: 0.0%%\n",
		    api, ts, l->prompt_tps, l->gen_tps, l->running, l->waiting, l->kv_frac * 100.0);
	}
	return 0;
}

/* dvec_json: a jansson array of reals. */
static json_t *
arr_real(const br_sim_preemption *p, size_t n, int which)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		double v = which == 0 ? p[i].t_epoch_s : which == 1 ? p[i].kv_before_frac :
		    which == 2 ? p[i].kv_after_frac : which == 3 ? p[i].released_tokens :
		    which == 4 ? p[i].running_before : p[i].request_index;
		json_array_append_new(a, which >= 3 ? json_integer((json_int_t)v) : json_real(v));
	}
	return a;
}

/* write_runjson: run.json labels + ground truth. */
static int
write_runjson(const br_sim_result *r, const char *path, char **cause)
{
	const struct br_sim_run *run = r->run;
	const br_sim_config *c = &run->cfg;
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(c->name));
	json_object_set_new(o, "gpu", json_string(c->gpu_name));
	if (c->role)
		json_object_set_new(o, "role", json_string(c->role));
	/* an SGLang log prints no version: the run.json label states it, as a user would */
	if (c->engine == BR_ENGINE_SGLANG)
		json_object_set_new(o, "server_version", json_string(c->engine_version));
	char *notes = br_xasprintf("simulated by benchreport simulate from %s (seed %llu); "
	    "times are UTC; no real GPU ran", br_basename(c->path), (unsigned long long)c->seed);
	json_object_set_new(o, "notes", json_string(notes));
	free(notes);
	json_object_set_new(o, "kv_pool_tokens", json_integer((json_int_t)c->kv_pool_tokens));
	json_t *s = json_object();
	json_object_set_new(s, "config", json_string(br_basename(c->path)));
	json_object_set_new(s, "seed", json_integer((json_int_t)c->seed));
	json_object_set_new(s, "kv_pool_tokens", json_integer((json_int_t)c->kv_pool_tokens));
	json_object_set_new(s, "block_size", json_integer(c->block_size));
	json_object_set_new(s, "max_num_seqs", json_integer(c->max_num_seqs));
	json_object_set_new(s, "max_num_batched_tokens", json_integer(c->max_num_batched_tokens));
	json_object_set_new(s, "kv_bytes_per_token", json_real(c->kv_bytes_per_token));
	json_object_set_new(s, "run_start_epoch_s", json_real(r->start_epoch_s));
	json_object_set_new(s, "run_end_epoch_s", json_real(r->end_epoch_s));
	json_object_set_new(s, "duration_s", json_real(r->duration_s));
	json_object_set_new(s, "engine_steps", json_integer((json_int_t)r->n_steps));
	json_object_set_new(s, "mean_running", json_real(r->mean_running));
	json_object_set_new(s, "median_running", json_real(r->median_running));
	json_object_set_new(s, "peak_running", json_real(r->peak_running));
	json_object_set_new(s, "mean_waiting", json_real(r->mean_waiting));
	json_object_set_new(s, "peak_waiting", json_real(r->peak_waiting));
	json_object_set_new(s, "preemptions", json_integer((json_int_t)r->n_preemptions));
	json_object_set_new(s, "preemption_times_epoch_s", arr_real(r->preemptions, r->n_preemptions, 0));
	json_object_set_new(s, "preemption_kv_before_frac", arr_real(r->preemptions, r->n_preemptions, 1));
	json_object_set_new(s, "preemption_kv_after_frac", arr_real(r->preemptions, r->n_preemptions, 2));
	json_object_set_new(s, "preemption_released_tokens", arr_real(r->preemptions, r->n_preemptions, 3));
	json_object_set_new(s, "preemption_running_before", arr_real(r->preemptions, r->n_preemptions, 4));
	json_object_set_new(s, "preemption_request_index", arr_real(r->preemptions, r->n_preemptions, 5));
	json_object_set_new(s, "max_victims_per_step", json_integer(r->max_victims_per_step));
	json_object_set_new(s, "recomputed_tokens", json_real(r->recomputed_tokens));
	json_object_set_new(s, "iteration_tokens_total_sum", json_real(r->iteration_tokens_sum));
	json_object_set_new(s, "flops_total", json_real(r->flops_total));
	json_object_set_new(s, "flops_no_preemption", json_real(r->flops_no_preemption));
	json_object_set_new(s, "flops_per_token_c0", json_real(c->flops_c0));
	json_object_set_new(s, "flops_per_token_c1", json_real(c->flops_c1));
	json_object_set_new(o, "simulator", s);
	int rc = json_dump_file(o, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(o);
	if (rc != 0) {
		if (cause)
			*cause = br_xasprintf("%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* write_file: open path, run fn, close; -1 with *cause on an I/O error. */
static int
write_file(const char *dir, const char *name, int (*fn)(const struct br_sim_run *, FILE *),
    const struct br_sim_run *run, char **cause)
{
	char *path = br_path_join(dir, name);
	FILE *fp = fopen(path, "wb");
	if (fp == NULL) {
		if (cause)
			*cause = br_xasprintf("%s: cannot create: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	static char vbuf[1 << 20];
	setvbuf(fp, vbuf, _IOFBF, sizeof vbuf);
	int rc = fn(run, fp);
	if (ferror(fp))
		rc = -1;
	if (fclose(fp) != 0)
		rc = -1;
	if (rc < 0 && cause)
		*cause = br_xasprintf("%s: write error: %s", path, strerror(errno));
	free(path);
	return rc;
}

/*
 * br_sim_write_to: see sim.h. The four files are written into the staging
 * folder of od, which br_outdir_commit then swaps into place (outdir.h:
 * an earlier output is replaced only while it holds nothing but what its
 * marker lists).
 */
int
br_sim_write_to(const br_sim_result *r, br_outdir *od, char **cause)
{
	char *c = NULL;
	if (r == NULL || r->run == NULL) {
		if (cause)
			*cause = br_xstrdup("br_sim_write: no simulation result");
		return -1;
	}
	if (br_outdir_stage(od, &c) != 0)
		goto fail;
	const char *tmp = br_outdir_staging(od);
	if (write_file(tmp, "stress.json", write_stress, r->run, &c) < 0)
		goto fail;
	br_outdir_prehash(od, "stress.json");   /* hashed while the other files are written */
	if (write_file(tmp, "metrics.csv", write_metrics, r->run, &c) < 0 ||
	    write_file(tmp, "server.log", write_log, r->run, &c) < 0 ||
	    (r->run->cfg.engine == BR_ENGINE_LLAMACPP &&
	    write_file(tmp, "slots.jsonl", br_sim_write_slots_llamacpp, r->run, &c) < 0))
		goto fail;
	char *rj = br_path_join(tmp, "run.json");
	int rjrc = write_runjson(r, rj, &c);
	free(rj);
	if (rjrc < 0)
		goto fail;
	int rc = br_outdir_commit(od, &c);
	if (rc != 0) {
		if (cause)
			*cause = c;
		else
			free(c);
		return rc;
	}
	return 0;
fail:
	if (cause)
		*cause = c;
	else
		free(c);
	return -1;
}

/* br_sim_write: see sim.h. */
int
br_sim_write(const br_sim_result *r, const char *run_dir, int force, char **cause)
{
	int rc = 0;
	char *c = NULL;
	br_outdir *od = br_outdir_prepare(run_dir, "simulate", force, &rc, &c);
	if (od != NULL) {
		rc = br_sim_write_to(r, od, &c);
		br_outdir_free(od);
	}
	if (cause)
		*cause = c;
	else
		free(c);
	return rc;
}
