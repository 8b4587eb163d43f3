// Numbers in and out (include/benchreport/common.h), the one C++ translation
// unit of the project, with a C interface:
// - br_shortest_digits: shortest round-trip decimal digits of a double through
//   the C++17 standard library's std::to_chars (libstdc++ implements the
//   shortest form with Ryu). Measured on this machine: 42 ns a value against
//   libdouble-conversion's 111 ns (Grisu3), with the same digits on 714,000
//   samples (tests/unit/test_sim_pyfloat.c checks them against Python's repr).
// - br_decimal_to_double: decimal text to the correctly rounded double with
//   fast_float (Debian libfast-float-dev, header-only; Lemire's algorithm, the
//   one libstdc++ 12 uses inside std::from_chars), bit-identical to strtod.
#include <charconv>
#include <cmath>
#include <cstring>
#include <fast_float/fast_float.h>

extern "C" int
br_decimal_to_double(const char *first, const char *last, double *out)
{
	double v = 0;
	fast_float::from_chars_result r = fast_float::from_chars(first, last, v);
	if (r.ec != std::errc() || r.ptr != last)
		return 0;
	*out = v;
	return 1;
}

extern "C" const char *
br_decimal_prefix(const char *first, const char *last, double *out)
{
	double v = 0;
	fast_float::from_chars_result r = fast_float::from_chars(first, last, v);
	if (r.ec != std::errc())
		return nullptr;
	*out = v;
	return r.ptr;
}

extern "C" int
br_shortest_digits(double x, char digits[18], int *point)
{
	if (!std::isfinite(x) || x == 0) {
		digits[0] = '0';
		digits[1] = '\0';
		*point = 1;
		return 1;
	}
	// "d.ddddde±XX": the shortest digits that read back as x, closest to x
	char buf[40];
	std::to_chars_result res = std::to_chars(buf, buf + sizeof buf - 1, std::fabs(x),
	    std::chars_format::scientific);
	*res.ptr = '\0';
	int n = 0;
	const char *p = buf;
	for (; *p && *p != 'e'; p++)
		if (*p != '.' && n < 17)
			digits[n++] = *p;
	digits[n] = '\0';
	int e = 0, neg = 0;
	if (*p == 'e') {
		p++;
		if (*p == '-' || *p == '+')
			neg = *p++ == '-';
		while (*p >= '0' && *p <= '9')
			e = e * 10 + (*p++ - '0');
	}
	*point = (neg ? -e : e) + 1;
	return n;
}

// br_shortest_fixed: see common.h.
extern "C" int
br_shortest_fixed(double x, char buf[32])
{
	double ax = std::fabs(x);
	if (!(ax >= 1e-4 && ax < 1e16))
		return -1;
	std::to_chars_result res = std::to_chars(buf, buf + 31, x, std::chars_format::fixed);
	if (res.ec != std::errc())
		return -1;
	*res.ptr = '\0';
	return (int)(res.ptr - buf);
}

// br_format_g: see common.h. std::to_chars with chars_format::general and a
// precision is specified to write what printf's %.*g writes in the C locale
// (libstdc++: Ryu printf), without printf's locale and format parsing.
extern "C" int
br_format_g(double x, int precision, char buf[40])
{
	if (!std::isfinite(x) || precision < 1 || precision > 17)
		return -1;
	std::to_chars_result res = std::to_chars(buf, buf + 39, x, std::chars_format::general, precision);
	if (res.ec != std::errc())
		return -1;
	*res.ptr = '\0';
	return (int)(res.ptr - buf);
}
