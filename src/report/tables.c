/*
 * tables/NAME.csv: the report's tables as CSV (UTF-8, header row, units in
 * column names, empty cell = not available), for spreadsheets and diffs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/report.h"

/* A growable text buffer. */
typedef struct buf {
	char *s;
	size_t n, cap;
} buf;

static void
bprintf(buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *piece = br_xvasprintf(fmt, ap);
	va_end(ap);
	size_t len = strlen(piece);
	if (b->n + len + 1 > b->cap) {
		b->cap = (b->n + len + 1) * 2;
		b->s = br_xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, piece, len + 1);
	b->n += len;
	free(piece);
}

/* num: a CSV cell for a number (17 significant digits; empty for NaN). */
static void
num(buf *b, double x, const char *sep)
{
	if (isfinite(x))
		bprintf(b, "%.17g%s", x, sep);
	else
		bprintf(b, "%s", sep);
}

/* quoted: a CSV cell with RFC 4180 quoting when needed. */
static void
quoted(buf *b, const char *s, const char *sep)
{
	if (s == NULL)
		s = "";
	if (strpbrk(s, ",\"\n") == NULL) {
		bprintf(b, "%s%s", s, sep);
		return;
	}
	bprintf(b, "\"");
	for (const char *p = s; *p; p++)
		bprintf(b, *p == '"' ? "\"\"" : "%c", *p);
	bprintf(b, "\"%s", sep);
}

static int
flush(const char *dir, const char *name, buf *b, char **cause)
{
	char *path = br_path_join(dir, name);
	int rc = br_write_atomic(path, b->s ? b->s : "", b->n, cause);
	free(path);
	free(b->s);
	memset(b, 0, sizeof *b);
	return rc;
}

int
br_write_tables(const br_analysis *a, const char *out_dir, char **cause)
{
	char *dir = br_path_join(out_dir, "tables");
	buf b = { 0 };
	int rc = -1;
	if (br_mkdir_p(dir, cause) != 0)
		goto out;

	const br_latency *l = &a->latency;
	bprintf(&b, "metric,count,mean_ms,std_ms,median_ms,p90_ms,p99_ms,p99_9_ms,p99_99_ms,max_ms,source\n");
	for (int m = 0; m < BR_N_LATENCY; m++) {
		const br_describe_t *d = &l->m[m];
		bprintf(&b, "%s,%zu,", br_latency_metric_name[m], d->count);
		num(&b, d->mean, ",");
		num(&b, d->std, ",");
		num(&b, d->median, ",");
		num(&b, d->p90, ",");
		num(&b, d->p99, ",");
		num(&b, d->p999, ",");
		num(&b, d->p9999, ",");
		num(&b, d->max, ",");
		bprintf(&b, "%s\n", l->from_arrays ? "per-request arrays" : "bench file statistics");
	}
	if (flush(dir, "latency.csv", &b, cause) != 0)
		goto out;

	if (l->n_checks > 0) {
		bprintf(&b, "file_key,file_ms,recomputed_ms,rel_diff,agrees\n");
		for (size_t i = 0; i < l->n_checks; i++) {
			const br_latency_check *c = &l->checks[i];
			quoted(&b, c->key, ",");
			num(&b, c->file_ms, ",");
			num(&b, c->recomputed_ms, ",");
			num(&b, c->rel_diff, ",");
			bprintf(&b, "%s\n", c->agrees ? "true" : "false");
		}
		if (flush(dir, "latency_checks.csv", &b, cause) != 0)
			goto out;
	}

	if (a->ledger.available) {
		bprintf(&b, "series,server_delta,relation,client_value,client_key,agrees\n");
		for (size_t i = 0; i < a->ledger.n_rows; i++) {
			const br_ledger_row *r = &a->ledger.rows[i];
			quoted(&b, r->series, ",");
			num(&b, r->server_delta, ",");
			quoted(&b, r->relation, ",");
			num(&b, r->client_value, ",");
			quoted(&b, r->client_label, ",");
			bprintf(&b, "%s\n", r->agrees < 0 ? "" : r->agrees ? "true" : "false");
		}
		if (flush(dir, "ledger.csv", &b, cause) != 0)
			goto out;
	}

	if (a->capacity.available) {
		const br_capacity *c = &a->capacity;
		bprintf(&b, "quantity,value,unit\n");
		bprintf(&b, "kv_pool,");
		num(&b, c->kv_pool_tokens, ",tokens\n");
		bprintf(&b, "kv_pool_memory,");
		num(&b, c->kv_pool_gib, ",GiB\n");
		bprintf(&b, "kv_bytes_per_token,");
		num(&b, c->kv_bytes_per_token, ",bytes\n");
		bprintf(&b, "max_model_len,");
		num(&b, c->max_model_len_tokens, ",tokens\n");
		bprintf(&b, "predicted_max_concurrency,");
		num(&b, c->predicted_max_concurrency, ",requests\n");
		bprintf(&b, "log_max_concurrency,");
		num(&b, c->log_max_concurrency_x, ",x\n");
		bprintf(&b, "concurrency,");
		num(&b, c->concurrency, ",requests\n");
		bprintf(&b, "demand,");
		num(&b, c->demand_tokens, ",tokens\n");
		bprintf(&b, "oversubscription,");
		num(&b, c->oversubscription, ",ratio\n");
		bprintf(&b, "resident_estimate,");
		num(&b, c->resident_estimate, ",requests\n");
		if (flush(dir, "capacity.csv", &b, cause) != 0)
			goto out;
	}

	if (a->residency.available) {
		const br_residency *r = &a->residency;
		bprintf(&b, "quantity,value,unit\n");
		bprintf(&b, "running_mean,");
		num(&b, r->running_mean, ",requests\n");
		bprintf(&b, "running_median,");
		num(&b, r->running_median, ",requests\n");
		bprintf(&b, "running_peak,");
		num(&b, r->running_peak, ",requests\n");
		bprintf(&b, "waiting_mean,");
		num(&b, r->waiting_mean, ",requests\n");
		bprintf(&b, "waiting_median,");
		num(&b, r->waiting_median, ",requests\n");
		bprintf(&b, "waiting_peak,");
		num(&b, r->waiting_peak, ",requests\n");
		bprintf(&b, "resident_share,");
		num(&b, r->resident_share, ",fraction\n");
		bprintf(&b, "kv_usage_median,");
		num(&b, r->kv_median_frac, ",fraction\n");
		bprintf(&b, "kv_usage_peak,");
		num(&b, r->kv_peak_frac, ",fraction\n");
		bprintf(&b, "kv_usage_share_ge90,");
		num(&b, r->kv_share_ge90, ",fraction of samples\n");
		bprintf(&b, "kv_usage_share_ge95,");
		num(&b, r->kv_share_ge95, ",fraction of samples\n");
		bprintf(&b, "preemptions,");
		num(&b, r->preemptions, ",events\n");
		if (flush(dir, "residency.csv", &b, cause) != 0)
			goto out;
	}

	const br_run *run = a->run;
	bprintf(&b, "path,role,size_bytes,sha256\n");
	for (size_t i = 0; i < run->n_inputs; i++) {
		quoted(&b, run->inputs[i].path, ",");
		quoted(&b, run->inputs[i].role, ",");
		bprintf(&b, "%lld,%s\n", run->inputs[i].size_bytes, run->inputs[i].sha256);
	}
	if (flush(dir, "inputs.csv", &b, cause) != 0)
		goto out;
	rc = 0;
out:
	free(b.s);
	free(dir);
	return rc;
}
