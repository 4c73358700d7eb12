#ifndef LINKCTL_LINKCTL_H
#define LINKCTL_LINKCTL_H

/*
 * linkctl: shows and follows the DisplayPort link state a compositor reports
 * through linkguard-link-v1, and asks it to retry a connector's mode.
 *
 *   connection.c  the connection, the protocol's events, each connector's
 *                 state (applied batch by batch, on done)
 *   text.c        the human format
 *   json.c        the JSON format (json-c), and its schema
 *   watch.c       linkctl watch: one line per change
 *   retry.c       linkctl retry NAME
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

struct fallback {
	uint32_t reason;
	struct mode from, to;
	uint64_t sec; // CLOCK_MONOTONIC
	uint32_t nsec;
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
};

struct connector {
	struct linkctl *ctl;
	struct zlg_link_connector_v1 *proxy;
	char *name; // valid UTF-8 without control characters
	struct link_state current, pending; // pending becomes current on done
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
	locale_t utf8; // C.UTF-8, to read the compositor's strings; or 0
};

/* Set by SIGINT and SIGTERM while watching, or when the compositor stops. */
extern volatile sig_atomic_t linkctl_interrupted;

/* connection.c */
/*
 * Binds linkguard-link-v1 (version 2 when offered) and waits for the
 * initial state: EXIT_OK, or the exit status that says why not.
 */
int linkctl_connect(struct linkctl *ctl);
/* Frees everything linkctl_connect() and the commands may have left. */
void linkctl_finish(struct linkctl *ctl);
struct connector *linkctl_find(struct linkctl *ctl, const char *name);
/* realloc that records a failure in ctl instead of exiting. */
void *ctl_realloc(struct linkctl *ctl, void *ptr, size_t size);
const char *state_name(uint32_t state);
const char *reason_name(uint32_t reason);
const char *link_status_name(uint32_t status);
bool mode_is_none(const struct mode *mode);
bool mode_is_requested(const struct link_state *state, const struct mode *mode);

/* text.c */
void text_print_connector(const struct connector *conn);
/* One watch line for one change (a single enum change bit). */
void text_print_change(double now, const struct connector *conn,
	enum change change);

/* json.c */
/* The list as one JSON document; false out of memory. */
bool json_print_list(const struct linkctl *ctl);
/* One watch line for one change (a single enum change bit). */
bool json_print_change(double now, const struct connector *conn,
	enum change change);

/* watch.c */
int linkctl_watch(struct linkctl *ctl);
/* What watch calls a change, e.g. "current_mode". */
const char *change_name(enum change change);
/* Called on every done while watching: reports conn's changes. */
void watch_report(struct linkctl *ctl, double now, const struct connector *conn,
	uint32_t changes);

/* retry.c */
int linkctl_retry(struct linkctl *ctl, const char *name);

#endif
