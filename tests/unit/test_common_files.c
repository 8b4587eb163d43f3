/*
 * br_read_file (src/common/files.c): only regular files are read, and the
 * size is capped at 8 GiB, so `--bench /dev/zero` or a FIFO cannot eat
 * memory or hang.
 */
#include "br_test.h"
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib.h>
#include "benchreport/common.h"

static char tmpdir[64];

/* read_bad: br_read_file(path) must fail with a cause holding `needle`. */
static void
read_bad(const char *path, const char *needle)
{
	char *data = (char *)1, *cause = NULL;
	size_t len = 7;
	assert_int_equal(br_read_file(path, &data, &len, &cause), -1);
	assert_non_null(cause);
	if (strstr(cause, needle) == NULL || strstr(cause, path) == NULL)
		fail_msg("cause \"%s\" lacks \"%s\" or the path", cause, needle);
	assert_ptr_equal(data, (char *)1);   /* untouched on failure */
	free(cause);
}

/* A normal file: bytes and length as written (11 bytes, NUL-terminated). */
static void
t_regular(void **state)
{
	(void)state;
	char *p = br_path_join(tmpdir, "ok.txt");
	FILE *fp = fopen(p, "w");
	fputs("hello\nworld", fp);
	fclose(fp);
	char *data = NULL;
	size_t len = 0;
	assert_int_equal(br_read_file(p, &data, &len, NULL), 0);
	assert_int_equal(len, 11);
	assert_string_equal(data, "hello\nworld");
	free(data);
	/* empty file: length 0, empty string */
	fp = fopen(p, "w");
	fclose(fp);
	assert_int_equal(br_read_file(p, &data, &len, NULL), 0);
	assert_int_equal(len, 0);
	assert_string_equal(data, "");
	free(data);
	free(p);
}

/* A 5 MB file (bytes from a fixed LCG) reads back byte for byte into a
 * block from br_xmalloc_huge: 2 MiB aligned (the huge-page path), NUL after
 * the last byte; a 9 MB br_xmalloc_huge block is aligned and writable end to
 * end, a 1 MB one (below 2 MiB) is plain malloc memory; both free()d. */
static void
t_large_huge(void **state)
{
	(void)state;
	const size_t n = 5u << 20;
	unsigned char *want = br_xmalloc(n);
	uint32_t x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		want[i] = (unsigned char)(x >> 16);
		if (want[i] == 0)
			want[i] = 1;
	}
	char *p = br_path_join(tmpdir, "big.bin");
	FILE *fp = fopen(p, "wb");
	assert_int_equal(fwrite(want, 1, n, fp), n);
	fclose(fp);
	char *data = NULL;
	size_t len = 0;
	assert_int_equal(br_read_file(p, &data, &len, NULL), 0);
	assert_int_equal(len, n);
	assert_int_equal((uintptr_t)data % (2u << 20), 0);
	assert_memory_equal(data, want, n);
	assert_int_equal(data[n], '\0');
	free(data);
	free(want);
	unlink(p);
	free(p);
	unsigned char *px = br_xmalloc_huge(9u << 20);
	assert_int_equal((uintptr_t)px % (2u << 20), 0);
	memset(px, 0xab, 9u << 20);
	assert_int_equal(px[(9u << 20) - 1], 0xab);
	free(px);
	unsigned char *small = br_xmalloc_huge(1u << 20);
	small[(1u << 20) - 1] = 7;
	assert_int_equal(small[(1u << 20) - 1], 7);
	free(small);
}

/* /dev/zero, a directory and a FIFO (no writer: must not block). */
static void
t_not_regular(void **state)
{
	(void)state;
	read_bad("/dev/zero", "/dev/zero: not a regular file (a character device)");
	read_bad(tmpdir, "not a regular file (a directory)");
	char *f = br_path_join(tmpdir, "fifo");
	assert_int_equal(mkfifo(f, 0600), 0);
	read_bad(f, "not a regular file (a FIFO (named pipe))");
	/* br_sha256_file follows the same rule */
	char hex[65], *cause = NULL;
	assert_int_equal(br_sha256_file("/dev/zero", hex, NULL, &cause), -1);
	assert_non_null(strstr(cause, "not a regular file"));
	free(cause);
	cause = NULL;
	assert_int_equal(br_sha256_file(f, hex, NULL, &cause), -1);
	assert_non_null(strstr(cause, "FIFO"));
	free(cause);
	free(f);
	read_bad("/nonexistent/x.json", "cannot open");
}

/* A sparse file of 8 GiB + 1 byte is refused by size without reading it;
 * exactly 8 GiB would pass the size check (not read here: too slow). */
static void
t_too_big(void **state)
{
	(void)state;
	char *p = br_path_join(tmpdir, "huge.json");
	int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	assert_true(fd >= 0);
	if (ftruncate(fd, (off_t)(8ULL << 30) + 1) != 0) {
		close(fd);
		free(p);
		skip();   /* file system without large sparse files */
	}
	close(fd);
	read_bad(p, "over the 8 GiB limit");
	unlink(p);
	free(p);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/br_files_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	char *cmd = br_xasprintf("rm -rf '%s'", tmpdir);
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

/*
 * br_sha256_file against the FIPS 180-2 test vectors: "abc" and the empty
 * message, plus one million 'a' (crosses the 1 MiB read buffer), whose
 * digests are published in FIPS 180-2 appendix B.
 */
static void
t_sha256_vectors(void **state)
{
	(void)state;
	static const struct { const char *text; size_t repeat; const char *hex; } v[] = {
		{ "abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
	};
	for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
		char path[] = "/tmp/br_sha_XXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		FILE *fp = fdopen(fd, "wb");
		for (size_t i = 0; i < v[k].repeat; i++)
			fputs(v[k].text, fp);
		fclose(fp);
		char hex[65];
		long long size = -1;
		char *cause = NULL;
		assert_int_equal(br_sha256_file(path, hex, &size, &cause), 0);
		assert_string_equal(hex, v[k].hex);
		assert_true(size == (long long)(strlen(v[k].text) * v[k].repeat));
		unlink(path);
	}
}

/*
 * br_sha256_file on two threads at once (src/ingest/run.c hashes large
 * inputs in parallel): 8 MiB of 'a' and 8 MiB of 'b', each hashed while the
 * other is, give the digests of hashing them alone (a shared read buffer
 * once mixed the two files' bytes).
 */
typedef struct hash_arg {
	const char *path;
	char hex[65];
	int rc;
} hash_arg;

static gpointer
hash_thread(gpointer p)
{
	hash_arg *h = p;
	h->rc = br_sha256_file(h->path, h->hex, NULL, NULL);
	return NULL;
}

static void
t_sha256_threads(void **state)
{
	(void)state;
	char pa[] = "/tmp/br_sha_a_XXXXXX", pb[] = "/tmp/br_sha_b_XXXXXX";
	char *paths[2] = { pa, pb };
	char alone[2][65];
	for (int k = 0; k < 2; k++) {
		int fd = mkstemp(paths[k]);
		assert_true(fd >= 0);
		FILE *fp = fdopen(fd, "wb");
		for (int i = 0; i < (8 << 20); i++)
			fputc(k ? 'b' : 'a', fp);
		fclose(fp);
		assert_int_equal(br_sha256_file(paths[k], alone[k], NULL, NULL), 0);
	}
	assert_string_not_equal(alone[0], alone[1]);
	for (int round = 0; round < 4; round++) {
		hash_arg h[2] = { { .path = pa }, { .path = pb } };
		GThread *t0 = g_thread_new("h0", hash_thread, &h[0]);
		GThread *t1 = g_thread_new("h1", hash_thread, &h[1]);
		g_thread_join(t0);
		g_thread_join(t1);
		for (int k = 0; k < 2; k++) {
			assert_int_equal(h[k].rc, 0);
			assert_string_equal(h[k].hex, alone[k]);
		}
	}
	unlink(pa);
	unlink(pb);
}

/* br_natural_cmp: digit runs by number, the rest bytewise; expected signs
 * by hand (a sweep's folders in the order they were swept). */
static void
t_natural_cmp(void **state)
{
	(void)state;
	static const struct { const char *a, *b; int sign; } rows[] = {
		{ "rate-2", "rate-16", -1 },
		{ "rate-16", "rate-2", 1 },
		{ "cal-512-128", "cal-1024-512", -1 },
		{ "c16-2048-512", "c32-1024-256", -1 },
		{ "r007", "r7", -1 },          /* equal numbers: strcmp breaks the tie ('0' < '7') */
		{ "r7", "r7", 0 },
		{ "rate-inf", "rate-16", 1 },  /* a letter after a digit, as strcmp */
		{ "a", "a1", -1 },
		{ "x10y2", "x10y10", -1 },
		{ "99999999999999999999999", "100000000000000000000000", -1 },   /* beyond 64 bits */
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		int c = br_natural_cmp(rows[i].a, rows[i].b);
		int sign = c < 0 ? -1 : c > 0;
		if (sign != rows[i].sign)
			fail_msg("row %zu: br_natural_cmp(\"%s\", \"%s\") sign %d, expected %d", i, rows[i].a, rows[i].b,
			    sign, rows[i].sign);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_natural_cmp),
		cmocka_unit_test(t_sha256_vectors),
		cmocka_unit_test(t_sha256_threads),
		cmocka_unit_test(t_regular),
		cmocka_unit_test(t_large_huge),
		cmocka_unit_test(t_not_regular),
		cmocka_unit_test(t_too_big),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
