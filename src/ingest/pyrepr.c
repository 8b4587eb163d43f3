/*
 * Python repr scanning and UTF-8-safe clipping shared by the server-log
 * readers (server_log.c for vLLM's `non-default args: {...}`,
 * server_log_engines.c for SGLang's `ServerArgs(...)`). See pyrepr.h.
 */
#include <stddef.h>
#include <string.h>

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

/* br_clip_utf8: copy of [p, p+n) cut to at most `max` bytes at a UTF-8 boundary,
 * with "..." appended when cut. */
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

/* value_secret: a printed value that carries a credential whatever its
 * name: a URL with a user-info part ("https://user:pw@host") or a query
 * parameter named token, key, password, secret or auth. */
static int
value_secret(const char *v)
{
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
