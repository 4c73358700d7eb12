/*
 * lg-protocol-host: the smallest compositor that serves linkguard-link-v1,
 * for the protocol tests: wlroots' headless backend, linkguard with the
 * simulated link, and the protocol server. No rendering, no input.
 *
 *   lg-protocol-host --sim SCENARIO [--allow-retry] [--allow-reload]
 *       [--settle-ms MS] [--sink-ms MS] [--sandboxed CMD] [--description TEXT]
 *
 * --allow-retry   every client but sandboxed ones may retry
 * --allow-reload  every client but sandboxed ones may reload the
 *                 configuration (else none may: the denied path)
 * --sink-ms MS    the sink's DPCD read every MS, a dark link after MS
 * --sandboxed CMD runs CMD as a client connected through WAYLAND_SOCKET and
 *                 treats it as sandboxed: it neither sees the global nor
 *                 may retry (what a compositor does for security-context
 *                 clients)
 * --description TEXT  what every connector's monitor is called instead of
 *                 the sink's name: any bytes (an EDID's are), for clients
 *                 to cope with
 * SIGUSR1 withdraws the protocol (lg_link_protocol_destroy) while running.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/backend/headless.h>
#include <wlr/render/allocator.h>
#include <wlr/render/pixman.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#include <linkguard/backend.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <linkguard/protocol.h>
#include <linkguard/sim.h>

struct host {
	struct wl_display *display;
	struct wlr_backend *backend;
	struct wlr_renderer *renderer;
	struct wlr_allocator *allocator;
	struct lg_manager *manager;
	struct lg_sim *sim;
	struct lg_link_protocol *protocol;
	bool allow_retry, allow_reload;
	const char *description; // NULL: the sim's
	struct wl_client *sandboxed; // NULL once gone
	struct wl_listener sandboxed_destroy;
	struct wl_listener new_output;
};

static bool client_is_sandboxed(const struct host *host,
		const struct wl_client *client) {
	return host->sandboxed != NULL && client == host->sandboxed;
}

static bool filter_can_see(const struct wl_client *client, void *data) {
	return !client_is_sandboxed(data, client);
}

static bool filter_may_reload(const struct wl_client *client, void *data) {
	struct host *host = data;
	return host->allow_reload && !client_is_sandboxed(host, client);
}

static bool filter_may_retry(const struct wl_client *client, void *data) {
	struct host *host = data;
	return host->allow_retry && !client_is_sandboxed(host, client);
}

static void handle_new_output(struct wl_listener *listener, void *data) {
	struct host *host = wl_container_of(listener, host, new_output);
	struct wlr_output *output = data;
	wlr_output_init_render(output, host->allocator, host->renderer);
	struct lg_connector *conn =
		lg_manager_connector_from_output(host->manager, output);
	if (host->description != NULL && conn != NULL) {
		// After the sim named the sink, before the first commit.
		lg_connector_set_description(conn, host->description);
	}
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, true);
	if (!lg_manager_recommend_state(host->manager, output, &state)) {
		wlr_output_state_set_custom_mode(&state, output->width,
			output->height, 0);
	}
	wlr_output_commit_state(output, &state);
	wlr_output_state_finish(&state);
}

static void handle_sandboxed_destroy(struct wl_listener *listener, void *data) {
	struct host *host = wl_container_of(listener, host, sandboxed_destroy);
	wl_list_remove(&listener->link);
	host->sandboxed = NULL;
}

static bool spawn_sandboxed(struct host *host, const char *cmd) {
	int fds[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
		return false;
	}
	host->sandboxed = wl_client_create(host->display, fds[0]);
	if (host->sandboxed == NULL) {
		return false;
	}
	host->sandboxed_destroy.notify = handle_sandboxed_destroy;
	wl_client_add_destroy_listener(host->sandboxed, &host->sandboxed_destroy);
	pid_t pid = fork();
	if (pid < 0) {
		return false;
	}
	if (pid == 0) {
		int fd = dup(fds[1]); // without CLOEXEC
		char env[16];
		snprintf(env, sizeof(env), "%d", fd);
		setenv("WAYLAND_SOCKET", env, true);
		execl("/bin/sh", "/bin/sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	return true;
}

static int handle_terminate(int signal_number, void *data) {
	wl_display_terminate(data);
	return 0;
}

static int handle_withdraw(int signal_number, void *data) {
	struct host *host = data;
	lg_link_protocol_destroy(host->protocol);
	host->protocol = NULL;
	fprintf(stderr, "lg-protocol-host: protocol withdrawn\n");
	return 0;
}

int main(int argc, char *argv[]) {
	static const struct option options[] = {
		{ "sim", required_argument, NULL, 'S' },
		{ "allow-retry", no_argument, NULL, 'r' },
		{ "allow-reload", no_argument, NULL, 'l' },
		{ "settle-ms", required_argument, NULL, 'm' },
		{ "sandboxed", required_argument, NULL, 'x' },
		{ "description", required_argument, NULL, 'd' },
		{ "sink-ms", required_argument, NULL, 'k' },
		{ 0 },
	};
	const char *scenario = NULL, *sandboxed_cmd = NULL;
	struct host host = {0};
	struct lg_options lg_options;
	lg_options_init(&lg_options);
	int c;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'S':
			scenario = optarg;
			break;
		case 'r':
			host.allow_retry = true;
			break;
		case 'l':
			host.allow_reload = true;
			break;
		case 'm':
			lg_options.settle_ms = (uint32_t)atoi(optarg);
			break;
		case 'x':
			sandboxed_cmd = optarg;
			break;
		case 'k':
			lg_options.sink_poll_ms = (uint32_t)atoi(optarg);
			lg_options.sink_settle_ms = lg_options.sink_poll_ms;
			break;
		case 'd':
			host.description = optarg;
			break;
		default:
			return EXIT_FAILURE;
		}
	}
	if (scenario == NULL) {
		fprintf(stderr, "usage: %s --sim SCENARIO [--allow-retry] [--allow-reload] "
			"[--settle-ms MS] [--sink-ms MS] [--sandboxed CMD] "
			"[--description TEXT]\n", argv[0]);
		return EXIT_FAILURE;
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	wlr_log_init(WLR_ERROR, NULL);
	lg_log_init(LG_DEBUG, NULL);

	host.display = wl_display_create();
	struct wl_event_loop *loop = wl_display_get_event_loop(host.display);
	host.backend = wlr_headless_backend_create(loop);
	host.renderer = wlr_pixman_renderer_create();
	if (host.backend == NULL || host.renderer == NULL) {
		return EXIT_FAILURE;
	}
	host.allocator = wlr_allocator_autocreate(host.backend, host.renderer);
	host.manager = lg_manager_create(host.display, host.backend, NULL,
		&lg_options);
	host.sim = lg_sim_create(host.manager, host.backend);
	if (host.allocator == NULL || host.manager == NULL || host.sim == NULL) {
		return EXIT_FAILURE;
	}
	const struct lg_link_protocol_filter filter = {
		.can_see = filter_can_see,
		.may_retry = filter_may_retry,
		.may_reload = filter_may_reload,
		.data = &host,
	};
	host.protocol = lg_link_protocol_create(host.manager, &filter);
	if (host.protocol == NULL) {
		return EXIT_FAILURE;
	}
	wl_display_set_global_filter(host.display, lg_link_protocol_global_filter,
		host.protocol);
	host.new_output.notify = handle_new_output;
	wl_signal_add(&host.backend->events.new_output, &host.new_output);

	struct wl_event_source *sources[] = {
		wl_event_loop_add_signal(loop, SIGINT, handle_terminate, host.display),
		wl_event_loop_add_signal(loop, SIGTERM, handle_terminate, host.display),
		wl_event_loop_add_signal(loop, SIGUSR1, handle_withdraw, &host),
	};
	signal(SIGCHLD, SIG_IGN);

	const char *socket = wl_display_add_socket_auto(host.display);
	if (socket == NULL || !wlr_backend_start(host.backend) ||
			!lg_sim_load_scenario(host.sim, scenario)) {
		return EXIT_FAILURE;
	}
	if (sandboxed_cmd != NULL && !spawn_sandboxed(&host, sandboxed_cmd)) {
		fprintf(stderr, "lg-protocol-host: cannot spawn %s\n", sandboxed_cmd);
		return EXIT_FAILURE;
	}
	fprintf(stderr, "lg-protocol-host: running on WAYLAND_DISPLAY=%s\n", socket);
	wl_display_run(host.display);

	// Teardown in the order a compositor should use.
	wl_display_destroy_clients(host.display);
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		wl_event_source_remove(sources[i]);
	}
	lg_link_protocol_destroy(host.protocol);
	lg_sim_destroy(host.sim);
	lg_manager_destroy(host.manager);
	wl_list_remove(&host.new_output.link);
	wlr_backend_destroy(host.backend);
	wlr_allocator_destroy(host.allocator);
	wlr_renderer_destroy(host.renderer);
	wl_display_destroy(host.display);
	fprintf(stderr, "lg-protocol-host: exited cleanly\n");
	return EXIT_SUCCESS;
}
