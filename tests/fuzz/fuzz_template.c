/*
 * libFuzzer target: br_template_load (src/common/template.c) on a temporary
 * file holding the input, then br_template_fill of a few keys against a
 * small fixed summary. The keys filled are the first string leaves of the
 * input itself (found with jansson, dotted like the loader flattens them),
 * plus a fixed key and an absent one, so every placeholder the fuzzer writes
 * is rendered: numbers of every size and sign, strings, booleans, null,
 * arrays by index, keys containing '.', and the format specs.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/report.h"
#include "fuzz_util.h"

#define MAX_KEYS 12

static const char *SUMMARY =
    "{\"schema_version\": 3,"
    " \"run\": {\"name\": \"c64-6144-2048\", \"n\": 42, \"neg\": -1234.5678, \"zero\": 0,"
    "          \"negzero\": -0.0, \"frac\": 0.9487, \"tiny\": 1e-300, \"huge\": 1.7976931348623157e308,"
    "          \"big_int\": 9223372036854775807, \"min_int\": -9223372036854775808,"
    "          \"null\": null, \"yes\": true, \"no\": false, \"empty\": \"\","
    "          \"utf8\": \"吞吐量 — résumé\", \"braces\": \"{run.n} {{\"},"
    " \"a.b\": {\"c\": \"dotted key\"}, \"a\": {\"b\": 1.5},"
    " \"latency\": {\"ttft\": {\"p99_ms\": 1234.5, \"mean_ms\": 0.845}},"
    " \"runs\": [{\"name\": \"c16\"}, {\"name\": \"c64\", \"x\": [1, 2, [3]]}],"
    " \"capacity\": {\"kv_pool_tokens\": 86864, \"oversubscription\": 6.03}}";

static json_t *summary;

/* collect: up to MAX_KEYS dotted names of string leaves of obj. */
static void
collect(json_t *obj, const char *prefix, char **keys, size_t *n, int depth)
{
	const char *k;
	json_t *v;
	if (depth > 8)
		return;
	json_object_foreach(obj, k, v) {
		if (*n >= MAX_KEYS)
			return;
		size_t len = (prefix ? strlen(prefix) + 1 : 0) + strlen(k) + 1;
		char *full = malloc(len);
		if (full == NULL)
			abort();
		snprintf(full, len, "%s%s%s", prefix ? prefix : "", prefix ? "." : "", k);
		if (json_is_string(v)) {
			keys[(*n)++] = full;
			continue;
		}
		if (json_is_object(v))
			collect(v, full, keys, n, depth + 1);
		free(full);
	}
}

static void
fill(const br_template *t, const char *key)
{
	char *s = br_template_fill(t, key, summary);
	if (s == NULL) {
		fprintf(stderr, "fuzz_template: br_template_fill(\"%s\") returned NULL\n", key);
		abort();
	}
	const char *raw = br_template_get(t, key);
	if (raw == NULL) {
		/* an absent key prints as "[key]" */
		if (strncmp(s, "[", 1) != 0 || strncmp(s + 1, key, strlen(key)) != 0) {
			fprintf(stderr, "fuzz_template: absent key \"%s\" filled as \"%s\"\n", key, s);
			abort();
		}
	}
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (summary == NULL) {
		json_error_t e;
		summary = json_loads(SUMMARY, 0, &e);
		if (summary == NULL) {
			fprintf(stderr, "fuzz_template: bad built-in summary: %d:%d: %s\n", e.line, e.column, e.text);
			abort();
		}
	}
	const char *path = br_fuzz_tmp_path("template", ".json");
	br_fuzz_write(path, data, size);
	char *cause = NULL;
	br_template *t = br_template_load(path, &cause);
	br_fuzz_check_cause("br_template_load", t != NULL ? 0 : -1, cause);
	free(cause);
	if (t == NULL)
		return 0;

	char *keys[MAX_KEYS];
	size_t n = 0;
	json_error_t e;
	json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &e);
	if (json_is_object(root))
		collect(root, NULL, keys, &n, 0);
	json_decref(root);
	for (size_t i = 0; i < n; i++) {
		if (br_template_get(t, keys[i]) == NULL) {
			fprintf(stderr, "fuzz_template: string leaf \"%s\" of the input is not in the template\n",
			    keys[i]);
			abort();
		}
		fill(t, keys[i]);
		free(keys[i]);
	}
	fill(t, "title");
	fill(t, "no.such.key");
	br_template_free(t);
	return 0;
}
