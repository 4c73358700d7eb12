/*
 * liblinkguard-preload.so: linkguard inside an unmodified wlroots
 * compositor (sway, labwc, river), loaded with LD_PRELOAD.
 *
 * It wraps three functions every wlroots compositor calls at start-up, to
 * learn what linkguard needs: wl_display_create() (the display),
 * wlr_backend_autocreate() (the backend and the session) and
 * wlr_backend_start() (where it attaches: before the first outputs appear,
 * after the compositor has added its own listeners). The real functions are
 * found with dlsym(RTLD_NEXT). Nothing else changes: without a link
 * failure, the compositor runs as without the preload.
 *
 * Fallbacks reach the compositor as MODE-only request_state events
 * (lg_commit_request_state), so that its own configuration follows; a
 * replugged output gets linkguard's recommendation the same way, before
 * the compositor's first commit (handle_new_output).
 *
 * The configuration file and the LINKGUARD_* variables of linkguard(5)
 * apply as in any compositor (LINKGUARD_RECOVER=0 watches and reports
 * only, for comparisons). allow-retry is off unless configured: the preload
 * cannot tell sandboxed clients apart, so with it on every client may ask
 * for a retry. Besides:
 *   LINKGUARD_SIM=FILE        the simulated link on the headless backend,
 *                             driven by a scenario file (for CI)
 *   LINKGUARD_DEBUG=1         debug logging
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/backend.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/drm.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <linkguard/protocol.h>
#include <linkguard/sim.h>

static struct {
	bool refused; // another wlroots than ours is loaded
	struct wl_display *display;
	struct wlr_backend *backend;
	struct wlr_session *session;
	bool attached;
	struct lg_manager *manager;
	struct lg_sim *sim;
	struct wl_listener new_output;
	struct wl_listener backend_destroy;
} preload;

/* The next definition of symbol after ours, or NULL with one log line. */
static void *next_symbol(const char *symbol) {
	void *real = dlsym(RTLD_NEXT, symbol);
	if (real == NULL) {
		lg_log(LG_ERROR, "preload: %s not found: staying out of the way", symbol);
		preload.refused = true;
	}
	return real;
}

static int find_wlroots(struct dl_phdr_info *info, size_t size, void *data) {
	const char *base = strrchr(info->dlpi_name, '/');
	base = base != NULL ? base + 1 : info->dlpi_name;
	if (strncmp(base, "libwlroots", strlen("libwlroots")) == 0 &&
			strncmp(base, LG_WLROOTS_SONAME, strlen(LG_WLROOTS_SONAME)) != 0) {
		*(const char **)data = base;
		return 1;
	}
	return 0;
}

/*
 * Two wlroots in one process share nothing: a compositor linked against
 * another minor version must not be touched at all.
 */
__attribute__((constructor))
static void preload_init(void) {
	lg_log_init(getenv("LINKGUARD_DEBUG") != NULL ? LG_DEBUG : LG_INFO, NULL);
	const char *other = NULL;
	dl_iterate_phdr(find_wlroots, &other);
	if (other != NULL) {
		lg_log(LG_ERROR, "preload: built for %s, the compositor uses %s: "
			"staying out of the way", LG_WLROOTS_SONAME, other);
		preload.refused = true;
	}
}

/* Every client: allow-retry decides retries; any client may reload. */
static bool privileged(const struct wl_client *client, void *data) {
	return true;
}

/*
 * A new output of a connector linkguard fell back on: the compositor may
 * have stored that fallback as the output's configuration (sway stores
 * every request_state) and would light it, and linkguard's step up to the
 * requested mode would follow as a second modeset. Heard after the
 * compositor's own new_output handler (added later), the recommendation
 * still comes before its first commit where that waits for the event
 * loop: sway applies new outputs from a 10 ms timer and a request_state
 * at once (sway/desktop/output.c), so the replug is one modeset.
 */
static void handle_new_output(struct wl_listener *listener, void *data) {
	struct wlr_output *output = data;
	struct lg_connector *conn =
		lg_manager_connector_from_output(preload.manager, output);
	if (conn == NULL || !conn->has_last_fallback) {
		return;
	}
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	if (lg_manager_recommend_state(preload.manager, output, &state)) {
		wlr_output_send_request_state(output, &state);
	}
	wlr_output_state_finish(&state);
}

static void handle_backend_destroy(struct wl_listener *listener, void *data) {
	wl_list_remove(&preload.new_output.link);
	wl_list_remove(&preload.backend_destroy.link);
}

static void attach(void) {
	preload.attached = true;
	if (preload.display == NULL) {
		lg_log(LG_ERROR, "preload: no wl_display seen: staying out of the way");
		return;
	}
	struct lg_options options;
	lg_options_init(&options);
	options.commit = lg_commit_request_state;
	char *state_dir = lg_default_state_dir();
	options.state_dir = state_dir;
	options.allow_retry = false;
	preload.manager = lg_manager_create(preload.display, preload.backend,
		preload.session, &options);
	free(state_dir);
	if (preload.manager == NULL) {
		return;
	}
	lg_drm_create(preload.manager, preload.backend, preload.session);
	if (getenv("LINKGUARD_SIM") != NULL) {
		preload.sim = lg_sim_create(preload.manager, preload.backend);
	}
	const struct lg_link_protocol_filter filter = {
		.may_retry = privileged,
		.may_reload = privileged,
	};
	lg_link_protocol_create(preload.manager, &filter);
	preload.new_output.notify = handle_new_output;
	wl_signal_add(&preload.backend->events.new_output, &preload.new_output);
	preload.backend_destroy.notify = handle_backend_destroy;
	wl_signal_add(&preload.backend->events.destroy, &preload.backend_destroy);
	lg_log(LG_INFO, "preload: attached to the compositor");
}

struct wl_display *wl_display_create(void) {
	static struct wl_display *(*real)(void);
	if (real == NULL && (real = next_symbol("wl_display_create")) == NULL) {
		return NULL;
	}
	struct wl_display *display = real();
	if (preload.display == NULL) {
		preload.display = display;
	}
	return display;
}

struct wlr_backend *wlr_backend_autocreate(struct wl_event_loop *loop,
		struct wlr_session **session_ptr) {
	static struct wlr_backend *(*real)(struct wl_event_loop *,
		struct wlr_session **);
	if (real == NULL && (real = next_symbol("wlr_backend_autocreate")) == NULL) {
		return NULL;
	}
	struct wlr_backend *backend = real(loop, session_ptr);
	if (preload.backend == NULL && backend != NULL) {
		preload.backend = backend;
		preload.session = session_ptr != NULL ? *session_ptr : NULL;
	}
	return backend;
}

bool wlr_backend_start(struct wlr_backend *backend) {
	static bool (*real)(struct wlr_backend *);
	if (real == NULL && (real = next_symbol("wlr_backend_start")) == NULL) {
		return false;
	}
	// wlroots starts the multi backend's children through here too.
	bool ours = !preload.refused && !preload.attached && backend == preload.backend;
	if (ours) {
		attach();
	}
	bool ok = real(backend);
	const char *scenario = getenv("LINKGUARD_SIM");
	if (ours && ok && preload.sim != NULL) {
		lg_sim_load_scenario(preload.sim, scenario);
	}
	return ok;
}
