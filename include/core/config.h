#ifndef CORE_CONFIG_H
#define CORE_CONFIG_H

/*
 * linkguard(5) inside the library: the key table (settings.c) and the
 * configuration as read from the file, the environment and the
 * compositor's options (config.c), resolved per connector.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linkguard/config.h>
#include <linkguard/manager.h>

struct setting_key;

/* How one kind of value reads and prints. */
struct setting_type {
	bool (*parse)(const struct setting_key *key, const char *text, void *field);
	void (*format)(const void *field, char *buf, size_t size);
	const char *expected; // for the log: "a refresh rate in Hz"
};

/* A key of linkguard(5) and the lg_options field it sets. */
struct setting_key {
	const char *name;
	const struct setting_type *type;
	size_t offset; // into struct lg_options
	uint32_t min, max; // counts and durations (ms): the accepted range
};

const struct setting_key *setting_key_find(const char *name);
/* The key's index in the table: its place in lg_connector.settings. */
size_t setting_key_index(const struct setting_key *key);
const struct setting_key *setting_key_at(size_t index);
/* Parses text into the key's field of options; false (options untouched) if invalid. */
bool setting_parse(const struct setting_key *key, const char *text,
	struct lg_options *options);
void setting_format(const struct setting_key *key, const struct lg_options *options,
	char *buf, size_t size);
/* "LINKGUARD_MIN_REFRESH" for min-refresh, into buf; returns buf. */
const char *setting_env_name(const struct setting_key *key, char *buf, size_t size);

struct lg_config;

/*
 * Reads the file (options->config_path, else lg_default_config_path()) and
 * the LINKGUARD_* variables unless options->read_config is false, and takes
 * options->settings. Problems are logged; NULL only when out of memory.
 */
struct lg_config *config_create(const struct lg_options *options);
void config_destroy(struct lg_config *config);
/*
 * Reads the file and the variables again. False when the file exists but
 * cannot be read or is not a text file (logged): the last good file stays.
 */
bool config_reload(struct lg_config *config);
/* The file read, or NULL. */
const char *config_path(const struct lg_config *config);

/*
 * What a connector runs with: defaults, then the file's defaults, its
 * [output NAME], its [monitor ID] (monitor may be NULL), the environment,
 * the options. settings has lg_setting_key_count() entries; their origins
 * are malloc'ed (settings_finish()). False when out of memory.
 */
bool config_resolve(const struct lg_config *config,
	const struct lg_options *defaults, const char *output, const char *monitor,
	struct lg_options *options, struct lg_setting *settings);
void settings_finish(struct lg_setting *settings);
/* Same values, sources and origins. */
bool settings_equal(const struct lg_setting *a, const struct lg_setting *b);

#endif
