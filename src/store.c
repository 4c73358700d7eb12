#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linkguard/log.h>
#include <core/store.h>
#include "mutant.h"

#define HEADER_V1 "# linkguard known-bad modes v1"
#define HEADER_V2 "# linkguard known-bad modes v2"
#define HEADER_V3 "# linkguard known-bad modes v3"

/* A line has at most this many space-separated fields (v3: 7). */
#define MAX_FIELDS 7

void store_entries_init(struct store_entries *entries) {
	*entries = (struct store_entries){0};
}

void store_entries_finish(struct store_entries *entries) {
	free(entries->entries);
	store_entries_init(entries);
}

struct store_entry *store_entries_find(const struct store_entries *entries,
		const struct lg_mode *mode, const struct lg_link_params *link) {
	for (size_t i = 0; i < entries->len; i++) {
		const struct store_entry *entry = &entries->entries[i];
		if (lg_mode_equal(&entry->mode, mode) && (link == NULL ||
				(entry->link.rate_mbps == link->rate_mbps &&
				entry->link.lanes == link->lanes))) {
			return &entries->entries[i];
		}
	}
	return NULL;
}

struct store_entry *store_entries_get(struct store_entries *entries,
		const struct lg_mode *mode, const struct lg_link_params *link) {
	struct store_entry *entry = store_entries_find(entries, mode, link);
	if (entry != NULL) {
		return entry;
	}
	if (entries->len == entries->cap) {
		size_t cap = entries->cap > 0 ? entries->cap * 2 : 4;
		struct store_entry *grown =
			realloc(entries->entries, cap * sizeof(*grown));
		if (grown == NULL) {
			lg_log(LG_ERROR, "store: allocation failed");
			return NULL;
		}
		entries->entries = grown;
		entries->cap = cap;
	}
	entry = &entries->entries[entries->len++];
	*entry = (struct store_entry){ .mode = *mode, .link = *link };
	return entry;
}

void store_entries_remove(struct store_entries *entries, struct store_entry *entry) {
	size_t i = (size_t)(entry - entries->entries);
	memmove(entry, entry + 1, (entries->len - i - 1) * sizeof(*entry));
	entries->len--;
}

bool store_entry_start(struct store_entry *entry) {
	uint32_t skips = entry->failed_starts >= 2 ?
		entry->failed_starts - 1 + LG_MUTANT(STORE_SKIPS_ONE_MORE_START) : 0;
	if (skips > STORE_RETRY_WITHIN - 1) {
		skips = STORE_RETRY_WITHIN - 1;
	}
	if (skips > 0 && LG_MUTANT(KNOWN_BAD_NEVER_EXPIRES)) {
		skips = UINT32_MAX;
	}
	if (entry->skipped_starts >= skips) {
		return false;
	}
	entry->skipped_starts++;
	return true;
}

void store_entry_failed(struct store_entry *entry, int64_t now, bool first) {
	if ((first || entry->failed_starts == 0) && entry->failed_starts < UINT32_MAX) {
		entry->failed_starts++;
	}
	entry->last_failed = now;
	entry->skipped_starts = 0;
}

/* The whole file, NUL-terminated; NULL (logged) when it can't be had. */
static char *read_file(const char *path, int64_t *mtime) {
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		if (errno != ENOENT) {
			lg_log_errno(LG_ERROR, "store: cannot read %s, ignored", path);
		}
		return NULL;
	}
	struct stat st;
	const char *why = NULL;
	char *buf = NULL;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		why = "unreadable";
	} else if (st.st_size > STORE_MAX_BYTES) {
		why = "too large";
	} else if ((buf = malloc((size_t)st.st_size + 2)) == NULL) {
		why = "too large for memory";
	} else {
		// One byte more than stat said: a file that grew meanwhile (not
		// replaced: someone appends to it) is not read half.
		size_t len = fread(buf, 1, (size_t)st.st_size + 1, f);
		if (ferror(f) || len != (size_t)st.st_size) {
			why = ferror(f) ? "unreadable" : "changing";
		}
		buf[len] = '\0';
	}
	fclose(f);
	if (why != NULL) {
		lg_log(LG_ERROR, "store: %s is %s, ignored", path, why);
		free(buf);
		return NULL;
	}
	*mtime = st.st_mtime;
	return buf;
}

/* A decimal number without sign or spaces, at most max. */
static bool parse_count(const char *text, uint64_t max, uint64_t *value) {
	uint64_t v = 0;
	if (*text == '\0') {
		return false;
	}
	for (; *text != '\0'; text++) {
		if (*text < '0' || *text > '9' || v > (max - (uint64_t)(*text - '0')) / 10) {
			return false;
		}
		v = v * 10 + (uint64_t)(*text - '0');
	}
	*value = v;
	return true;
}

static bool parse_mode(const char *text, struct lg_mode *mode) {
	int32_t w, h, refresh;
	uint32_t clock;
	int end = 0;
	if (sscanf(text, "%" SCNd32 "x%" SCNd32 "@%" SCNd32 "/%" SCNu32 "%n",
			&w, &h, &refresh, &clock, &end) != 4 || text[end] != '\0' ||
			w <= 0 || h <= 0 || refresh <= 0) {
		return false;
	}
	*mode = (struct lg_mode){
		.width = w, .height = h, .refresh_mhz = refresh, .clock_khz = clock,
	};
	return true;
}

/* "5400x4": rate in Mbit/s per lane and lane count; "any": not known. */
static bool parse_link(const char *text, struct lg_link_params *link) {
	uint32_t rate, lanes;
	int end = 0;
	if (strcmp(text, "any") == 0) {
		*link = (struct lg_link_params){0};
		return true;
	}
	if (sscanf(text, "%" SCNu32 "x%" SCNu32 "%n", &rate, &lanes, &end) != 2 ||
			text[end] != '\0' || rate == 0 || (lanes != 1 && lanes != 2 && lanes != 4)) {
		return false;
	}
	*link = (struct lg_link_params){ .lanes = lanes, .rate_mbps = rate };
	return true;
}

/* One line of a file: its key and what it says of the mode. */
struct line {
	const char *connector, *identity;
	struct store_entry entry;
};

/*
 * A v1 line (connector, identity, mode) stands for one failure at the
 * file's modification time, the best guess of when it happened; a v2 line
 * has its three counts; a v3 line the link between the mode and the
 * counts. Before v3 the link is not known: the mode counts at any link.
 */
static bool parse_line(char **fields, size_t n, int version, int64_t mtime,
		struct line *line) {
	static const size_t n_fields[] = { 0, 3, 6, 7 };
	uint64_t failed = 1, last = (uint64_t)(mtime > 0 ? mtime : 0), skipped = 0;
	line->entry.link = (struct lg_link_params){0};
	if (n != n_fields[version] || !parse_mode(fields[2], &line->entry.mode) ||
			(version == 3 && !parse_link(fields[3], &line->entry.link))) {
		return false;
	}
	char **counts = fields + (version == 3 ? 4 : 3);
	if (version >= 2 && (!parse_count(counts[0], UINT32_MAX, &failed) ||
			failed == 0 || !parse_count(counts[1], INT64_MAX, &last) ||
			!parse_count(counts[2], UINT32_MAX, &skipped))) {
		return false;
	}
	line->connector = fields[0];
	line->identity = fields[1];
	line->entry.failed_starts = (uint32_t)failed;
	line->entry.last_failed = (int64_t)last;
	line->entry.skipped_starts = (uint32_t)skipped;
	return true;
}

/* The file's format version from its first line; 0 (logged) if unknown. */
static int file_version(const char *buf, const char *path) {
	static const char *const headers[] = { HEADER_V1, HEADER_V2, HEADER_V3 };
	size_t len = strcspn(buf, "\n");
	for (int v = 0; v < 3; v++) {
		if (len == strlen(headers[v]) && strncmp(buf, headers[v], len) == 0) {
			return v + 1;
		}
	}
	lg_log(LG_ERROR, "store: %s is not a known-bad file of a known version, "
		"ignored", path);
	return 0;
}

/*
 * Calls func for every well-formed line of buf, which is split in place;
 * a malformed one is logged and skipped.
 */
static void for_each_line(char *buf, const char *path, int64_t mtime,
		void (*func)(const struct line *line, void *data), void *data) {
	int version = file_version(buf, path);
	if (version == 0) {
		return;
	}
	size_t line_no = 0;
	for (char *text = buf, *next; text != NULL && *text != '\0'; text = next) {
		line_no++;
		next = strchr(text, '\n');
		if (next != NULL) {
			*next++ = '\0';
		}
		if (text[0] == '#' || text[0] == '\0') {
			continue;
		}
		char *fields[MAX_FIELDS + 1], *save = NULL;
		size_t n = 0;
		for (char *field = strtok_r(text, " ", &save); field != NULL &&
				n <= MAX_FIELDS; field = strtok_r(NULL, " ", &save)) {
			fields[n++] = field;
		}
		struct line line;
		if (!parse_line(fields, n, version, mtime, &line)) {
			lg_log(LG_ERROR, "store: %s:%zu: malformed, skipped", path, line_no);
			continue;
		}
		func(&line, data);
	}
}

static bool same_key(const struct line *line, const char *connector,
		const char *identity) {
	return strcmp(line->connector, connector) == 0 &&
		strcmp(line->identity, identity) == 0;
}

struct load {
	const char *connector, *identity;
	struct store_entries *entries;
};

static void load_line(const struct line *line, void *data) {
	struct load *load = data;
	const struct store_entry *read = &line->entry;
	if (!same_key(line, load->connector, load->identity) ||
			store_entries_find(load->entries, &read->mode, &read->link) != NULL) {
		return;
	}
	struct store_entry *entry = store_entries_get(load->entries, &read->mode,
		&read->link);
	if (entry != NULL) {
		*entry = line->entry;
	}
}

static char *store_path(const char *dir, const char *suffix) {
	size_t len = strlen(dir) + strlen("/known-bad") + strlen(suffix) + 1;
	char *path = malloc(len);
	if (path != NULL) {
		snprintf(path, len, "%s/known-bad%s", dir, suffix);
	}
	return path;
}

/* Keys end up space-separated on one line: nothing else may be in them. */
static bool valid_key(const char *key) {
	return key[0] != '\0' && strpbrk(key, " \t\r\n") == NULL;
}

bool store_load(const char *dir, const char *connector, const char *identity,
		struct store_entries *entries) {
	if (!valid_key(connector) || !valid_key(identity)) {
		return false;
	}
	char *path = store_path(dir, "");
	int64_t mtime = 0;
	char *buf = path != NULL ? read_file(path, &mtime) : NULL;
	if (buf != NULL) {
		struct load load = { connector, identity, entries };
		for_each_line(buf, path, mtime, load_line, &load);
	}
	free(buf);
	free(path);
	return true;
}

static void write_line(FILE *f, const char *connector, const char *identity,
		const struct store_entry *entry) {
	const struct lg_mode *m = &entry->mode;
	char link[32] = "any";
	if (entry->link.rate_mbps != 0) {
		snprintf(link, sizeof(link), "%" PRIu32 "x%" PRIu32,
			entry->link.rate_mbps, entry->link.lanes);
	}
	fprintf(f, "%s %s %" PRId32 "x%" PRId32 "@%" PRId32 "/%" PRIu32
		" %s %" PRIu32 " %" PRId64 " %" PRIu32 "\n", connector, identity,
		m->width, m->height, m->refresh_mhz, m->clock_khz, link,
		entry->failed_starts, entry->last_failed, entry->skipped_starts);
}

struct save {
	const char *connector, *identity;
	FILE *f;
};

/* Other keys' lines are carried over, in the current format. */
static void keep_line(const struct line *line, void *data) {
	struct save *save = data;
	if (!same_key(line, save->connector, save->identity)) {
		write_line(save->f, line->connector, line->identity, &line->entry);
	}
}

static bool write_all(FILE *f, char *old, int64_t mtime, const char *path,
		const char *connector, const char *identity,
		const struct store_entries *entries) {
	fputs(HEADER_V3 "\n", f);
	if (old != NULL) {
		struct save save = { connector, identity, f };
		for_each_line(old, path, mtime, keep_line, &save);
	}
	for (size_t i = 0; i < entries->len; i++) {
		write_line(f, connector, identity, &entries->entries[i]);
	}
	return fflush(f) == 0 && fsync(fileno(f)) == 0 && !ferror(f);
}

/*
 * Creates dir and every missing directory above it, 0700, leaving existing
 * ones as they are: the XDG base directory specification's rule for a
 * destination directory that does not exist yet ($XDG_STATE_HOME itself
 * may not, on a fresh account).
 */
static bool make_dirs(const char *dir) {
	char *path = strdup(dir);
	if (path == NULL) {
		lg_log(LG_ERROR, "store: allocation failed");
		return false;
	}
	bool ok = true;
	for (char *slash = path; ok && slash != NULL; ) {
		slash = strchr(slash + 1, '/');
		if (slash != NULL) {
			*slash = '\0';
		}
		if (mkdir(path, 0700) != 0 && errno != EEXIST) {
			lg_log_errno(LG_ERROR, "store: cannot create %s", path);
			ok = false;
		}
		if (slash != NULL) {
			*slash = '/';
		}
	}
	free(path);
	return ok;
}

bool store_save(const char *dir, const char *connector, const char *identity,
		const struct store_entries *entries) {
	if (!valid_key(connector) || !valid_key(identity) || !make_dirs(dir)) {
		return false;
	}
	char *path = store_path(dir, "");
	char *tmp = store_path(dir, ".XXXXXX");
	int fd = path != NULL && tmp != NULL ? mkstemp(tmp) : -1;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f == NULL) {
		lg_log_errno(LG_ERROR, "store: cannot write in %s", dir);
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(path);
		free(tmp);
		return false;
	}
	int64_t mtime = 0;
	char *old = read_file(path, &mtime);
	bool ok = write_all(f, old, mtime, path, connector, identity, entries);
	ok = fclose(f) == 0 && ok;
	ok = ok && rename(tmp, path) == 0;
	if (!ok) {
		lg_log_errno(LG_ERROR, "store: writing %s failed", path);
		unlink(tmp);
	}
	free(old);
	free(path);
	free(tmp);
	return ok;
}
