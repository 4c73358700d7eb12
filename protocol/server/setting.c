#include <stdlib.h>
#include <string.h>
#include "linkguard-link-v1-protocol.h"
#include <core/config.h>
#include <protocol/server.h>

/*
 * zlg_link_connector_v1.setting (version 3): the settings a connector runs
 * with. The snapshot keeps a copy of what was sent, so that a batch carries
 * only the keys that changed.
 */

_Static_assert(ZLG_LINK_CONNECTOR_V1_SETTING_SOURCE_DEFAULT == (int)LG_SETTING_DEFAULT &&
	ZLG_LINK_CONNECTOR_V1_SETTING_SOURCE_FILE == (int)LG_SETTING_FILE &&
	ZLG_LINK_CONNECTOR_V1_SETTING_SOURCE_ENV == (int)LG_SETTING_ENV &&
	ZLG_LINK_CONNECTOR_V1_SETTING_SOURCE_OPTION == (int)LG_SETTING_OPTION,
	"setting source enums differ");

static bool same_origin(const char *a, const char *b) {
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static bool setting_changed(const struct lg_setting *sent, const struct lg_setting *now) {
	return sent == NULL || strcmp(sent->value, now->value) != 0 ||
		sent->source != now->source || !same_origin(sent->origin, now->origin);
}

bool link_settings_send(const struct link_snapshot *snapshot,
		const struct lg_connector *conn, struct wl_resource *resource, bool full) {
	if (wl_resource_get_version(resource) <
			ZLG_LINK_CONNECTOR_V1_SETTING_SINCE_VERSION || conn->settings == NULL) {
		return false;
	}
	bool sent = false;
	for (size_t i = 0; i < lg_setting_key_count(); i++) {
		const struct lg_setting *now = &conn->settings[i];
		if (full || setting_changed(snapshot->settings != NULL ?
				&snapshot->settings[i] : NULL, now)) {
			zlg_link_connector_v1_send_setting(resource, now->key, now->value,
				now->source, now->origin != NULL ? now->origin : "");
			sent = true;
		}
	}
	return sent;
}

void link_settings_finish(struct link_snapshot *snapshot) {
	settings_finish(snapshot->settings);
	free(snapshot->settings);
	snapshot->settings = NULL;
}

/* Out of memory the old copy stays, and differs: the next batch sends it again. */
void link_settings_update(struct link_snapshot *snapshot,
		const struct lg_connector *conn) {
	size_t n = lg_setting_key_count();
	if (conn->settings == NULL || (snapshot->settings != NULL &&
			settings_equal(snapshot->settings, conn->settings))) {
		return;
	}
	struct lg_setting *copy = calloc(n, sizeof(*copy));
	if (copy == NULL) {
		return;
	}
	for (size_t i = 0; i < n; i++) {
		copy[i] = conn->settings[i];
		copy[i].origin = NULL;
		if (conn->settings[i].origin != NULL &&
				(copy[i].origin = strdup(conn->settings[i].origin)) == NULL) {
			settings_finish(copy);
			free(copy);
			return;
		}
	}
	link_settings_finish(snapshot);
	snapshot->settings = copy;
}
