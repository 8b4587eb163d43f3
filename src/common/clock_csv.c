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

/* The wall clock and the monotonic clock read together at the first call. */
static double wall0, mono0;

static gpointer
anchor_clocks(gpointer data)
{
	(void)data;
	mono0 = clock_s(CLOCK_MONOTONIC);
	wall0 = clock_s(CLOCK_REALTIME);
	return NULL;
}

/* br_clock_wall_s: see common.h. */
double
br_clock_wall_s(void)
{
	static GOnce once = G_ONCE_INIT;
	g_once(&once, anchor_clocks, NULL);
	return wall0 + (clock_s(CLOCK_MONOTONIC) - mono0);
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
