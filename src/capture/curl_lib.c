/*
 * libcurl loaded on first use (see curl_lib.h).
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

#include "benchreport/common.h"
#include "curl_lib.h"

br_curl_api br_curl;

/* The soname of libcurl 7.16 and later (Debian 12: package libcurl4);
 * $BR_LIBCURL names another file or soname to load instead. */
#define CURL_SONAME "libcurl.so.4"

/* load_once: the work of br_curl_load; 0, or -1 with *cause. */
static int
load_once(char **cause)
{
	const char *name = getenv("BR_LIBCURL");
	if (name == NULL || *name == '\0')
		name = CURL_SONAME;
	void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		const char *why = dlerror();
		*cause = br_xasprintf("cannot load %s (%s); HTTP capture needs libcurl "
		    "(Debian: apt-get install libcurl4)", name, why ? why : "not found");
		return -1;
	}
	static const struct { const char *name; size_t off; } sym[] = {
		{ "curl_global_init", offsetof(br_curl_api, global_init) },
		{ "curl_easy_init", offsetof(br_curl_api, easy_init) },
		{ "curl_easy_setopt", offsetof(br_curl_api, easy_setopt) },
		{ "curl_easy_perform", offsetof(br_curl_api, easy_perform) },
		{ "curl_easy_getinfo", offsetof(br_curl_api, easy_getinfo) },
		{ "curl_easy_cleanup", offsetof(br_curl_api, easy_cleanup) },
		{ "curl_easy_strerror", offsetof(br_curl_api, easy_strerror) },
		{ "curl_slist_append", offsetof(br_curl_api, slist_append) },
		{ "curl_slist_free_all", offsetof(br_curl_api, slist_free_all) },
	};
	br_curl_api api;
	for (size_t i = 0; i < sizeof sym / sizeof sym[0]; i++) {
		void *f = dlsym(lib, sym[i].name);
		if (f == NULL) {
			*cause = br_xasprintf("%s has no %s; HTTP capture needs libcurl 7.16 or later",
			    name, sym[i].name);
			dlclose(lib);
			return -1;
		}
		/* POSIX: a function pointer stored through its object representation */
		*(void **)((char *)&api + sym[i].off) = f;
	}
	if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		*cause = br_xasprintf("%s: curl_global_init failed", name);
		dlclose(lib);
		return -1;
	}
	br_curl = api;
	return 0;
}

/* br_curl_load: see curl_lib.h. Not thread-safe by design: callers load
 * before they start threads (br_sample_global_init). */
int
br_curl_load(char **cause)
{
	static int state;          /* 0 not tried, 1 loaded, -1 failed */
	static char *first_cause;
	if (state == 0) {
		state = load_once(&first_cause) == 0 ? 1 : -1;
	}
	if (state < 0) {
		if (cause)
			*cause = br_xstrdup(first_cause);
		return -1;
	}
	return 0;
}
