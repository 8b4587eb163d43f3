/*
 * Wording templates (templates/{report,knee,compare}.LANG.json), used by the
 * report writers (src/report/) and by the figures (src/render/, the
 * "figtext" subtree), so it lives in src/common/.
 *
 * A template file is a JSON object whose leaves are strings; nested objects
 * are flattened with their keys joined by '.'. br_template_fill replaces
 * {path[:format]} placeholders with values taken from the summary object.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "benchreport/template.h"

/* One entry of phrases.LANG.json: an English message with "{}" holes and
 * its rendering in the template's language. */
typedef struct phrase {
	char *en, *tr;
	size_t en_len;
	int holes;
	int letters;      /* ASCII letters in the key's literal text */
} phrase;

struct br_template {
	json_t *flat;   /* object: "a.b.c" -> string */
	json_t *en;     /* the English template's flat table (a translation only), or NULL */
	char *path;
	int cjk;        /* a Chinese (or Japanese) template: no space between two CJK characters */
	phrase *phrases;   /* most literal English text first */
	size_t n_phrases;
};

/* A growable byte buffer. */
typedef struct sbuf {
	char *s;
	size_t n, cap;
} sbuf;

/* sb_add: append n bytes of p. */
static void
sb_add(sbuf *b, const char *p, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 64;
		while (c < b->n + n + 1)
			c *= 2;
		b->s = br_xrealloc(b->s, c);
		b->cap = c;
	}
	memcpy(b->s + b->n, p, n);
	b->n += n;
	b->s[b->n] = '\0';
}

/* sb_str: append a NUL-terminated string. */
static void
sb_str(sbuf *b, const char *p)
{
	sb_add(b, p, strlen(p));
}

/*
 * flatten: copy the string leaves of `obj` into `flat` under "prefix.key".
 * Returns 0, or -1 with *cause naming the first key whose value is neither a
 * string nor an object.
 */
static int
flatten(json_t *flat, const char *prefix, json_t *obj, const char *file, char **cause)
{
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v) {
		char *full = prefix ? br_xasprintf("%s.%s", prefix, k) : br_xstrdup(k);
		if (json_is_string(v)) {
			json_object_set(flat, full, v);
		} else if (json_is_object(v)) {
			if (flatten(flat, full, v, file, cause) != 0) {
				free(full);
				return -1;
			}
		} else {
			if (cause)
				*cause = br_xasprintf("%s: key \"%s\": expected a string or an object", file, full);
			free(full);
			return -1;
		}
		free(full);
	}
	return 0;
}

#define MAX_HOLES 16   /* "{}" holes a phrase may have */

/* count_holes: the number of "{}" in s. */
static int
count_holes(const char *s)
{
	int n = 0;
	for (const char *q = strstr(s, "{}"); q; q = strstr(q + 2, "{}"))
		n++;
	return n;
}

/* by_length_desc: qsort order of phrases, most literal (non-hole) text
 * first, so a specific message wins over a generic one ("{} tokens") and a
 * longer phrase over a shorter one it contains; then by text. */
static int
by_length_desc(const void *a, const void *b)
{
	const phrase *x = a, *y = b;
	size_t lx = x->en_len - 2 * (size_t)x->holes, ly = y->en_len - 2 * (size_t)y->holes;
	if (lx != ly)
		return lx < ly ? 1 : -1;
	return strcmp(x->en, y->en);
}

/*
 * load_phrases: read phrases.LANG.json (an object: English message with "{}"
 * holes → its translation with as many "{}") into t. Returns 0, or -1 with
 * *cause naming the file and the offending key (a value that is not a
 * string, or a different number of holes).
 */
static int
load_phrases(br_template *t, const char *file, char **cause)
{
	json_t *root = br_json_load_file(file, JSON_REJECT_DUPLICATES, cause);
	if (root == NULL)
		return -1;
	if (!json_is_object(root)) {
		if (cause)
			*cause = br_xasprintf("%s:1:1: expected a JSON object of English message -> translation", file);
		json_decref(root);
		return -1;
	}
	t->phrases = br_xcalloc(json_object_size(root) + 1, sizeof *t->phrases);
	const char *k;
	json_t *v;
	json_object_foreach(root, k, v) {
		if (!json_is_string(v) || count_holes(k) != count_holes(json_string_value(v)) || *k == '\0' ||
		    strcmp(k, "{}") == 0 || count_holes(k) > MAX_HOLES) {
			if (cause)
				*cause = br_xasprintf("%s: phrase \"%s\": expected a string with the same number of {} "
				    "holes as the English text (at most %d, and some text besides the holes)", file, k,
				    MAX_HOLES);
			json_decref(root);
			return -1;
		}
		phrase *ph = &t->phrases[t->n_phrases++];
		ph->en = br_xstrdup(k);
		for (const char *q = ph->en; *q; q++)
			ph->letters += (*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z');
		ph->tr = br_xstrdup(json_string_value(v));
		ph->en_len = strlen(k);
		ph->holes = count_holes(k);
	}
	json_decref(root);
	qsort(t->phrases, t->n_phrases, sizeof *t->phrases, by_length_desc);
	return 0;
}


/* balanced: 1 when the n bytes at s close every '(' they open, in order. */
static int
balanced(const char *s, size_t n)
{
	int depth = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth < 0)
			return 0;
	return depth == 0;
}

/*
 * match: 1 when the whole of s matches pat, whose "{}" holes each match a
 * non-empty run of bytes with balanced parentheses (shortest first; the
 * last hole takes the rest), so a hole never swallows the end of one
 * message and the start of the next.
 * (strict; see whole). Hole i's extent goes to cap[i] (start) and len[i].
 */
static int
match(const char *pat, const char *s, const char **cap, size_t *len, int i, int strict)
{
	for (;;) {
		if (pat[0] == '{' && pat[1] == '}') {
			if (i >= MAX_HOLES || *s == '\0')
				return 0;
			const char *rest = pat + 2;
			size_t n = strlen(s);
			if (*rest == '\0') {
				cap[i] = s;
				len[i] = n;
				return !strict || balanced(s, n);
			}
			for (size_t k = 1; k <= n; k++) {
				if ((unsigned char)s[k] >= 0x80 && (unsigned char)s[k] < 0xC0)
					continue;   /* never end a hole inside a UTF-8 sequence */
				if ((rest[0] == '{' && rest[1] == '}' ? 1 : s[k] == *rest) && (!strict || balanced(s, k)) &&
				    match(rest, s + k, cap, len, i + 1, strict)) {
					cap[i] = s;
					len[i] = k;
					return 1;
				}
			}
			return 0;
		}
		if (*pat == '\0')
			return *s == '\0';
		if (*pat != *s)
			return 0;
		pat++;
		s++;
	}
}

static char *translate(const br_template *t, const char *text, int depth);

/*
 * whole: the rendering of text when one phrase matches all of it (its
 * holes' texts translated in turn, so nested messages compose), or NULL.
 * strict: the holes must have balanced parentheses; otherwise that is
 * only preferred (a quoted log line may open a parenthesis it never
 * closes). Two kinds of phrase are held back, so that quoted text and data
 * are never half translated: one whose literal text has no letters
 * ("{}; {}") applies only when every hole translates, and one with little
 * text and one hole ("{} engine", fewer than 12 letters) only when the
 * hole holds no space.
 */
static char *
whole(const br_template *t, const char *text, int depth, int strict)
{
	size_t tl = strlen(text);
	for (size_t i = 0; i < t->n_phrases; i++) {
		const phrase *ph = &t->phrases[i];
		if (ph->holes == 0 ? strcmp(ph->en, text) != 0 : ph->en_len - 2 * (size_t)ph->holes > tl)
			continue;
		const char *cap[MAX_HOLES];
		size_t len[MAX_HOLES];
		if (ph->holes > 0 && !match(ph->en, text, cap, len, 0, strict))
			continue;
		int weak = ph->holes == 1 && ph->letters < 12, generic = ph->holes > 0 && ph->letters == 0;
		if (weak && !generic) {
			int spaced = 0;
			for (int h = 0; h < ph->holes && !spaced; h++)
				spaced = memchr(cap[h], ' ', len[h]) != NULL;
			if (spaced)
				continue;
		}
		sbuf b = {0};
		sb_add(&b, "", 0);
		const char *p = ph->tr;
		int untranslated = 0;
		for (int h = 0; h < ph->holes; h++) {
			const char *q = strstr(p, "{}");
			sb_add(&b, p, (size_t)(q - p));
			char *hole = br_xstrndup(cap[h], len[h]);
			char *ht = translate(t, hole, depth + 1);
			untranslated |= ht == NULL;
			sb_str(&b, ht ? ht : hole);
			free(ht);
			free(hole);
			p = q + 2;
		}
		if (generic && untranslated) {
			free(b.s);
			continue;
		}
		sb_str(&b, p);
		return b.s;
	}
	return NULL;
}

/* join_sentence: a + "。" (unless a ends in a full stop already) + b;
 * frees a and b. */
static char *
join_sentence(char *a, char *b)
{
	size_t al = strlen(a);
	int stop = al >= 3 && strcmp(a + al - 3, "\xE3\x80\x82") == 0;
	char *r = br_xasprintf("%s%s%s", a, stop ? "" : "\xE3\x80\x82", b);
	free(a);
	free(b);
	return r;
}

/*
 * sentences: the rendering of text as a run of messages each ending in
 * ". " where every one of them matches a phrase whole (the split is taken
 * only then, so a ". " inside a quoted log line does not cut a message),
 * else as one message and its full stop, or one message. NULL otherwise.
 */
static char *
sentences(const br_template *t, const char *text, int depth)
{
	/* a run of messages first: a phrase ending in a hole would otherwise
	 * swallow the messages after its own */
	for (const char *q = strstr(text, ". "); q; q = strstr(q + 1, ". ")) {
		char *head = br_xstrndup(text, (size_t)(q - text));
		char *a = whole(t, head, depth, 1);
		free(head);
		if (a == NULL)
			continue;
		char *b = sentences(t, q + 2, depth);
		if (b)
			return join_sentence(a, b);
		free(a);
	}
	/* the full stop is the message's, not its last hole's; balanced holes
	 * are preferred */
	size_t tl = strlen(text);
	for (int strict = 1; strict >= 0; strict--) {
		if (tl > 1 && text[tl - 1] == '.') {
			char *body = br_xstrndup(text, tl - 1);
			char *r = whole(t, body, depth, strict);
			free(body);
			if (r)
				return join_sentence(r, br_xstrdup(""));
		}
		char *r = whole(t, text, depth, strict);
		if (r)
			return r;
	}
	return NULL;
}

/*
 * translate: the rendering of text, or NULL when nothing applies (the
 * message(s) of `sentences`; a phrase is never replaced inside other text,
 * so a quoted log line or a user's note stays as written). Depth caps the
 * nesting.
 */
static char *
translate(const br_template *t, const char *text, int depth)
{
	if (t == NULL || t->n_phrases == 0 || text == NULL || *text == '\0' || depth > 4)
		return NULL;
	return sentences(t, text, depth);
}

/* br_template_phrase: see template.h. */
char *
br_template_phrase(const br_template *t, const char *text)
{
	return translate(t, text, 0);
}

/*
 * br_template_load: parse the file with jansson and flatten it. Bad JSON is
 * reported as "FILE:LINE:COL: message"; a root that is not an object or a
 * leaf that is not a string is reported with its key. Returns NULL then.
 */
br_template *
br_template_load(const char *path, char **cause)
{
	json_t *root = br_json_load_file(path, JSON_REJECT_DUPLICATES, cause);
	if (root == NULL)
		return NULL;
	if (!json_is_object(root)) {
		if (cause)
			*cause = br_xasprintf("%s:1:1: expected a JSON object of key -> string", path);
		json_decref(root);
		return NULL;
	}
	json_t *flat = json_object();
	if (flatten(flat, NULL, root, path, cause) != 0) {
		json_decref(flat);
		json_decref(root);
		return NULL;
	}
	json_decref(root);
	/* a translation (NAME.LANG.json) falls back to NAME.en.json beside it
	 * for a key it lacks: English text rather than a "[key]" placeholder */
	size_t pl = strlen(path);
	const char *dot = pl > 5 ? path + pl - 5 : NULL;   /* ".json" */
	const char *lang = NULL;
	if (dot && strcmp(dot, ".json") == 0)
		for (const char *q = dot - 1; q > path; q--)
			if (*q == '.') {
				lang = q;
				break;
			}
	json_t *en_flat = NULL;
	if (lang && dot - lang == 3 && strncmp(lang, ".en", 3) != 0) {
		char *en = br_xasprintf("%.*s.en.json", (int)(lang - path), path);
		json_t *eroot = br_is_file(en) ? br_json_load_file(en, JSON_REJECT_DUPLICATES, NULL) : NULL;
		json_t *eflat = json_object();
		if (eroot && json_is_object(eroot) && flatten(eflat, NULL, eroot, en, NULL) == 0) {
			const char *k;
			json_t *v;
			json_object_foreach(eflat, k, v)
				if (json_object_get(flat, k) == NULL)
					json_object_set(flat, k, v);
			en_flat = json_incref(eflat);
		}
		json_decref(eflat);
		json_decref(eroot);
		free(en);
	}
	br_template *t = br_xcalloc(1, sizeof *t);
	t->flat = flat;
	t->en = en_flat;
	t->path = br_xstrdup(path);
	t->cjk = lang && dot - lang == 3 && (strncmp(lang, ".zh", 3) == 0 || strncmp(lang, ".ja", 3) == 0);
	if (lang && dot - lang == 3 && strncmp(lang, ".en", 3) != 0) {
		const char *slash = strrchr(path, '/');
		char *pp = br_xasprintf("%.*sphrases%.*s.json", slash ? (int)(slash - path + 1) : 0, path,
		    (int)(dot - lang), lang);
		if (br_is_file(pp) && load_phrases(t, pp, cause) != 0) {
			free(pp);
			br_template_free(t);
			return NULL;
		}
		free(pp);
	}
	return t;
}

/* br_template_get: the raw string of a (dotted) key, or NULL. */
const char *
br_template_get(const br_template *t, const char *key)
{
	if (t == NULL || key == NULL)
		return NULL;
	return json_string_value(json_object_get(t->flat, key));
}

/* br_template_english: see template.h. */
const char *
br_template_english(const br_template *t, const char *key)
{
	if (t == NULL || key == NULL)
		return NULL;
	if (t->en == NULL)
		return br_template_get(t, key);
	return json_string_value(json_object_get(t->en, key));
}

/*
 * lookup: walk `path` ("a.b.0.c") through objects (by key) and arrays (by
 * decimal index). At each object level the longest key that matches a
 * dotted prefix of the remaining path wins, so keys containing '.' also
 * work. Returns a borrowed value or NULL when absent.
 */
static const json_t *
lookup(const json_t *v, const char *path)
{
	while (v != NULL && *path) {
		if (json_is_object(v)) {
			const json_t *found = NULL;
			size_t used = 0;
			/* try the whole rest first, then shorter dotted prefixes */
			size_t len = strlen(path);
			for (;;) {
				char *k = br_xstrndup(path, len);
				found = json_object_get(v, k);
				free(k);
				if (found != NULL) {
					used = len;
					break;
				}
				while (len > 0 && path[len - 1] != '.')
					len--;
				if (len <= 1)
					break;
				len--; /* now path[len] == '.' */
			}
			if (found == NULL)
				return NULL;
			v = found;
			path += used;
		} else if (json_is_array(v)) {
			char *end;
			errno = 0;
			unsigned long idx = strtoul(path, &end, 10);
			if (end == path || !isdigit((unsigned char)*path) || errno != 0 ||
			    (*end != '\0' && *end != '.'))
				return NULL;
			v = json_array_get(v, idx);
			path = end;
		} else {
			return NULL;
		}
		if (*path == '.')
			path++;
		else if (*path != '\0')
			return NULL;
	}
	return v;
}

/*
 * group_thousands: insert ',' every three digits in the leading run of
 * integer digits of a printed number (after an optional sign). Numbers in
 * exponent form are left alone. Returns a malloc'd string.
 */
static char *
group_thousands(const char *num)
{
	if (strchr(num, 'e') || strchr(num, 'E') || strchr(num, 'n') || strchr(num, 'N'))
		return br_xstrdup(num);
	sbuf b = {0};
	const char *p = num;
	if (*p == '-' || *p == '+')
		sb_add(&b, p++, 1);
	size_t nd = 0;
	while (isdigit((unsigned char)p[nd]))
		nd++;
	for (size_t i = 0; i < nd; i++) {
		sb_add(&b, p + i, 1);
		size_t left = nd - i - 1;
		if (left > 0 && left % 3 == 0)
			sb_add(&b, ",", 1);
	}
	sb_str(&b, p + nd);
	return b.s;
}

/*
 * shortest: the shortest %g form (up to 17 significant digits) that reads
 * back as exactly x; integers up to 1e15 print without exponent.
 */
static char *
shortest(double x)
{
	char buf[64];
	if (x == floor(x) && fabs(x) < 1e15) {
		snprintf(buf, sizeof buf, "%.0f", x);
		if (strcmp(buf, "-0") == 0)
			strcpy(buf, "0");
		return br_xstrdup(buf);
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	return br_xstrdup(buf);
}

/*
 * format_number: x printed with spec (the text after ':'), one of
 *   pctN          x·100 with N decimals and '%'
 *   sigN          an estimate: x rounded to N significant digits, thousands
 *                 grouped (259,036 → "259,000" with sig3; 0.012345 → "0.0123")
 *   dur_ms        a duration given in ms, printed with its unit by size:
 *                 "0.845 ms", "21.46 ms", "346.6 ms", "2.03 s", "219.7 s"
 *                 (the seconds' word is the template's "format.seconds")
 *   dur_s         the same for a duration given in seconds (0.005 → "5.00 ms")
 *   n:WORD        a whole count, thousands grouped, and WORD, plural with 's'
 *                 unless the count is 1 ("n:request": "1 request", "12 requests");
 *                 n:SINGULAR|PLURAL for an irregular plural
 *   [,][.N]T      T in f, e, E, g, G, d, % (Python-like); ',' groups thousands
 *   (empty)       shortest form
 * Returns a malloc'd string, or NULL when the spec is not understood.
 */
static char *
format_number(double x, const char *spec, const char *sec)
{
	char buf[128];
	if (!isfinite(x))
		return br_xstrdup("n/a");
	if (spec == NULL || *spec == '\0')
		return shortest(x);
	if (fabs(x) >= 1e15 && strchr(spec, 'e') == NULL && strchr(spec, 'E') == NULL &&
	    strchr(spec, 'g') == NULL && strchr(spec, 'G') == NULL)
		return br_xasprintf("%.3e", x);   /* a fixed-point 1e200 would be 200 made-up digits */
	if (strcmp(spec, "dur_s") == 0) {
		x *= 1000.0;
		spec = "dur_ms";
	}
	if (strcmp(spec, "dur_ms") == 0) {
		double ax = fabs(x);
		if (ax >= 1000.0)
			snprintf(buf, sizeof buf, "%.*f %s", ax >= 100000.0 ? 1 : 2, x / 1000.0, sec);
		else
			snprintf(buf, sizeof buf, "%.*f ms", ax >= 100.0 ? 1 : ax >= 1.0 ? 2 : 3, x);
		char *g = group_thousands(buf);
		return g;
	}
	if (strncmp(spec, "n:", 2) == 0) {
		/* a count and its noun: "1 request", "12 requests", "2,400 requests";
		 * "n:child|children" gives an irregular plural */
		const char *w = spec + 2, *bar = strchr(w, '|');
		snprintf(buf, sizeof buf, "%.0f", x);
		char *g = group_thousands(buf);
		char *r = fabs(x) == 1 ? br_xasprintf("%s %.*s", g, (int)(bar ? (size_t)(bar - w) : strlen(w)), w) :
		    bar ? br_xasprintf("%s %s", g, bar + 1) : br_xasprintf("%s %ss", g, w);
		free(g);
		return r;
	}
	if (strncmp(spec, "sig", 3) == 0) {
		/* an estimate: N significant digits, thousands grouped ("≈259,000") */
		char *end;
		long n = strtol(spec + 3, &end, 10);
		if (end == spec + 3 || *end != '\0' || n < 1 || n > 15)
			return NULL;
		double r = x;
		if (x != 0) {
			double e = pow(10.0, floor(log10(fabs(x))) - (double)(n - 1));
			r = round(x / e) * e;
		}
		int dec = x != 0 ? (int)(n - 1) - (int)floor(log10(fabs(x))) : 0;
		snprintf(buf, sizeof buf, "%.*f", dec > 0 ? dec : 0, r);
		return group_thousands(buf);
	}
	if (strncmp(spec, "pct", 3) == 0) {
		char *end;
		long n = strtol(spec + 3, &end, 10);
		if (end == spec + 3 || *end != '\0' || n < 0 || n > 12)
			return NULL;
		snprintf(buf, sizeof buf, "%.*f%%", (int)n, x * 100.0);
		return br_xstrdup(buf);
	}
	const char *p = spec;
	int group = 0;
	if (*p == ',') {
		group = 1;
		p++;
	}
	int prec = -1;
	if (*p == '.') {
		char *end;
		long n = strtol(p + 1, &end, 10);
		if (end == p + 1 || n < 0 || n > 30)
			return NULL;
		prec = (int)n;
		p = end;
	}
	char type = *p ? *p++ : 'g';
	if (*p != '\0')
		return NULL;
	switch (type) {
	case 'f':
		snprintf(buf, sizeof buf, "%.*f", prec < 0 ? 6 : prec, x);
		break;
	case 'e':
		snprintf(buf, sizeof buf, "%.*e", prec < 0 ? 6 : prec, x);
		break;
	case 'E':
		snprintf(buf, sizeof buf, "%.*E", prec < 0 ? 6 : prec, x);
		break;
	case 'g':
		snprintf(buf, sizeof buf, "%.*g", prec < 0 ? 6 : prec, x);
		break;
	case 'G':
		snprintf(buf, sizeof buf, "%.*G", prec < 0 ? 6 : prec, x);
		break;
	case 'd':
		snprintf(buf, sizeof buf, "%.0f", x);
		break;
	case '%':
		snprintf(buf, sizeof buf, "%.*f%%", prec < 0 ? 6 : prec, x * 100.0);
		break;
	default:
		return NULL;
	}
	if (strcmp(buf, "-0") == 0 || (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1)))
		memmove(buf, buf + 1, strlen(buf)); /* "-0.00" -> "0.00" */
	return group ? group_thousands(buf) : br_xstrdup(buf);
}

/*
 * render_value: the text for one placeholder. Absent/null → "n/a"; strings
 * verbatim (format ignored); booleans "yes"/"no"; numbers per spec. An
 * unknown spec yields NULL (the caller then copies the placeholder as is).
 */
static char *
render_value(const br_template *t, const json_t *v, const char *spec)
{
	if ((v == NULL || json_is_null(v)) && spec != NULL && strncmp(spec, "n:", 2) == 0) {
		const char *w = spec + 2, *bar = strchr(w, '|');
		return bar ? br_xasprintf("n/a %s", bar + 1) : br_xasprintf("n/a %ss", w);
	}
	if (v == NULL || json_is_null(v))
		return br_xstrdup("n/a");
	if (json_is_string(v) || json_is_boolean(v)) {
		/* words in the report's language (phrases), data verbatim */
		const char *s = json_is_string(v) ? json_string_value(v) : json_is_true(v) ? "yes" : "no";
		char *tr = br_template_phrase(t, s);
		return tr ? tr : br_xstrdup(s);
	}
	if (json_is_integer(v) && (spec == NULL || *spec == '\0'))
		return br_xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
	if (json_is_number(v)) {
		/* the seconds' unit of dur_ms / dur_s in the report's language
		 * ("format.seconds": "秒"), else "s" */
		const char *sec = br_template_get(t, "format.seconds");
		return format_number(json_number_value(v), spec, sec && *sec ? sec : "s");
	}
	return br_xstrdup("n/a"); /* objects and arrays have no text form */
}

/* utf8_at: the code point of the UTF-8 sequence at s (its length in *len),
 * or 0 for ASCII / a malformed byte (length 1). */
static unsigned
utf8_at(const unsigned char *s, size_t *len)
{
	*len = 1;
	if (s[0] < 0xC0)
		return 0;
	if (s[0] < 0xE0 && (s[1] & 0xC0) == 0x80) {
		*len = 2;
		return ((s[0] & 0x1Fu) << 6) | (s[1] & 0x3Fu);
	}
	if (s[0] < 0xF0 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
		*len = 3;
		return ((s[0] & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
	}
	return 0;
}

/* is_cjk: a CJK ideograph, kana, CJK punctuation or a full-width form. */
static int
is_cjk(unsigned cp)
{
	return (cp >= 0x3000 && cp <= 0x9FFF) || (cp >= 0xFF00 && cp <= 0xFFEF);
}

/*
 * cjk_tighten: drop, in place, each single space between two CJK
 * characters: a placeholder that a template spaced for a number or an
 * English word can be filled with Chinese words ("按 抢占次数最多 选出",
 * "在 593.9 秒 内完成": nineteenth breaker); spaces beside digits and Latin
 * letters stay.
 */
static void
cjk_tighten(char *s)
{
	unsigned char *r = (unsigned char *)s, *w = (unsigned char *)s;
	unsigned prev = 0;
	while (*r) {
		if (*r == ' ' && is_cjk(prev) && r[1] != ' ') {
			size_t l;
			if (is_cjk(utf8_at(r + 1, &l))) {
				r++;
				continue;
			}
		}
		size_t l;
		unsigned cp = utf8_at(r, &l);
		for (size_t k = 0; k < l && *r; k++)
			*w++ = *r++;
		prev = cp;
	}
	*w = '\0';
}

/*
 * br_template_fill: see template.h. "{{" and "}}" print single braces; a '{'
 * without a closing '}' and a placeholder with an unknown format are copied
 * verbatim so the mistake shows in the output.
 */
char *
br_template_fill(const br_template *t, const char *key, const json_t *summary)
{
	const char *s = br_template_get(t, key);
	if (s == NULL)
		return br_xasprintf("[%s]", key ? key : "(null)");
	sbuf b = {0};
	sb_add(&b, "", 0);
	const char *p = s;
	while (*p) {
		if (p[0] == '{' && p[1] == '{') {
			sb_add(&b, "{", 1);
			p += 2;
			continue;
		}
		if (p[0] == '}' && p[1] == '}') {
			sb_add(&b, "}", 1);
			p += 2;
			continue;
		}
		if (*p != '{') {
			const char *q = p;
			while (*q && *q != '{' && *q != '}')
				q++;
			if (q == p)
				q++; /* a lone '}' */
			sb_add(&b, p, (size_t)(q - p));
			p = q;
			continue;
		}
		const char *close = strchr(p + 1, '}');
		if (close == NULL) {
			sb_str(&b, p);
			break;
		}
		char *inner = br_xstrndup(p + 1, (size_t)(close - p - 1));
		char *colon = strchr(inner, ':');
		const char *spec = NULL;
		if (colon) {
			*colon = '\0';
			spec = colon + 1;
		}
		const json_t *v = lookup(summary, inner);
		char *out = render_value(t, v, spec);
		if (out != NULL && json_is_number(v)) {
			/* a count known only from below (a metrics capture cut at an
			 * edge) carries a sibling "<key>_is_lower_bound": true, and
			 * every sentence citing it says so ("at least 37") */
			char *lb_path = br_xasprintf("%s_is_lower_bound", inner);
			if (json_is_true(lookup(summary, lb_path))) {
				const char *w = br_template_get(t, "format.at_least");
				/* a word in a CJK script ("至少 ") takes no space before
				 * it after CJK text: "抢占了 至少 37 次" → "抢占了至少 37 次" */
				if (w && (unsigned char)w[0] >= 0x80 && b.n >= 2 && b.s[b.n - 1] == ' ' &&
				    (unsigned char)b.s[b.n - 2] >= 0x80)
					b.n--;
				char *q = br_xasprintf("%s%s", w && *w ? w : "at least ", out);
				free(out);
				out = q;
			}
			free(lb_path);
		}
		if (out == NULL)
			sb_add(&b, p, (size_t)(close - p + 1));
		else
			sb_str(&b, out);
		free(out);
		free(inner);
		p = close + 1;
	}
	if (t->cjk)
		cjk_tighten(b.s);
	return b.s;
}

/* br_template_free: NULL is fine. */
void
br_template_free(br_template *t)
{
	if (t == NULL)
		return;
	json_decref(t->flat);
	json_decref(t->en);
	free(t->path);
	for (size_t i = 0; i < t->n_phrases; i++) {
		free(t->phrases[i].en);
		free(t->phrases[i].tr);
	}
	free(t->phrases);
	free(t);
}
