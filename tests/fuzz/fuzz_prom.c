/*
 * libFuzzer target: br_prom_parse_text (src/ingest/prom.c), one Prometheus
 * text exposition in memory. Besides the sanitizers it checks the promises
 * of metrics.h on success: one row, named columns, the time stored as given.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "benchreport/metrics.h"
#include "fuzz_util.h"

static void __attribute__((noreturn))
bad(const char *what)
{
	fprintf(stderr, "fuzz_prom: %s\n", what);
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	br_series s;
	char *cause = NULL;
	const double t = 1767225600.0;
	int rc = br_prom_parse_text("fuzz.prom", (const char *)data, size, t, &s, &cause);
	br_fuzz_check_cause("br_prom_parse_text", rc, cause);
	if (rc == 0) {
		if (s.n_rows != 1)
			bad("success but n_rows != 1 (one snapshot is one row)");
		if (s.t_s == NULL || s.t_s[0] != t)
			bad("success but t_s[0] is not the time given");
		if (s.n_cols == 0)
			bad("success with no column (a text with no samples must be an error)");
		for (size_t c = 0; c < s.n_cols; c++) {
			if (s.names[c] == NULL || s.names[c][0] == '\0')
				bad("a column without a name");
			if (s.cols[c] == NULL)
				bad("a column without values");
			(void)br_series_col(&s, s.names[c]);
		}
		br_fuzz_check_unique_names("fuzz_prom", s.names, s.n_cols);
	}
	br_series_free(&s);
	free(cause);
	return 0;
}
