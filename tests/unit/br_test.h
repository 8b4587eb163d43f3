/*
 * Shared helpers for the cmocka unit tests.
 * cmocka 1.1.5's assert_float_equal compares as float; these compare doubles.
 */
#ifndef BR_TEST_H
#define BR_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* |a - b| <= rel · max(|a|, |b|) (or both exactly equal). */
#define assert_double_rel(a, b, rel) do { \
	double _a = (a), _b = (b), _r = (rel); \
	double _m = fabs(_a) > fabs(_b) ? fabs(_a) : fabs(_b); \
	if (!(_a == _b || fabs(_a - _b) <= _r * _m)) \
		fail_msg("%s = %.17g, expected %.17g (rel tol %g)", #a, _a, _b, _r); \
} while (0)

/* |a - b| <= abs_tol. */
#define assert_double_abs(a, b, tol) do { \
	double _a = (a), _b = (b), _t = (tol); \
	if (!(fabs(_a - _b) <= _t)) \
		fail_msg("%s = %.17g, expected %.17g (abs tol %g)", #a, _a, _b, _t); \
} while (0)

#define assert_nan(a) do { double _a = (a); if (!isnan(_a)) fail_msg("%s = %.17g, expected NaN", #a, _a); } while (0)

/* Path of a file under the source tree (BR_SOURCE_DIR, set by ctest). Caller frees. */
static inline char *
br_test_src(const char *rel)
{
	const char *d = getenv("BR_SOURCE_DIR");
	if (d == NULL)
		d = ".";
	size_t n = strlen(d) + strlen(rel) + 2;
	char *p = malloc(n);
	snprintf(p, n, "%s/%s", d, rel);
	return p;
}

/* Path of a file under ../shared/real (BR_REAL_DIR), or NULL when that
 * folder does not exist (tests then call skip()). Caller frees. */
static inline char *
br_test_real(const char *rel)
{
	const char *d = getenv("BR_REAL_DIR");
	if (d == NULL)
		return NULL;
	size_t n = strlen(d) + strlen(rel) + 2;
	char *p = malloc(n);
	snprintf(p, n, "%s/%s", d, rel);
	FILE *fp = fopen(p, "rb");
	if (fp == NULL) {
		fprintf(stderr, "note: %s not found; skipping real-data test\n", p);
		free(p);
		return NULL;
	}
	fclose(fp);
	return p;
}

#endif
