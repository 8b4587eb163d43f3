/*
 * llama-server /slots snapshots (src/ingest/slots.c): the real README
 * examples of both eras, hand-made lines for every column and error, and
 * the merge into a metrics series. Expected values are read off the JSON
 * by hand (fixtures/engines/README.md names the sources).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "benchreport/metrics.h"
#include "benchreport/model.h"
#include "br_test.h"

/* write_tmp: text into a new temporary file; returns its path (static buffer). */
static const char *
write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/br-slotsXXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *fp = fdopen(fd, "w");
	fputs(text, fp);
	fclose(fp);
	return path;
}

/* A snapshot line and the row it gives (total, busy, n_decoded, n_ctx_tokens; NAN = unknown). */
static const struct row_case {
	const char *line;
	double total, busy, decoded, ctx;
} row_cases[] = {
	/* 2026 fields: one busy slot with 7 decoded, one idle (its n_decoded is not counted) */
	{ "{\"t_unix_s\": 1767225600, \"slots\": [{\"id\": 0, \"n_ctx\": 1024, \"is_processing\": true, "
	  "\"next_token\": {\"n_decoded\": 7}}, {\"id\": 1, \"n_ctx\": 1024, \"is_processing\": false, "
	  "\"next_token\": {\"n_decoded\": 99}}]}\n", 2, 1, 7, 2048 },
	/* 2024 fields: state 0 idle, 3 generating */
	{ "{\"t_unix_s\": 1767225600, \"slots\": [{\"id\": 0, \"n_ctx\": 512, \"state\": 0, "
	  "\"next_token\": {\"n_decoded\": 0}}, {\"id\": 1, \"n_ctx\": 512, \"state\": 3, "
	  "\"next_token\": {\"n_decoded\": 40}}]}\n", 2, 1, 40, 1024 },
	/* a busy slot without next_token: decoded unknown; a slot without n_ctx: context unknown */
	{ "{\"t_unix_s\": 1767225600, \"slots\": [{\"id\": 0, \"is_processing\": true}]}\n", 1, 1, NAN, NAN },
	/* no slots at all */
	{ "{\"t_unix_s\": 1767225600, \"slots\": []}\n", 0, 0, 0, NAN },
};

static void
check_row(const br_series *s, size_t row, const struct row_case *c, const char *what)
{
	static const char *const names[4] = { "llamacpp_slots:total", "llamacpp_slots:busy",
		"llamacpp_slots:n_decoded", "llamacpp_slots:n_ctx_tokens" };
	const double want[4] = { c->total, c->busy, c->decoded, c->ctx };
	for (int k = 0; k < 4; k++) {
		const double *col = br_series_col(s, names[k]);
		assert_non_null(col);
		if (isnan(want[k]) ? !isnan(col[row]) : col[row] != want[k])
			fail_msg("%s: %s = %g, expected %g", what, names[k], col[row], want[k]);
	}
}

static void
test_rows(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof row_cases / sizeof row_cases[0]; k++) {
		const char *p = write_tmp(row_cases[k].line);
		br_series s;
		char *cause = NULL;
		if (br_slots_load(p, &s, &cause) != 0)
			fail_msg("case %zu: %s", k, cause);
		char what[32];
		snprintf(what, sizeof what, "case %zu", k);
		assert_int_equal(s.n_rows, 1);
		assert_double_rel(s.t_s[0], 1767225600.0, 0);
		assert_int_equal(s.engine, BR_ENGINE_LLAMACPP);
		check_row(&s, 0, &row_cases[k], what);
		br_series_free(&s);
		unlink(p);
	}
}

/* The README examples: 2026, two slots both processing, n_decoded 0 + 136,
 * n_ctx 65,536 each; 2024, one slot in state 1 (processing the prompt), n_ctx 2,048. */
static void
test_readme_examples(void **state)
{
	(void)state;
	static const struct { const char *file; struct row_case want; } ex[] = {
		{ "fixtures/engines/slots-readme-2026.jsonl", { NULL, 2, 2, 136, 131072 } },
		{ "fixtures/engines/slots-readme-2024.jsonl", { NULL, 1, 1, 0, 2048 } },
	};
	for (size_t k = 0; k < 2; k++) {
		char *p = br_test_src(ex[k].file), *cause = NULL;
		br_series s;
		if (br_slots_load(p, &s, &cause) != 0)
			fail_msg("%s: %s", ex[k].file, cause);
		check_row(&s, 0, &ex[k].want, ex[k].file);
		/* busy slots are the running role of a llama.cpp series without /metrics */
		assert_string_equal(br_role_name(&s, BR_ROLE_RUNNING), "llamacpp_slots:busy");
		br_series_free(&s);
		free(p);
	}
}

/* Bad files: the message names line and column and what was expected. */
static const struct bad_case {
	const char *text, *want;
} bad_cases[] = {
	{ "{\"t_unix_s\": 1767225600, \"slots\": []}\n[{\"id\": 0, \"is_processing\": true}]\n",
	  ":2:1: expected an object {\"t_unix_s\": seconds, \"slots\": [...]} (a bare /slots array has no time" },
	/* column 36: the "}" where a value belongs (counted by hand) */
	{ "{\"t_unix_s\": 1767225600, \"slots\": [}\n", ":1:36: expected JSON: unexpected token near '}'" },
	{ "{\"slots\": []}\n", ":1:1: expected a number \"t_unix_s\"" },
	{ "{\"t_unix_s\": 1767225600123, \"slots\": []}\n", ":1:1: expected \"t_unix_s\" between 2000-01-01 and 2100-01-01" },
	{ "{\"t_unix_s\": 1767225601, \"slots\": []}\n{\"t_unix_s\": 1767225600, \"slots\": []}\n",
	  ":2:1: expected snapshots in time order" },
	{ "{\"t_unix_s\": 1767225600, \"slots\": [{\"id\": 0}]}\n",
	  ":1:1: expected each slot with \"is_processing\" (true/false) or \"state\" (an integer)" },
	{ "{\"t_unix_s\": 1767225600, \"slots\": {}}\n", ":1:1: expected \"slots\": the array /slots answers" },
	{ "{\"t_unix_s\": 1767225600, \"slots\": []}\n{\"t_unix_s\": 1767225600, \"slots\": []}\n",
	  ":2:1: expected snapshots taken over time; all 2 carry the same t_unix_s 1767225600.000" },
};

static void
test_bad_files(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; k++) {
		const char *p = write_tmp(bad_cases[k].text);
		br_series s;
		char *cause = NULL;
		assert_int_equal(br_slots_load(p, &s, &cause), -1);
		assert_non_null(cause);
		if (strncmp(cause, p, strlen(p)) != 0 || strstr(cause, bad_cases[k].want) == NULL)
			fail_msg("case %zu: got '%s', expected '%s%s...'", k, cause, p, bad_cases[k].want);
		assert_int_equal(s.n_rows, 0);
		free(cause);
		unlink(p);
	}
}

/* Empty files (a capture stopped before its first tick) are no error: 1 and a message. */
static void
test_empty_files(void **state)
{
	(void)state;
	static const struct { const char *text, *want; } cases[] = {
		{ "", ": empty: no /slots snapshot to read" },
		{ "\n\n", ": only blank lines: no /slots snapshot to read" },
	};
	for (size_t k = 0; k < 2; k++) {
		const char *p = write_tmp(cases[k].text);
		br_series s;
		char *cause = NULL;
		assert_int_equal(br_slots_load(p, &s, &cause), 1);
		if (cause == NULL || strstr(cause, cases[k].want) == NULL)
			fail_msg("case %zu: got '%s', expected '...%s'", k, cause ? cause : "(null)", cases[k].want);
		assert_int_equal(s.n_rows, 0);
		free(cause);
		unlink(p);
	}
}

/* Merge: metrics rows at 100, 101, 102, 103 s (step 1 s, tolerance 0.5 s);
 * snapshots at 100.2 (busy 1), 101.9 (busy 2) and 110 (busy 3): row 100 takes
 * the first (0.2 s away), 102 the second (0.1 s); 101 none (its nearest,
 * 100.2, is 0.8 s away), 103 none (101.9 is 1.1 s away): 2 rows matched. */
static void
test_merge(void **state)
{
	(void)state;
	const char *p = write_tmp(
	    "{\"t_unix_s\": 1767225600.2, \"slots\": [{\"is_processing\": true}]}\n"
	    "{\"t_unix_s\": 1767225601.9, \"slots\": [{\"is_processing\": true}, {\"is_processing\": true}]}\n"
	    "{\"t_unix_s\": 1767225610, \"slots\": [{\"is_processing\": true}, {\"is_processing\": true}, "
	    "{\"is_processing\": true}]}\n");
	br_series sl, m;
	char *cause = NULL;
	assert_int_equal(br_slots_load(p, &sl, &cause), 0);
	memset(&m, 0, sizeof m);
	size_t c = br_series_add_col(&m, "llamacpp:requests_processing");
	for (int i = 0; i < 4; i++) {
		size_t r = br_series_add_row(&m, 1767225600.0 + i);
		m.cols[c][r] = i;
	}
	/* a dry run adds nothing; rows 100 and 102 carry requests_processing 0 and 2
	 * against 1 and 2 busy slots: 2 compared, 1 differs */
	size_t n_cmp = 0, n_diff = 0;
	assert_int_equal(br_slots_merge(&m, &sl, 1, &n_cmp, &n_diff), 2);
	assert_null(br_series_col(&m, "llamacpp_slots:busy"));
	assert_int_equal(n_cmp, 2);
	assert_int_equal(n_diff, 1);
	assert_int_equal(br_slots_merge(&m, &sl, 0, NULL, NULL), 2);
	const double *busy = br_series_col(&m, "llamacpp_slots:busy");
	assert_non_null(busy);
	assert_double_rel(busy[0], 1, 0);
	assert_nan(busy[1]);
	assert_double_rel(busy[2], 2, 0);
	assert_nan(busy[3]);
	/* with /metrics the running role stays requests_processing */
	assert_string_equal(br_role_name(&m, BR_ROLE_RUNNING), "llamacpp:requests_processing");
	br_series_free(&sl);
	br_series_free(&m);
	unlink(p);
}

/* A FIFO named slots.jsonl is refused at once, not read (it would block). */
static void
test_fifo(void **state)
{
	(void)state;
	char path[] = "/tmp/br-slots-fifoXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	br_series s;
	char *cause = NULL;
	assert_int_equal(br_slots_load(path, &s, &cause), -1);
	assert_non_null(strstr(cause, "not a regular file"));
	free(cause);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_readme_examples),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_empty_files),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_fifo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
