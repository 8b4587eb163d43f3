/*
 * benchreport record's pieces that need no server (src/capture/record.c).
 */
#include "br_test.h"
#include <unistd.h>
#include "benchreport/common.h"
#include "benchreport/capture.h"

/*
 * `record`'s start-up block of each engine's log: the block it copies ahead
 * of the lines the run adds, so the report still reads the KV pool and the
 * build. llama-server's excerpt opens with "build: N (hash)" and has no
 * system_info line (tenth breaker: its block was missed and the report lost
 * the pool and build); vLLM's opens with its version line; a log of work
 * lines only has none. Expected: the block's first line and whether the
 * pool line is inside it.
 */
static void
test_record_startup_block(void **state)
{
	(void)state;
	static const struct { const char *log, *first, *inside; } t[] = {
		{ "build: 5489 (00000000) with cc\nmain: loading model\n"
		  "llama_kv_cache_unified: size =  1792.00 MiB ( 32768 cells,  28 layers,  4 seqs)\n"
		  "srv          init: initializing slots, n_slots = 4\n"
		  "srv  update_slots: all slots are idle\nslot print_timing: id  0 | task 0 |\n",
		  "build: 5489 (00000000) with cc", "32768 cells" },
		{ "noise\n(APIServer pid=1) INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.27.1\n"
		  "(EngineCore_DP0 pid=2) INFO 01-01 00:00:01 [kv_cache_utils.py:1087] GPU KV cache size: 86,864 tokens\n"
		  "(APIServer pid=1) INFO:     Application startup complete.\n"
		  "(APIServer pid=1) INFO 01-01 00:00:20 [loggers.py:1] Avg prompt throughput: 1.0 tokens/s\n",
		  "(APIServer pid=1) INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.27.1", "86,864 tokens" },
		{ "srv  update_slots: all slots are idle\nslot print_timing: id  0 | task 0 |\n", NULL, NULL },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char path[] = "/tmp/br_startup_XXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, t[i].log, strlen(t[i].log)), (ssize_t)strlen(t[i].log));
		close(fd);
		long long size = 0;
		char *cause = NULL;
		char *block = br_log_startup_block(path, &size, &cause);
		unlink(path);
		assert_int_equal(size, (long long)strlen(t[i].log));
		if (t[i].first == NULL) {
			assert_null(block);
			assert_null(cause);
			continue;
		}
		if (block == NULL)
			fail_msg("case %zu: no start-up block found", i);
		if (strncmp(block, t[i].first, strlen(t[i].first)) != 0 || strstr(block, t[i].inside) == NULL)
			fail_msg("case %zu: block \"%s\"", i, block);
		free(block);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_startup_block),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
