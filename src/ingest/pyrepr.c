/*
 * Python repr scanning and UTF-8-safe clipping shared by the server-log
 * readers (server_log.c for vLLM's `non-default args: {...}`,
 * server_log_engines.c for SGLang's `ServerArgs(...)`). See pyrepr.h.
 */
#include <stddef.h>
#include <string.h>
#include <glib.h>

#include <stdlib.h>

#include "benchreport/common.h"
#include "benchreport/serverlog.h"
#include "pyrepr.h"

/*
 * br_py_skip_value: from the start of one value of a Python repr, the ',' or
 * closing bracket that ends it at depth 0 (*closed = 1), or `end` when the
 * text stops first (*closed = 0). Quoted strings (with backslash escapes),
 * (), [], {} and <Enum: 3> reprs are skipped whole.
 */
const char *
br_py_skip_value(const char *p, const char *end, int *closed)
{
	int depth = 0;
	*closed = 0;
	while (p < end) {
		char c = *p;
		if (c == '\'' || c == '"') {
			p++;
			while (p < end && *p != c) {
				if (*p == '\\' && p + 1 < end)
					p++;
				p++;
			}
			if (p < end)
				p++;
			continue;
		}
		if (c == '{' || c == '[' || c == '(' || c == '<')
			depth++;
		else if (c == '}' || c == ']' || c == ')' || c == '>') {
			if (depth == 0) {
				*closed = 1;
				return p;
			}
			depth--;
		} else if (c == ',' && depth == 0) {
			*closed = 1;
			return p;
		}
		p++;
	}
	return p;
}

/* br_log_args_clear: see pyrepr.h. */
void
br_log_args_clear(br_server_log *o)
{
	for (size_t i = 0; i < o->n_args; i++) {
		free(o->args[i].name);
		free(o->args[i].value);
		free(o->args[i].raw);
	}
	free(o->args);
	o->args = NULL;
	o->n_args = 0;
	o->args_line = o->args_complete = o->args_all = 0;
}

/* br_log_kwargs_args: see pyrepr.h. */
void
br_log_kwargs_args(br_server_log *o, const char *p, const char *end, int line,
    void (*each)(void *ctx, const char *key, size_t kl, const char *v, const char *ve), void *ctx)
{
	br_log_args_clear(o);
	o->args_line = line;
	o->args_all = 1;
	for (;;) {
		while (p < end && *p == ' ')
			p++;
		const char *key = p;
		while (p < end && (g_ascii_isalnum(*p) || *p == '_'))
			p++;
		if (p == key || p >= end || *p != '=') {
			o->args_complete = p == key && p < end && *p == ')';
			return;
		}
		size_t kl = (size_t)(p - key);
		int closed;
		const char *v = p + 1, *ve = br_py_skip_value(v, end, &closed);
		o->args = br_xrealloc(o->args, (o->n_args + 1) * sizeof *o->args);
		br_log_arg_set(&o->args[o->n_args], key, kl, v, (size_t)(ve - v));
		o->n_args++;
		if (each != NULL)
			each(ctx, key, kl, v, ve);
		if (!closed)
			return;   /* cut before its ')' */
		if (*ve == ')') {
			o->args_complete = 1;
			return;
		}
		p = ve + 1;
	}
}

/* br_log_arg_secret: see serverlog.h. */
int
br_log_arg_secret(const char *name)
{
	static const char *const exact[] = { "api_key", "admin_api_key", "hf_token", "token" };
	for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
		if (strcmp(name, exact[i]) == 0)
			return 1;
	size_t n = strlen(name);
	return strstr(name, "password") != NULL || strstr(name, "secret") != NULL ||
	    strstr(name, "auth") != NULL || strstr(name, "credential") != NULL ||
	    (n > 4 && strcmp(name + n - 4, "_key") == 0) || (n > 6 && strcmp(name + n - 6, "_token") == 0);
}

/* nested_secret: a dict or repr inside the value with a key that names a
 * credential ({'hf_token': ...}, {"Authorization": ...}, Config(api_key=...)):
 * each key before a ':' or '=' is read back (quoted or bare), lower-cased
 * and tested as an argument name. */
static int
nested_secret(const char *v)
{
	for (const char *p = v; *p; p++) {
		if (*p != ':' && *p != '=')
			continue;
		const char *e = p, *b;
		while (e > v && e[-1] == ' ')
			e--;
		if (e > v && (e[-1] == '\'' || e[-1] == '"')) {
			char q = e[-1];
			b = --e;
			while (b > v && b[-1] != q)
				b--;
		} else {
			b = e;
			while (b > v && (g_ascii_isalnum(b[-1]) || b[-1] == '_' || b[-1] == '-'))
				b--;
		}
		if (e - b < 3 || e - b > 64)
			continue;
		char name[65];
		for (size_t i = 0; i < (size_t)(e - b); i++)
			name[i] = b[i] == '-' ? '_' : g_ascii_tolower(b[i]);
		name[e - b] = '\0';
		if (br_log_arg_secret(name))
			return 1;
	}
	return 0;
}

/* value_secret: a printed value that carries a credential whatever its
 * name: a URL with a user-info part ("https://user:pw@host"), a query
 * parameter named token, key, password, secret or auth, a bearer token, or
 * a nested key that names a credential (nested_secret). */
static int
value_secret(const char *v)
{
	if (nested_secret(v) || strstr(v, "Bearer ") != NULL || strstr(v, "bearer ") != NULL)
		return 1;
	const char *u = strstr(v, "://");
	if (u != NULL) {
		const char *at = strchr(u + 3, '@'), *slash = strchr(u + 3, '/');
		if (at != NULL && (slash == NULL || at < slash))
			return 1;
	}
	static const char *const q[] = { "token=", "key=", "password=", "secret=", "auth=" };
	for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
		if (strstr(v, q[i]) != NULL)
			return 1;
	return 0;
}

/* br_log_arg_set: see serverlog.h. */
void
br_log_arg_set(br_log_arg *a, const char *key, size_t key_len, const char *v, size_t v_len)
{
	a->name = br_xstrndup(key, key_len);
	a->raw = br_xstrndup(v, v_len);
	a->value = br_log_arg_secret(a->name) || value_secret(a->raw) ? br_xstrdup("(redacted)") :
	    br_clip_utf8(v, v_len, 200);
}

/* An argument's name and place, sorted by name then place (br_log_args_dedupe). */
typedef struct { const char *name; size_t i; } name_at;

static int
by_name_then_place(const void *x, const void *y)
{
	const name_at *a = x, *b = y;
	int c = strcmp(a->name, b->name);
	return c != 0 ? c : a->i < b->i ? -1 : a->i > b->i;
}

/* br_log_args_dedupe: see pyrepr.h. */
void
br_log_args_dedupe(br_server_log *o)
{
	size_t n = o->n_args;
	if (n < 2)
		return;
	name_at *ix = br_xcalloc(n, sizeof *ix);
	char *drop = br_xcalloc(n, 1);
	for (size_t i = 0; i < n; i++)
		ix[i] = (name_at){ o->args[i].name, i };
	qsort(ix, n, sizeof *ix, by_name_then_place);
	int any = 0;
	for (size_t g = 0; g < n;) {
		size_t h = g + 1;
		while (h < n && strcmp(ix[g].name, ix[h].name) == 0)
			h++;
		if (h - g > 1) {
			/* the group's first place keeps the last value */
			br_log_arg *first = &o->args[ix[g].i], *last = &o->args[ix[h - 1].i];
			free(first->raw);
			free(first->value);
			first->raw = last->raw;
			first->value = last->value;
			last->raw = last->value = NULL;
			for (size_t k = g + 1; k < h; k++)
				drop[ix[k].i] = 1;
			any = 1;
		}
		g = h;
	}
	if (any) {
		size_t w = 0;
		for (size_t i = 0; i < n; i++) {
			if (drop[i]) {
				free(o->args[i].name);
				free(o->args[i].raw);
				free(o->args[i].value);
			} else
				o->args[w++] = o->args[i];
		}
		o->n_args = w;
	}
	free(ix);
	free(drop);
}
