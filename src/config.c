/*
 * The configuration of linkguard(5): the file (parsed with libinih), the
 * LINKGUARD_* variables and the compositor's "key=value" options, kept as
 * validated entries and resolved per connector. Every problem is one log
 * line naming where it is; the rest applies.
 */
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linkguard/log.h>
#include <core/config.h>
#include <core/settings.h>

/* Larger is not a hand-written configuration file. */
#define CONFIG_MAX_SIZE (64 * 1024)

/* Where an entry applies, in rising precedence. */
enum scope {
	SCOPE_DEFAULTS, // the file, no section or [defaults]
	SCOPE_DEVICE, // [device NAME]
	SCOPE_OUTPUT, // [output NAME]
	SCOPE_MONITOR, // [monitor ID]
	SCOPE_ENV,
	SCOPE_OPTION,
	SCOPE_COUNT,
};

struct entry {
	enum scope scope;
	char *target; // the device, output or monitor; NULL otherwise
	const struct setting_key *key;
	char *value;
	char *origin; // "PATH:LINE", the variable, or NULL for an option
};

struct entries {
	struct entry *list;
	size_t len, cap;
};

struct lg_config {
	char *path; // NULL: no file
	bool read_env;
	struct entries file, env, options;
};

static void entries_finish(struct entries *entries) {
	for (size_t i = 0; i < entries->len; i++) {
		struct entry *entry = &entries->list[i];
		free(entry->target);
		free(entry->value);
		free(entry->origin);
	}
	free(entries->list);
	*entries = (struct entries){0};
}

static char *strdup_or_null(const char *s) {
	return s != NULL ? strdup(s) : NULL;
}

static bool entries_add(struct entries *entries, enum scope scope,
		const char *target, const struct setting_key *key, const char *value,
		const char *origin) {
	if (entries->len == entries->cap) {
		size_t cap = entries->cap > 0 ? entries->cap * 2 : 8;
		struct entry *list = realloc(entries->list, cap * sizeof(*list));
		if (list == NULL) {
			return false;
		}
		entries->list = list;
		entries->cap = cap;
	}
	struct entry entry = {
		.scope = scope,
		.target = strdup_or_null(target),
		.key = key,
		.value = strdup(value),
		.origin = strdup_or_null(origin),
	};
	if ((target != NULL && entry.target == NULL) || entry.value == NULL ||
			(origin != NULL && entry.origin == NULL)) {
		free(entry.target);
		free(entry.value);
		free(entry.origin);
		return false;
	}
	entries->list[entries->len++] = entry;
	return true;
}

/* Validates one key = value; logs what is wrong with it, as where says. */
static bool entry_valid(const char *where, const char *name, const char *value,
		const struct setting_key **key) {
	*key = setting_key_find(name);
	if (*key == NULL) {
		lg_log(LG_ERROR, "config: %s: unknown key '%s': ignored", where, name);
		return false;
	}
	struct lg_options scratch;
	lg_options_init(&scratch);
	if (!setting_parse(*key, value, &scratch)) {
		lg_log(LG_ERROR, "config: %s: %s = '%s' is not %s: ignored", where,
			name, value, (*key)->type->expected);
		return false;
	}
	return true;
}

/* The file as inih reads it: whole lines from memory, counted. */
struct file_parse {
	const char *path;
	const char *pos, *end;
	int line;
	struct entries *entries;
	char *bad_section; // the last unknown section logged
	bool failed; // out of memory
};

static char *read_line(char *str, int num, void *stream) {
	struct file_parse *parse = stream;
	if (parse->pos >= parse->end) {
		return NULL;
	}
	const char *newline = memchr(parse->pos, '\n', (size_t)(parse->end - parse->pos));
	const char *next = newline != NULL ? newline + 1 : parse->end;
	size_t len = (size_t)(next - parse->pos);
	parse->line++;
	if (len + 1 > (size_t)num) {
		// inih would read the rest as lines of their own.
		lg_log(LG_ERROR, "config: %s:%d: line longer than %d bytes: ignored",
			parse->path, parse->line, num - 2);
		len = 0;
	}
	memcpy(str, parse->pos, len);
	str[len] = '\0';
	parse->pos = next;
	return str;
}

static bool section_scope(const char *section, enum scope *scope,
		const char **target) {
	*target = NULL;
	if (section[0] == '\0' || strcmp(section, "defaults") == 0) {
		*scope = SCOPE_DEFAULTS;
		return true;
	}
	static const struct {
		const char *prefix;
		enum scope scope;
	} kinds[] = {
		{ "device ", SCOPE_DEVICE },
		{ "output ", SCOPE_OUTPUT },
		{ "monitor ", SCOPE_MONITOR },
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t len = strlen(kinds[i].prefix);
		if (strncmp(section, kinds[i].prefix, len) == 0) {
			*target = section + len + strspn(section + len, " \t");
			*scope = kinds[i].scope;
			return (*target)[0] != '\0';
		}
	}
	return false;
}

static int handle_key(void *user, const char *section, const char *name,
		const char *value) {
	struct file_parse *parse = user;
	char where[4096 + 32];
	snprintf(where, sizeof(where), "%s:%d", parse->path, parse->line);
	enum scope scope;
	const char *target;
	if (!section_scope(section, &scope, &target)) {
		if (parse->bad_section == NULL || strcmp(parse->bad_section, section) != 0) {
			lg_log(LG_ERROR, "config: %s: unknown section [%s] (defaults, "
				"device NAME, output NAME or monitor ID): its keys are "
				"ignored", where, section);
			free(parse->bad_section);
			parse->bad_section = strdup(section);
		}
		return 1;
	}
	const struct setting_key *key;
	if (entry_valid(where, name, value, &key) &&
			!entries_add(parse->entries, scope, target, key, value, where)) {
		parse->failed = true;
	}
	return 1; // the rest of the file still applies
}

/* Reads the whole file: a missing one is no error, an unreadable one is. */
static bool read_file(const char *path, char **text, size_t *len) {
	*text = NULL;
	*len = 0;
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		if (errno == ENOENT) {
			lg_log(LG_DEBUG, "config: no file %s: defaults apply", path);
			return true;
		}
		lg_log_errno(LG_ERROR, "config: cannot open %s", path);
		return false;
	}
	char *buf = malloc(CONFIG_MAX_SIZE + 1);
	size_t n = buf != NULL ? fread(buf, 1, CONFIG_MAX_SIZE + 1, f) : 0;
	bool ok = buf != NULL && !ferror(f);
	if (!ok) {
		lg_log_errno(LG_ERROR, "config: cannot read %s", path);
	} else if (n > CONFIG_MAX_SIZE) {
		lg_log(LG_ERROR, "config: %s: larger than %d KiB: not a configuration "
			"file, ignored", path, CONFIG_MAX_SIZE / 1024);
		ok = false;
	}
	fclose(f);
	if (!ok) {
		free(buf);
		return false;
	}
	*text = buf;
	*len = n;
	return true;
}

/* A NUL byte: a binary or damaged file, which no line of it describes. */
static bool text_valid(const char *path, const char *text, size_t len) {
	const char *nul = memchr(text, '\0', len);
	if (nul == NULL) {
		return true;
	}
	int line = 1;
	for (const char *p = text; p < nul; p++) {
		line += *p == '\n';
	}
	lg_log(LG_ERROR, "config: %s:%d: a NUL byte: not a text file, ignored",
		path, line);
	return false;
}

/* Parses text into entries; syntax errors are logged, the rest applies. */
static bool parse_file(const char *path, const char *text, size_t len,
		struct entries *entries) {
	struct file_parse parse = {
		.path = path,
		.pos = text,
		.end = text + len,
		.entries = entries,
	};
	int error = ini_parse_stream(read_line, &parse, handle_key, &parse);
	if (error > 0) {
		// inih reports the first line it could not read; it reads on.
		lg_log(LG_ERROR, "config: %s:%d: neither [section] nor key = value: "
			"ignored", path, error);
	}
	free(parse.bad_section);
	if (parse.failed || error < 0) {
		lg_log(LG_ERROR, "config: %s: out of memory", path);
		return false;
	}
	return true;
}

/* Into entries; false when the file exists and cannot be used. */
static bool load_file(const char *path, struct entries *entries) {
	char *text;
	size_t len;
	if (!read_file(path, &text, &len)) {
		return false;
	}
	bool ok = text == NULL || (text_valid(path, text, len) &&
		parse_file(path, text, len, entries));
	free(text);
	if (ok && text != NULL) {
		lg_log(LG_DEBUG, "config: read %s: %zu settings", path, entries->len);
	}
	return ok;
}

static void load_env(struct entries *entries) {
	for (size_t i = 0; i < lg_setting_key_count(); i++) {
		const struct setting_key *key = setting_key_at(i);
		char name[64];
		setting_env_name(key, name, sizeof(name));
		const char *value = getenv(name);
		const struct setting_key *valid;
		if (value == NULL || value[0] == '\0' ||
				!entry_valid(name, key->name, value, &valid)) {
			continue;
		}
		if (!entries_add(entries, SCOPE_ENV, NULL, key, value, name)) {
			lg_log(LG_ERROR, "config: %s: out of memory", name);
		}
	}
}

static void load_options(struct entries *entries, const char *const *settings) {
	for (size_t i = 0; settings != NULL && settings[i] != NULL; i++) {
		const char *eq = strchr(settings[i], '=');
		char name[64];
		const struct setting_key *key;
		if (eq == NULL || (size_t)(eq - settings[i]) >= sizeof(name)) {
			lg_log(LG_ERROR, "config: option '%s' is not key=value: ignored",
				settings[i]);
			continue;
		}
		memcpy(name, settings[i], (size_t)(eq - settings[i]));
		name[eq - settings[i]] = '\0';
		if (entry_valid("option", name, eq + 1, &key) &&
				!entries_add(entries, SCOPE_OPTION, NULL, key, eq + 1, NULL)) {
			lg_log(LG_ERROR, "config: option %s: out of memory", name);
		}
	}
}

struct lg_config *config_create(const struct lg_options *options) {
	struct lg_config *config = calloc(1, sizeof(*config));
	if (config == NULL) {
		return NULL;
	}
	config->read_env = options->read_config;
	if (options->read_config) {
		config->path = options->config_path != NULL ?
			strdup(options->config_path) : lg_default_config_path();
		if (config->path != NULL) {
			load_file(config->path, &config->file);
		}
		load_env(&config->env);
	}
	load_options(&config->options, options->settings);
	return config;
}

void config_destroy(struct lg_config *config) {
	if (config == NULL) {
		return;
	}
	entries_finish(&config->file);
	entries_finish(&config->env);
	entries_finish(&config->options);
	free(config->path);
	free(config);
}

bool config_reload(struct lg_config *config) {
	struct entries file = {0};
	if (config->path != NULL && !load_file(config->path, &file)) {
		entries_finish(&file);
		return false;
	}
	entries_finish(&config->file);
	config->file = file;
	if (config->read_env) {
		entries_finish(&config->env);
		load_env(&config->env);
	}
	return true;
}

const char *config_path(const struct lg_config *config) {
	return config->path;
}

/* What the connector is called in a section of scope, or NULL. */
static const char *scope_target(const struct config_target *target,
		enum scope scope) {
	switch (scope) {
	case SCOPE_DEVICE:
		return target->device;
	case SCOPE_OUTPUT:
		return target->output;
	case SCOPE_MONITOR:
		return target->monitor;
	default:
		return NULL;
	}
}

static bool entry_applies(const struct entry *entry, enum scope scope,
		const struct config_target *target) {
	if (entry->scope != scope) {
		return false;
	}
	if (entry->target == NULL) {
		return true; // every connector
	}
	const char *name = scope_target(target, scope);
	return name != NULL && strcmp(entry->target, name) == 0;
}

static enum lg_setting_source scope_source(enum scope scope) {
	switch (scope) {
	case SCOPE_ENV:
		return LG_SETTING_ENV;
	case SCOPE_OPTION:
		return LG_SETTING_OPTION;
	default:
		return LG_SETTING_FILE;
	}
}

/* The entry that sets key for this connector: the last of the strongest scope. */
static const struct entry *winner(const struct lg_config *config,
		const struct setting_key *key, const struct config_target *target) {
	const struct entries *lists[] = { &config->file, &config->env, &config->options };
	const struct entry *found = NULL;
	for (enum scope scope = 0; scope < SCOPE_COUNT; scope++) {
		for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
			for (size_t i = 0; i < lists[l]->len; i++) {
				const struct entry *entry = &lists[l]->list[i];
				if (entry->key == key &&
						entry_applies(entry, scope, target)) {
					found = entry;
				}
			}
		}
	}
	return found;
}

bool config_resolve(const struct lg_config *config,
		const struct lg_options *defaults, const struct config_target *target,
		struct lg_options *options, struct lg_setting *settings) {
	*options = *defaults;
	bool ok = true;
	for (size_t i = 0; i < lg_setting_key_count(); i++) {
		const struct setting_key *key = setting_key_at(i);
		const struct entry *entry = winner(config, key, target);
		// Entries were validated when read.
		if (entry != NULL && !setting_parse(key, entry->value, options)) {
			entry = NULL;
		}
		struct lg_setting *setting = &settings[i];
		*setting = (struct lg_setting){
			.key = key->name,
			.source = entry != NULL ? scope_source(entry->scope) :
				LG_SETTING_DEFAULT,
		};
		setting_format(key, options, setting->value, sizeof(setting->value));
		if (entry != NULL && entry->origin != NULL) {
			setting->origin = strdup(entry->origin);
			ok = ok && setting->origin != NULL;
		}
	}
	return ok;
}

void settings_finish(struct lg_setting *settings) {
	for (size_t i = 0; settings != NULL && i < lg_setting_key_count(); i++) {
		free(settings[i].origin);
		settings[i].origin = NULL;
	}
}

static bool same_string(const char *a, const char *b) {
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

bool settings_equal(const struct lg_setting *a, const struct lg_setting *b) {
	for (size_t i = 0; i < lg_setting_key_count(); i++) {
		if (strcmp(a[i].value, b[i].value) != 0 || a[i].source != b[i].source ||
				!same_string(a[i].origin, b[i].origin)) {
			return false;
		}
	}
	return true;
}
