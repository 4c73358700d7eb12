/*
 * The connection to the compositor and what it says: linkguard-link-v1's
 * events, gathered per connector and applied batch by batch, on done, as
 * the protocol asks.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>
#include <wctype.h>
#include <wayland-client.h>
#include "linkguard-link-v1-client-protocol.h"
#include "linkctl.h"

volatile sig_atomic_t linkctl_interrupted;

bool mode_is_none(const struct mode *mode) {
	return mode->width == 0 && mode->height == 0 && mode->refresh_mhz == 0;
}

bool mode_equal(const struct mode *a, const struct mode *b) {
	return a->width == b->width && a->height == b->height &&
		a->refresh_mhz == b->refresh_mhz;
}

bool mode_is_requested(const struct link_state *state, const struct mode *mode) {
	return mode_equal(mode, &state->requested);
}

/*
 * realloc and strdup that record a failure in ctl instead of exiting: every
 * loop stops on ctl->out_of_memory, so main still frees and disconnects.
 */
void *ctl_realloc(struct linkctl *ctl, void *ptr, size_t size) {
	void *new = realloc(ptr, size);
	if (new == NULL && size > 0) {
		ctl->out_of_memory = true;
	}
	return new;
}

static char *ctl_strdup(struct linkctl *ctl, const char *s) {
	char *copy = strdup(s);
	if (copy == NULL) {
		ctl->out_of_memory = true;
	}
	return copy;
}

/* The length of the UTF-8 character at s, or 0 if it is not one to print. */
static size_t printable_char(locale_t utf8, const char *s, size_t len) {
	if (utf8 == (locale_t)0) {
		// No C.UTF-8 in this C library: printable ASCII only.
		return *s >= 0x20 && *s < 0x7f ? 1 : 0;
	}
	locale_t previous = uselocale(utf8);
	mbstate_t mbs = {0};
	wchar_t wc;
	size_t n = mbrtowc(&wc, s, len, &mbs);
	bool ok = n != (size_t)-1 && n != (size_t)-2 && n != 0 &&
		!iswcntrl((wint_t)wc);
	uselocale(previous);
	return ok ? n : 0;
}

/*
 * The protocol's strings are bytes (libwayland checks no encoding), and a
 * monitor's name comes from its EDID. Whatever is not UTF-8, and control
 * characters (a terminal would act on them), become U+FFFD. Decoded by the
 * C library in its C.UTF-8 locale, whatever the user's locale is.
 */
char *ctl_strdup_text(struct linkctl *ctl, const char *s) {
	static const char replacement[] = "\xef\xbf\xbd";
	size_t len = strlen(s);
	char *out = ctl_realloc(ctl, NULL, len * (sizeof(replacement) - 1) + 1);
	if (out == NULL) {
		return NULL;
	}
	size_t used = 0;
	while (len > 0) {
		size_t n = printable_char(ctl->utf8, s, len);
		if (n == 0) {
			memcpy(out + used, replacement, sizeof(replacement) - 1);
			used += sizeof(replacement) - 1;
			n = 1;
		} else {
			memcpy(out + used, s, n);
			used += n;
		}
		s += n;
		len -= n;
	}
	out[used] = '\0';
	return out;
}

static void set_mode(struct mode *mode, int32_t width, int32_t height,
		int32_t refresh) {
	*mode = (struct mode){ .width = width, .height = height,
		.refresh_mhz = refresh };
}

static void handle_name(void *data, struct zlg_link_connector_v1 *proxy,
		const char *name) {
	struct connector *conn = data;
	free(conn->name);
	conn->name = ctl_strdup_text(conn->ctl, name);
}

static void handle_description(void *data, struct zlg_link_connector_v1 *proxy,
		const char *description) {
	struct connector *conn = data;
	free(conn->pending.description);
	conn->pending.description = ctl_strdup_text(conn->ctl, description);
	conn->changes |= CHANGE_DESCRIPTION;
}

static void handle_connection(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t connection) {
	struct connector *conn = data;
	conn->pending.connected =
		connection == ZLG_LINK_CONNECTOR_V1_CONNECTION_CONNECTED;
	conn->changes |= CHANGE_CONNECTION;
}

static void handle_link_status(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t link_status) {
	struct connector *conn = data;
	conn->pending.link_status = link_status;
	conn->changes |= CHANGE_LINK_STATUS;
}

static void handle_state(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t state) {
	struct connector *conn = data;
	conn->pending.state = state;
	conn->changes |= CHANGE_STATE;
}

static void handle_requested_mode(void *data, struct zlg_link_connector_v1 *proxy,
		int32_t width, int32_t height, int32_t refresh) {
	struct connector *conn = data;
	set_mode(&conn->pending.requested, width, height, refresh);
	conn->changes |= CHANGE_REQUESTED;
}

static void handle_current_mode(void *data, struct zlg_link_connector_v1 *proxy,
		int32_t width, int32_t height, int32_t refresh) {
	struct connector *conn = data;
	set_mode(&conn->pending.current, width, height, refresh);
	conn->changes |= CHANGE_CURRENT;
}

static void handle_allowed_modes_reset(void *data,
		struct zlg_link_connector_v1 *proxy) {
	struct connector *conn = data;
	conn->pending.n_modes = 0;
	conn->changes |= CHANGE_MODES;
}

static void handle_allowed_mode(void *data, struct zlg_link_connector_v1 *proxy,
		int32_t width, int32_t height, int32_t refresh, uint32_t flags) {
	struct connector *conn = data;
	struct link_state *state = &conn->pending;
	struct mode *modes = ctl_realloc(conn->ctl, state->modes,
		(state->n_modes + 1) * sizeof(*state->modes));
	if (modes == NULL) {
		return;
	}
	state->modes = modes;
	state->modes[state->n_modes++] = (struct mode){ .width = width,
		.height = height, .refresh_mhz = refresh, .flags = flags };
}

static void handle_link_params(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t lanes, uint32_t rate) {
	struct connector *conn = data;
	conn->pending.lanes = lanes;
	conn->pending.rate_mbps = rate;
	conn->changes |= CHANGE_LINK;
}

static void handle_fallback(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t reason, int32_t from_width, int32_t from_height,
		int32_t from_refresh, int32_t to_width, int32_t to_height,
		int32_t to_refresh, uint32_t tv_sec_hi, uint32_t tv_sec_lo,
		uint32_t tv_nsec) {
	struct connector *conn = data;
	struct fallback *fallback = &conn->pending.fallback;
	fallback->reason = reason;
	set_mode(&fallback->from, from_width, from_height, from_refresh);
	set_mode(&fallback->to, to_width, to_height, to_refresh);
	fallback->sec = ((uint64_t)tv_sec_hi << 32) | tv_sec_lo;
	fallback->nsec = tv_nsec;
	conn->pending.has_fallback = true;
	conn->changes |= CHANGE_FALLBACK;
}

static void handle_connector_finished(void *data,
		struct zlg_link_connector_v1 *proxy) {
	struct connector *conn = data;
	conn->finished = true;
}

static void handle_skipped_modes_reset(void *data,
		struct zlg_link_connector_v1 *proxy) {
	struct connector *conn = data;
	conn->pending.has_skipped = true;
	conn->pending.n_skipped = 0;
	conn->changes |= CHANGE_SKIPPED;
}

static void handle_skipped_mode(void *data, struct zlg_link_connector_v1 *proxy,
		int32_t width, int32_t height, int32_t refresh,
		uint32_t last_failed_hi, uint32_t last_failed_lo) {
	struct connector *conn = data;
	struct link_state *state = &conn->pending;
	struct skipped_mode *skipped = ctl_realloc(conn->ctl, state->skipped,
		(state->n_skipped + 1) * sizeof(*state->skipped));
	if (skipped == NULL) {
		return;
	}
	state->skipped = skipped;
	skipped = &state->skipped[state->n_skipped++];
	set_mode(&skipped->mode, width, height, refresh);
	skipped->last_failed = ((uint64_t)last_failed_hi << 32) | last_failed_lo;
}

static void handle_incidents_reset(void *data,
		struct zlg_link_connector_v1 *proxy) {
	struct connector *conn = data;
	conn->pending.has_incidents = true;
	conn->pending.n_incidents = 0;
}

static void handle_incident(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t reason, uint32_t outcome, int32_t from_width,
		int32_t from_height, int32_t from_refresh, int32_t to_width,
		int32_t to_height, int32_t to_refresh, uint32_t from_lanes,
		uint32_t from_rate, uint32_t to_lanes, uint32_t to_rate,
		uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec,
		uint32_t duration) {
	struct connector *conn = data;
	struct link_state *state = &conn->pending;
	struct incident *incidents = ctl_realloc(conn->ctl, state->incidents,
		(state->n_incidents + 1) * sizeof(*state->incidents));
	if (incidents == NULL) {
		return;
	}
	state->incidents = incidents;
	struct incident *incident = &state->incidents[state->n_incidents++];
	*incident = (struct incident){
		.reason = reason,
		.outcome = outcome,
		.from_lanes = from_lanes,
		.from_rate_mbps = from_rate,
		.to_lanes = to_lanes,
		.to_rate_mbps = to_rate,
		.sec = ((uint64_t)tv_sec_hi << 32) | tv_sec_lo,
		.nsec = tv_nsec,
		.duration_ms = duration,
	};
	set_mode(&incident->from, from_width, from_height, from_refresh);
	set_mode(&incident->to, to_width, to_height, to_refresh);
	conn->changes |= CHANGE_INCIDENT;
}

/* A key seen before is updated in place: the initial batch sends them all. */
static void handle_setting(void *data, struct zlg_link_connector_v1 *proxy,
		const char *key, const char *value, uint32_t source, const char *origin) {
	struct connector *conn = data;
	struct linkctl *ctl = conn->ctl;
	struct setting *setting = NULL;
	for (size_t i = 0; i < conn->n_settings; i++) {
		if (strcmp(conn->settings[i].key, key) == 0) {
			setting = &conn->settings[i];
		}
	}
	if (setting == NULL) {
		struct setting *settings = ctl_realloc(ctl, conn->settings,
			(conn->n_settings + 1) * sizeof(*settings));
		if (settings == NULL) {
			return;
		}
		conn->settings = settings;
		setting = &settings[conn->n_settings++];
		*setting = (struct setting){ .key = ctl_strdup_text(ctl, key) };
	}
	free(setting->value);
	free(setting->origin);
	setting->value = ctl_strdup_text(ctl, value);
	setting->origin = origin[0] != '\0' ? ctl_strdup_text(ctl, origin) : NULL;
	setting->source = source;
	conn->changes |= CHANGE_SETTINGS;
}

static void handle_sink_status(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t flags, uint32_t lanes_locked, struct wl_array *rates) {
	struct connector *conn = data;
	struct sink *sink = &conn->pending.sink;
	*sink = (struct sink){ .flags = flags, .lanes_locked = lanes_locked };
	size_t n = rates->size / sizeof(uint32_t);
	const uint32_t *rate = rates->data;
	for (size_t i = 0; i < n && i < 4; i++) {
		sink->rates[sink->n_rates++] = rate[i];
	}
	conn->pending.has_sink = true;
	conn->changes |= CHANGE_SINK;
}

static const struct zlg_link_connector_v1_listener connector_listener = {
	.name = handle_name,
	.description = handle_description,
	.connection = handle_connection,
	.link_status = handle_link_status,
	.state = handle_state,
	.requested_mode = handle_requested_mode,
	.current_mode = handle_current_mode,
	.allowed_modes_reset = handle_allowed_modes_reset,
	.allowed_mode = handle_allowed_mode,
	.link_params = handle_link_params,
	.fallback = handle_fallback,
	.finished = handle_connector_finished,
	.skipped_modes_reset = handle_skipped_modes_reset,
	.skipped_mode = handle_skipped_mode,
	.incidents_reset = handle_incidents_reset,
	.incident = handle_incident,
	.setting = handle_setting,
	.sink_status = handle_sink_status,
};

static void handle_manager_connector(void *data,
		struct zlg_link_manager_v1 *manager,
		struct zlg_link_connector_v1 *proxy) {
	struct linkctl *ctl = data;
	struct connector *conn = ctl_realloc(ctl, NULL, sizeof(*conn));
	if (conn == NULL) {
		zlg_link_connector_v1_destroy(proxy);
		return;
	}
	*conn = (struct connector){ .ctl = ctl, .proxy = proxy };
	zlg_link_connector_v1_add_listener(proxy, &connector_listener, conn);
	struct connector **tail = &ctl->connectors;
	while (*tail != NULL) {
		tail = &(*tail)->next;
	}
	*tail = conn;
}

/* A copy of n elements of size bytes into *dst (grown); false out of memory. */
static bool copy_array(struct linkctl *ctl, void **dst, const void *src,
		size_t n, size_t size) {
	void *copy = ctl_realloc(ctl, *dst, (n + 1) * size);
	if (copy == NULL) {
		return false;
	}
	*dst = copy;
	if (n > 0) {
		memcpy(copy, src, n * size);
	}
	return true;
}

/*
 * Makes the pending state current; the lists are copied, not shared.
 * Out of memory, the current state stays as it was.
 */
static void connector_apply(struct connector *conn) {
	struct link_state *cur = &conn->current, *pending = &conn->pending;
	struct mode *modes = cur->modes;
	struct skipped_mode *skipped = cur->skipped;
	struct incident *incidents = cur->incidents;
	if (!copy_array(conn->ctl, (void **)&modes, pending->modes,
			pending->n_modes, sizeof(*modes))) {
		return;
	}
	cur->modes = modes;
	if (!copy_array(conn->ctl, (void **)&skipped, pending->skipped,
			pending->n_skipped, sizeof(*skipped))) {
		return;
	}
	cur->skipped = skipped;
	if (!copy_array(conn->ctl, (void **)&incidents, pending->incidents,
			pending->n_incidents, sizeof(*incidents))) {
		return;
	}
	cur->incidents = incidents;
	if (conn->changes & CHANGE_DESCRIPTION) {
		free(cur->description);
		cur->description = pending->description != NULL ?
			ctl_strdup(conn->ctl, pending->description) : NULL;
	}
	char *description = cur->description;
	*cur = *pending;
	cur->description = description;
	cur->modes = modes;
	cur->skipped = skipped;
	cur->incidents = incidents;
}

static void connector_free(struct connector *conn) {
	zlg_link_connector_v1_destroy(conn->proxy);
	free(conn->current.description);
	free(conn->current.modes);
	free(conn->current.skipped);
	free(conn->current.incidents);
	free(conn->pending.description);
	free(conn->pending.modes);
	free(conn->pending.skipped);
	free(conn->pending.incidents);
	for (size_t i = 0; i < conn->n_settings; i++) {
		free(conn->settings[i].key);
		free(conn->settings[i].value);
		free(conn->settings[i].origin);
	}
	free(conn->settings);
	free(conn->name);
	free(conn->notice.told);
	free(conn);
}

static double monotonic_now(void) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec + now.tv_nsec / 1e9;
}

static void handle_manager_done(void *data, struct zlg_link_manager_v1 *manager) {
	struct linkctl *ctl = data;
	double now = monotonic_now();
	struct connector **link = &ctl->connectors;
	while (*link != NULL) {
		struct connector *conn = *link;
		if (conn->finished) {
			if (ctl->report != NULL && conn->announced) {
				ctl->report(ctl, now, conn, CHANGE_REMOVED);
			}
			*link = conn->next;
			connector_free(conn);
			continue;
		}
		uint32_t changes = conn->announced ? conn->changes : CHANGE_ADDED;
		if (changes != 0) {
			connector_apply(conn);
			conn->announced = true;
			if (ctl->report != NULL) {
				ctl->report(ctl, now, conn, changes);
			}
		}
		conn->changes = 0;
		link = &conn->next;
	}
	if (ctl->done != NULL) {
		ctl->done(ctl);
	}
	ctl->initial_done = true;
	fflush(stdout);
}

static void handle_manager_finished(void *data,
		struct zlg_link_manager_v1 *manager) {
	struct linkctl *ctl = data;
	fprintf(stderr, "linkctl: the compositor stopped sending link state\n");
	ctl->initial_done = true;
	linkctl_interrupted = 1;
}

static const struct zlg_link_manager_v1_listener manager_listener = {
	.connector = handle_manager_connector,
	.done = handle_manager_done,
	.finished = handle_manager_finished,
};

static void handle_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct linkctl *ctl = data;
	if (strcmp(interface, zlg_link_manager_v1_interface.name) == 0 &&
			ctl->manager == NULL) {
		// Version 2 adds the skipped modes, 3 the incidents and the
		// monitor's view, 4 the step_up outcome; an older compositor
		// just does not tell them.
		ctl->version = version < 4 ? version : 4;
		ctl->manager = wl_registry_bind(registry, name,
			&zlg_link_manager_v1_interface, ctl->version);
		zlg_link_manager_v1_add_listener(ctl->manager, &manager_listener, ctl);
	}
}

static void handle_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = handle_global,
	.global_remove = handle_global_remove,
};

int linkctl_connect(struct linkctl *ctl) {
	ctl->utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	ctl->registry = wl_display_get_registry(ctl->display);
	wl_registry_add_listener(ctl->registry, &registry_listener, ctl);
	if (wl_display_roundtrip(ctl->display) < 0) {
		fprintf(stderr, "linkctl: lost the compositor\n");
		return EXIT_CONNECTION;
	}
	if (ctl->manager == NULL) {
		fprintf(stderr, "linkctl: the compositor does not offer "
			"linkguard-link-v1 (no %s global)\n",
			zlg_link_manager_v1_interface.name);
		return EXIT_NO_PROTOCOL;
	}
	while (!ctl->initial_done && !ctl->out_of_memory) {
		if (wl_display_dispatch(ctl->display) < 0) {
			fprintf(stderr, "linkctl: lost the compositor\n");
			return EXIT_CONNECTION;
		}
	}
	return ctl->out_of_memory ? EXIT_FAILURE : EXIT_OK;
}

struct connector *linkctl_find(struct linkctl *ctl, const char *name) {
	struct connector *conn = ctl->connectors;
	while (conn != NULL && (conn->name == NULL || strcmp(conn->name, name) != 0)) {
		conn = conn->next;
	}
	return conn;
}

void linkctl_finish(struct linkctl *ctl) {
	while (ctl->connectors != NULL) {
		struct connector *next = ctl->connectors->next;
		connector_free(ctl->connectors);
		ctl->connectors = next;
	}
	if (ctl->reload != NULL) {
		zlg_link_reload_v1_destroy(ctl->reload);
	}
	if (ctl->retry != NULL) {
		zlg_link_retry_v1_destroy(ctl->retry);
	}
	if (ctl->manager != NULL) {
		zlg_link_manager_v1_destroy(ctl->manager);
	}
	if (ctl->registry != NULL) {
		wl_registry_destroy(ctl->registry);
	}
	if (ctl->utf8 != (locale_t)0) {
		freelocale(ctl->utf8);
	}
	free(ctl->waybar_line);
	wl_display_disconnect(ctl->display);
}
