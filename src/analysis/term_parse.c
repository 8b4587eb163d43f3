/* Shared pieces of the --slo and --fail-on term grammars (term_parse.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include "analysis/term_parse.h"

/* br_term_copy_lower: see term_parse.h. */
int
br_term_copy_lower(const char *s, size_t len, char *buf, size_t size)
{
	if (len == 0)
		return 1;
	if (len >= size)
		return 2;
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[len] = '\0';
	return 0;
}

/* br_term_number: see term_parse.h. */
int
br_term_number(char *p, double *val, char *num, size_t numsz, char **unit)
{
	while (*p == ' ')
		p++;
	char *e = p;
	int digits = 0, dots = 0;
	while (isdigit((unsigned char)*e) || *e == '.') {
		if (*e == '.')
			dots++;
		else
			digits++;
		e++;
	}
	/* a number its echo would cut is refused, not misquoted (twenty-ninth
	 * breaker: 0.000…001s echoed as 0.000…0s) */
	if (digits == 0 || dots > 1 || (size_t)(e - p) >= numsz)
		return -1;
	if ((*e == 'e' || *e == 'E') && (isdigit((unsigned char)e[1]) || e[1] == '+' || e[1] == '-'))
		return -1;   /* 1e3ms: an exponent, which the grammar does not take */
	*val = g_ascii_strtod(p, NULL);
	snprintf(num, numsz, "%.*s", (int)(e - p), p);
	char *u = e;
	while (*u == ' ')
		u++;
	char *ue = u + strlen(u);
	while (ue > u && ue[-1] == ' ')
		*--ue = '\0';
	*unit = u;
	return 0;
}
