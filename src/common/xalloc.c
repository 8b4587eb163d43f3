/* Allocation helpers: abort with a message instead of returning NULL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
#include <sys/mman.h>
#include "benchreport/common.h"

static void
oom(size_t n)
{
	fprintf(stderr, "benchreport: out of memory allocating %zu bytes\n", n);
	abort();
}

void *
br_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		oom(n);
	return p;
}

void *
br_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (p == NULL)
		oom(nmemb * size);
	return p;
}

void *
br_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (q == NULL)
		oom(n);
	return q;
}

#define HUGE_PAGE ((size_t)2 << 20)

/* br_xmalloc_huge: see common.h. The length is not rounded up: the
 * part past the last whole 2 MiB page keeps small pages, so the block
 * costs no more resident memory than a plain one. */
void *
br_xmalloc_huge(size_t n)
{
	if (n < HUGE_PAGE)
		return br_xmalloc(n);
	void *p = NULL;
	if (posix_memalign(&p, HUGE_PAGE, n) != 0)
		oom(n);
#ifdef MADV_HUGEPAGE
	(void)madvise(p, n & ~(HUGE_PAGE - 1), MADV_HUGEPAGE);   /* advice only: plain pages when refused */
#endif
	return p;
}

/* br_advise_huge: see common.h. */
void
br_advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	if (p == NULL || n < 2 * HUGE_PAGE)
		return;
	uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (hi > lo)
		(void)madvise((void *)lo, (size_t)(hi - lo), MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

char *
br_xstrdup(const char *s)
{
	return s == NULL ? NULL : br_xstrndup(s, strlen(s));
}

char *
br_xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = br_xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
br_xvasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0) {
		fprintf(stderr, "benchreport: bad format string \"%s\"\n", fmt);
		abort();
	}
	char *p = br_xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *
br_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = br_xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

/* br_format_count: see common.h. */
const char *
br_format_count(double v, char buf[32])
{
	char t[32];
	snprintf(t, sizeof t, "%.0f", v);
	size_t n = strlen(t), lead = t[0] == '-', o = 0;
	for (size_t i = 0; i < n && o < 31; i++) {
		if (i > lead && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = t[i];
	}
	buf[o] = '\0';
	return buf;
}

void
br_dvec_push(br_dvec *d, double x)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		d->v = br_xrealloc(d->v, d->cap * sizeof *d->v);
		br_advise_huge(d->v + d->n, (d->cap - d->n) * sizeof *d->v);
	}
	d->v[d->n++] = x;
}

void
br_dvec_reserve(br_dvec *d, size_t n)
{
	if (n > d->cap) {
		d->cap = n;
		d->v = br_xrealloc(d->v, d->cap * sizeof *d->v);
		br_advise_huge(d->v + d->n, (d->cap - d->n) * sizeof *d->v);
	}
}

void
br_dvec_free(br_dvec *d)
{
	free(d->v);
	d->v = NULL;
	d->n = d->cap = 0;
}

/* br_clip_utf8: see common.h. */
char *
br_clip_utf8(const char *p, size_t n, size_t max)
{
	if (n <= max)
		return br_xstrndup(p, n);
	size_t k = max;
	while (k > 0 && ((unsigned char)p[k] & 0xc0) == 0x80)
		k--;
	char *o = br_xmalloc(k + 4);
	memcpy(o, p, k);
	memcpy(o + k, "...", 4);
	return o;
}
