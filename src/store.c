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

#define HEADER "# linkguard known-bad modes v1\n"

/* The whole file, NUL-terminated; NULL (logged) when it can't be had. */
static char *read_file(const char *path) {
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		if (errno != ENOENT) {
			lg_log_errno(LG_ERROR, "store: cannot read %s, ignored", path);
		}
		return NULL;
	}
	char *buf = malloc(STORE_MAX_BYTES + 1);
	size_t len = buf != NULL ? fread(buf, 1, STORE_MAX_BYTES + 1, f) : 0;
	bool failed = buf == NULL || ferror(f);
	fclose(f);
	if (failed || len > STORE_MAX_BYTES) {
		lg_log(LG_ERROR, "store: %s is %s, ignored", path,
			failed ? "unreadable" : "too large");
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
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

/*
 * Calls func for every well-formed line: connector, identity and the mode
 * text. Lines are split in place.
 */
static void for_each_entry(char *buf, const char *path,
		void (*func)(const char *connector, const char *identity,
			const char *mode, void *data), void *data) {
	size_t line_no = 0;
	for (char *line = buf, *next; line != NULL && *line != '\0'; line = next) {
		line_no++;
		next = strchr(line, '\n');
		if (next != NULL) {
			*next++ = '\0';
		}
		if (line[0] == '#' || line[0] == '\0') {
			continue;
		}
		char *save = NULL;
		char *connector = strtok_r(line, " ", &save);
		char *identity = strtok_r(NULL, " ", &save);
		char *mode = strtok_r(NULL, " ", &save);
		if (mode == NULL || strtok_r(NULL, " ", &save) != NULL) {
			lg_log(LG_ERROR, "store: %s:%zu: malformed, skipped", path, line_no);
			continue;
		}
		func(connector, identity, mode, data);
	}
}

struct load {
	const char *connector, *identity, *path;
	struct lg_mode_list *modes;
};

static void load_entry(const char *connector, const char *identity,
		const char *text, void *data) {
	struct load *load = data;
	struct lg_mode mode;
	if (strcmp(connector, load->connector) != 0 ||
			strcmp(identity, load->identity) != 0) {
		return;
	}
	if (!parse_mode(text, &mode)) {
		lg_log(LG_ERROR, "store: %s: mode '%s' malformed, skipped",
			load->path, text);
		return;
	}
	if (lg_mode_list_find(load->modes, &mode) < 0) {
		lg_mode_list_append(load->modes, &mode);
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
		struct lg_mode_list *modes) {
	if (!valid_key(connector) || !valid_key(identity)) {
		return false;
	}
	char *path = store_path(dir, "");
	char *buf = path != NULL ? read_file(path) : NULL;
	if (buf != NULL) {
		struct load load = { connector, identity, path, modes };
		for_each_entry(buf, path, load_entry, &load);
	}
	free(buf);
	free(path);
	return true;
}

struct save {
	const char *connector, *identity;
	FILE *f;
};

/* Other keys' lines are carried over as they were. */
static void keep_entry(const char *connector, const char *identity,
		const char *mode, void *data) {
	struct save *save = data;
	if (strcmp(connector, save->connector) != 0 ||
			strcmp(identity, save->identity) != 0) {
		fprintf(save->f, "%s %s %s\n", connector, identity, mode);
	}
}

static bool write_all(FILE *f, char *old, const char *path, const char *connector,
		const char *identity, const struct lg_mode_list *modes) {
	fputs(HEADER, f);
	if (old != NULL) {
		struct save save = { connector, identity, f };
		for_each_entry(old, path, keep_entry, &save);
	}
	for (size_t i = 0; i < modes->len; i++) {
		const struct lg_mode *m = &modes->modes[i];
		fprintf(f, "%s %s %" PRId32 "x%" PRId32 "@%" PRId32 "/%" PRIu32 "\n",
			connector, identity, m->width, m->height, m->refresh_mhz,
			m->clock_khz);
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
		const struct lg_mode_list *modes) {
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
	char *old = read_file(path);
	bool ok = write_all(f, old, path, connector, identity, modes);
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
