#ifndef CORE_CONFIG_H
#define CORE_CONFIG_H

/*
 * linkguard(5) inside the library (config.c): the configuration as read
 * from the file, the environment and the compositor's options, resolved per
 * connector. The keys are core/settings.h's.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linkguard/config.h>
#include <linkguard/manager.h>

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

/* What a connector's sections name; each may be NULL. */
struct config_target {
	const char *device; // its DRM device, "card1"
	const char *output; // the connector, "DP-1"
	const char *monitor; // the monitor's identity
};

/*
 * What a connector runs with: defaults, then the file's defaults, its
 * [device NAME], its [output NAME], its [monitor ID], the environment,
 * the options. settings has lg_setting_key_count() entries; their origins
 * are malloc'ed (settings_finish()). False when out of memory.
 */
bool config_resolve(const struct lg_config *config,
	const struct lg_options *defaults, const struct config_target *target,
	struct lg_options *options, struct lg_setting *settings);
void settings_finish(struct lg_setting *settings);
/* Same values, sources and origins. */
bool settings_equal(const struct lg_setting *a, const struct lg_setting *b);

#endif
