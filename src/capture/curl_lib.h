/*
 * libcurl's easy interface, loaded with dlopen the first time the capture
 * module needs it (`sample`, `record`). Every other command (the reports,
 * simulate, compare) then starts without libcurl and the 26 libraries it
 * pulls in (TLS, Kerberos, LDAP, SSH, IDN...): 5.4 MB less resident memory
 * and fewer relocations at start. Not a public header.
 *
 * Ownership: the library handle and the table live until the process ends.
 */
#ifndef BR_CURL_LIB_H
#define BR_CURL_LIB_H

#include <curl/curl.h>

/* The libcurl entry points the capture module calls, same signatures. */
typedef struct br_curl_api {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *h);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *h);
	const char *(*easy_strerror)(CURLcode rc);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
	void (*slist_free_all)(struct curl_slist *list);
} br_curl_api;

/* Filled by br_curl_load; read-only afterwards. */
extern br_curl_api br_curl;

/*
 * br_curl_load: dlopen libcurl.so.4 (or $BR_LIBCURL), resolve the table above and call
 * curl_global_init(CURL_GLOBAL_DEFAULT), once per process (later calls
 * return the first call's result). Call it before starting threads that use
 * curl. Returns 0, or -1 with *cause (malloc'd, caller frees) naming the
 * library or symbol that is missing and the package that provides it.
 */
int br_curl_load(char **cause);

#endif
