/*
 * CI gate output: the "gate" object of summary.json, the failing terms on
 * stderr and JUnit XML (include/benchreport/report.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include "benchreport/common.h"
#include "benchreport/report.h"

static const char *const status_text[] = { "pass", "fail", "unknown" };

static const char *const quantity_name[] = {
	"latency", "failed", "completed", "preemptions", "failed_pct", "output_tps", "total_tps", "rps"
};

/* unit_suffix: key suffix of the term's limit/value ("ms" for latency). */
static const char *
unit_suffix(const br_gate_term *t)
{
	switch (t->quantity) {
	case BR_GATE_LATENCY: return "ms";
	case BR_GATE_FAILED_PCT: return "pct";
	case BR_GATE_OUTPUT_TPS: case BR_GATE_TOTAL_TPS: return "tok_per_s";
	case BR_GATE_RPS: return "req_per_s";
	default: return "count";
	}
}

static json_t *
num_or_null(double x)
{
	return br_isnum(x) ? json_real(x) : json_null();
}

/* br_gate_summary: see report.h. */
json_t *
br_gate_summary(const br_gate_spec *spec, const br_gate_result *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "spec", json_string(spec->text));
	json_object_set_new(o, "passed", json_boolean(r->passed));
	json_object_set_new(o, "n_terms", json_integer((json_int_t)r->n));
	json_object_set_new(o, "n_pass", json_integer((json_int_t)r->n_pass));
	json_object_set_new(o, "n_fail", json_integer((json_int_t)r->n_fail));
	json_object_set_new(o, "n_unknown", json_integer((json_int_t)r->n_unknown));
	json_t *terms = json_array();
	for (size_t i = 0; i < spec->n; i++) {
		const br_gate_term *t = &spec->terms[i];
		const br_gate_outcome *oc = &r->terms[i];
		json_t *j = json_object();
		char key[32];
		json_object_set_new(j, "term", json_string(t->text));
		json_object_set_new(j, "quantity", json_string(quantity_name[t->quantity]));
		if (t->quantity == BR_GATE_LATENCY) {
			json_object_set_new(j, "metric", json_string(br_latency_metric_name[t->metric]));
			json_object_set_new(j, "stat", json_string(t->stat));
			json_object_set_new(j, "percentile", num_or_null(t->percentile));
		}
		json_object_set_new(j, "op", json_string(br_gate_op_text(t->op)));
		snprintf(key, sizeof key, "limit_%s", unit_suffix(t));
		json_object_set_new(j, key, json_real(t->limit));
		snprintf(key, sizeof key, "value_%s", unit_suffix(t));
		json_object_set_new(j, key, num_or_null(oc->value));
		char v[48];
		json_object_set_new(j, "measured", json_string(br_gate_format_value(t, oc->value, v, sizeof v)));
		/* the value is the quantity, or a bound of it that settles the term */
		json_object_set_new(j, "value_is", json_string(oc->bound < 0 ? "upper bound" :
		    oc->bound > 0 ? "lower bound" : "value"));
		json_object_set_new(j, "status", json_string(status_text[oc->status]));
		json_object_set_new(j, "source", oc->source[0] ? json_string(oc->source) : json_null());
		json_object_set_new(j, "why_unknown",
		    oc->status == BR_GATE_UNKNOWN ? json_string(oc->why_unknown) : json_null());
		json_array_append_new(terms, j);
	}
	json_object_set_new(o, "terms", terms);
	return o;
}

/* term_message: "measured 3.12 s, limit <= 2 s" or "unknown: why". */
static void
term_message(const br_gate_term *t, const br_gate_outcome *oc, char *buf, size_t size)
{
	char v[48], lim[48];
	if (oc->status == BR_GATE_UNKNOWN) {
		snprintf(buf, size, "value unknown, so the term fails: %s", oc->why_unknown);
		return;
	}
	br_gate_format_value(t, oc->value, v, sizeof v);
	br_gate_format_limit(t, oc->value, lim, sizeof lim);
	snprintf(buf, size, "measured %s%s%s%s%s, limit %s %s", oc->bound < 0 ? "at most " : oc->bound > 0 ? "at least " : "",
	    v, oc->bound ? " (" : "", oc->bound ? oc->source : "", oc->bound ? ")" : "", br_gate_op_text(t->op), lim);
}

/* br_gate_print: see report.h. */
void
br_gate_print(FILE *fp, const char *run_name, const br_gate_spec *spec, const br_gate_result *r)
{
	char msg[512];
	const char *sep = run_name ? ": " : "";
	for (size_t i = 0; i < spec->n; i++) {
		const br_gate_outcome *oc = &r->terms[i];
		if (oc->status == BR_GATE_PASS)
			continue;
		term_message(&spec->terms[i], oc, msg, sizeof msg);
		fprintf(fp, "benchreport: gate: %s%s%s %s: %s\n", run_name ? run_name : "", sep,
		    oc->status == BR_GATE_FAIL ? "FAIL" : "UNKNOWN", spec->terms[i].text, msg);
	}
	fprintf(fp, "benchreport: gate: %s%s%s: %zu of %zu term%s pass%s\n", run_name ? run_name : "",
	    sep, r->passed ? "passed" : "FAILED", r->n_pass, r->n, r->n == 1 ? "" : "s",
	    r->n_unknown ? " (an unknown value fails its term)" : "");
}

/* xml_escape_append: s with & < > " ' escaped, appended to g; a character
 * XML 1.0 does not allow (controls other than tab and newline, U+FFFE,
 * U+FFFF, surrogates: twenty-ninth breaker, a run name with U+FFFE made
 * the file unreadable) becomes a space, an invalid UTF-8 byte U+FFFD. */
static void
xml_escape_append(GString *g, const char *s)
{
	const char *end = s + strlen(s);
	while (s < end) {
		gunichar c = g_utf8_get_char_validated(s, end - s);
		if (c == (gunichar)-1 || c == (gunichar)-2) {   /* invalid or cut UTF-8: one byte */
			g_string_append(g, "\xEF\xBF\xBD");
			s++;
			continue;
		}
		const char *next = g_utf8_next_char(s);
		switch (c) {
		case '&': g_string_append(g, "&amp;"); break;
		case '<': g_string_append(g, "&lt;"); break;
		case '>': g_string_append(g, "&gt;"); break;
		case '"': g_string_append(g, "&quot;"); break;
		case '\'': g_string_append(g, "&apos;"); break;
		default:
			if ((c < 0x20 && c != '\t' && c != '\n') || (c >= 0xD800 && c <= 0xDFFF) || c == 0xFFFE ||
			    c == 0xFFFF)
				g_string_append_c(g, ' ');
			else
				g_string_append_len(g, s, next - s);
		}
		s = next;
	}
}

/* br_gate_write_junit: see report.h. */
int
br_gate_write_junit(const char *path, const br_gate_spec *spec,
    const br_gate_result *results, const char *const *run_names, size_t n_runs, char **cause)
{
	GString *g = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	size_t tests = 0, failures = 0;
	for (size_t r = 0; r < n_runs; r++) {
		tests += results[r].n;
		failures += results[r].n_fail + results[r].n_unknown;
	}
	g_string_append_printf(g, "<testsuites name=\"benchreport gate\" tests=\"%zu\" failures=\"%zu\" "
	    "errors=\"0\">\n", tests, failures);
	char msg[512];
	for (size_t r = 0; r < n_runs; r++) {
		const br_gate_result *res = &results[r];
		/* two runs of one name (run.json names) stay two suites in a CI reporter */
		size_t same = 0;
		for (size_t q = 0; q < r; q++)
			same += strcmp(run_names[q], run_names[r]) == 0;
		char *suite = same ? br_xasprintf("%s (%zu)", run_names[r], same + 1) : br_xstrdup(run_names[r]);
		g_string_append(g, "  <testsuite name=\"");
		xml_escape_append(g, suite);
		g_string_append_printf(g, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n",
		    res->n, res->n_fail + res->n_unknown);
		for (size_t i = 0; i < spec->n; i++) {
			const br_gate_term *t = &spec->terms[i];
			const br_gate_outcome *oc = &res->terms[i];
			g_string_append(g, "    <testcase classname=\"benchreport.gate.");
			xml_escape_append(g, suite);
			g_string_append(g, "\" name=\"");
			xml_escape_append(g, t->text);
			g_string_append(g, "\"");
			term_message(t, oc, msg, sizeof msg);
			if (oc->status == BR_GATE_PASS) {
				g_string_append(g, ">\n      <system-out>");
				xml_escape_append(g, msg);
				g_string_append(g, "</system-out>\n    </testcase>\n");
				continue;
			}
			g_string_append(g, ">\n      <failure type=\"");
			g_string_append(g, oc->status == BR_GATE_FAIL ? "term failed" : "value unknown");
			g_string_append(g, "\" message=\"");
			xml_escape_append(g, msg);
			g_string_append(g, "\">");
			xml_escape_append(g, t->text);
			g_string_append(g, ": ");
			xml_escape_append(g, msg);
			g_string_append(g, "</failure>\n    </testcase>\n");
		}
		g_string_append(g, "  </testsuite>\n");
		free(suite);
	}
	g_string_append(g, "</testsuites>\n");
	char *seal = br_output_seal(g->str, g->len, "<!-- ", " -->");   /* an edit is then not overwritten */
	g_string_append(g, seal);
	free(seal);
	int rc = br_write_atomic(path, g->str, g->len, cause);
	g_string_free(g, TRUE);
	return rc;
}
