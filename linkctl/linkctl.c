/*
 * linkctl: shows and follows the DisplayPort link state a compositor reports
 * through linkguard-link-v1, and asks it to retry a connector's mode.
 *
 *   linkctl [--json]             list connectors
 *   linkctl watch [--json]       one line per change until SIGINT
 *   linkctl retry NAME           try NAME's requested mode again
 *
 * Exit status: 0 success (retry: succeeded); 1 retry failed; 2 usage;
 * 3 retry denied; 4 no such connector; 5 the compositor lacks the protocol;
 * 6 retry cancelled; 7 cannot connect, or the connection was lost.
 *
 * JSON schema of `linkctl --json` (version 1; fields are only ever added):
 *
 *   { "version": 1, "connectors": [ CONNECTOR... ] }
 *   CONNECTOR = { "name": "DP-1", "description": STRING|null,
 *     "connected": BOOL, "link_status": "good"|"bad",
 *     "state": "good"|"bad"|"retraining"|"degraded"|"failed"|"flapping",
 *     "requested_mode": MODE|null, "current_mode": MODE|null,
 *     "allowed_modes": [ MODE... ], "link": LINK|null,
 *     "last_fallback": FALLBACK|null,
 *     "skipped_modes": [ SKIPPED... ]|null }   (null: the compositor
 *     speaks version 1 of the protocol and does not say)
 *   MODE = { "width": INT, "height": INT, "refresh_mhz": INT,
 *     "preferred": BOOL }   ("preferred" in allowed_modes only)
 *   LINK = { "lanes": INT, "rate_mbps": INT }
 *   FALLBACK = { "reason": "mode-pruned"|"test-failed"|"known-bad"|"flapping",
 *     "from": MODE, "to": MODE, "time": SECONDS (CLOCK_MONOTONIC) }
 *   SKIPPED = { "width": INT, "height": INT, "refresh_mhz": INT,
 *     "last_failed": SECONDS since the epoch|null, "requested": BOOL }
 *
 * `linkctl watch --json` prints one JSON object per line:
 *   { "time": SECONDS, "connector": NAME, "event": EVENT, ... }
 * EVENT "added" carries "state": CONNECTOR; "removed" nothing more;
 * "connection" "value": BOOL; "link_status" and "state" "value": STRING;
 * "requested_mode" and "current_mode" "value": MODE|null; "allowed_modes"
 * "value": [MODE...]; "link" "value": LINK|null; "description" "value":
 * STRING; "fallback" "value": FALLBACK; "skipped_modes" "value": [SKIPPED...]. "time" is CLOCK_MONOTONIC seconds
 * when the batch's done arrived; events of one batch share it.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>
#include "linkguard-link-v1-client-protocol.h"

enum linkctl_exit {
	EXIT_OK = 0,
	EXIT_RETRY_FAILED = 1,
	EXIT_USAGE = 2,
	EXIT_RETRY_DENIED = 3,
	EXIT_NO_CONNECTOR = 4,
	EXIT_NO_PROTOCOL = 5,
	EXIT_RETRY_CANCELLED = 6,
	EXIT_CONNECTION = 7,
};

struct mode {
	int32_t width, height, refresh_mhz;
	uint32_t flags;
};

/* A mode the compositor skips (protocol version 2). */
struct skipped_mode {
	struct mode mode;
	uint64_t last_failed; // seconds since the epoch, 0 unknown
};

struct fallback {
	uint32_t reason;
	struct mode from, to;
	uint64_t sec;
	uint32_t nsec;
};

struct link_state {
	char *description;
	bool connected;
	uint32_t link_status, state;
	struct mode requested, current;
	struct mode *modes;
	size_t n_modes;
	uint32_t lanes, rate_mbps;
	bool has_fallback;
	struct fallback fallback;
	bool has_skipped; // the compositor tells (version 2)
	struct skipped_mode *skipped;
	size_t n_skipped;
};

enum change {
	CHANGE_DESCRIPTION = 1 << 0,
	CHANGE_CONNECTION = 1 << 1,
	CHANGE_LINK_STATUS = 1 << 2,
	CHANGE_STATE = 1 << 3,
	CHANGE_REQUESTED = 1 << 4,
	CHANGE_CURRENT = 1 << 5,
	CHANGE_MODES = 1 << 6,
	CHANGE_LINK = 1 << 7,
	CHANGE_FALLBACK = 1 << 8,
	CHANGE_SKIPPED = 1 << 9,
};

struct connector {
	struct linkctl *ctl;
	struct zlg_link_connector_v1 *proxy;
	char *name;
	struct link_state current, pending; // applied on done
	uint32_t changes; // enum change, since the last done
	bool announced, finished;
	struct connector *next;
};

struct linkctl {
	struct wl_display *display;
	struct wl_registry *registry;
	struct zlg_link_manager_v1 *manager;
	struct zlg_link_retry_v1 *retry; // NULL unless retrying
	struct connector *connectors; // in announcement order
	bool json, watching, initial_done;
	bool out_of_memory; // an allocation failed: stop, clean up, exit 1
	int retry_answer; // enum linkctl_exit, -1 while waiting
	const char *retry_failure;
};

static volatile sig_atomic_t interrupted;

static const char *const state_names[] = {
	"good", "bad", "retraining", "degraded", "failed", "flapping",
};
static const char *const reason_names[] = {
	"mode-pruned", "test-failed", "known-bad", "flapping",
};

static const char *name_of(const char *const *names, size_t n, uint32_t value) {
	return value < n ? names[value] : "unknown";
}

static const char *state_name(uint32_t state) {
	return name_of(state_names, sizeof(state_names) / sizeof(state_names[0]), state);
}

static const char *reason_name(uint32_t reason) {
	return name_of(reason_names, sizeof(reason_names) / sizeof(reason_names[0]),
		reason);
}

static const char *link_status_name(uint32_t status) {
	return status == ZLG_LINK_CONNECTOR_V1_LINK_STATUS_BAD ? "bad" : "good";
}

static double monotonic_now(void) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec + now.tv_nsec / 1e9;
}

/*
 * realloc and strdup that record a failure in ctl instead of exiting: every
 * loop stops on ctl->out_of_memory, so main still frees and disconnects.
 */
static void *ctl_realloc(struct linkctl *ctl, void *ptr, size_t size) {
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

/* --- output ---------------------------------------------------------- */

static void json_string(const char *s) {
	if (s == NULL) {
		printf("null");
		return;
	}
	putchar('"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			printf("\\%c", c);
		} else if (c < 0x20) {
			printf("\\u%04x", c);
		} else {
			putchar(c);
		}
	}
	putchar('"');
}

static void json_mode(const struct mode *mode, bool with_preferred) {
	if (mode->width == 0 && mode->height == 0 && mode->refresh_mhz == 0) {
		printf("null");
		return;
	}
	printf("{\"width\": %" PRId32 ", \"height\": %" PRId32
		", \"refresh_mhz\": %" PRId32, mode->width, mode->height,
		mode->refresh_mhz);
	if (with_preferred) {
		printf(", \"preferred\": %s", (mode->flags &
			ZLG_LINK_CONNECTOR_V1_MODE_FLAGS_PREFERRED) ? "true" : "false");
	}
	putchar('}');
}

static void json_modes(const struct link_state *state) {
	putchar('[');
	for (size_t i = 0; i < state->n_modes; i++) {
		printf(i > 0 ? ", " : "");
		json_mode(&state->modes[i], true);
	}
	putchar(']');
}

static void json_link(const struct link_state *state) {
	if (state->lanes == 0) {
		printf("null");
		return;
	}
	printf("{\"lanes\": %" PRIu32 ", \"rate_mbps\": %" PRIu32 "}",
		state->lanes, state->rate_mbps);
}

static void json_fallback(const struct link_state *state) {
	if (!state->has_fallback) {
		printf("null");
		return;
	}
	const struct fallback *fallback = &state->fallback;
	printf("{\"reason\": \"%s\", \"from\": ", reason_name(fallback->reason));
	json_mode(&fallback->from, false);
	printf(", \"to\": ");
	json_mode(&fallback->to, false);
	printf(", \"time\": %" PRIu64 ".%09" PRIu32 "}", fallback->sec,
		fallback->nsec);
}

static bool is_requested(const struct link_state *state, const struct mode *mode) {
	return mode->width == state->requested.width &&
		mode->height == state->requested.height &&
		mode->refresh_mhz == state->requested.refresh_mhz;
}

static void json_skipped(const struct link_state *state) {
	if (!state->has_skipped) {
		printf("null");
		return;
	}
	putchar('[');
	for (size_t i = 0; i < state->n_skipped; i++) {
		const struct skipped_mode *skipped = &state->skipped[i];
		printf("%s{\"width\": %" PRId32 ", \"height\": %" PRId32
			", \"refresh_mhz\": %" PRId32 ", \"last_failed\": ", i > 0 ? ", " : "",
			skipped->mode.width, skipped->mode.height,
			skipped->mode.refresh_mhz);
		if (skipped->last_failed > 0) {
			printf("%" PRIu64, skipped->last_failed);
		} else {
			printf("null");
		}
		printf(", \"requested\": %s}",
			is_requested(state, &skipped->mode) ? "true" : "false");
	}
	putchar(']');
}

static void json_connector(const struct connector *conn) {
	const struct link_state *state = &conn->current;
	printf("{\"name\": ");
	json_string(conn->name);
	printf(", \"description\": ");
	json_string(state->description);
	printf(", \"connected\": %s, \"link_status\": \"%s\", \"state\": \"%s\"",
		state->connected ? "true" : "false",
		link_status_name(state->link_status), state_name(state->state));
	printf(", \"requested_mode\": ");
	json_mode(&state->requested, false);
	printf(", \"current_mode\": ");
	json_mode(&state->current, false);
	printf(", \"allowed_modes\": ");
	json_modes(state);
	printf(", \"link\": ");
	json_link(state);
	printf(", \"last_fallback\": ");
	json_fallback(state);
	printf(", \"skipped_modes\": ");
	json_skipped(state);
	putchar('}');
}

static const char *format_mode(const struct mode *mode, char *buf, size_t size) {
	if (mode->width == 0 && mode->height == 0 && mode->refresh_mhz == 0) {
		snprintf(buf, size, "none");
	} else {
		snprintf(buf, size, "%" PRId32 "x%" PRId32 " px, %.3f Hz",
			mode->width, mode->height, mode->refresh_mhz / 1000.0);
	}
	return buf;
}

static void print_fallback_human(const struct fallback *fallback) {
	char from[64], to[64];
	printf("%s -> %s (%s) at %" PRIu64 ".%03" PRIu32 " s",
		format_mode(&fallback->from, from, sizeof(from)),
		format_mode(&fallback->to, to, sizeof(to)),
		reason_name(fallback->reason), fallback->sec,
		fallback->nsec / 1000000);
}

/* Local time, e.g. "2025-06-01 14:03:07", or "an unknown time". */
static const char *format_wall_time(uint64_t sec, char *buf, size_t size) {
	time_t t = (time_t)sec;
	struct tm tm;
	if (sec == 0 || localtime_r(&t, &tm) == NULL ||
			strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0) {
		snprintf(buf, size, "an unknown time");
	}
	return buf;
}

/*
 * One skipped mode and how to try it now: a retry tries the requested
 * mode, a replug every mode.
 */
static void print_skipped_human(const struct connector *conn,
		const struct skipped_mode *skipped) {
	char mode[64], when[64];
	printf("%s, last failed %s; ",
		format_mode(&skipped->mode, mode, sizeof(mode)),
		format_wall_time(skipped->last_failed, when, sizeof(when)));
	if (is_requested(&conn->current, &skipped->mode)) {
		printf("try it now: linkctl retry %s", conn->name);
	} else {
		printf("tried again after a replug");
	}
}

static void print_connector_human(const struct connector *conn) {
	const struct link_state *state = &conn->current;
	char buf[64];
	printf("%s", conn->name);
	if (state->description != NULL) {
		printf(" \"%s\"", state->description);
	}
	printf("\n  Connected: %s\n", state->connected ? "yes" : "no");
	printf("  Link status: %s\n", link_status_name(state->link_status));
	printf("  State: %s\n", state_name(state->state));
	printf("  Current mode: %s\n", format_mode(&state->current, buf, sizeof(buf)));
	printf("  Requested mode: %s\n",
		format_mode(&state->requested, buf, sizeof(buf)));
	if (state->lanes != 0) {
		printf("  Link: %" PRIu32 " lanes at %" PRIu32 " Mbit/s\n",
			state->lanes, state->rate_mbps);
	} else {
		printf("  Link: unknown\n");
	}
	printf("  Last fallback: ");
	if (state->has_fallback) {
		print_fallback_human(&state->fallback);
	} else {
		printf("none");
	}
	if (state->has_skipped) {
		printf("\n  Skipped modes:%s", state->n_skipped == 0 ? " none" : "");
		for (size_t i = 0; i < state->n_skipped; i++) {
			printf("\n    ");
			print_skipped_human(conn, &state->skipped[i]);
		}
	}
	printf("\n  Allowed modes:\n");
	for (size_t i = 0; i < state->n_modes; i++) {
		const struct mode *mode = &state->modes[i];
		printf("    %s%s\n", format_mode(mode, buf, sizeof(buf)),
			(mode->flags & ZLG_LINK_CONNECTOR_V1_MODE_FLAGS_PREFERRED) ?
			" (preferred)" : "");
	}
}

/* One watch line: the common head; the caller prints the rest. */
static void watch_begin(const struct linkctl *ctl, double now,
		const struct connector *conn, const char *event) {
	if (ctl->json) {
		printf("{\"time\": %.6f, \"connector\": ", now);
		json_string(conn->name);
		printf(", \"event\": \"%s\"", event);
	} else {
		printf("%.6f %s %s", now, conn->name, event);
	}
}

static void watch_end(const struct linkctl *ctl) {
	printf(ctl->json ? "}\n" : "\n");
}

static void watch_mode(const struct linkctl *ctl, double now,
		const struct connector *conn, const char *event, const struct mode *mode) {
	char buf[64];
	watch_begin(ctl, now, conn, event);
	if (ctl->json) {
		printf(", \"value\": ");
		json_mode(mode, false);
	} else {
		printf(" %s", format_mode(mode, buf, sizeof(buf)));
	}
	watch_end(ctl);
}

static void watch_word(const struct linkctl *ctl, double now,
		const struct connector *conn, const char *event, const char *word,
		bool json_bool) {
	watch_begin(ctl, now, conn, event);
	if (ctl->json && json_bool) {
		printf(", \"value\": %s", word);
	} else if (ctl->json) {
		printf(", \"value\": ");
		json_string(word);
	} else {
		printf(" %s", word);
	}
	watch_end(ctl);
}

static void watch_changes(const struct linkctl *ctl, double now,
		const struct connector *conn, uint32_t changes) {
	const struct link_state *state = &conn->current;
	if (changes & CHANGE_DESCRIPTION) {
		watch_word(ctl, now, conn, "description", state->description, false);
	}
	if (changes & CHANGE_CONNECTION) {
		watch_word(ctl, now, conn, "connection", ctl->json ?
			(state->connected ? "true" : "false") :
			(state->connected ? "connected" : "disconnected"), true);
	}
	if (changes & CHANGE_LINK_STATUS) {
		watch_word(ctl, now, conn, "link_status",
			link_status_name(state->link_status), false);
	}
	if (changes & CHANGE_STATE) {
		watch_word(ctl, now, conn, "state", state_name(state->state), false);
	}
	if (changes & CHANGE_REQUESTED) {
		watch_mode(ctl, now, conn, "requested_mode", &state->requested);
	}
	if (changes & CHANGE_CURRENT) {
		watch_mode(ctl, now, conn, "current_mode", &state->current);
	}
	if (changes & CHANGE_MODES) {
		watch_begin(ctl, now, conn, "allowed_modes");
		if (ctl->json) {
			printf(", \"value\": ");
			json_modes(state);
		} else {
			printf(" %zu modes", state->n_modes);
		}
		watch_end(ctl);
	}
	if (changes & CHANGE_LINK) {
		watch_begin(ctl, now, conn, "link");
		if (ctl->json) {
			printf(", \"value\": ");
			json_link(state);
		} else if (state->lanes != 0) {
			printf(" %" PRIu32 " lanes at %" PRIu32 " Mbit/s",
				state->lanes, state->rate_mbps);
		} else {
			printf(" unknown");
		}
		watch_end(ctl);
	}
	if (changes & CHANGE_SKIPPED) {
		watch_begin(ctl, now, conn, "skipped_modes");
		if (ctl->json) {
			printf(", \"value\": ");
			json_skipped(state);
		} else {
			printf(" %zu", state->n_skipped);
			for (size_t i = 0; i < state->n_skipped; i++) {
				printf(i == 0 ? ": " : "; ");
				print_skipped_human(conn, &state->skipped[i]);
			}
		}
		watch_end(ctl);
	}
	if (changes & CHANGE_FALLBACK) {
		watch_begin(ctl, now, conn, "fallback");
		if (ctl->json) {
			printf(", \"value\": ");
			json_fallback(state);
		} else {
			putchar(' ');
			print_fallback_human(&state->fallback);
		}
		watch_end(ctl);
	}
}

static void watch_added(const struct linkctl *ctl, double now,
		const struct connector *conn) {
	watch_begin(ctl, now, conn, "added");
	if (ctl->json) {
		printf(", \"state\": ");
		json_connector(conn);
	} else {
		char current[64], requested[64];
		const struct link_state *state = &conn->current;
		printf(" %s, link-status %s, state %s, current %s, requested %s",
			state->connected ? "connected" : "disconnected",
			link_status_name(state->link_status), state_name(state->state),
			format_mode(&state->current, current, sizeof(current)),
			format_mode(&state->requested, requested, sizeof(requested)));
	}
	watch_end(ctl);
}

/* --- protocol -------------------------------------------------------- */

static void set_mode(struct mode *mode, int32_t width, int32_t height,
		int32_t refresh) {
	*mode = (struct mode){ .width = width, .height = height,
		.refresh_mhz = refresh };
}

static void handle_name(void *data, struct zlg_link_connector_v1 *proxy,
		const char *name) {
	struct connector *conn = data;
	free(conn->name);
	conn->name = ctl_strdup(conn->ctl, name);
}

static void handle_description(void *data, struct zlg_link_connector_v1 *proxy,
		const char *description) {
	struct connector *conn = data;
	free(conn->pending.description);
	conn->pending.description = ctl_strdup(conn->ctl, description);
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

static void handle_connector_finished(void *data,
		struct zlg_link_connector_v1 *proxy) {
	struct connector *conn = data;
	conn->finished = true;
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

/*
 * Makes the pending state current; the mode list is copied, not shared.
 * Out of memory, the current state stays as it was.
 */
static void connector_apply(struct connector *conn) {
	struct link_state *cur = &conn->current, *pending = &conn->pending;
	struct mode *modes = ctl_realloc(conn->ctl, cur->modes,
		(pending->n_modes + 1) * sizeof(*modes));
	if (modes == NULL) {
		return;
	}
	cur->modes = modes;
	struct skipped_mode *skipped = ctl_realloc(conn->ctl, cur->skipped,
		(pending->n_skipped + 1) * sizeof(*skipped));
	if (skipped == NULL) {
		return;
	}
	cur->skipped = skipped;
	if (conn->changes & CHANGE_DESCRIPTION) {
		free(cur->description);
		cur->description = pending->description != NULL ?
			ctl_strdup(conn->ctl, pending->description) : NULL;
	}
	char *description = cur->description;
	*cur = *pending;
	cur->description = description;
	cur->modes = modes;
	memcpy(cur->modes, pending->modes, pending->n_modes * sizeof(*modes));
	cur->skipped = skipped;
	if (pending->n_skipped > 0) {
		memcpy(cur->skipped, pending->skipped,
			pending->n_skipped * sizeof(*skipped));
	}
}

static void connector_free(struct connector *conn) {
	zlg_link_connector_v1_destroy(conn->proxy);
	free(conn->current.description);
	free(conn->current.modes);
	free(conn->pending.description);
	free(conn->pending.modes);
	free(conn->current.skipped);
	free(conn->pending.skipped);
	free(conn->name);
	free(conn);
}

static void handle_manager_done(void *data, struct zlg_link_manager_v1 *manager) {
	struct linkctl *ctl = data;
	double now = monotonic_now();
	struct connector **link = &ctl->connectors;
	while (*link != NULL) {
		struct connector *conn = *link;
		if (conn->finished) {
			if (ctl->watching && conn->announced) {
				watch_begin(ctl, now, conn, "removed");
				watch_end(ctl);
			}
			*link = conn->next;
			connector_free(conn);
			continue;
		}
		if (!conn->announced) {
			connector_apply(conn);
			conn->announced = true;
			if (ctl->watching) {
				watch_added(ctl, now, conn);
			}
		} else if (conn->changes != 0) {
			connector_apply(conn);
			if (ctl->watching) {
				watch_changes(ctl, now, conn, conn->changes);
			}
		}
		conn->changes = 0;
		link = &conn->next;
	}
	ctl->initial_done = true;
	fflush(stdout);
}

static void handle_manager_finished(void *data,
		struct zlg_link_manager_v1 *manager) {
	struct linkctl *ctl = data;
	fprintf(stderr, "linkctl: the compositor stopped sending link state\n");
	ctl->initial_done = true;
	interrupted = 1;
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
		// Version 2 adds the skipped modes; a version 1 compositor
		// just does not tell them.
		ctl->manager = wl_registry_bind(registry, name,
			&zlg_link_manager_v1_interface, version < 2 ? version : 2);
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

/* --- retry ----------------------------------------------------------- */

static void handle_retry_succeeded(void *data, struct zlg_link_retry_v1 *retry) {
	struct linkctl *ctl = data;
	ctl->retry_answer = EXIT_OK;
}

static void handle_retry_failed(void *data, struct zlg_link_retry_v1 *retry,
		uint32_t failure) {
	struct linkctl *ctl = data;
	ctl->retry_answer = EXIT_RETRY_FAILED;
	switch (failure) {
	case ZLG_LINK_RETRY_V1_FAILURE_REJECTED:
		ctl->retry_failure = "the kernel does not take the requested mode now";
		break;
	case ZLG_LINK_RETRY_V1_FAILURE_UNAVAILABLE:
		ctl->retry_failure = "nothing to retry (disconnected, off, or busy)";
		break;
	default:
		ctl->retry_failure = "the link did not hold the requested mode";
		break;
	}
}

static void handle_retry_denied(void *data, struct zlg_link_retry_v1 *retry) {
	struct linkctl *ctl = data;
	ctl->retry_answer = EXIT_RETRY_DENIED;
}

static void handle_retry_cancelled(void *data, struct zlg_link_retry_v1 *retry) {
	struct linkctl *ctl = data;
	ctl->retry_answer = EXIT_RETRY_CANCELLED;
}

static const struct zlg_link_retry_v1_listener retry_listener = {
	.succeeded = handle_retry_succeeded,
	.failed = handle_retry_failed,
	.denied = handle_retry_denied,
	.cancelled = handle_retry_cancelled,
};

static int run_retry(struct linkctl *ctl, const char *name) {
	struct connector *conn = ctl->connectors;
	while (conn != NULL && (conn->name == NULL || strcmp(conn->name, name) != 0)) {
		conn = conn->next;
	}
	if (conn == NULL) {
		fprintf(stderr, "linkctl: no connector named %s\n", name);
		return EXIT_NO_CONNECTOR;
	}
	ctl->retry = zlg_link_connector_v1_retry(conn->proxy);
	ctl->retry_answer = -1;
	zlg_link_retry_v1_add_listener(ctl->retry, &retry_listener, ctl);
	while (ctl->retry_answer < 0 && !ctl->out_of_memory) {
		if (wl_display_dispatch(ctl->display) < 0) {
			fprintf(stderr, "linkctl: lost the compositor: %s\n",
				strerror(errno));
			return EXIT_CONNECTION;
		}
	}
	if (ctl->out_of_memory) {
		return EXIT_FAILURE;
	}
	switch (ctl->retry_answer) {
	case EXIT_OK:
		printf("%s: retry succeeded\n", name);
		break;
	case EXIT_RETRY_FAILED:
		printf("%s: retry failed: %s\n", name, ctl->retry_failure);
		break;
	case EXIT_RETRY_DENIED:
		printf("%s: retry denied by the compositor\n", name);
		break;
	default:
		printf("%s: retry cancelled (the connector went away)\n", name);
		break;
	}
	return ctl->retry_answer;
}

/* --- main ------------------------------------------------------------ */

static void handle_sigint(int signal_number) {
	interrupted = 1;
}

static int run_watch(struct linkctl *ctl) {
	struct sigaction action = { .sa_handler = handle_sigint };
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	while (!interrupted && !ctl->out_of_memory) {
		while (wl_display_prepare_read(ctl->display) != 0) {
			wl_display_dispatch_pending(ctl->display);
		}
		if (wl_display_flush(ctl->display) < 0 && errno != EAGAIN) {
			wl_display_cancel_read(ctl->display);
			break;
		}
		struct pollfd pfd = { .fd = wl_display_get_fd(ctl->display),
			.events = POLLIN };
		if (poll(&pfd, 1, -1) < 0) {
			wl_display_cancel_read(ctl->display);
			if (errno == EINTR) {
				continue;
			}
			break;
		}
		if (wl_display_read_events(ctl->display) < 0 ||
				wl_display_dispatch_pending(ctl->display) < 0) {
			break;
		}
	}
	if (ctl->out_of_memory) {
		return EXIT_FAILURE;
	}
	if (interrupted) {
		return EXIT_OK;
	}
	fprintf(stderr, "linkctl: lost the compositor\n");
	return EXIT_CONNECTION;
}

static const char usage[] =
	"usage: linkctl [--json]            list connectors and their link state\n"
	"       linkctl watch [--json]      print every change until interrupted\n"
	"       linkctl retry NAME          try NAME's requested mode again\n"
	"       linkctl --help\n"
	"\n"
	"Exit status: 0 ok (retry succeeded), 1 retry failed, 2 usage,\n"
	"3 retry denied, 4 no such connector, 5 no linkguard-link-v1 in the\n"
	"compositor, 6 retry cancelled, 7 cannot connect or connection lost.\n";

/* Connects, waits for the initial state and runs command; 0..7 as above. */
static int linkctl_run(struct linkctl *ctl, const char *retry_name) {
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
	if (ctl->out_of_memory) {
		return EXIT_FAILURE;
	}

	if (ctl->watching) {
		return run_watch(ctl);
	}
	if (retry_name != NULL) {
		return run_retry(ctl, retry_name);
	}
	if (ctl->json) {
		printf("{\"version\": 1, \"connectors\": [");
		for (struct connector *c = ctl->connectors; c != NULL; c = c->next) {
			printf(c == ctl->connectors ? "\n  " : ",\n  ");
			json_connector(c);
		}
		printf("%s]}\n", ctl->connectors != NULL ? "\n" : "");
		return EXIT_OK;
	}
	for (struct connector *c = ctl->connectors; c != NULL; c = c->next) {
		print_connector_human(c);
	}
	return EXIT_OK;
}

/* Frees everything linkctl_run() may have left, whichever way it returned. */
static void linkctl_finish(struct linkctl *ctl) {
	while (ctl->connectors != NULL) {
		struct connector *next = ctl->connectors->next;
		connector_free(ctl->connectors);
		ctl->connectors = next;
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
	wl_display_disconnect(ctl->display);
}

int main(int argc, char *argv[]) {
	struct linkctl ctl = { .retry_answer = -1 };
	const char *command = "list", *retry_name = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			ctl.json = true;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return EXIT_OK;
		} else if (strcmp(command, "list") == 0 && (strcmp(argv[i], "list") == 0 ||
				strcmp(argv[i], "watch") == 0 || strcmp(argv[i], "retry") == 0)) {
			command = argv[i];
		} else if (strcmp(command, "retry") == 0 && retry_name == NULL) {
			retry_name = argv[i];
		} else {
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if ((strcmp(command, "retry") == 0) != (retry_name != NULL)) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	ctl.watching = strcmp(command, "watch") == 0;

	ctl.display = wl_display_connect(NULL);
	if (ctl.display == NULL) {
		fprintf(stderr, "linkctl: cannot connect to a Wayland compositor\n");
		return EXIT_CONNECTION;
	}
	int status = linkctl_run(&ctl, retry_name);
	if (ctl.out_of_memory) {
		fprintf(stderr, "linkctl: out of memory\n");
		status = EXIT_FAILURE;
	}
	linkctl_finish(&ctl);
	return status;
}
