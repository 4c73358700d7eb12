/*
 * lg-link-probe: a raw linkguard-link-v1 client for the protocol tests. It
 * prints events as they arrive, or misbehaves on purpose and checks the
 * compositor's answer. Exit 0 when the expectation held.
 *
 *   lg-link-probe [--version N] MODE [ARG]   binds version N (default 1)
 *
 *   lg-link-probe events SECONDS     print every event for SECONDS, or
 *                                    until SIGTERM, and then every event
 *                                    sent before it
 *   lg-link-probe stop-twice         expect error already_stopped
 *   lg-link-probe retry-twice NAME   expect error retry_pending
 *   lg-link-probe retry-inert NAME   retry after destroying the manager:
 *                                    expect cancelled
 *   lg-link-probe retry-and-leave NAME  retry, disconnect at once
 *   lg-link-probe bind-and-leave     bind, disconnect before any event
 *   lg-link-probe retry-wait NAME    print the retry's answer
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>
#include "linkguard-link-v1-client-protocol.h"

#define MAX_CONNECTORS 16
#define MAX_RETRIES 4

struct probe {
	struct wl_display *display;
	struct wl_registry *registry;
	struct zlg_link_manager_v1 *manager;
	struct zlg_link_connector_v1 *connectors[MAX_CONNECTORS];
	char *names[MAX_CONNECTORS];
	int n_connectors;
	struct zlg_link_retry_v1 *retries[MAX_RETRIES];
	int n_retries;
	bool done, finished;
	bool overflow; // a connector beyond MAX_CONNECTORS was announced
	const char *answer;
	uint32_t version; // to bind
};

static int index_of(struct probe *probe, struct zlg_link_connector_v1 *proxy) {
	for (int i = 0; i < probe->n_connectors; i++) {
		if (probe->connectors[i] == proxy) {
			return i;
		}
	}
	return -1;
}

#define EVENT(fmt, ...) do { \
	printf("c%d " fmt "\n", index_of(data, proxy), ##__VA_ARGS__); \
	fflush(stdout); \
} while (0)

static void on_name(void *data, struct zlg_link_connector_v1 *proxy,
		const char *name) {
	struct probe *probe = data;
	probe->names[index_of(probe, proxy)] = strdup(name);
	EVENT("name %s", name);
}

static void on_description(void *data, struct zlg_link_connector_v1 *proxy,
		const char *description) {
	EVENT("description %s", description);
}

static void on_connection(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t connection) {
	EVENT("connection %u", connection);
}

static void on_link_status(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t status) {
	EVENT("link_status %u", status);
}

static void on_state(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t state) {
	EVENT("state %u", state);
}

static void on_requested(void *data, struct zlg_link_connector_v1 *proxy,
		int32_t w, int32_t h, int32_t r) {
	EVENT("requested_mode %d %d %d", w, h, r);
}

static void on_current(void *data, struct zlg_link_connector_v1 *proxy,
		int32_t w, int32_t h, int32_t r) {
	EVENT("current_mode %d %d %d", w, h, r);
}

static void on_modes_reset(void *data, struct zlg_link_connector_v1 *proxy) {
	EVENT("allowed_modes_reset");
}

static void on_mode(void *data, struct zlg_link_connector_v1 *proxy,
		int32_t w, int32_t h, int32_t r, uint32_t flags) {
	EVENT("allowed_mode %d %d %d %u", w, h, r, flags);
}

static void on_link_params(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t lanes, uint32_t rate) {
	EVENT("link_params %u %u", lanes, rate);
}

static void on_fallback(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t reason, int32_t fw, int32_t fh, int32_t fr, int32_t tw,
		int32_t th, int32_t tr, uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec) {
	EVENT("fallback %u %d %d %d %d %d %d %llu.%09u", reason, fw, fh, fr,
		tw, th, tr, ((unsigned long long)sec_hi << 32) | sec_lo, nsec);
}

static void on_connector_finished(void *data, struct zlg_link_connector_v1 *proxy) {
	EVENT("finished");
}

static void on_skipped_reset(void *data, struct zlg_link_connector_v1 *proxy) {
	EVENT("skipped_modes_reset");
}

static void on_skipped(void *data, struct zlg_link_connector_v1 *proxy,
		int32_t w, int32_t h, int32_t r, uint32_t sec_hi, uint32_t sec_lo) {
	EVENT("skipped_mode %d %d %d %llu", w, h, r,
		((unsigned long long)sec_hi << 32) | sec_lo);
}

static void on_incidents_reset(void *data, struct zlg_link_connector_v1 *proxy) {
	EVENT("incidents_reset");
}

static void on_incident(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t reason, uint32_t outcome, int32_t fw, int32_t fh, int32_t fr,
		int32_t tw, int32_t th, int32_t tr, uint32_t from_lanes,
		uint32_t from_rate, uint32_t to_lanes, uint32_t to_rate,
		uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec, uint32_t duration) {
	EVENT("incident %u %u %d %d %d %d %d %d %u %u %u %u %llu.%09u %u", reason,
		outcome, fw, fh, fr, tw, th, tr, from_lanes, from_rate, to_lanes,
		to_rate, ((unsigned long long)sec_hi << 32) | sec_lo, nsec, duration);
}

static void on_setting(void *data, struct zlg_link_connector_v1 *proxy,
		const char *key, const char *value, uint32_t source, const char *origin) {
	EVENT("setting %s %s %u %s", key, value, source, origin[0] != '\0' ? origin : "-");
}

static void on_sink_status(void *data, struct zlg_link_connector_v1 *proxy,
		uint32_t flags, uint32_t locked, struct wl_array *rates) {
	char list[64] = "";
	size_t len = 0;
	const uint32_t *rate;
	wl_array_for_each(rate, rates) {
		len += (size_t)snprintf(list + len, sizeof(list) - len, " %u", *rate);
		if (len >= sizeof(list)) {
			break;
		}
	}
	EVENT("sink_status %u %u%s", flags, locked, list);
}

static const struct zlg_link_connector_v1_listener connector_listener = {
	.name = on_name,
	.description = on_description,
	.connection = on_connection,
	.link_status = on_link_status,
	.state = on_state,
	.requested_mode = on_requested,
	.current_mode = on_current,
	.allowed_modes_reset = on_modes_reset,
	.allowed_mode = on_mode,
	.link_params = on_link_params,
	.fallback = on_fallback,
	.finished = on_connector_finished,
	.skipped_modes_reset = on_skipped_reset,
	.skipped_mode = on_skipped,
	.incidents_reset = on_incidents_reset,
	.incident = on_incident,
	.setting = on_setting,
	.sink_status = on_sink_status,
};

static void on_connector(void *data, struct zlg_link_manager_v1 *manager,
		struct zlg_link_connector_v1 *proxy) {
	struct probe *probe = data;
	if (probe->n_connectors == MAX_CONNECTORS) {
		/* Not ours to keep: forgotten client-side, and the probe fails. */
		wl_proxy_destroy((struct wl_proxy *)proxy);
		probe->overflow = true;
		return;
	}
	probe->connectors[probe->n_connectors++] = proxy;
	zlg_link_connector_v1_add_listener(proxy, &connector_listener, probe);
	printf("connector c%d\n", probe->n_connectors - 1);
}

static void on_done(void *data, struct zlg_link_manager_v1 *manager) {
	struct probe *probe = data;
	probe->done = true;
	printf("done\n");
	fflush(stdout);
}

static void on_finished(void *data, struct zlg_link_manager_v1 *manager) {
	struct probe *probe = data;
	probe->finished = true;
	printf("finished\n");
	fflush(stdout);
}

static const struct zlg_link_manager_v1_listener manager_listener = {
	.connector = on_connector,
	.done = on_done,
	.finished = on_finished,
};

static void on_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct probe *probe = data;
	if (strcmp(interface, zlg_link_manager_v1_interface.name) == 0 &&
			probe->manager == NULL) {
		probe->manager = wl_registry_bind(registry, name,
			&zlg_link_manager_v1_interface,
			probe->version < version ? probe->version : version);
	}
}

static void on_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = on_global,
	.global_remove = on_global_remove,
};

static void on_succeeded(void *data, struct zlg_link_retry_v1 *retry) {
	((struct probe *)data)->answer = "succeeded";
}

static void on_failed(void *data, struct zlg_link_retry_v1 *retry, uint32_t why) {
	static const char *names[] = { "failed rejected", "failed unavailable",
		"failed link_failed" };
	((struct probe *)data)->answer = why < 3 ? names[why] : "failed ?";
}

static void on_denied(void *data, struct zlg_link_retry_v1 *retry) {
	((struct probe *)data)->answer = "denied";
}

static void on_cancelled(void *data, struct zlg_link_retry_v1 *retry) {
	((struct probe *)data)->answer = "cancelled";
}

static const struct zlg_link_retry_v1_listener retry_listener = {
	.succeeded = on_succeeded,
	.failed = on_failed,
	.denied = on_denied,
	.cancelled = on_cancelled,
};

/* Says why the probe fails; its exit status, for return fail(...). */
static int fail(const char *why) {
	fprintf(stderr, "lg-link-probe: %s\n", why);
	return 1;
}

/* Expects the connection to end with error code on interface. */
static int expect_error(struct probe *probe, const struct wl_interface *interface,
		uint32_t code) {
	while (wl_display_dispatch(probe->display) >= 0) {
	}
	if (wl_display_get_error(probe->display) != EPROTO) {
		return fail("no protocol error");
	}
	const struct wl_interface *got;
	uint32_t id;
	uint32_t got_code = wl_display_get_protocol_error(probe->display, &got, &id);
	printf("protocol error %s %u\n", got != NULL ? got->name : "?", got_code);
	return got == interface && got_code == code ? 0 : 1;
}

/* The connector named name, or NULL. */
static struct zlg_link_connector_v1 *find(struct probe *probe, const char *name) {
	for (int i = 0; i < probe->n_connectors; i++) {
		if (probe->names[i] != NULL && strcmp(probe->names[i], name) == 0) {
			return probe->connectors[i];
		}
	}
	return NULL;
}

/* Sends one retry on conn (at most MAX_RETRIES); 0, or 1 when full. */
static int retry(struct probe *probe, struct zlg_link_connector_v1 *conn) {
	if (probe->n_retries == MAX_RETRIES) {
		return fail("too many retries");
	}
	struct zlg_link_retry_v1 *r = zlg_link_connector_v1_retry(conn);
	zlg_link_retry_v1_add_listener(r, &retry_listener, probe);
	probe->retries[probe->n_retries++] = r;
	return 0;
}

static int wait_answer(struct probe *probe) {
	while (probe->answer == NULL) {
		if (wl_display_dispatch(probe->display) < 0) {
			return fail("connection lost before the answer");
		}
	}
	printf("answer %s\n", probe->answer);
	return 0;
}

static volatile sig_atomic_t terminated;

static void handle_term(int sig) {
	terminated = 1;
}

/*
 * Prints every event for seconds, or until finished or SIGTERM; 0, or 1 if
 * lost. A test that saw the compositor log what it waits for stops the
 * probe: the roundtrip then takes every event sent before that, so no
 * listening window has to be guessed.
 */
static int print_events(struct probe *probe, double seconds) {
	struct sigaction term = { .sa_handler = handle_term };
	sigaction(SIGTERM, &term, NULL);
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	double elapsed = 0;
	while (elapsed < seconds && !probe->finished && !terminated) {
		while (wl_display_prepare_read(probe->display) != 0) {
			wl_display_dispatch_pending(probe->display);
		}
		wl_display_flush(probe->display);
		struct pollfd pfd = { .fd = wl_display_get_fd(probe->display),
			.events = POLLIN };
		if (poll(&pfd, 1, 50) > 0) {
			if (wl_display_read_events(probe->display) < 0) {
				return fail("connection lost");
			}
		} else {
			wl_display_cancel_read(probe->display);
		}
		wl_display_dispatch_pending(probe->display);
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed = now.tv_sec - start.tv_sec +
			(now.tv_nsec - start.tv_nsec) / 1e9;
	}
	if (terminated && wl_display_roundtrip(probe->display) < 0) {
		return fail("connection lost");
	}
	return probe->overflow ? fail("too many connectors") : 0;
}

/* Runs mode once connected; the exit status of the probe. */
static int probe_run(struct probe *probe, const char *mode, const char *arg) {
	probe->registry = wl_display_get_registry(probe->display);
	wl_registry_add_listener(probe->registry, &registry_listener, probe);
	wl_display_roundtrip(probe->display);
	if (probe->manager == NULL) {
		return fail("no zlg_link_manager_v1");
	}
	if (strcmp(mode, "bind-and-leave") == 0) {
		wl_display_flush(probe->display);
		return 0;
	}
	zlg_link_manager_v1_add_listener(probe->manager, &manager_listener, probe);
	while (!probe->done && !probe->finished) {
		if (wl_display_dispatch(probe->display) < 0) {
			return fail("connection lost");
		}
	}
	if (probe->overflow) {
		return fail("too many connectors");
	}

	if (strcmp(mode, "events") == 0) {
		return print_events(probe, arg != NULL ? atof(arg) : 5);
	}
	if (strcmp(mode, "stop-twice") == 0) {
		zlg_link_manager_v1_stop(probe->manager);
		zlg_link_manager_v1_stop(probe->manager);
		return expect_error(probe, &zlg_link_manager_v1_interface,
			ZLG_LINK_MANAGER_V1_ERROR_ALREADY_STOPPED);
	}
	if (arg == NULL) {
		return fail("missing connector name");
	}
	struct zlg_link_connector_v1 *conn = find(probe, arg);
	if (conn == NULL) {
		return fail("no such connector");
	}
	if (strcmp(mode, "retry-twice") == 0) {
		if (retry(probe, conn) != 0 || retry(probe, conn) != 0) {
			return 1;
		}
		return expect_error(probe, &zlg_link_connector_v1_interface,
			ZLG_LINK_CONNECTOR_V1_ERROR_RETRY_PENDING);
	}
	if (strcmp(mode, "retry-inert") == 0) {
		zlg_link_manager_v1_destroy(probe->manager);
		probe->manager = NULL;
		if (retry(probe, conn) != 0 || wait_answer(probe) != 0) {
			return 1;
		}
		return strcmp(probe->answer, "cancelled") == 0 ? 0 : 1;
	}
	if (strcmp(mode, "retry-and-leave") == 0) {
		if (retry(probe, conn) != 0) {
			return 1;
		}
		wl_display_flush(probe->display);
		return 0;
	}
	if (strcmp(mode, "retry-wait") == 0) {
		if (retry(probe, conn) != 0) {
			return 1;
		}
		return wait_answer(probe);
	}
	return fail("unknown mode");
}

/*
 * Frees the client side only (wl_proxy_destroy sends no request): the
 * leave-at-once modes must disconnect without a word to the compositor.
 */
static void probe_finish(struct probe *probe) {
	for (int i = 0; i < probe->n_retries; i++) {
		wl_proxy_destroy((struct wl_proxy *)probe->retries[i]);
	}
	for (int i = 0; i < probe->n_connectors; i++) {
		wl_proxy_destroy((struct wl_proxy *)probe->connectors[i]);
		free(probe->names[i]);
	}
	if (probe->manager != NULL) {
		wl_proxy_destroy((struct wl_proxy *)probe->manager);
	}
	if (probe->registry != NULL) {
		wl_registry_destroy(probe->registry);
	}
	wl_display_disconnect(probe->display);
}

int main(int argc, char *argv[]) {
	struct probe probe = { .version = 1 };
	if (argc > 2 && strcmp(argv[1], "--version") == 0) {
		probe.version = (uint32_t)atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 || probe.version < 1) {
		return fail("usage: lg-link-probe [--version N] MODE [ARG]");
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	probe.display = wl_display_connect(NULL);
	if (probe.display == NULL) {
		return fail("cannot connect");
	}
	int status = probe_run(&probe, argv[1], argc > 2 ? argv[2] : NULL);
	probe_finish(&probe);
	return status;
}
