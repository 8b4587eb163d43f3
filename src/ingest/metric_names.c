/*
 * Canonical metric names (FORMATS.md §2, metrics.h) and the label helpers
 * shared by the Prometheus and CSV readers.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "benchreport/common.h"
#include "benchreport/metrics.h"
#include "ingest/metrics_priv.h"

/* Old name → current name (base names, without "vllm:"). The first two are
 * from FORMATS.md §2; the prefix-cache pair is vLLM's rename of
 * vllm:gpu_prefix_cache_* to vllm:prefix_cache_*. */
static const char *const old_new[][2] = {
	{ "gpu_cache_usage_perc", "kv_cache_usage_perc" },
	{ "time_per_output_token_seconds", "inter_token_latency_seconds" },
	{ "gpu_prefix_cache_queries", "prefix_cache_queries" },
	{ "gpu_prefix_cache_hits", "prefix_cache_hits" },
};

/* Base names of vLLM series that are recognised without any prefix
 * (a histogram or counter appears here by its family name). */
static const char *const known_bare[] = {
	"num_requests_running", "num_requests_waiting", "num_requests_waiting_by_reason",
	"num_requests_swapped", "kv_cache_usage_perc", "gpu_cache_usage_perc",
	"cpu_cache_usage_perc", "num_preemptions_total", "prompt_tokens_total",
	"generation_tokens_total", "request_success_total", "iteration_tokens_total",
	"estimated_flops_per_gpu_total", "estimated_read_bytes_per_gpu_total",
	"estimated_write_bytes_per_gpu_total", "time_to_first_token_seconds",
	"request_queue_time_seconds", "request_prefill_time_seconds",
	"request_decode_time_seconds", "request_inference_time_seconds",
	"e2e_request_latency_seconds", "inter_token_latency_seconds",
	"time_per_output_token_seconds", "cache_config_info", "prefix_cache_queries_total",
	"prefix_cache_hits_total", "gpu_prefix_cache_queries_total", "gpu_prefix_cache_hits_total",
	"spec_decode_num_drafts_total", "spec_decode_num_draft_tokens_total",
	"spec_decode_num_accepted_tokens_total", "request_prompt_tokens",
	"request_generation_tokens", "request_max_num_generation_tokens",
	"request_params_n", "request_params_max_tokens",
};

/* Suffixes a family name can carry in the exposition. */
static const char *const fam_suffix[] = { "_bucket", "_sum", "_count", "_created", "_total" };

/*
 * ends_with: 1 when s ends with suffix.
 */
static int
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

/*
 * is_known_bare: 1 when an unprefixed name is a vLLM series: the name
 * itself, or the name without a family suffix (plus "_total" for a counter's
 * _created companion), is in known_bare.
 */
static int
is_known_bare(const char *name)
{
	size_t n = strlen(name);
	for (size_t k = 0; k < sizeof known_bare / sizeof known_bare[0]; k++)
		if (strcmp(name, known_bare[k]) == 0)
			return 1;
	for (size_t s = 0; s < 4; s++) {  /* _bucket _sum _count _created */
		if (!ends_with(name, fam_suffix[s]))
			continue;
		size_t stem = n - strlen(fam_suffix[s]);
		for (size_t k = 0; k < sizeof known_bare / sizeof known_bare[0]; k++) {
			const char *kb = known_bare[k];
			size_t kl = strlen(kb);
			if (kl == stem && memcmp(kb, name, stem) == 0)
				return 1;
			if (kl == stem + 6 && memcmp(kb, name, stem) == 0 && strcmp(kb + stem, "_total") == 0)
				return 1;
		}
	}
	return 0;
}

/*
 * br_metric_canonical: see metrics.h. Leading/trailing blanks are removed.
 * A raw string holding a label set ("name{...}") keeps the label part
 * verbatim after the canonical name (labels are not normalised here).
 */
char *
br_metric_canonical(const char *raw)
{
	if (raw == NULL)
		return NULL;
	while (*raw == ' ' || *raw == '\t')
		raw++;
	const char *brace = strchr(raw, '{');
	size_t n = brace ? (size_t)(brace - raw) : strlen(raw);
	while (n > 0 && (raw[n - 1] == ' ' || raw[n - 1] == '\t'))
		n--;
	const char *rest = brace ? brace : "";
	char *name = br_xstrndup(raw, n);
	const char *base;
	if (strncmp(name, "vllm:", 5) == 0 || strncmp(name, "vllm_", 5) == 0)
		base = name + 5;
	else if (is_known_bare(name))
		base = name;
	else {
		char *out = br_xasprintf("%s%s", name, rest);
		free(name);
		return out;
	}
	char *out = NULL;
	for (size_t k = 0; k < sizeof old_new / sizeof old_new[0] && out == NULL; k++) {
		size_t ol = strlen(old_new[k][0]);
		if (strncmp(base, old_new[k][0], ol) != 0)
			continue;
		const char *tail = base + ol;
		int ok = *tail == '\0';
		for (size_t s = 0; s < sizeof fam_suffix / sizeof fam_suffix[0] && !ok; s++)
			ok = strcmp(tail, fam_suffix[s]) == 0;
		if (ok)
			out = br_xasprintf("vllm:%s%s%s", old_new[k][1], tail, rest);
	}
	if (out == NULL)
		out = br_xasprintf("vllm:%s%s", base, rest);
	free(name);
	return out;
}

/*
 * br_labels_free: free a label array from br_prom_labels_parse (NULL ok).
 */
void
br_labels_free(br_label *labels, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(labels[i].name);
		free(labels[i].value);
	}
	free(labels);
}

/*
 * skip_blank: advance *pos over spaces and tabs.
 */
static void
skip_blank(const char *s, size_t len, size_t *pos)
{
	while (*pos < len && (s[*pos] == ' ' || s[*pos] == '\t'))
		(*pos)++;
}

/*
 * br_prom_labels_parse: see metrics_priv.h. Accepts blanks around tokens, an
 * empty set "{}" and a trailing comma. Escapes in values are validated only
 * as "backslash + one byte" and kept as written.
 */
int
br_prom_labels_parse(const char *s, size_t len, size_t *pos,
    br_label **labels, size_t *n, const char **expected)
{
	size_t p = *pos, cap = 0;
	br_label *l = NULL;
	size_t cnt = 0;
	if (p >= len || s[p] != '{') {
		*expected = "'{' to open the label set";
		return -1;
	}
	p++;
	for (;;) {
		skip_blank(s, len, &p);
		if (p < len && s[p] == '}') {
			p++;
			break;
		}
		if (p >= len || !(isalpha((unsigned char)s[p]) || s[p] == '_')) {
			*expected = cnt ? "a label name or '}'" : "a label name or '}' after '{'";
			goto fail;
		}
		size_t ns = p;
		while (p < len && (isalnum((unsigned char)s[p]) || s[p] == '_'))
			p++;
		size_t ne = p;
		skip_blank(s, len, &p);
		if (p >= len || s[p] != '=') {
			*expected = "'=' after the label name";
			goto fail;
		}
		p++;
		skip_blank(s, len, &p);
		if (p >= len || s[p] != '"') {
			*expected = "'\"' to open the label value";
			goto fail;
		}
		p++;
		size_t vs = p;
		while (p < len && s[p] != '"') {
			if (s[p] == '\n' || s[p] == '\r') {
				*expected = "'\"' to close the label value before the end of the line";
				goto fail;
			}
			if (s[p] == '\\') {
				if (p + 1 >= len || s[p + 1] == '\n' || s[p + 1] == '\r') {
					p++;
					*expected = "an escaped character after '\\' in the label value";
					goto fail;
				}
				p++;
			}
			p++;
		}
		if (p >= len) {
			*expected = "'\"' to close the label value";
			goto fail;
		}
		size_t ve = p;
		p++;
		if (cnt == cap) {
			cap = cap ? 2 * cap : 8;
			l = br_xrealloc(l, cap * sizeof *l);
		}
		l[cnt].name = br_xstrndup(s + ns, ne - ns);
		l[cnt].value = br_xstrndup(s + vs, ve - vs);
		cnt++;
		skip_blank(s, len, &p);
		if (p < len && s[p] == ',') {
			p++;
			continue;
		}
		if (p < len && s[p] == '}') {
			p++;
			break;
		}
		*expected = "',' or '}' after the label value";
		goto fail;
	}
	*pos = p;
	*labels = l;
	*n = cnt;
	return 0;
fail:
	*pos = p;
	br_labels_free(l, cnt);
	return -1;
}

/*
 * label_cmp: qsort order of label pointers by name, then value.
 */
static int
label_cmp(const void *a, const void *b)
{
	const br_label *x = *(const br_label *const *)a, *y = *(const br_label *const *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->value, y->value);
}

/*
 * SGLang's scheduler series carry the parallel ranks as labels (collector.py:
 * engine_type, tp_rank, pp_rank, dp_rank, moe_ep_rank; ENGINES.md §4.3).
 * Tensor- and pipeline-parallel ranks of one data-parallel rank report the
 * same batch, so only rank 0 of each is read (summing them would count a
 * request once per GPU); data-parallel ranks are separate schedulers and
 * are summed like vLLM's `engine` (KV usage averaged, prom.c).
 */
static int
is_sglang_rank_label(const char *name)
{
	static const char *const rank[] = { "engine_type", "tp_rank", "pp_rank", "dp_rank",
		"moe_ep_rank", "attn_tp_rank" };
	for (size_t k = 0; k < sizeof rank / sizeof rank[0]; k++)
		if (strcmp(name, rank[k]) == 0)
			return 1;
	return 0;
}

/* sglang_duplicate_rank: 1 when a tensor/pipeline/expert-parallel rank
 * label other than "0" marks the sample as another GPU's copy. */
static int
sglang_duplicate_rank(const br_label *labels, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((strcmp(labels[i].name, "tp_rank") == 0 || strcmp(labels[i].name, "pp_rank") == 0 ||
		    strcmp(labels[i].name, "moe_ep_rank") == 0 ||
		    strcmp(labels[i].name, "attn_tp_rank") == 0) && strcmp(labels[i].value, "0") != 0)
			return 1;
	return 0;
}

/*
 * br_metric_column_names: see metrics_priv.h.
 */
int
br_metric_column_names(const char *raw_name, const br_label *labels,
    size_t n, char **full, char **bare)
{
	char *canon = br_metric_canonical(raw_name);
	if (ends_with(canon, "_created")) {
		free(canon);
		return -1;
	}
	int sglang = strncmp(canon, "sglang:", 7) == 0;
	if (sglang && sglang_duplicate_rank(labels, n)) {
		free(canon);
		return -1;
	}
	const br_label **kept = br_xcalloc(n ? n : 1, sizeof *kept);
	size_t nk = 0;
	int has_le = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(labels[i].name, "engine") == 0 || strcmp(labels[i].name, "model_name") == 0)
			continue;
		if (sglang && is_sglang_rank_label(labels[i].name))
			continue;
		if (strcmp(labels[i].name, "le") == 0)
			has_le = 1;
		kept[nk++] = &labels[i];
	}
	if (nk == 0) {
		*full = canon;
		*bare = NULL;
		free(kept);
		return 0;
	}
	qsort(kept, nk, sizeof *kept, label_cmp);
	GString *g = g_string_new(canon);
	g_string_append_c(g, '{');
	for (size_t i = 0; i < nk; i++)
		g_string_append_printf(g, "%s%s=\"%s\"", i ? "," : "", kept[i]->name, kept[i]->value);
	g_string_append_c(g, '}');
	*full = br_xstrdup(g->str);
	g_string_free(g, TRUE);
	free(kept);
	if (has_le && ends_with(canon, "_bucket")) {
		*bare = NULL;
		free(canon);
	} else
		*bare = canon;
	return 0;
}

/*
 * br_metric_is_usage_frac: see metrics_priv.h. Matches the bare name and any
 * labelled variant of it.
 */
int
br_metric_is_usage_frac(const char *canon)
{
	static const char *const names[] = { "vllm:kv_cache_usage_perc", "vllm:cpu_cache_usage_perc",
		"sglang:token_usage", "llamacpp:kv_cache_usage_ratio" };
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		size_t l = strlen(names[k]);
		if (strncmp(canon, names[k], l) == 0 && (canon[l] == '\0' || canon[l] == '{'))
			return 1;
	}
	return 0;
}

/*
 * br_parse_double: see metrics_priv.h. Hexadecimal forms and embedded blanks
 * are rejected; GLib's g_ascii_strtod keeps it independent of the locale.
 */
int
br_parse_double(const char *s, size_t n, double *out)
{
	if (n == 0 || n > 4096)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == 'x' || c == 'X' || isspace(c) || c == '\0')
			return -1;
	}
	/* the common forms through fast_float (bit-identical to strtod, 9x
	 * faster: 89 M instructions for round 1's 116,544 cells went to
	 * g_ascii_strtod); what it does not read ('+5', "nan(1)") goes on to
	 * g_ascii_strtod, which accepts all fast_float does */
	double v;
	if (br_decimal_to_double(s, s + n, &v)) {
		*out = v;
		return 0;
	}
	char *buf = br_xstrndup(s, n);
	char *end = NULL;
	v = g_ascii_strtod(buf, &end);
	int ok = end == buf + n;
	free(buf);
	if (!ok)
		return -1;
	*out = v;
	return 0;
}

/* label_by_name: qsort order of labels (the structs) by name. */
static int
label_by_name(const void *a, const void *b)
{
	return strcmp(((const br_label *)a)->name, ((const br_label *)b)->name);
}

/* br_series_identity: see metrics_priv.h. */
char *
br_series_identity(const char *raw, int canonical, br_label *labels, size_t nl)
{
	char *name = canonical ? br_metric_canonical(raw) : br_xstrdup(raw);
	GString *k = g_string_new(name);
	free(name);
	if (nl > 0) {
		qsort(labels, nl, sizeof *labels, label_by_name);
		g_string_append_c(k, '{');
		for (size_t i = 0; i < nl; i++)
			g_string_append_printf(k, "%s%s=\"%s\"", i ? "," : "", labels[i].name, labels[i].value);
		g_string_append_c(k, '}');
	}
	return g_string_free(k, FALSE);
}
