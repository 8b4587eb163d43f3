// Shortest round-trip decimal digits of a double (include/benchreport/common.h),
// through libdouble-conversion (Debian's libdouble-conversion-dev): the one C++
// translation unit of the project, with a C interface.
#include <cmath>
#include <cstring>
#include <double-conversion/double-to-string.h>

extern "C" int
br_shortest_digits(double x, char digits[18], int *point)
{
	using double_conversion::DoubleToStringConverter;
	bool sign = false;
	int length = 0;
	if (!std::isfinite(x) || x == 0) {
		digits[0] = '0';
		digits[1] = '\0';
		*point = 1;
		return 1;
	}
	DoubleToStringConverter::DoubleToAscii(x, DoubleToStringConverter::SHORTEST, 0, digits,
	    DoubleToStringConverter::kBase10MaximalLength + 1, &sign, &length, point);
	return length;
}
