/*
 * linkctl watch --notify: a desktop notification when a link falls back,
 * steps back up, flaps, fails or is restored, through
 * org.freedesktop.Notifications on the session bus (the Desktop
 * Notifications Specification 1.2), with sd-bus.
 *
 * One notification per connector, replaced in place: each Notify passes the
 * id the daemon returned for the connector's last one as replaces_id, so a
 * cascade of fallbacks and the restore update one notification instead of
 * stacking. The transient states (bad, retraining) wait for their outcome.
 *
 * The calls are synchronous, bounded by NOTIFY_TIMEOUT_USEC: notifications
 * are rare, and a daemon that hangs delays the next lines, never loses them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include "linkguard-link-v1-client-protocol.h"
#include "linkctl.h"

#define NOTIFY_DEST "org.freedesktop.Notifications"
#define NOTIFY_PATH "/org/freedesktop/Notifications"
#define NOTIFY_TIMEOUT_USEC (5 * 1000 * 1000)

struct notifier {
	sd_bus *bus;
};

enum notice_kind {
	NOTICE_NONE,
	NOTICE_RESTORED,
	NOTICE_STEP_UP,
	NOTICE_FALLBACK,
	NOTICE_FLAPPING,
	NOTICE_FAILED,
};

static const struct {
	const char *what; // in the summary
	uint8_t urgency; // the specification's: 0 low, 1 normal, 2 critical
	const char *category;
} notices[] = {
	[NOTICE_RESTORED] = { "link restored", 0, "device" },
	[NOTICE_STEP_UP] = { "link stepped up", 0, "device" },
	[NOTICE_FALLBACK] = { "link degraded", 1, "device.error" },
	[NOTICE_FLAPPING] = { "link flapping", 1, "device.error" },
	[NOTICE_FAILED] = { "link failed", 2, "device.error" },
};

struct notifier *notifier_create(void) {
	struct notifier *notifier = calloc(1, sizeof(*notifier));
	if (notifier == NULL) {
		fprintf(stderr, "linkctl: out of memory\n");
		return NULL;
	}
	int ret = sd_bus_open_user(&notifier->bus);
	const char *unique_name;
	if (ret >= 0) {
		// Waits for the bus's Hello: a socket that is no bus fails here.
		ret = sd_bus_get_unique_name(notifier->bus, &unique_name);
	}
	if (ret < 0) {
		const char *address = getenv("DBUS_SESSION_BUS_ADDRESS");
		fprintf(stderr, "linkctl: no session bus for notifications (%s%s): %s\n",
			address != NULL ? "DBUS_SESSION_BUS_ADDRESS=" :
			"$XDG_RUNTIME_DIR/bus", address != NULL ? address : "",
			strerror(-ret));
		notifier_destroy(notifier);
		return NULL;
	}
	sd_bus_set_method_call_timeout(notifier->bus, NOTIFY_TIMEOUT_USEC);
	return notifier;
}

void notifier_destroy(struct notifier *notifier) {
	if (notifier == NULL) {
		return;
	}
	sd_bus_flush_close_unref(notifier->bus);
	free(notifier);
}

static enum notice_kind notice_kind(const struct connector *conn) {
	const struct link_state *state = &conn->current;
	if (!state->connected) {
		return NOTICE_NONE; // unplugged: the incident is over
	}
	switch (state->state) {
	case ZLG_LINK_CONNECTOR_V1_STATE_DEGRADED:
		return tell_step_up(state) != NULL ? NOTICE_STEP_UP : NOTICE_FALLBACK;
	case ZLG_LINK_CONNECTOR_V1_STATE_FLAPPING:
		return NOTICE_FLAPPING;
	case ZLG_LINK_CONNECTOR_V1_STATE_FAILED:
		return NOTICE_FAILED;
	case ZLG_LINK_CONNECTOR_V1_STATE_GOOD:
		// News only after a problem, and once the requested mode runs:
		// after a replug the output comes a batch after the connection.
		return conn->notice.problem && !mode_is_none(&state->current) &&
			mode_is_requested(state, &state->current) ?
			NOTICE_RESTORED : NOTICE_NONE;
	}
	return NOTICE_NONE;
}

/*
 * Whether the daemon renders markup in bodies (the "body-markup"
 * capability): then the monitor's name, which comes from its EDID, is
 * escaped. A daemon that cannot tell will fail Notify too, which says why.
 */
static bool has_body_markup(struct notifier *notifier) {
	sd_bus_message *reply = NULL;
	char **caps = NULL;
	bool markup = false;
	if (sd_bus_call_method(notifier->bus, NOTIFY_DEST, NOTIFY_PATH,
			NOTIFY_DEST, "GetCapabilities", NULL, &reply, "") >= 0 &&
			sd_bus_message_read_strv(reply, &caps) >= 0) {
		for (char **cap = caps; *cap != NULL; cap++) {
			markup = markup || strcmp(*cap, "body-markup") == 0;
		}
	}
	for (char **cap = caps; cap != NULL && *cap != NULL; cap++) {
		free(*cap);
	}
	free(caps);
	sd_bus_message_unref(reply);
	return markup;
}

/* The Notify call; the daemon's id for it, or 0 when it failed (said why). */
static uint32_t send_notify(struct linkctl *ctl, const struct connector *conn,
		enum notice_kind kind, const char *summary, const char *body) {
	struct notifier *notifier = ctl->notifier;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	uint32_t id = 0;
	int ret = sd_bus_call_method(notifier->bus, NOTIFY_DEST, NOTIFY_PATH,
		NOTIFY_DEST, "Notify", &error, &reply, "susssasa{sv}i",
		"linkguard", conn->notice.id, "video-display", summary, body,
		0, // no actions
		2, "urgency", "y", notices[kind].urgency,
		"category", "s", notices[kind].category,
		-1); // the daemon's own expiry
	if (ret >= 0) {
		ret = sd_bus_message_read(reply, "u", &id);
	}
	if (ret < 0) {
		fprintf(stderr, "linkctl: cannot notify %s: %s\n",
			conn->name != NULL ? conn->name : "?",
			sd_bus_error_is_set(&error) ? error.message : strerror(-ret));
		if (!sd_bus_is_open(notifier->bus)) {
			fprintf(stderr, "linkctl: lost the session bus\n");
			ctl->stop_status = EXIT_NO_SESSION_BUS;
		}
	}
	sd_bus_error_free(&error);
	sd_bus_message_unref(reply);
	// Whatever else came (the bus's NameAcquired, a Ping): answered or
	// dropped, not left queued.
	while (sd_bus_process(notifier->bus, NULL) > 0) {
	}
	return id;
}

/* Summary and body, as told; NULL out of memory. */
static char *notice_text(const char *summary, const char *body) {
	size_t len = strlen(summary) + 1 + strlen(body) + 1;
	char *text = malloc(len);
	if (text != NULL) {
		snprintf(text, len, "%s\n%s", summary, body);
	}
	return text;
}

/*
 * Sends summary and sentence unless they are what was last sent for conn;
 * false out of memory. A notification that could not be sent is tried again
 * at the connector's next change.
 */
static bool tell(struct linkctl *ctl, struct connector *conn,
		enum notice_kind kind, const char *summary, const char *sentence) {
	char *told = notice_text(summary, sentence);
	if (told == NULL) {
		return false;
	}
	if (conn->notice.told != NULL && strcmp(told, conn->notice.told) == 0) {
		free(told);
		return true;
	}
	char *markup = NULL;
	if (has_body_markup(ctl->notifier)) {
		markup = tell_markup(sentence);
		if (markup == NULL) {
			free(told);
			return false;
		}
	}
	uint32_t id = send_notify(ctl, conn, kind, summary,
		markup != NULL ? markup : sentence);
	free(markup);
	if (id == 0) {
		free(told);
		return true;
	}
	conn->notice.id = id;
	conn->notice.problem = kind != NOTICE_RESTORED;
	free(conn->notice.told);
	conn->notice.told = told;
	return true;
}

void notifier_report(struct linkctl *ctl, struct connector *conn) {
	enum notice_kind kind = notice_kind(conn);
	if (kind == NOTICE_NONE) {
		return;
	}
	char summary[256];
	snprintf(summary, sizeof(summary), "%s: %s",
		conn->name != NULL ? conn->name : "?", notices[kind].what);
	char *sentence = tell_sentence(conn);
	if (sentence == NULL || !tell(ctl, conn, kind, summary, sentence)) {
		ctl->out_of_memory = true;
	}
	free(sentence);
}
