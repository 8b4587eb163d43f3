/*
 * Private helpers shared by the capture module's HTTP readers (sample.c's
 * /metrics scrape, slots_poll.c's /slots poll). Not a public header.
 */
#ifndef BR_CAPTURE_PRIV_H
#define BR_CAPTURE_PRIV_H

#include <stddef.h>
#include <glib.h>

/* An HTTP response body, capped at max_bytes (too_big set when cut). */
typedef struct br_body_buf {
	GString *text;
	int too_big;
	size_t max_bytes;
} br_body_buf;

/* br_body_buf_write: libcurl CURLOPT_WRITEFUNCTION appending to the
 * br_body_buf given as CURLOPT_WRITEDATA; 0 (abort) past max_bytes. */
size_t br_body_buf_write(char *ptr, size_t size, size_t nmemb, void *user);

#endif
