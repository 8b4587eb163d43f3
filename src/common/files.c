/* File helpers: whole-file reads, atomic writes, paths, SHA-256. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <nettle/sha2.h>
#include <jansson.h>
#include "benchreport/common.h"

/* Largest file br_read_file accepts: 8 GiB. */
#define BR_READ_MAX_BYTES (8ULL << 30)
/* Bytes br_check_head looks at. */
#define BR_HEAD_BYTES 65536
/* Files larger than this are checked for holes (a sparse file of zeros). */
#define SPARSE_MIN_BYTES (64ULL << 20)

/* br_file_kind: see common.h. */
const char *
br_file_kind(unsigned int mode)
{
	mode_t m = (mode_t)mode;
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISFIFO(m))
		return "a FIFO (named pipe)";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISREG(m))
		return "a file";
	return "not a plain file";
}

/*
 * hole_bytes: bytes of fd (size bytes long) that are holes, found with
 * lseek SEEK_DATA / SEEK_HOLE (0 where the filesystem does not say; at most
 * 4096 extents are walked). A compressed filesystem's small st_blocks is
 * not a hole: only never-written ranges count. Leaves the offset at 0.
 */
static long long
hole_bytes(int fd, long long size)
{
	long long holes = 0, pos = 0;
	for (int i = 0; i < 4096 && pos < size; i++) {
		off_t data = lseek(fd, (off_t)pos, SEEK_DATA);
		if (data < 0) {
			if (errno == ENXIO)
				holes += size - pos;     /* a hole up to the end */
			break;
		}
		holes += (long long)data - pos;
		off_t hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			break;
		pos = (long long)hole;
	}
	lseek(fd, 0, SEEK_SET);
	return holes;
}

/* br_open_input: see common.h. */
int
br_open_input(const char *path, unsigned long long max_bytes, FILE **fp_out, long long *size_bytes,
    char **cause)
{
	*fp_out = NULL;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (cause)
			*cause = br_xasprintf("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		if (cause)
			*cause = br_xasprintf("%s: cannot open: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		if (cause)
			*cause = br_xasprintf("%s: not a regular file (%s); expected a file with the data",
			    path, br_file_kind(st.st_mode));
		close(fd);
		return -1;
	}
	if ((unsigned long long)st.st_size > max_bytes) {
		if (cause)
			*cause = br_xasprintf("%s: file is %.1f GiB, over the %.0f GiB limit; expected a bench, "
			    "metrics or log file of at most that size (split or trim it)",
			    path, (double)st.st_size / (1024.0 * 1024.0 * 1024.0),
			    (double)max_bytes / (1024.0 * 1024.0 * 1024.0));
		close(fd);
		return -1;
	}
	long long holes = hole_bytes(fd, (long long)st.st_size);
	if (st.st_size > (off_t)SPARSE_MIN_BYTES && holes > (long long)st.st_size / 2) {
		if (cause)
			*cause = br_xasprintf("%s: a sparse file (%.1f GiB long, %.1f GiB of it holes that "
			    "read as zero bytes); expected the data a benchmark or server wrote",
			    path, (double)st.st_size / (1 << 30), (double)holes / (1 << 30));
		close(fd);
		return -1;
	}
	/* back to blocking reads for a regular file */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	FILE *fp = fdopen(fd, "rb");
	if (fp == NULL) {
		if (cause)
			*cause = br_xasprintf("%s: cannot open: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	*fp_out = fp;
	if (size_bytes)
		*size_bytes = (long long)st.st_size;
	return 0;
}

/*
 * br_read_file: see common.h. Through br_open_input (regular files of at
 * most 8 GiB only); a file that grows past the limit while being read is cut
 * off with an error rather than eating memory.
 */
int
br_read_file(const char *path, char **data, size_t *len, char **cause)
{
	FILE *fp;
	long long size = 0;
	if (br_open_input(path, BR_READ_MAX_BYTES, &fp, &size, cause) != 0)
		return -1;
	size_t cap = size > 0 ? (size_t)size + 1 : 65536, n = 0;
	char *buf = br_xmalloc_huge(cap + 1);   /* a 5.6 MB bench file: 1,400 page faults -> 3 */
	for (;;) {
		size_t got = fread(buf + n, 1, cap - n, fp);
		n += got;
		if (got == 0)
			break;
		if (n > BR_READ_MAX_BYTES) {
			if (cause)
				*cause = br_xasprintf("%s: file grew over the 8 GiB limit while being read", path);
			fclose(fp);
			free(buf);
			return -1;
		}
		if (n == cap) {
			cap *= 2;
			buf = br_xrealloc(buf, cap + 1);
			br_advise_huge(buf + n, cap + 1 - n);
		}
	}
	if (ferror(fp)) {
		if (cause)
			*cause = br_xasprintf("%s: read error: %s", path, strerror(errno));
		fclose(fp);
		free(buf);
		return -1;
	}
	fclose(fp);
	buf[n] = '\0';
	*data = buf;
	if (len)
		*len = n;
	return 0;
}

/* br_check_head: see common.h. */
int
br_check_head(const char *path, int want_json, const char *expected, char **cause)
{
	FILE *fp;
	if (br_open_input(path, BR_READ_MAX_BYTES, &fp, NULL, cause) != 0)
		return -1;
	char *head = br_xmalloc(BR_HEAD_BYTES);
	size_t n = fread(head, 1, BR_HEAD_BYTES, fp);
	int bad = ferror(fp), rc = -1;
	fclose(fp);
	if (bad) {
		if (cause)
			*cause = br_xasprintf("%s: read error: %s", path, strerror(errno));
		goto out;
	}
	const char *nul = memchr(head, '\0', n);
	if (nul != NULL) {
		int line, col;
		br_line_col(head, n, (size_t)(nul - head), &line, &col);
		if (cause)
			*cause = br_xasprintf("%s:%d:%d: expected %s, found a NUL byte (binary file)",
			    path, line, col, expected);
		goto out;
	}
	if (want_json) {
		size_t i = (n >= 3 && memcmp(head, "\xef\xbb\xbf", 3) == 0) ? 3 : 0;
		while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
			i++;
		if (i < n && head[i] != '{' && head[i] != '[') {
			int line, col;
			br_line_col(head, n, i, &line, &col);
			unsigned char c = (unsigned char)head[i];
			if (cause)
				*cause = br_xasprintf(c >= 0x20 && c < 0x7f ?
				    "%s:%d:%d: expected '{' or '[' (%s), got '%c'" :
				    "%s:%d:%d: expected '{' or '[' (%s), got byte 0x%02X",
				    path, line, col, expected, c);
			goto out;
		}
	}
	rc = 0;
out:
	free(head);
	return rc;
}

void
br_line_col(const char *data, size_t len, size_t off, int *line, int *col)
{
	int l = 1, c = 1;
	if (off > len)
		off = len;
	for (size_t i = 0; i < off; i++) {
		if (data[i] == '\n') {
			l++;
			c = 1;
		} else
			c++;
	}
	if (line)
		*line = l;
	if (col)
		*col = c;
}

/* br_json_key_where: see common.h. */
char *
br_json_key_where(const char *path, const char *text, size_t len, const char *key)
{
	if (text == NULL)
		return br_xstrdup(path);
	char *quoted = br_xasprintf("\"%s\"", key);
	size_t ql = strlen(quoted);
	const char *first = NULL, *hit = NULL;
	for (const char *p = text; p != NULL && hit == NULL; p++) {
		p = memmem(p, len - (size_t)(p - text), quoted, ql);
		if (p == NULL)
			break;
		if (first == NULL)
			first = p;
		const char *q = p + ql;
		while (q < text + len && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n'))
			q++;
		if (q < text + len && *q == ':')
			hit = p;
	}
	free(quoted);
	if (hit == NULL)
		hit = first;
	if (hit == NULL)
		return br_xstrdup(path);
	int line, col;
	br_line_col(text, len, (size_t)(hit - text), &line, &col);
	return br_xasprintf("%s:%d:%d", path, line, col);
}

int
br_sha256_file(const char *path, char hex[65], long long *size_bytes, char **cause)
{
	/* same rule as br_read_file: never hash /dev/zero or wait on a FIFO */
	FILE *fp;
	if (br_open_input(path, ~0ULL, &fp, NULL, cause) != 0)
		return -1;
	/* nettle's SHA-256 (SHA-NI when the CPU has it: ~1 GB/s, several
	 * times GLib's portable code on a 100 MB detailed result; OpenSSL is as
	 * fast but its library and provider start-up kept 3.4 MB resident) */
	struct sha256_ctx ck;
	sha256_init(&ck);
	/* per call, not static: inputs are hashed on several threads at once
	 * (src/ingest/run.c), and a shared buffer mixed their bytes */
	enum { HASH_BUF = 1 << 17 };   /* 128 KiB: as fast as 1 MiB, held on the hashing thread */
	unsigned char *buf = br_xmalloc(HASH_BUF);
	size_t got;
	long long total = 0;
	while ((got = fread(buf, 1, HASH_BUF, fp)) > 0) {
		sha256_update(&ck, got, buf);
		total += (long long)got;
	}
	free(buf);
	int bad = ferror(fp);
	fclose(fp);
	unsigned char md[SHA256_DIGEST_SIZE];
	sha256_digest(&ck, SHA256_DIGEST_SIZE, md);
	if (bad) {
		if (cause)
			*cause = br_xasprintf("%s: read error", path);
		return -1;
	}
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	if (size_bytes)
		*size_bytes = total;
	return 0;
}

char *
br_path_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	if (dl > 0 && dir[dl - 1] == '/')
		return br_xasprintf("%s%s", dir, name);
	return br_xasprintf("%s/%s", dir, name);
}

/* br_natural_cmp: see common.h. */
int
br_natural_cmp(const char *a, const char *b)
{
	const char *p = a, *q = b;
	while (*p && *q) {
		if (isdigit((unsigned char)*p) && isdigit((unsigned char)*q)) {
			while (*p == '0' && isdigit((unsigned char)p[1]))
				p++;
			while (*q == '0' && isdigit((unsigned char)q[1]))
				q++;
			size_t lp = 0, lq = 0;
			while (isdigit((unsigned char)p[lp]))
				lp++;
			while (isdigit((unsigned char)q[lq]))
				lq++;
			if (lp != lq)   /* more digits, a larger number */
				return lp < lq ? -1 : 1;
			int c = strncmp(p, q, lp);
			if (c != 0)
				return c;
			p += lp;
			q += lq;
			continue;
		}
		if (*p != *q)
			return (unsigned char)*p < (unsigned char)*q ? -1 : 1;
		p++;
		q++;
	}
	if (*p || *q)
		return *p ? 1 : -1;
	return strcmp(a, b);   /* "r01" and "r1": equal numbers, still two names */
}

/* br_basename: see common.h. */
const char *
br_basename(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int
br_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int
br_path_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int
br_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int
br_mkdir_p(const char *path, char **cause)
{
	char *p = br_xstrdup(path);
	size_t len = strlen(p);
	for (size_t i = 1; i <= len; i++) {
		if (p[i] == '/' || p[i] == '\0') {
			char saved = p[i];
			p[i] = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST) {
				if (cause)
					*cause = br_xasprintf("%s: cannot create directory: %s", p, strerror(errno));
				free(p);
				return -1;
			}
			p[i] = saved;
		}
	}
	free(p);
	if (!br_is_dir(path)) {
		if (cause)
			*cause = br_xasprintf("%s: exists and is not a directory", path);
		return -1;
	}
	return 0;
}

int
br_write_atomic(const char *path, const void *data, size_t len, char **cause)
{
	struct stat lst;
	if (lstat(path, &lst) == 0 && !S_ISREG(lst.st_mode)) {
		if (cause)
			*cause = br_xasprintf("%s: is %s, not a regular file; benchreport writes only regular "
			    "files (name a file path)", path, S_ISLNK(lst.st_mode) ? "a symbolic link" :
			    S_ISDIR(lst.st_mode) ? "a folder" : "a device, FIFO or socket");
		return -1;
	}
	char *tmp = br_xasprintf("%s.tmp.%ld", path, (long)getpid());
	FILE *fp = fopen(tmp, "wb");
	if (fp == NULL) {
		if (cause)
			*cause = br_xasprintf("%s: cannot write: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	int bad = fwrite(data, 1, len, fp) != len;
	bad |= fclose(fp) != 0;
	if (bad || rename(tmp, path) != 0) {
		if (cause)
			*cause = br_xasprintf("%s: cannot write: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

static int seal_broken(const char *path);

/* br_output_replaceable: see common.h. */
int
br_output_replaceable(const char *path, const char *signature, char **cause)
{
	struct stat lst;
	if (lstat(path, &lst) != 0)
		return 0;
	if (!S_ISREG(lst.st_mode)) {
		*cause = br_xasprintf("%s: exists and is not a regular file; choose another output file", path);
		return -1;
	}
	char head[4096];
	size_t n = 0;
	FILE *fp = fopen(path, "rb");
	if (fp != NULL) {
		n = fread(head, 1, sizeof head - 1, fp);
		fclose(fp);
	}
	head[n] = '\0';
	if (lst.st_size == 0)
		return 0;
	if (strstr(head, signature) != NULL) {
		if (seal_broken(path)) {
			*cause = br_xasprintf("%s: was written by benchreport but edited since (its seal no longer "
			    "matches); it is not replaced (choose another file, or remove it yourself)", path);
			return -1;
		}
		return 0;
	}
	*cause = br_xasprintf("%s: exists and was not written by benchreport as this kind of output; "
	    "it is not replaced (choose another file, or remove it yourself)", path);
	return -1;
}

#define SEAL_MARK "benchreport-seal sha256:"

/* br_output_seal: see common.h. */
char *
br_output_seal(const char *text, size_t len, const char *open, const char *close)
{
	char *hex = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)text, len);
	char *line = br_xasprintf("%s" SEAL_MARK "%s%s\n", open, hex, close);
	g_free(hex);
	return line;
}

/*
 * seal_broken: 1 when the file at path holds a seal line (br_output_seal)
 * whose hash differs from the SHA-256 of the bytes before that line, or
 * anything but the seal line follows it; 0 when it matches or the file
 * holds no seal (written before seals: the signature alone decides) or
 * cannot be read (the write reports that).
 */
static int
seal_broken(const char *path)
{
	gchar *data = NULL;
	gsize n = 0;
	if (!g_file_get_contents(path, &data, &n, NULL))
		return 0;
	int broken = 0;
	const char *m = g_strrstr_len(data, (gssize)n, SEAL_MARK);
	if (m != NULL) {
		const char *line = m;
		while (line > data && line[-1] != '\n')
			line--;
		const char *h = m + strlen(SEAL_MARK), *eol = memchr(m, '\n', (size_t)(data + n - m));
		char *want = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, (gsize)(line - data));
		broken = (size_t)(data + n - h) < 64 || memcmp(h, want, 64) != 0 ||
		    eol == NULL || eol + 1 != data + n;
		g_free(want);
	}
	g_free(data);
	return broken;
}

/* br_json_load_file: see common.h. */
json_t *
br_json_load_file(const char *path, size_t flags, char **cause)
{
	char *text = NULL;
	size_t len = 0;
	if (br_check_head(path, 1, "a JSON file", cause) != 0 || br_read_file(path, &text, &len, cause) != 0)
		return NULL;
	json_error_t err;
	json_t *root = json_loadb(text, len, flags, &err);
	free(text);
	if (root == NULL && cause) {
		if (err.line > 0)   /* jansson's column is 0 at a line's end (a value cut off there): 1-based */
			*cause = br_xasprintf("%s:%d:%d: %s", path, err.line, err.column > 0 ? err.column : 1, err.text);
		else
			*cause = br_xasprintf("%s: %s", path, err.text);
	}
	return root;
}
