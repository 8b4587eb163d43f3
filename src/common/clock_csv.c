/*
 * Clocks and CSV cells shared by the capture commands and the archive
 * index (include/benchreport/common.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>
#include <glib.h>
#include "benchreport/common.h"

static double
clock_s(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* br_clock_mono_s: see common.h. */
double
br_clock_mono_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* br_clock_wall_s: see common.h. */
double
br_clock_wall_s(void)
{
	return clock_s(CLOCK_REALTIME);
}

/* br_csv_append_cell: see common.h. */
void
br_csv_append_cell(GString *g, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		g_string_append(g, s);
		return;
	}
	g_string_append_c(g, '"');
	for (; *s; s++) {
		if (*s == '"')
			g_string_append_c(g, '"');
		g_string_append_c(g, *s);
	}
	g_string_append_c(g, '"');
}
