/*
 * Pieces of the term grammars shared by the knee's --slo (knee.c) and the
 * CI gate's --fail-on (gate.c). Private to src/analysis/.
 */
#ifndef BR_ANALYSIS_TERM_PARSE_H
#define BR_ANALYSIS_TERM_PARSE_H

#include <stddef.h>

/* br_term_copy_lower: [s, s+len) lower-cased into buf (size bytes, NUL-
 * terminated). Returns 0, 1 when the term is empty, 2 when it does not fit. */
int br_term_copy_lower(const char *s, size_t len, char *buf, size_t size);

/*
 * br_term_number: the plain decimal at p (leading spaces skipped: digits
 * with at most one '.', locale independent) into *val and, as written,
 * into num (numsz bytes); *unit points at what follows, spaces trimmed at
 * both ends (the buffer is modified). Returns 0, or -1 when p holds no
 * such number, it goes on with an exponent ("1e3ms"), or it is too long
 * for num (its echo would be cut).
 */
int br_term_number(char *p, double *val, char *num, size_t numsz, char **unit);

#endif
