/*
 * Repeats (issue 9 §1): runs of a campaign whose settings are identical are
 * one configuration measured n times, not n configurations.
 *
 * A measurement is one bench result: a run folder usually holds one, a
 * `vllm bench sweep` summary.json or an --append-result JSONL several. The
 * settings fingerprint of a measurement is made of
 *   - the bench settings: backend, model_id, tokenizer_id, num_prompts,
 *     request_rate, burstiness, max_concurrency (null = no limit, which is
 *     not 2), and the input/output shape (mean tokens per request, 3
 *     significant digits, so a random dataset's per-seed wobble of a token
 *     does not split a configuration);
 *   - the vLLM version and every argument of the server log's non-default
 *     args line except host and port (SGLang: every ServerArgs argument
 *     but the incidental ones, br_log_arg_incidental), in name order, a
 *     number by its value ("1.0" is "1", as compare reads it; no log:
 *     "unknown", which only matches another unknown);
 *   - run.json's gpu, driver and cuda.
 * Not part of it: names, dates, run_number, label, notes and every result.
 * Statistics per configuration: mean, sd (ddof 1), 95% t interval
 * (br_mean_ci95, src/stats/repeats.c). Members are in load order (a file's
 * results in file order); a first member whose TTFT p99 exceeds 3× the
 * median of the others' is flagged as a likely warm-up.
 */
#include <ctype.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/model.h"
#include "benchreport/campaign.h"
#include "benchreport/stats.h"

/* add_num: "key=%.17g;" or "key=null;" for NaN (JSON null / absent). */
static void
add_num(GString *g, const char *key, double v, int sig)
{
	if (isnan(v))
		g_string_append_printf(g, "%s=null;", key);
	else
		g_string_append_printf(g, "%s=%.*g;", key, sig, v);
}

static void
add_str(GString *g, const char *key, const char *v)
{
	g_string_append_printf(g, "%s=%s;", key, v ? v : "(null)");
}

/* arg_cmp: order of log arguments by name. */
static int
arg_cmp(const void *a, const void *b)
{
	return strcmp((*(const br_log_arg *const *)a)->name, (*(const br_log_arg *const *)b)->name);
}

/*
 * add_arg_value: a log argument's value as it enters the fingerprint, so
 * that two values compare's arg_same takes as one setting are one key: an
 * integer literal by its sign and significant digits ("+0042" → "42"; digits
 * kept whole beyond 2^53), another number read whole as a finite double by
 * its %.17g ("1.0" → "1", "0.90" → "0.9"), anything else as printed.
 */
static void
add_arg_value(GString *g, const char *raw)
{
	const char *s = raw;
	int neg = 0;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	int integer = *s >= '0' && *s <= '9';
	for (const char *q = s; *q && integer; q++)
		integer = *q >= '0' && *q <= '9';
	if (integer) {
		while (s[0] == '0' && s[1] != '\0')
			s++;
		g_string_append_printf(g, "%s%s", neg && strcmp(s, "0") != 0 ? "-" : "", s);
		return;
	}
	char *end;
	double x = strtod(raw, &end);
	if (end != raw && *end == '\0' && isfinite(x) && !isspace((unsigned char)raw[0])) {
		/* a double holding an integer value prints as its digits, like the
		 * integer literal above ("1.0" and "1" are one key) */
		g_string_append_printf(g, "%.17g", x == 0 ? 0.0 : x);
		return;
	}
	g_string_append(g, raw);
}

/* fingerprint: the settings of result k of run r (malloc'd). */
static char *
fingerprint(const br_run *r, const br_bench *b)
{
	GString *g = g_string_new(NULL);
	add_str(g, "backend", b->backend);
	add_str(g, "model_id", b->model_id);
	add_str(g, "tokenizer_id", b->tokenizer_id);
	add_num(g, "num_prompts", b->num_prompts, 17);
	add_num(g, "request_rate", b->request_rate_rps, 17);
	add_num(g, "burstiness", b->burstiness, 17);
	add_num(g, "max_concurrency", b->max_concurrency, 17);
	double in = NAN, out = NAN;
	if (br_isnum(b->completed) && b->completed > 0) {
		in = b->total_input_tokens / b->completed;
		out = b->total_output_tokens / b->completed;
	}
	g_string_append(g, "|shape:");
	add_num(g, "mean_input_tokens", in, 3);
	add_num(g, "mean_output_tokens", out, 3);
	g_string_append(g, "|");
	if (r->log == NULL)
		g_string_append(g, "server_args=unknown;");
	else {
		add_str(g, "vllm_version", r->log->vllm_version);
		if (r->log->engine_kind == BR_ENGINE_SGLANG || r->log->engine_kind == BR_ENGINE_LLAMACPP) {
			/* another engine: its name and build are settings too */
			add_str(g, "engine", br_engine_key((br_engine)r->log->engine_kind));
			add_str(g, "engine_version", r->log->engine_version);
		}
		/* arguments in name order: the log's order is not a setting */
		const br_log_arg **sorted = br_xcalloc(r->log->n_args + 1, sizeof *sorted);
		for (size_t i = 0; i < r->log->n_args; i++)
			sorted[i] = &r->log->args[i];
		qsort(sorted, r->log->n_args, sizeof *sorted, arg_cmp);
		for (size_t i = 0; i < r->log->n_args; i++) {
			const br_log_arg *a = sorted[i];
			if (strcmp(a->name, "host") == 0 || strcmp(a->name, "port") == 0 ||
			    (r->log->engine_kind == BR_ENGINE_SGLANG && br_log_arg_incidental(BR_ENGINE_SGLANG, a->name)))
				continue;
			/* the whole value decides; a secret or a long one enters as its digest
			 * (the key stays in memory, never printed) */
			if (strcmp(a->value, "(redacted)") == 0 || strlen(a->raw) > 200) {
				gchar *h = g_compute_checksum_for_string(G_CHECKSUM_SHA256, a->raw, -1);
				g_string_append_printf(g, "arg:%s=sha256:%.16s;", a->name, h);
				g_free(h);
			} else {
				g_string_append_printf(g, "arg:%s=", a->name);
				add_arg_value(g, a->raw);
				g_string_append_c(g, ';');
			}
		}
		free(sorted);
	}
	if (r->server_version != NULL)
		add_str(g, "run_json_server_version", r->server_version);
	add_str(g, "gpu", r->gpu);
	add_str(g, "driver", r->driver);
	add_str(g, "cuda", r->cuda);
	return g_string_free(g, FALSE);
}

/* result_name: the run's name, plus "#k" for the k-th of several results
 * (or "run=N" when the result carries a sweep run number). */
static char *
result_name(const br_run *r, size_t k)
{
	if (r->bench.n == 1)
		return br_xstrdup(r->name);
	const br_bench *b = &r->bench.runs[k];
	if (br_isnum(b->run_number))
		return br_xasprintf("%s run=%.0f", r->name, b->run_number);
	return br_xasprintf("%s #%zu", r->name, br_bench_set_ordinal(&r->bench, k));
}

/* br_run_name_stem: see campaign.h. */
char *
br_run_name_stem(const char *name)
{
	size_t n = strlen(name);
	size_t d = n;
	while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
		d--;
	if (d == n || d == 0)
		return br_xstrdup(name);
	static const char *const tags[] = { " run=", "-run", "_run", "-rep", "_rep", "-r", "_r", ".r", " #", "#" };
	for (size_t t = 0; t < sizeof tags / sizeof tags[0]; t++) {
		size_t tl = strlen(tags[t]);
		if (d >= tl + 1 && strncmp(name + d - tl, tags[t], tl) == 0)
			return br_xstrndup(name, d - tl);
	}
	return br_xstrdup(name);
}

/* label_stem: the stem of measurement k's name; for a run the campaign
 * told apart as "NAME [folder]", of NAME (the name as given). */
static char *
label_stem(const br_campaign *c, size_t k)
{
	const br_measurement *m = &c->measurements[k];
	const br_run *r = &c->runs[m->run];
	if (r->given_name_len > 0 && r->bench.n == 1) {
		char *given = br_xstrndup(r->name, r->given_name_len);
		char *st = br_run_name_stem(given);
		free(given);
		return st;
	}
	return br_run_name_stem(m->name);
}

/* result metrics (NAN when absent): throughputs from the file, latency from
 * the analysis for the reported result (recomputed from the arrays), from
 * the file's own statistics for the others. */
static void
result_metrics(const br_analysis *a, const br_bench *b, size_t k, double m[BR_REPEAT_N_METRICS])
{
	m[BR_REPEAT_OUT_TPS] = b->output_throughput_tps;
	m[BR_REPEAT_TOTAL_TPS] = b->total_token_throughput_tps;
	m[BR_REPEAT_PREEMPTIONS] = k == 0 && a->preemptions.count_available ? a->preemptions.n_preemptions : NAN;
	if (br_isnum(b->completed) && b->completed == 0) {
		m[BR_REPEAT_TTFT_P50] = m[BR_REPEAT_TTFT_P99] = m[BR_REPEAT_ITL_P50] = m[BR_REPEAT_E2EL_P50] = NAN;
		m[BR_REPEAT_ITL_P99] = NAN;
		/* a run of failures measured the failure, not the configuration's
		 * throughput: shown apart (n_all_failed), not averaged in */
		m[BR_REPEAT_OUT_TPS] = m[BR_REPEAT_TOTAL_TPS] = NAN;
		return;
	}
	if (k == 0) {
		m[BR_REPEAT_TTFT_P50] = a->latency.m[BR_TTFT].median;
		m[BR_REPEAT_TTFT_P99] = a->latency.m[BR_TTFT].p99;
		m[BR_REPEAT_ITL_P50] = a->latency.m[BR_ITL].median;
		m[BR_REPEAT_E2EL_P50] = a->latency.m[BR_E2EL].median;
		m[BR_REPEAT_ITL_P99] = a->latency.m[BR_ITL].count > 0 ? a->latency.m[BR_ITL].p99 :
		    br_bench_file_stat(b, "itl", "p", 99);
	} else {
		m[BR_REPEAT_ITL_P99] = br_bench_file_stat(b, "itl", "p", 99);
		m[BR_REPEAT_TTFT_P50] = br_bench_file_stat(b, "ttft", "median", NAN);
		m[BR_REPEAT_TTFT_P99] = br_bench_file_stat(b, "ttft", "p", 99);
		m[BR_REPEAT_ITL_P50] = br_bench_file_stat(b, "itl", "median", NAN);
		m[BR_REPEAT_E2EL_P50] = br_bench_file_stat(b, "e2el", "median", NAN);
	}
	for (int i = 0; i < BR_REPEAT_N_METRICS; i++)
		if (!isfinite(m[i]))
			m[i] = NAN;
}

const char *const br_repeat_metric_name[BR_REPEAT_N_METRICS] = {
	"output_throughput_tps", "total_token_throughput_tps", "ttft_p50_ms", "ttft_p99_ms",
	"itl_p50_ms", "e2el_p50_ms", "itl_p99_ms", "preemptions"
};

/* shapeless: the fingerprint without its input/output shape (malloc'd). */
static char *
shapeless(const char *key)
{
	const char *a = strstr(key, "|shape:");
	const char *b = a ? strchr(a + 1, '|') : NULL;
	if (a == NULL || b == NULL)
		return br_xstrdup(key);
	return br_xasprintf("%.*s%s", (int)(a - key), key, b + 1);
}

/*
 * merge_all_failed: a result whose every request failed has no
 * input/output shape (no completed request to average), so its fingerprint
 * cannot match its siblings'. When exactly one other group has the same
 * settings apart from the shape, the failed result is a repeat of it: its
 * group (of one) is folded in and counted in n_all_failed.
 */
/* member_date: the bench date ("20261201-120000") of measurement m, or NULL. */
static const char *
member_date(const br_campaign *c, size_t m)
{
	const br_measurement *x = &c->measurements[m];
	const br_run *r = &c->runs[x->run];
	if (x->result >= r->bench.n)
		return NULL;
	const char *d = r->bench.runs[x->result].date;
	return d && *d ? d : NULL;
}

static void
merge_all_failed(br_campaign *c)
{
	for (size_t gi = 0; gi < c->n_groups; gi++) {
		br_config_group *g = &c->groups[gi];
		if (g->n != 1)
			continue;
		br_measurement *m = &c->measurements[g->members[0]];
		const br_bench *b = &c->runs[m->run].bench.runs[m->result];
		if (!(br_isnum(b->completed) && b->completed == 0))
			continue;
		char *base = shapeless(g->key);
		size_t hit = (size_t)-1, n_hit = 0;
		for (size_t gj = 0; gj < c->n_groups; gj++) {
			if (gj == gi)
				continue;
			char *o = shapeless(c->groups[gj].key);
			if (strcmp(o, base) == 0) {
				hit = gj;
				n_hit++;
			}
			free(o);
		}
		free(base);
		if (n_hit != 1)
			continue;
		br_config_group *h = &c->groups[hit];
		h->members = br_xrealloc(h->members, (h->n + 1) * sizeof *h->members);
		h->members[h->n++] = g->members[0];
		h->n_all_failed++;
		/* drop group gi; renumber the measurements' group indices */
		free(g->key);
		free(g->members);
		memmove(&c->groups[gi], &c->groups[gi + 1], (c->n_groups - gi - 1) * sizeof *c->groups);
		c->n_groups--;
		for (size_t k = 0; k < c->n_measurements; k++) {
			br_measurement *mk = &c->measurements[k];
			if (mk == m)
				mk->group = hit > gi ? hit - 1 : hit;
			else if (mk->group > gi)
				mk->group--;
		}
		gi--;
	}
}

/*
 * br_campaign_group_repeats: see campaign.h.
 */
void
br_campaign_group_repeats(br_campaign *c)
{
	size_t n_meas = 0;
	for (size_t i = 0; i < c->n_runs; i++)
		n_meas += c->runs[i].bench.n;
	c->measurements = br_xcalloc(n_meas ? n_meas : 1, sizeof *c->measurements);
	c->groups = br_xcalloc(n_meas ? n_meas : 1, sizeof *c->groups);
	GHashTable *by_key = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t i = 0; i < c->n_runs; i++) {
		const br_run *r = &c->runs[i];
		for (size_t kk = 0; kk < r->bench.n; kk++) {
			/* file order: run.c moved the newest (last) result to index 0 */
			size_t k = r->bench.n == 1 ? 0 : kk + 1 < r->bench.n ? kk + 1 : 0;
			br_measurement *m = &c->measurements[c->n_measurements];
			m->run = i;
			m->result = k;
			m->name = result_name(r, k);
			result_metrics(&c->analyses[i], &r->bench.runs[k], k, m->value);
			char *key = fingerprint(r, &r->bench.runs[k]);
			size_t gi = GPOINTER_TO_SIZE(g_hash_table_lookup(by_key, key));
			if (gi == 0) {
				br_config_group *g = &c->groups[c->n_groups++];
				g->key = key;
				g_hash_table_insert(by_key, key, GSIZE_TO_POINTER(c->n_groups));
				gi = c->n_groups;
			} else
				free(key);
			br_config_group *g = &c->groups[gi - 1];
			g->members = br_xrealloc(g->members, (g->n + 1) * sizeof *g->members);
			g->members[g->n++] = c->n_measurements;
			m->group = gi - 1;
			c->n_measurements++;
		}
	}
	g_hash_table_destroy(by_key);
	merge_all_failed(c);
	for (size_t gi = 0; gi < c->n_groups; gi++) {
		br_config_group *g = &c->groups[gi];
		if (g->n > c->max_repeats)
			c->max_repeats = g->n;
		/* label: the shared stem of the members' names, else the first name */
		char *s0 = label_stem(c, g->members[0]);
		int shared = 1;
		for (size_t j = 1; j < g->n && shared; j++) {
			char *sj = label_stem(c, g->members[j]);
			shared = strcmp(s0, sj) == 0;
			free(sj);
		}
		if (g->n == 1 || !shared) {
			free(s0);
			s0 = br_xstrdup(c->measurements[g->members[0]].name);
		}
		g->label = s0;
		double *x = br_xcalloc(g->n, sizeof *x);
		for (int mi = 0; mi < BR_REPEAT_N_METRICS; mi++) {
			for (size_t j = 0; j < g->n; j++)
				x[j] = c->measurements[g->members[j]].value[mi];
			br_mean_ci95(x, g->n, &g->stat[mi]);
		}
		/* warm-up: the first repeat's TTFT p99 more than 3× the median of
		 * the others' (a cold cache, CUDA graphs still compiling) */
		/* "first" is first in time, as knee takes it: the earliest bench
		 * date when every member states one, else load (name) order */
		g->first_run = 0;
		int dated = 1;
		for (size_t j = 0; j < g->n && dated; j++)
			dated = member_date(c, g->members[j]) != NULL;
		for (size_t j = 1; dated && j < g->n; j++)
			if (strcmp(member_date(c, g->members[j]), member_date(c, g->members[g->first_run])) < 0)
				g->first_run = j;
		if (g->n >= 2) {
			double first = c->measurements[g->members[g->first_run]].value[BR_REPEAT_TTFT_P99];
			size_t nr = 0;
			for (size_t j = 0; j < g->n; j++) {
				if (j == g->first_run)
					continue;
				double v = c->measurements[g->members[j]].value[BR_REPEAT_TTFT_P99];
				if (isfinite(v))
					x[nr++] = v;
			}
			br_sort_doubles(x, nr);
			double med = br_median_sorted(x, nr);
			if (nr > 0 && isfinite(first) && med > 0 && first > 3 * med) {
				g->warmup_suspect = 1;
				g->warmup_ratio = first / med;
				g->warmup_rest_p99_ms = med;
			}
		}
		free(x);
	}
}

/* br_campaign_group_of_run: see campaign.h. */
const br_config_group *
br_campaign_group_of_run(const br_campaign *c, size_t run)
{
	for (size_t i = 0; i < c->n_measurements; i++)
		if (c->measurements[i].run == run && c->measurements[i].result == 0)
			return &c->groups[c->measurements[i].group];
	return NULL;
}

/* br_campaign_repeats_free: release measurements and groups. */
void
br_campaign_repeats_free(br_campaign *c)
{
	for (size_t i = 0; i < c->n_measurements; i++)
		free(c->measurements[i].name);
	free(c->measurements);
	for (size_t i = 0; i < c->n_groups; i++) {
		free(c->groups[i].key);
		free(c->groups[i].label);
		free(c->groups[i].members);
	}
	free(c->groups);
	c->measurements = NULL;
	c->groups = NULL;
	c->n_measurements = c->n_groups = c->max_repeats = 0;
}
