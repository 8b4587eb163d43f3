/*
 * br_decimal_to_double (src/common/numbers.cc, fast_float) against glibc's
 * strtod, bit for bit: a table of the hard cases (halfway points, the
 * largest and smallest doubles, subnormals, overflow to inf, underflow to
 * 0, 19+ significant digits), then 300,000 numbers written the ways
 * load-test files write them (Python repr = %.17g round trips, %.15g, short
 * decimals, exponents) from a fixed-seed generator. strtod is the
 * reference because jansson reads JSON reals with it.
 */
#include "br_test.h"
#include <locale.h>
#include "benchreport/common.h"

/* json_number: 1 when text is one JSON number (RFC 8259 grammar): the
 * callers check it before they convert, so only such texts are compared. */
static int
json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return 0;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

/* same_as_strtod: 1 when a JSON number text reads to the same bits as
 * with strtod (other texts: 1, not compared). */
static int
same_as_strtod(const char *text)
{
	if (!json_number(text))
		return 1;
	char *end;
	double want = strtod(text, &end);
	double got = 12345.0;
	int ok = br_decimal_to_double(text, text + strlen(text), &got);
	uint64_t a, b;
	memcpy(&a, &want, sizeof a);
	memcpy(&b, &got, sizeof b);
	if (!ok || a != b)
		fprintf(stderr, "%s: strtod %.17g (%016llx), br_decimal_to_double %s %.17g (%016llx)\n", text,
		    want, (unsigned long long)a, ok ? "ok" : "refused", got, (unsigned long long)b);
	return ok && a == b;
}

static void
test_hard_cases(void **state)
{
	(void)state;
	static const char *const cases[] = {
		"0.1", "0.2", "0.3", "1e23", "8.98846567431158e307", "1.7976931348623157e308",
		"1.7976931348623159e308", "1e400", "-1e400", "2.2250738585072011e-308",
		"2.2250738585072014e-308", "4.9e-324", "2.4703282292062328e-324",
		"2.4703282292062327e-324", "1e-400", "-1e-400", "-0.0", "0.0", "0e0", "0E+5",
		"9007199254740993", "9007199254740993.0", "9007199254740992.5", "9007199254740993.5",
		"123456789012345678901234567890", "0.000000000000000000000000000001234567890123456789",
		"1.00000000000000011102230246251565404236316680908203125",   /* the halfway point above 1 */
		"1.00000000000000011102230246251565404236316680908203124",
		"1.00000000000000011102230246251565404236316680908203126",
		"3.0517578125e-05", "0.001234", "12.5", "-12.5e-3", "7.450580596923828125e-9",
		"630.0098126850789", "0.04523801803588867", "1740000000.123456",
		"1.5", "-5e-324", "1e-5000", "1e+5000", "123e18", "-9223372036854775808.5",
	};
	/* and the grammar filter itself: these are not JSON numbers */
	static const char *const not_json[] = { "1.5e", "1.5e+", ".5", "5.", "+1", "1,5", "", "nan",
		"inf", "0x1p3", "01", "-" };
	for (size_t i = 0; i < sizeof not_json / sizeof not_json[0]; i++)
		assert_false(json_number(not_json[i]));
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (!same_as_strtod(cases[i]))
			fail_msg("case %zu: \"%s\"", i, cases[i]);
}

/* splitmix64: a fixed-seed generator (same numbers on every machine). */
static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static void
test_random_texts(void **state)
{
	(void)state;
	enum { NF = 6 };
	uint64_t seed = 20261202;
	size_t n = 0;
	char buf[400];   /* %.6f of 1e308 has 316 characters */
	for (int i = 0; i < 50000; i++) {
		uint64_t r = splitmix64(&seed);
		double x;
		if (i % 2 == 0) {
			memcpy(&x, &r, sizeof x);   /* any bit pattern */
			if (!isfinite(x))
				continue;
		} else {
			/* the magnitudes of latencies and timestamps: 1e-6 .. 1e10 s */
			x = ldexp((double)(r >> 11), -53) * pow(10.0, (double)(int)(splitmix64(&seed) % 17) - 6);
		}
		for (int f = 0; f < NF; f++) {
			switch (f) {   /* literal formats, so the compiler checks them */
			case 0: snprintf(buf, sizeof buf, "%.17g", x); break;
			case 1: snprintf(buf, sizeof buf, "%.16g", x); break;
			case 2: snprintf(buf, sizeof buf, "%.15g", x); break;
			case 3: snprintf(buf, sizeof buf, "%.6f", x); break;
			case 4: snprintf(buf, sizeof buf, "%.3e", x); break;
			default: snprintf(buf, sizeof buf, "%.10g", x); break;
			}
			if (!json_number(buf) && strchr(buf, 'e') == NULL)
				fail_msg("\"%s\" should be a JSON number", buf);
			if (!same_as_strtod(buf))
				fail_msg("\"%s\" (format %d)", buf, f);
			n++;
		}
	}
	assert_true(n >= 250000);
}

/*
 * br_format_g (std::to_chars, general, precision) writes what glibc's
 * snprintf("%.*g") writes, byte for byte: a table (0, -0, powers of ten at
 * the fixed/exponent switch, halfway roundings, the extremes, subnormals)
 * at every precision 1..17, then 40,000 fixed-seed doubles (any bit
 * pattern, and latency/timestamp magnitudes) at precisions 15, 6 and 17;
 * NaN, ±inf and precisions 0 and 18 give -1.
 */
static void
test_format_g(void **state)
{
	(void)state;
	static const double table[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1e-4, 9.99999e-5, 1e-5, 1e15, 1e14,
		999999999999999.0, 1e16, 123456789012345678.0, 2.5, 0.125, 1.0000000000000002, 4.35,
		1.7976931348623157e308, 2.2250738585072014e-308, 4.9e-324, 1700000000.123456789,
		0.00021559999999999999, 215.6, 6.02214076e23 };
	char got[40], want[64];
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		for (int p = 1; p <= 17; p++) {
			int n = br_format_g(table[i], p, got);
			snprintf(want, sizeof want, "%.*g", p, table[i]);
			if (n != (int)strlen(want) || strcmp(got, want) != 0)
				fail_msg("%.17g at %d: \"%s\" (%d), printf \"%s\"", table[i], p, got, n, want);
		}
	uint64_t seed = 20261205;
	static const int precs[] = { 15, 6, 17 };
	for (int i = 0; i < 40000; i++) {
		uint64_t r = splitmix64(&seed);
		double x;
		if (i % 2 == 0) {
			memcpy(&x, &r, sizeof x);
			if (!isfinite(x))
				continue;
		} else
			x = ldexp((double)(r >> 11), -53) * pow(10.0, (double)(int)(splitmix64(&seed) % 17) - 6);
		int p = precs[i % 3];
		br_format_g(x, p, got);
		snprintf(want, sizeof want, "%.*g", p, x);
		if (strcmp(got, want) != 0)
			fail_msg("%a at %d: \"%s\", printf \"%s\"", x, p, got, want);
	}
	strcpy(got, "untouched");
	assert_int_equal(br_format_g(NAN, 15, got), -1);
	assert_int_equal(br_format_g(-INFINITY, 15, got), -1);
	assert_int_equal(br_format_g(1.0, 0, got), -1);
	assert_int_equal(br_format_g(1.0, 18, got), -1);
	assert_string_equal(got, "untouched");
}

int
main(void)
{
	setlocale(LC_ALL, "C");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hard_cases),
		cmocka_unit_test(test_random_texts),
		cmocka_unit_test(test_format_g),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
