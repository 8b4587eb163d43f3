/*
 * Private helpers shared by the metrics readers of the ingest module
 * (prom.c, metrics_csv.c, metric_names.c; provenance.c for the median).
 * Not part of the public contract.
 */
#ifndef BR_INGEST_METRICS_PRIV_H
#define BR_INGEST_METRICS_PRIV_H

#include <stddef.h>
#include "benchreport/metrics.h"

/* One Prometheus label; `value` is kept in its escaped source form
 * (\" \\ \n stay as two characters) so a column name is valid syntax. */
typedef struct br_label {
	char *name;
	char *value;
} br_label;

/*
 * br_prom_labels_parse: parse a label set "{a="x",b="y"}" starting at s[*pos]
 * (which must be '{'), up to s[len]. On success *pos is just after '}', the
 * labels are in *labels / *n (caller frees with br_labels_free) and 0 is
 * returned. On failure returns -1, *pos is the offending byte and *expected a
 * static description of what was expected there.
 */
int br_prom_labels_parse(const char *s, size_t len, size_t *pos,
    br_label **labels, size_t *n, const char **expected);

void br_labels_free(br_label *labels, size_t n);

/*
 * br_metric_column_names: canonical column name(s) of one series.
 * raw_name is the series name as written; labels its label set. `engine` and
 * `model_name` are dropped; others are sorted by name.
 *   *full = "canon{a=\"x\",b=\"y\"}" or just "canon" when no label is kept;
 *   *bare = "canon" when labels were kept and the series is not a _bucket
 *           (the caller adds the value there too), else NULL.
 * SGLang's parallel-rank labels are dropped like `engine`, and a sample of a
 * tensor/pipeline rank other than 0 is ignored (a duplicate, metric_names.c).
 * Returns 0, or -1 (nothing allocated) for a series to ignore (_created, a
 * duplicate rank).
 */
int br_metric_column_names(const char *raw_name, const br_label *labels,
    size_t n, char **full, char **bare);

/*
 * br_series_identity: the identity of one series for duplicate checks: its
 * name (canonical when `canonical`, else as written) plus ALL labels
 * (engine and model_name included, so per-engine series stay distinct),
 * sorted by name (labels is sorted in place). malloc'd.
 */
char *br_series_identity(const char *raw, int canonical, br_label *labels, size_t nl);

/* br_metric_is_usage_frac: 1 when the canonical column holds a cache usage
 * that must be a fraction (vllm:kv_cache_usage_perc, vllm:cpu_cache_usage_perc). */
int br_metric_is_usage_frac(const char *canon);

/* br_parse_double: strict, locale-independent number of exactly s[0..n):
 * decimal / exponent forms, +Inf, -Inf, Inf, NaN (any case). 0 or -1. */
int br_parse_double(const char *s, size_t n, double *out);

/* br_median_inplace: the median of v[0..n) (v is sorted in place; the mean
 * of the middle two for even n); NAN when n == 0. No NaN in v. */
double br_median_inplace(double *v, size_t n);

#endif
