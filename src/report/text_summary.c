/*
 * The short text summary on stdout: the headline numbers an engineer wants
 * on the terminal right after a test, read from summary.json.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "benchreport/report.h"

/* get: the value at a dotted path ("bench.completed"), or NULL. */
static json_t *
get(const json_t *s, const char *path)
{
	char key[128];
	const json_t *cur = s;
	const char *p = path;
	while (cur != NULL && *p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (n >= sizeof key)
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		cur = json_object_get(cur, key);
		p = dot ? dot + 1 : p + n;
	}
	return (json_t *)cur;
}

/* line: "label  value unit" or "label  n/a" for a missing number; "at
 * least value" when summary.json marks the number a lower bound (a sibling
 * "<key>_is_lower_bound": true, as the report's sentences read it). */
static void
line(FILE *fp, const json_t *s, const char *label, const char *path, int decimals, const char *unit)
{
	json_t *v = get(s, path);
	char lb[128];
	snprintf(lb, sizeof lb, "%s_is_lower_bound", path);
	fprintf(fp, "  %-34s ", label);
	if (json_is_number(v)) {
		/* a small value keeps 3 significant digits: 0.00246x, not 0.002 x
		 * (thirty-fifth audit: 19% off the PDF's figure) */
		double x = json_number_value(v);
		if (x != 0 && fabs(x) < 1)
			decimals = (int)fmin(12, fmax(decimals, 2 - floor(log10(fabs(x)))));
		fprintf(fp, "%s%.*f", json_is_true(get(s, lb)) ? "at least " : "", decimals, x);
	}
	else if (json_is_string(v))
		fprintf(fp, "%s", json_string_value(v));
	else {
		fprintf(fp, "n/a\n");     /* no unit after a missing number */
		return;
	}
	fprintf(fp, "%s%s\n", unit[0] ? " " : "", unit);
}

/* line_ms: a latency given in ms, printed in ms or s by size. */
static void
line_ms(FILE *fp, const json_t *s, const char *label, const char *path)
{
	json_t *v = get(s, path);
	fprintf(fp, "  %-34s ", label);
	if (!json_is_number(v)) {
		fprintf(fp, "n/a\n");
		return;
	}
	double ms = json_number_value(v);
	if (ms >= 10000)
		fprintf(fp, "%.1f s\n", ms / 1000);
	else
		fprintf(fp, "%.2f ms\n", ms);
}

void
br_summary_print_text(const json_t *s, FILE *fp)
{
	json_t *name = get(s, "run.name");
	fprintf(fp, "benchreport: %s\n", json_is_string(name) ? json_string_value(name) : "run");
	/* the server's version line: vLLM's unless another engine served the run */
	json_t *eng = get(s, "engine.key");
	const char *ek = json_is_string(eng) ? json_string_value(eng) : "";
	if (strcmp(ek, "sglang") == 0)
		line(fp, s, "SGLang version", "engine.server_version", 0, "");
	else if (strcmp(ek, "llamacpp") == 0)
		line(fp, s, "llama.cpp build", "engine.server_version", 0, "");
	else
		line(fp, s, "vLLM version", "server_log.vllm_version", 0, "");
	line(fp, s, "model", "bench.model_id", 0, "");
	line(fp, s, "completed", "bench.completed", 0, "requests");
	line(fp, s, "failed", "bench.failed", 0, "requests");
	line(fp, s, "duration", "bench.duration_s", 2, "s");
	line(fp, s, "output throughput", "bench.output_throughput_tps", 1, "tok/s");
	line_ms(fp, s, "TTFT median", "latency.ttft.median_ms");
	line_ms(fp, s, "TTFT p99", "latency.ttft.p99_ms");
	json_t *dis = get(s, "latency.file_percentiles_disordered.ttft");
	if (json_is_object(dis) && !json_is_true(get(s, "latency.from_arrays")))
		fprintf(fp, "  %-34s p%g %.2f ms > p%g %.2f ms: the file contradicts itself, no TTFT "
		    "percentile of it can be trusted\n", "TTFT percentiles",
		    json_number_value(json_object_get(dis, "lower_pct")), json_number_value(json_object_get(dis, "lower_ms")),
		    json_number_value(json_object_get(dis, "higher_pct")), json_number_value(json_object_get(dis, "higher_ms")));
	/* the file's own ITL statistics (lists empty or left out) are not recomputed */
	int itl_file = json_is_true(get(s, "latency.itl_from_file"));
	line_ms(fp, s, itl_file ? "ITL median (the file's)" : "ITL median", "latency.itl.median_ms");
	line_ms(fp, s, itl_file ? "ITL p99 (the file's)" : "ITL p99", "latency.itl.p99_ms");
	line(fp, s, "KV pool", "capacity.kv_pool_tokens", 0, "tokens");
	line(fp, s, "oversubscription (demand / pool)", "capacity.oversubscription", 3, "x");
	if (strcmp(ek, "llamacpp") == 0)
		fprintf(fp, "  %-34s none (llama.cpp does not preempt)\n", "preemptions during the run");
	else
		line(fp, s, strcmp(ek, "sglang") == 0 ? "retractions during the run" :
		    "preemptions during the run", "preemptions.n_preemptions", 0, "");
	json_t *ag = get(s, "ledger.n_agree"), *ndis = get(s, "ledger.n_disagree");
	if (json_is_true(get(s, "ledger.available")))
		fprintf(fp, "  %-34s %lld agree, %lld disagree%s\n", "server counters vs client",
		    (long long)json_integer_value(ag), (long long)json_integer_value(ndis),
		    json_integer_value(get(s, "ledger.n_capture_short")) > 0 ?
		    " (others not comparable: the capture missed part of the load)" : "");
}
