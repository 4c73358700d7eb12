#ifndef LINKGUARD_CONFIG_H
#define LINKGUARD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * linkguard's settings (linkguard(5)): the keys of the configuration file,
 * the LINKGUARD_* variables and a compositor's command-line options. Each
 * connector runs with its own resolution of them; see lg_connector.settings.
 */

/* Where a connector's setting came from, weakest first. */
enum lg_setting_source {
	LG_SETTING_DEFAULT, // the compositor's lg_options
	LG_SETTING_FILE, // the configuration file
	LG_SETTING_ENV, // a LINKGUARD_* variable
	LG_SETTING_OPTION, // lg_options.settings: the compositor's command line
};

/* One key as a connector runs with it. */
struct lg_setting {
	const char *key; // "min-refresh"
	char value[32]; // canonical: "120", "1920x1080", "refresh-first", "on"
	enum lg_setting_source source;
	char *origin; // "PATH:LINE", "LINKGUARD_MIN_REFRESH"; NULL otherwise
};

/** The keys, in linkguard(5)'s order: index < lg_setting_key_count(). */
size_t lg_setting_key_count(void);
const char *lg_setting_key_name(size_t index);
/**
 * Whether value is valid for key; when it is not, what the key takes ("a
 * refresh rate in Hz") in *expected, for a compositor's usage message.
 */
bool lg_setting_check(const char *key, const char *value, const char **expected);
const char *lg_setting_source_name(enum lg_setting_source source);

/**
 * $LINKGUARD_CONFIG, else $XDG_CONFIG_HOME/linkguard/config, else
 * $HOME/.config/linkguard/config (malloc'ed); NULL when none is set.
 */
char *lg_default_config_path(void);

#endif
