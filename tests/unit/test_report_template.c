/*
 * Tests for the report wording templates (src/common/template.c).
 * Expected strings are worked out by hand from the inputs written here.
 */
#include "br_test.h"
#include <unistd.h>
#include "benchreport/common.h"
#include "benchreport/report.h"

/* write_tmp: write text to a fresh temp file; returns its malloc'd path. */
static char *
write_tmp(const char *text)
{
	char tmpl[] = "/tmp/br_tpl_XXXXXX";
	int fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	size_t n = strlen(text);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	return strdup(tmpl);
}

static const char *TEMPLATE =
    "{\n"
    "  \"title\": \"Load test of {model.name}\",\n"
    "  \"conclusions\": {\n"
    "    \"tput\": \"{run.output_tokens:,.0f} tokens at {run.tput_tok_s:.2f} tok/s\",\n"
    "    \"sig\": \"TTFT p99 {run.ttft_p99_ms:.3g} ms\",\n"
    "    \"pct\": \"{run.ok_frac:pct1} ok, {run.ok_frac:pct0} rounded\",\n"
    "    \"nested\": {\"deep\": \"deep={a.b.c}\"}\n"
    "  },\n"
    "  \"null\": \"preemptions: {run.preemptions}\",\n"
    "  \"missing\": \"gpu: {hw.gpu_name}\",\n"
    "  \"braces\": \"{{literal}} and {{{run.n}}}\",\n"
    "  \"utf8\": \"吞吐量 {run.tput_tok_s:.1f} 词元/秒 — résumé ≥ {run.n}\",\n"
    "  \"array\": \"first={runs.0.name}, second={runs.1.name}, third={runs.2.name}\",\n"
    "  \"plain\": \"int={run.n} real={run.real} str={model.name} big={run.output_tokens}\",\n"
    "  \"neg\": \"{run.neg:,.1f}\",\n"
    "  \"dur\": \"{d.a:dur_ms}|{d.b:dur_ms}|{d.c:dur_ms}|{d.d:dur_ms}|{d.e:dur_ms}|{d.f:dur_ms}\",\n"
    "  \"dur_s\": \"{ds.a:dur_s}|{ds.b:dur_s}|{ds.c:dur_s}\",\n"
    "  \"sig\": \"{sg.a:sig3}|{sg.b:sig3}|{sg.c:sig2}|{sg.d:sig3}\",\n"
    "  \"count\": \"{cnt.one:n:request}|{cnt.two:n:request}|{cnt.big:n:prompt}|{cnt.zero:n:run}|"
    "{cnt.one:n:child|children}|{cnt.two:n:child|children}|{run.preemptions:n:preemption}\",\n"
    "  \"lb\": \"{p.n:n:preemption}|{p.m:,.0f}|{p.k}|{p.s}\",\n"
    "  \"bad\": \"{run.n:zz} {unclosed\"\n"
    "}\n";

static const char *SUMMARY =
    "{\"model\": {\"name\": \"Qwen/Qwen2.5-7B\"},"
    " \"run\": {\"output_tokens\": 1234567.4, \"tput_tok_s\": 2345.678,"
    "          \"ttft_p99_ms\": 123.456, \"ok_frac\": 0.9487, \"preemptions\": null,"
    "          \"n\": 42, \"real\": 0.1, \"neg\": -1234.56},"
    " \"a\": {\"b\": {\"c\": \"yes\"}},"
    " \"d\": {\"a\": 0.8449, \"b\": 21.456, \"c\": 346.59, \"d\": 2032.36, \"e\": 219683.41, \"f\": 1234567.0},"
    " \"ds\": {\"a\": 0.005, \"b\": 26.11, \"c\": 0.0008},"
    " \"sg\": {\"a\": 259036.4, \"b\": 0.012345, \"c\": 999.6, \"d\": -57356.0},"
    " \"cnt\": {\"one\": 1, \"two\": 2, \"big\": 2400, \"zero\": 0},"
    " \"runs\": [{\"name\": \"c16\"}, {\"name\": \"c64\"}],"
    " \"p\": {\"n\": 1234, \"n_is_lower_bound\": true, \"m\": 37, \"m_is_lower_bound\": false,"
    "        \"k\": 5, \"s\": \"x\", \"s_is_lower_bound\": true}}";

struct fx {
	br_template *t;
	json_t *s;
	char *path;
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	f->path = write_tmp(TEMPLATE);
	char *cause = NULL;
	f->t = br_template_load(f->path, &cause);
	if (f->t == NULL)
		fprintf(stderr, "load: %s\n", cause);
	assert_non_null(f->t);
	json_error_t e;
	f->s = json_loads(SUMMARY, 0, &e);
	assert_non_null(f->s);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	br_template_free(f->t);
	json_decref(f->s);
	unlink(f->path);
	free(f->path);
	free(f);
	return 0;
}

/* check: fill key and compare with the expected text. */
static void
check(struct fx *f, const char *key, const char *want)
{
	char *got = br_template_fill(f->t, key, f->s);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void
test_get_and_nested_keys(void **state)
{
	struct fx *f = *state;
	assert_string_equal(br_template_get(f->t, "title"), "Load test of {model.name}");
	assert_string_equal(br_template_get(f->t, "conclusions.nested.deep"), "deep={a.b.c}");
	assert_null(br_template_get(f->t, "conclusions"));
	assert_null(br_template_get(f->t, "nope"));
	check(f, "title", "Load test of Qwen/Qwen2.5-7B");
	check(f, "conclusions.nested.deep", "deep=yes");
}

static void
test_formats(void **state)
{
	struct fx *f = *state;
	/* 1234567.4 rounded to 0 decimals = 1234567 → "1,234,567"; 2345.678 → "2345.68" */
	check(f, "conclusions.tput", "1,234,567 tokens at 2345.68 tok/s");
	/* 123.456 with 3 significant digits = "123" */
	check(f, "conclusions.sig", "TTFT p99 123 ms");
	/* 0.9487 × 100 = 94.87 → "94.9%" (1 dec), "95%" (0 dec) */
	check(f, "conclusions.pct", "94.9% ok, 95% rounded");
	/* integers verbatim, 0.1 shortest form, 1234567.4 shortest round-trip */
	check(f, "plain", "int=42 real=0.1 str=Qwen/Qwen2.5-7B big=1234567.4");
	/* -1234.56 → "-1234.6" → grouped "-1,234.6" */
	check(f, "neg", "-1,234.6");
	/* dur_ms, by hand: < 1 ms → 3 decimals; < 100 ms → 2; < 1 s → 1 decimal in ms;
	 * < 100 s → s with 2 decimals (2032.36 ms = 2.03 s); else s with 1 decimal
	 * (219683.41 ms = 219.7 s; 1234567 ms = 1234.6 s, grouped "1,234.6 s") */
	check(f, "dur", "0.845 ms|21.46 ms|346.6 ms|2.03 s|219.7 s|1,234.6 s");
	/* dur_s: seconds through the same rule (0.005 s = 5 ms → "5.00 ms";
	 * 26.11 s → "26.11 s"; 0.0008 s = 0.8 ms → "0.800 ms") */
	check(f, "dur_s", "5.00 ms|26.11 s|0.800 ms");
	/* sigN, by hand: 259036.4 → 259,000 (3 digits); 0.012345 → 0.0123;
	 * 999.6 with 2 digits → 1,000 (rounds up a decade); −57356 → −57,400 */
	check(f, "sig", "259,000|0.0123|1,000|-57,400");
	/* n:WORD: the noun in the singular only for 1; thousands grouped; an
	 * irregular plural after '|'; null → "n/a" and the plural */
	check(f, "count", "1 request|2 requests|2,400 prompts|0 runs|1 child|2 children|n/a preemptions");
	/* a number whose sibling <key>_is_lower_bound is true: "at least " (the
	 * template has no format.at_least) before it; false, absent, or a
	 * string value: as is */
	check(f, "lb", "at least 1,234 preemptions|37|5|x");
}

static void
test_null_missing_and_unknown(void **state)
{
	struct fx *f = *state;
	check(f, "null", "preemptions: n/a");
	check(f, "missing", "gpu: n/a");
	char *got = br_template_fill(f->t, "no.such.key", f->s);
	assert_string_equal(got, "[no.such.key]");
	free(got);
	/* summary NULL: every placeholder is absent */
	got = br_template_fill(f->t, "conclusions.tput", NULL);
	assert_string_equal(got, "n/a tokens at n/a tok/s");
	free(got);
}

static void
test_braces_utf8_arrays(void **state)
{
	struct fx *f = *state;
	check(f, "braces", "{literal} and {42}");
	/* 2345.678 → "2345.7" */
	check(f, "utf8", "吞吐量 2345.7 词元/秒 — résumé ≥ 42");
	check(f, "array", "first=c16, second=c64, third=n/a");
	/* unknown format and an unclosed brace are copied verbatim */
	check(f, "bad", "{run.n:zz} {unclosed");
}

static void
test_bad_json_position(void **state)
{
	(void)state;
	/* the error is on line 3: the value after "b": is missing; jansson
	 * reports the column of the offending '}' token */
	char *p = write_tmp("{\n  \"a\": \"x\",\n  \"b\": }\n");
	char *cause = NULL;
	br_template *t = br_template_load(p, &cause);
	assert_null(t);
	assert_non_null(cause);
	char *want = br_xasprintf("%s:3:", p);
	if (strncmp(cause, want, strlen(want)) != 0)
		fail_msg("cause '%s' does not start with '%s'", cause, want);
	/* the column follows: a number then ':' */
	const char *c = cause + strlen(want);
	assert_true(c[0] >= '1' && c[0] <= '9');
	assert_non_null(strchr(c, ':'));
	free(want);
	free(cause);
	unlink(p);
	free(p);

	/* a non-string leaf is rejected with its key */
	p = write_tmp("{\"a\": {\"b\": 3}}");
	cause = NULL;
	assert_null(br_template_load(p, &cause));
	assert_non_null(strstr(cause, "a.b"));
	free(cause);
	unlink(p);
	free(p);

	/* a missing file */
	cause = NULL;
	assert_null(br_template_load("/nonexistent/report.xx.json", &cause));
	assert_non_null(cause);
	free(cause);
}

/* write_file: dir/name with text. */
static void
write_file(const char *dir, const char *name, const char *text)
{
	char *p = br_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

/*
 * Phrases (templates/phrases.LANG.json): each row is an English message and
 * the rendering worked out by hand from the phrase table below (NULL: no
 * phrase applies, the caller keeps the English).
 */
static void
test_phrases(void **state)
{
	(void)state;
	char dir[] = "/tmp/br_phr_XXXXXX";
	assert_non_null(mkdtemp(dir));
	write_file(dir, "report.en.json", "{\"k\": \"source: {src}\"}");
	write_file(dir, "report.zh.json", "{\"k\": \"来源：{src}\", \"sp\": \"按 {w} 选出，在 {n} 秒 内完成，共 {n} 条\"}");
	write_file(dir, "phrases.zh.json",
	    "{\"the server log\": \"服务端日志\",\n"
	    " \"server log\": \"日志\",\n"
	    " \"needs {} in the bench result\": \"需要 bench 结果里的 {}\",\n"
	    " \"{} ({}) is not used: {}\": \"{}（{}）未被采用：{}\",\n"
	    " \"it serves model {}, the bench ran against {}\": \"它服务 {}，bench 压测 {}\",\n"
	    " \"it failed at start-up ({})\": \"它启动失败（{}）\",\n"
	    " \"{} shows {} start-ups\": \"{} 有 {} 次启动\",\n"
	    " \"{} engine\": \"{} 引擎\",\n"
	    " \"{}; {}\": \"{}；{}\"}\n");
	static const struct {
		const char *en, *want;
	} rows[] = {
		/* a hole-free phrase, whole */
		{ "the server log", "服务端日志" },
		/* one hole, data kept verbatim */
		{ "needs total_output_tokens in the bench result", "需要 bench 结果里的 total_output_tokens" },
		/* nested: the outer phrase's holes are translated in turn */
		{ "a.log (the server log) is not used: it serves model m/7B, the bench ran against q/8B",
		  "a.log（服务端日志）未被采用：它服务 m/7B，bench 压测 q/8B" },
		/* a trailing full stop becomes 。 */
		{ "needs x in the bench result.", "需要 bench 结果里的 x。" },
		/* two messages: the split is at the ". " after which both match,
		 * not at the ". " inside the quoted log line */
		{ "a.log (the server log) is not used: it failed at start-up (line 8: bad. Fix it). "
		  "b.log (server log) is not used: it serves model m, the bench ran against q.",
		  "a.log（服务端日志）未被采用：它启动失败（line 8: bad. Fix it）。"
		  "b.log（日志）未被采用：它服务 m，bench 压测 q。" },
		/* a quoted log line that opens a parenthesis it never closes: the
		 * balanced reading is preferred, but not required */
		{ "it failed at start-up (line 8: needs (16 GiB)", "它启动失败（line 8: needs (16 GiB）" },
		/* a hole holding UTF-8 text */
		{ "日志.log shows 2 start-ups", "日志.log 有 2 次启动" },
		/* a phrase is never replaced inside other text */
		{ "墙钟 — see the server log and the server log", NULL },
		/* a one-hole phrase with little text does not take a hole with a
		 * space: a quoted log line keeps its words */
		{ "V1 engine", "V1 引擎" },
		{ "error when initializing the engine", NULL },
		/* a phrase without letters applies only when every part translates */
		{ "the server log; V1 engine", "服务端日志；V1 引擎" },
		{ "the server log; drop it", NULL },
		/* nothing applies */
		{ "needs in the bench result", NULL },
		{ "Qwen/Qwen2.5-7B-Instruct", NULL },
		{ "", NULL },
	};
	char *zh = br_xasprintf("%s/report.zh.json", dir), *en = br_xasprintf("%s/report.en.json", dir);
	char *cause = NULL;
	br_template *t = br_template_load(zh, &cause);
	assert_non_null(t);
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		char *got = br_template_phrase(t, rows[i].en);
		if (rows[i].want == NULL ? got != NULL : got == NULL || strcmp(got, rows[i].want) != 0)
			fail_msg("row %zu: '%s' -> '%s', want '%s'", i, rows[i].en, got ? got : "(null)",
			    rows[i].want ? rows[i].want : "(null)");
		free(got);
	}
	/* a string value filled into a template is translated too */
	json_t *s = json_pack("{s:s}", "src", "server log");
	char *filled = br_template_fill(t, "k", s);
	assert_string_equal(filled, "来源：日志");
	free(filled);
	/* a space between two CJK characters goes (a hole spaced for a number
	 * filled with Chinese words: nineteenth breaker); beside digits it stays */
	json_t *sp = json_pack("{s:s, s:i}", "w", "抢占次数最多", "n", 42);
	filled = br_template_fill(t, "sp", sp);
	assert_string_equal(filled, "按抢占次数最多选出，在 42 秒内完成，共 42 条");
	free(filled);
	json_decref(sp);
	br_template_free(t);
	/* English loads no phrases */
	t = br_template_load(en, &cause);
	assert_non_null(t);
	assert_null(br_template_phrase(t, "the server log"));
	filled = br_template_fill(t, "k", s);
	assert_string_equal(filled, "source: server log");
	free(filled);
	br_template_free(t);
	json_decref(s);
	/* a phrase whose translation lost a hole is an error naming it */
	write_file(dir, "phrases.zh.json", "{\"needs {} and {}\": \"需要 {}\"}");
	assert_null(br_template_load(zh, &cause));
	assert_non_null(cause);
	assert_non_null(strstr(cause, "phrases.zh.json"));
	assert_non_null(strstr(cause, "needs {} and {}"));
	free(cause);
	char *rm = br_xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(rm), 0);
	free(rm);
	free(zh);
	free(en);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_get_and_nested_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_missing_and_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_braces_utf8_arrays, setup, teardown),
		cmocka_unit_test(test_bad_json_position),
		cmocka_unit_test(test_phrases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
