#ifndef LINKGUARD_MANAGER_H
#define LINKGUARD_MANAGER_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <linkguard/commit.h>
#include <linkguard/config.h>
#include <linkguard/connector.h>
#include <linkguard/incident.h>
#include <linkguard/policy.h>

struct wlr_backend;
struct wlr_session;
struct wlr_output;
struct wlr_output_state;

/* Whose DPCD is read (linkguard(5) read-dpcd). */
enum lg_read_dpcd {
	/*
	 * Where a read finds what the driver does not report: at events
	 * everywhere, polled where the backend says so, never an internal
	 * panel (linkguard/backend.h, enum lg_sink_reads).
	 */
	LG_READ_DPCD_AUTO,
	LG_READ_DPCD_ON, // as auto, an internal panel too
	LG_READ_DPCD_OFF, // never
};

/*
 * What linkguard does, for every connector. These are the compositor's
 * defaults: unless read_config is false, the configuration file and the
 * LINKGUARD_* variables of linkguard(5) override them, for every connector
 * or per output and monitor, and settings override those.
 */
struct lg_options {
	enum lg_policy policy;
	/* What a fallback keeps when some mode the link carries meets it. */
	struct lg_policy_floors floors;
	/*
	 * A link that goes BAD flap_count times within flap_window_ms at a mode
	 * the kernel still fits is flapping: it steps down to a mode that needs
	 * less bandwidth, and steps back up after flap_window_ms of quiet.
	 */
	uint32_t flap_count;
	uint32_t flap_window_ms;
	/*
	 * While flapping, modesets are at least this far apart; the gap doubles
	 * each time the link flaps again after a step up, up to backoff_max_ms.
	 * Failed recoveries are retried after the same growing delay.
	 */
	uint32_t backoff_min_ms, backoff_max_ms;
	/* After a recovery commit, how long the link must hold to count as good. */
	uint32_t settle_ms;
	/* At most this many candidate modes are tested per recovery. */
	uint32_t max_tests;
	/*
	 * The sink's DPCD, where the backend reads it (DisplayPort AUX): read
	 * settle_ms after hotplug events and modesets, then, where the backend
	 * polls it (linkguard/backend.h, enum lg_sink_reads), every
	 * sink_poll_ms for 12 polls, then every 6 x sink_poll_ms while an
	 * output is enabled (0: only after events); lanes the sink reports
	 * unlocked for sink_settle_ms with link-status GOOD are a dark link
	 * to recover.
	 */
	uint32_t sink_poll_ms;
	uint32_t sink_settle_ms;
	/*
	 * Symbol errors per lane and minute above which the link is degraded
	 * (reason link-errors); 0: what DisplayPort's bit error rate of 10^-9
	 * allows at the trained rate (0.06 per Mbit/s: 324 at HBR2).
	 */
	uint32_t link_errors_per_min;
	/* Above it, step down to a mode that needs less bandwidth. */
	bool link_errors_step_down;
	/*
	 * false: watch and report only, never modeset (what stock wlroots
	 * does then happens: for comparisons, and for compositors that want
	 * to recover by themselves on the signals).
	 */
	bool recover;
	/*
	 * Whether clients may ask for a retry at all; which clients may is the
	 * compositor's (lg_link_protocol_filter.may_retry).
	 */
	bool allow_retry;
	/*
	 * Read the configuration file and the LINKGUARD_* variables
	 * (linkguard(5)); true after lg_options_init().
	 */
	bool read_config;
	/* The file; NULL: lg_default_config_path(). Copied. */
	const char *config_path;
	/*
	 * "key=value" settings of linkguard(5) that override the file and the
	 * variables (a compositor's command-line options), NULL-terminated, or
	 * NULL. Copied; an invalid one is logged and ignored.
	 */
	const char *const *settings;
	/*
	 * Where the modes each monitor did not hold are kept across restarts
	 * (a file "known-bad" in it; see lg_default_state_dir()). NULL: kept
	 * in memory only. Copied.
	 */
	const char *state_dir;
	/* NULL: linkguard commits itself. See linkguard/commit.h. */
	lg_commit_func_t commit;
	void *commit_data;
	/*
	 * Last (added after the others): whose sinks' DPCD is read at all
	 * (linkguard(5) read-dpcd); see sink_poll_ms.
	 */
	enum lg_read_dpcd read_dpcd;
};

/** Fills options with the defaults. */
void lg_options_init(struct lg_options *options);
/**
 * $XDG_STATE_HOME/linkguard, else $HOME/.local/state/linkguard (malloc'ed),
 * or NULL when neither variable is set. The caller creates nothing: the
 * directory is made on the first write.
 */
char *lg_default_state_dir(void);

/**
 * linkguard for one compositor: watches every connector the backends report
 * and recovers bad links in place.
 */
struct lg_manager {
	struct wl_display *display;
	struct wl_event_loop *event_loop;
	struct wlr_backend *backend;
	struct wlr_session *session; // NULL when headless
	struct lg_options options;
	struct wl_list connectors; // lg_connector.link

	struct {
		struct wl_signal new_connector; // struct lg_connector
		struct wl_signal fallback; // struct lg_fallback
		struct wl_signal restored; // struct lg_connector
		struct wl_signal failed; // struct lg_connector
		// A recovery came to rest (linkguard/incident.h); kept in the
		// connector's history, the last 32.
		struct wl_signal incident; // struct lg_incident
		struct wl_signal destroy;
	} events;

	struct wl_listener display_destroy;
	char *state_dir; // options.state_dir's copy
	struct lg_config *config;
};

/**
 * Creates linkguard for a compositor. options may be NULL for the defaults;
 * session is NULL on the headless backend. Destroyed with the display.
 */
struct lg_manager *lg_manager_create(struct wl_display *display,
	struct wlr_backend *backend, struct wlr_session *session,
	const struct lg_options *options);
void lg_manager_destroy(struct lg_manager *manager);

/**
 * Reads the configuration file again (linkguard(5)) and applies it to every
 * connector. False, with the reason logged, when the file exists but cannot
 * be read or is not a text file: the previous configuration stays.
 */
bool lg_manager_reload_config(struct lg_manager *manager);

/** The connector currently driving output, or NULL (not a watched output). */
struct lg_connector *lg_manager_connector_from_output(struct lg_manager *manager,
	struct wlr_output *output);

/**
 * For a compositor's new_output handler: sets the mode linkguard recommends
 * for output into state (the requested mode when the link holds it, else the
 * policy's fallback, else the sink's preferred mode), and the scale and
 * transform the connector's last output had when the same monitor drove it
 * (wlroots recreated the output, or it was replugged). The output's place
 * in the layout is the compositor's to keep, by output name. Returns false when
 * linkguard has no opinion about this output; the compositor then picks its
 * own mode as usual.
 */
bool lg_manager_recommend_state(struct lg_manager *manager,
	struct wlr_output *output, struct wlr_output_state *state);

#endif
