/*
 * libFuzzer target: configuration files of linkguard(5) as they could be
 * found on disk (binary, huge lines, endless sections, stray brackets,
 * values at every edge) through libinih and the key table, then resolved
 * for a few connectors and monitors. Checks that whatever a connector
 * resolves to is a valid, canonical value with a truthful source.
 */
#define _GNU_SOURCE // memfd_create
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linkguard/log.h>
#include <core/config.h>
#include <core/settings.h>

static void check_settings(const struct lg_options *options,
		const struct lg_setting *settings) {
	for (size_t i = 0; i < lg_setting_key_count(); i++) {
		const struct setting_key *key = setting_key_at(i);
		const struct lg_setting *s = &settings[i];
		assert(strcmp(s->key, key->name) == 0);
		// The value printed is the value in effect, and reads back as itself.
		char buf[32];
		setting_format(key, options, buf, sizeof(buf));
		assert(strcmp(buf, s->value) == 0);
		struct lg_options copy;
		lg_options_init(&copy);
		assert(setting_parse(key, s->value, &copy));
		setting_format(key, &copy, buf, sizeof(buf));
		assert(strcmp(buf, s->value) == 0);
		// A setting from the file names its line; a default has no origin.
		assert(s->source != LG_SETTING_FILE ||
			(s->origin != NULL && strstr(s->origin, "/proc/self/fd/") != NULL));
		assert(s->source != LG_SETTING_DEFAULT || s->origin == NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	static bool quiet;
	if (!quiet) {
		lg_log_init(LG_SILENT, NULL);
		quiet = true;
	}
	int fd = memfd_create("linkguard-config", 0);
	assert(fd >= 0);
	assert(write(fd, data, size) == (ssize_t)size);
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	struct lg_options defaults;
	lg_options_init(&defaults);
	defaults.config_path = path;
	struct lg_config *config = config_create(&defaults);
	assert(config != NULL);
	static const char *const devices[] = { "card0", "card1", NULL };
	static const char *const outputs[] = { "DP-1", "HDMI-A-1", "", NULL };
	static const char *const monitors[] = { "DEL-A0B1-123", "x", NULL };
	struct lg_setting settings[32];
	assert(lg_setting_key_count() <= 32);
	for (size_t d = 0; d < sizeof(devices) / sizeof(devices[0]); d++) {
		for (size_t o = 0; o < sizeof(outputs) / sizeof(outputs[0]); o++) {
			for (size_t m = 0; m < sizeof(monitors) / sizeof(monitors[0]); m++) {
				const struct config_target target = {
					.device = devices[d],
					.output = outputs[o],
					.monitor = monitors[m],
				};
				struct lg_options options;
				assert(config_resolve(config, &defaults, &target, &options,
					settings));
				check_settings(&options, settings);
				settings_finish(settings);
			}
		}
	}
	// The same bytes again: a reload succeeds exactly when the load read them.
	config_reload(config);
	config_destroy(config);
	close(fd);
	return 0;
}
