#ifndef LINKCTL_LINKCTL_H
#define LINKCTL_LINKCTL_H

/*
 * linkctl: shows and follows the DisplayPort link state a compositor reports
 * through linkguard-link-v1, and asks it to retry a connector's mode.
 *
 *   names.c       the words for the protocol's values
 *   connection.c  the connection, the protocol's events, each connector's
 *                 state (applied batch by batch, on done)
 *   text.c        the human format
 *   json.c        the JSON format (json-c), and its schema
 *   watch.c       linkctl watch: one line per change, and what else
 *                 follows the changes
 *   tell.c        what the person at the monitor is told, and in which
 *                 words
 *   notify.c      watch --notify: desktop notifications (sd-bus)
 *   waybar.c      watch --waybar: the status bar's line
 *   retry.c       linkctl retry NAME
 *   history.c     linkctl history [NAME]: the incidents (version 3)
 *   reload.c      linkctl reload: the configuration read again (version 3)
 *   main.c        the command line
 */

#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zlg_link_connector_v1;
struct zlg_link_manager_v1;
struct zlg_link_retry_v1;
struct wl_display;
struct wl_registry;

/* Exit statuses a script can rely on (linkctl(1)). */
enum linkctl_exit {
	EXIT_OK = 0,
	EXIT_RETRY_FAILED = 1,
	EXIT_USAGE = 2,
	EXIT_RETRY_DENIED = 3,
	EXIT_NO_CONNECTOR = 4,
	EXIT_NO_PROTOCOL = 5,
	EXIT_RETRY_CANCELLED = 6,
	EXIT_CONNECTION = 7,
	EXIT_NO_SESSION_BUS = 8, // watch --notify: no session bus, or lost it
	EXIT_NO_HISTORY = 9, // history, reload: the compositor speaks version 1 or 2 only
};

/* A mode as the protocol sends it; all zero: none. */
struct mode {
	int32_t width, height, refresh_mhz;
	uint32_t flags; // allowed modes: zlg_link_connector_v1 mode_flags
};

/* A mode the compositor skips (protocol version 2). */
struct skipped_mode {
	struct mode mode;
	uint64_t last_failed; // seconds since the epoch, 0 unknown
};

/* The monitor's own view of its link (protocol version 3). */
struct sink {
	uint32_t flags; // zlg_link_connector_v1 sink_flags
	uint32_t lanes_locked; // bit i: lane i
	uint32_t rates[4]; // symbol errors per minute, UINT32_MAX not counted
	size_t n_rates; // 0: no minute counted yet
};

struct fallback {
	uint32_t reason;
	struct mode from, to;
	uint64_t sec; // CLOCK_MONOTONIC
	uint32_t nsec;
};

/* One incident (protocol version 3); links of 0 lanes are unknown. */
struct incident {
	uint32_t reason, outcome;
	struct mode from, to;
	uint32_t from_lanes, from_rate_mbps, to_lanes, to_rate_mbps;
	uint64_t sec; // CLOCK_REALTIME when it began
	uint32_t nsec;
	uint32_t duration_ms;
};

/* A setting the connector runs with (version 3), as of its last event. */
struct setting {
	char *key, *value, *origin; // origin: NULL when the compositor says none
	uint32_t source; // zlg_link_connector_v1 setting_source
};

/* One connector's state as of a done. */
struct link_state {
	char *description; // valid UTF-8 without control characters, or NULL
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
	bool has_incidents; // the compositor tells (version 3)
	struct incident *incidents; // oldest first
	size_t n_incidents;
	bool has_sink; // the compositor tells (version 3)
	struct sink sink;
};

/* What a batch changed; also what watch reports. */
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
	CHANGE_ADDED = 1 << 10, // announced: its whole state
	CHANGE_REMOVED = 1 << 11, // finished
	CHANGE_INCIDENT = 1 << 12, // one more incident (the last one)
	CHANGE_SETTINGS = 1 << 13, // a setting changed (version 3)
	CHANGE_SINK = 1 << 14,
};

/* What notify.c last told about a connector. */
struct notice {
	uint32_t id; // the notification daemon's, 0 before the first
	bool problem; // told of a problem that was not restored since
	char *told; // its summary and body, so that only a change is sent
};

struct connector {
	struct linkctl *ctl;
	struct zlg_link_connector_v1 *proxy;
	char *name; // valid UTF-8 without control characters
	struct link_state current, pending; // pending becomes current on done
	uint32_t changes; // enum change, since the last done
	bool announced, finished;
	struct setting *settings; // every key, once the initial batch is in
	size_t n_settings;
	struct notice notice;
	struct connector *next;
};

struct linkctl {
	struct wl_display *display;
	struct wl_registry *registry;
	struct zlg_link_manager_v1 *manager;
	uint32_t version; // of the manager bound
	struct zlg_link_retry_v1 *retry; // NULL unless retrying
	struct zlg_link_reload_v1 *reload; // NULL unless reloading
	struct connector *connectors; // in announcement order
	bool json, watching, initial_done;
	// What watch follows (watch.c sets them, else NULL): each done's
	// changes of each connector, then the done itself.
	void (*report)(struct linkctl *ctl, double now, struct connector *conn,
		uint32_t changes);
	void (*done)(struct linkctl *ctl);
	bool waybar; // watch prints the status bar's line instead
	struct notifier *notifier; // watch --notify, else NULL
	char *waybar_line; // the last one printed
	bool out_of_memory; // an allocation failed: stop, clean up, exit 1
	int stop_status; // not EXIT_OK: watch stops with this exit status
	int retry_answer; // enum linkctl_exit, -1 while waiting
	const char *retry_failure;
	locale_t utf8; // C.UTF-8, to read the compositor's strings; or 0
};

/* Set by SIGINT and SIGTERM while watching, or when the compositor stops. */
extern volatile sig_atomic_t linkctl_interrupted;

/* names.c */
const char *state_name(uint32_t state);
const char *reason_name(uint32_t reason);
const char *link_status_name(uint32_t status);
const char *setting_source_name(uint32_t source);
const char *incident_reason_name(uint32_t reason);
const char *incident_outcome_name(uint32_t outcome);
/* What watch calls a change, e.g. "current_mode". */
const char *change_name(enum change change);

/* connection.c */
/*
 * Binds linkguard-link-v1 (version 3 when offered) and waits for the
 * initial state: EXIT_OK, or the exit status that says why not.
 */
int linkctl_connect(struct linkctl *ctl);
/* Frees everything linkctl_connect() and the commands may have left. */
void linkctl_finish(struct linkctl *ctl);
struct connector *linkctl_find(struct linkctl *ctl, const char *name);
/* realloc that records a failure in ctl instead of exiting. */
void *ctl_realloc(struct linkctl *ctl, void *ptr, size_t size);
/*
 * A copy of a string the compositor sent, fit to print and to put in JSON:
 * valid UTF-8 without control characters (others become U+FFFD).
 */
char *ctl_strdup_text(struct linkctl *ctl, const char *s);
bool mode_is_none(const struct mode *mode);
bool mode_equal(const struct mode *a, const struct mode *b);
bool mode_is_requested(const struct link_state *state, const struct mode *mode);

/* text.c */
/* Local time, e.g. "2025-06-01 14:03:07", or "an unknown time". */
const char *format_wall_time(uint64_t sec, char *buf, size_t size);
void text_print_connector(const struct connector *conn);
/* The history table of conn's incidents, oldest first. */
void text_print_history(const struct connector *conn);
/* One watch line for one change (a single enum change bit). */
void text_print_change(double now, const struct connector *conn,
	enum change change);

/* json.c */
/* The history as one JSON document (only: one connector, or all). */
bool json_print_history(const struct linkctl *ctl, const struct connector *only);
/* The list as one JSON document; false out of memory. */
bool json_print_list(const struct linkctl *ctl);
/* One watch line for one change (a single enum change bit). */
bool json_print_change(double now, const struct connector *conn,
	enum change change);

/* watch.c */
/*
 * Before linkctl_connect(): line-buffered output, SIGINT and SIGTERM
 * caught, and ctl's report and done set.
 */
void watch_prepare(struct linkctl *ctl);
int linkctl_watch(struct linkctl *ctl);

/* tell.c */
/* A connector's link for a person, from best to worst. */
enum tell_class {
	TELL_GOOD,
	TELL_DEGRADED, // a fallback runs, or recovery is under way
	TELL_FLAPPING,
	TELL_FAILED,
};
enum tell_class tell_class(const struct link_state *state);
const char *tell_class_name(enum tell_class class);
/* A mode for a person: "3840x2160@60", "2560x1440@59.951", "off". */
const char *tell_mode(const struct mode *mode, char *buf, size_t size);
/*
 * What happened and what to do, in one sentence: "DP-1 (Dell U2720Q): the
 * cable no longer carries 3840x2160@60; now 3840x2160@30. Try another cable
 * or a lower refresh rate." Allocated; NULL out of memory.
 */
char *tell_sentence(const struct connector *conn);
/*
 * The last incident when it is a step back up to the mode that runs (version
 * 4), else NULL.
 */
const struct incident *tell_step_up(const struct link_state *state);
/* text with & < > ' " as Pango markup entities; NULL out of memory. */
char *tell_markup(const char *text);

/* notify.c */
/*
 * Connects to the session bus; NULL when there is none (said on stderr:
 * exit EXIT_NO_SESSION_BUS).
 */
struct notifier *notifier_create(void);
void notifier_destroy(struct notifier *notifier);
/* Tells the person of a fallback, step up, flapping, failure or restore on conn. */
void notifier_report(struct linkctl *ctl, struct connector *conn);

/* waybar.c */
/* The status bar's line (JSON, without a newline); NULL out of memory. */
char *waybar_line(const struct linkctl *ctl);
/* Prints the status bar's line when it changed; false out of memory. */
bool waybar_print(struct linkctl *ctl);

/* One setting on one line: "min-refresh 120 (file /path:3)". */
void text_print_setting(const struct setting *setting);

/* reload.c */
int linkctl_reload(struct linkctl *ctl);

/* retry.c */
int linkctl_retry(struct linkctl *ctl, const char *name);

/* history.c */
/* NAME's incidents, or every connector's when name is NULL. */
int linkctl_history(struct linkctl *ctl, const char *name);

#endif
