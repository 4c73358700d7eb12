/*
 * A connector's settings: linkguard(5) resolved for its device, its name
 * and the monitor on it, applied to its recovery, and logged when they change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <core/backend.h>
#include <core/config.h>
#include <core/configure.h>
#include <core/recovery.h>

#define DRM_MAJOR 226 // the kernel's, for every DRM device node

/*
 * "settings (monitor DEL-A0B1-123): policy refresh-first (file
 * /home/u/.config/linkguard/config:3), ...": the monitor is what a
 * [monitor ID] section names. The first time, only what is not a default.
 */
static void log_settings(struct lg_connector *conn, const char *monitor,
		const struct lg_setting *settings, bool first) {
	char line[1024];
	size_t len = 0;
	for (size_t i = 0; i < lg_setting_key_count(); i++) {
		const struct lg_setting *s = &settings[i];
		if (s->source == LG_SETTING_DEFAULT || len >= sizeof(line)) {
			continue;
		}
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s %s (%s%s%s)",
			len > 0 ? ", " : "", s->key, s->value,
			lg_setting_source_name(s->source), s->origin != NULL ? " " : "",
			s->origin != NULL ? s->origin : "");
	}
	if (len == 0 && first) {
		return;
	}
	lg_conn_log(conn, LG_INFO, "settings%s%s%s: %s", monitor != NULL ? " (monitor " : "",
		monitor != NULL ? monitor : "", monitor != NULL ? ")" : "",
		len > 0 ? line : "the defaults");
}

/*
 * What a [device NAME] section names: the kernel's name of the DRM device's
 * node, "card1" (a primary node's minor is its number). Not a DRM device
 * (the sim): none.
 */
static const char *device_name(const struct lg_connector *conn, char *buf,
		size_t size) {
	if (major(conn->device) != DRM_MAJOR) {
		return NULL;
	}
	snprintf(buf, size, "card%u", minor(conn->device));
	return buf;
}

bool connector_configure(struct lg_connector *conn, const char *monitor) {
	struct lg_manager *manager = conn->manager;
	struct lg_setting *settings = calloc(lg_setting_key_count(), sizeof(*settings));
	struct lg_options options;
	char device[32];
	struct config_target target = {
		.device = device_name(conn, device, sizeof(device)),
		.output = conn->name,
		.monitor = monitor,
	};
	if (settings == NULL || !config_resolve(manager->config, &manager->options,
			&target, &options, settings)) {
		settings_finish(settings);
		free(settings);
		lg_conn_log(conn, LG_ERROR, "allocation failed: settings unchanged");
		return false;
	}
	bool changed = conn->settings == NULL || !settings_equal(conn->settings, settings);
	if (changed) {
		log_settings(conn, monitor, settings, conn->settings == NULL);
	}
	settings_finish(conn->settings);
	free(conn->settings);
	conn->settings = settings;
	*conn->options = options;
	recovery_configure(conn);
	return changed;
}

bool lg_manager_reload_config(struct lg_manager *manager) {
	const char *path = config_path(manager->config);
	if (!config_reload(manager->config)) {
		return false;
	}
	lg_log(LG_INFO, "config: reloaded %s", path != NULL ? path : "(no file)");
	struct lg_connector *conn;
	wl_list_for_each(conn, &manager->connectors, link) {
		if (connector_configure(conn, connector_identity(conn))) {
			connector_changed(conn);
		}
	}
	return true;
}
