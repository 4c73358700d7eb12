#ifndef CORE_SETTINGS_H
#define CORE_SETTINGS_H

/* src/settings.c: linkguard(5)'s key table, how each key reads and prints. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linkguard/config.h>
#include <linkguard/manager.h> // struct lg_options

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

#endif
