/*
 * linkguard-example: a small wlroots compositor that keeps its outputs alive
 * when a DisplayPort link goes BAD.
 *
 * Everything a compositor needs to show windows is here, in the order the
 * data flows: outputs (backend -> layout -> scene -> wlr-output-management),
 * xdg-shell windows, keyboards, and linkguard's reports. linkguard itself is
 * a handful of lines, each marked "linkguard:".
 *
 *   linkguard-example [-v] [-t] [-s CMD] [--allow-retry] [--no-recover]
 *                     [--ignore-request-state] [--KEY VALUE]...
 *                     [--sim SCENARIO [--exit-after-scenario]]
 *
 * Every key of linkguard(5) is an option (--policy refresh-first,
 * --min-refresh 120), over the configuration file and LINKGUARD_*. --sim runs on wlroots' headless backend with linkguard's simulated
 * DisplayPort link driven by a scenario file (see examples/scenarios/).
 * Alt+Escape quits; so do SIGINT and SIGTERM.
 */
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <xkbcommon/xkbcommon.h>
#include <wlr/version.h>
#include <wlr/backend.h>
#include <wlr/render/allocator.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_output_management_v1.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_security_context_v1.h>
#include <wlr/types/wlr_subcompositor.h>
#include <wlr/types/wlr_xdg_output_v1.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>
#include <linkguard/config.h>
#include <linkguard/drm.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <linkguard/protocol.h>
#include <linkguard/sim.h>

#define EXIT_AFTER_SCENARIO_MS 1500

struct example_server {
	struct wl_display *display;
	struct wl_event_loop *event_loop;
	struct wlr_backend *backend;
	struct wlr_session *session; // NULL on the headless backend
	struct wlr_renderer *renderer;
	struct wlr_allocator *allocator;
	struct wlr_scene *scene;
	struct wlr_output_layout *output_layout;
	struct wlr_scene_output_layout *scene_layout;
	struct wlr_output_manager_v1 *output_manager;
	struct wlr_xdg_shell *xdg_shell;
	struct wlr_seat *seat;

	struct lg_manager *linkguard;
	struct lg_link_protocol *link_protocol;
	struct lg_sim *sim; // NULL without --sim
	struct lg_drm *drm; // NULL without a session (headless)
	struct wlr_security_context_manager_v1 *security_context;
	const char *const *settings; // "key=value" from the command line

	struct wl_list outputs; // example_output.link
	struct wl_list toplevels; // example_toplevel.link, mapped, top first
	struct wl_list keyboards; // example_keyboard.link

	bool exit_after_scenario;
	bool ignore_request_state;
	bool exiting;
	int outputs_created, outputs_destroyed;

	struct wl_event_source *output_config_idle;
	struct wl_event_source *exit_timer;
	struct wl_event_source *sigint_source, *sigterm_source;

	struct wl_listener new_output;
	struct wl_listener layout_change;
	struct wl_listener output_manager_apply;
	struct wl_listener output_manager_test;
	struct wl_listener new_xdg_toplevel;
	struct wl_listener new_xdg_popup;
	struct wl_listener new_input;
	struct wl_listener linkguard_fallback;
	struct wl_listener linkguard_restored;
	struct wl_listener linkguard_failed;
	struct wl_listener sim_scenario_done;
};

struct example_output {
	struct wl_list link; // example_server.outputs
	struct example_server *server;
	struct wlr_output *wlr_output;
	struct wlr_scene_output *scene_output;
	struct lg_mode logged_mode; // the mode we last reported running

	struct wl_listener frame;
	struct wl_listener request_state;
	struct wl_listener commit;
	struct wl_listener destroy;
};

struct example_toplevel {
	struct wl_list link; // example_server.toplevels
	struct example_server *server;
	struct wlr_xdg_toplevel *xdg_toplevel;
	struct wlr_scene_tree *scene_tree;

	struct wl_listener map;
	struct wl_listener unmap;
	struct wl_listener commit;
	struct wl_listener destroy;
};

struct example_popup {
	struct wlr_xdg_popup *xdg_popup;

	struct wl_listener commit;
	struct wl_listener destroy;
};

struct example_keyboard {
	struct wl_list link; // example_server.keyboards
	struct example_server *server;
	struct wlr_keyboard *wlr_keyboard;

	struct wl_listener modifiers;
	struct wl_listener key;
	struct wl_listener destroy;
};

/* What output runs now, in linkguard's terms (for lg_mode_format). */
static struct lg_mode output_current_mode(struct wlr_output *wlr_output) {
	return (struct lg_mode){
		.width = wlr_output->width,
		.height = wlr_output->height,
		.refresh_mhz = wlr_output->refresh,
	};
}

/*
 * Outputs
 */

static void server_schedule_output_config(struct example_server *server);

static void handle_output_frame(struct wl_listener *listener, void *data) {
	struct example_output *output = wl_container_of(listener, output, frame);

	wlr_scene_output_commit(output->scene_output, NULL);

	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	wlr_scene_output_send_frame_done(output->scene_output, &now);
}

static void handle_output_request_state(struct wl_listener *listener,
		void *data) {
	struct example_output *output =
		wl_container_of(listener, output, request_state);
	const struct wlr_output_event_request_state *event = data;

	/* A compositor that leaves the backend's requests unanswered, for
	 * testing what the backend does then. */
	if (output->server->ignore_request_state) {
		wlr_log(WLR_INFO, "%s: ignoring a request_state",
			output->wlr_output->name);
		return;
	}
	wlr_output_commit_state(output->wlr_output, event->state);
}

/* The layout holds exactly the enabled outputs. */
static void output_update_layout(struct example_output *output) {
	struct example_server *server = output->server;
	struct wlr_output_layout_output *layout_output =
		wlr_output_layout_get(server->output_layout, output->wlr_output);

	if (!output->wlr_output->enabled) {
		if (layout_output != NULL) {
			wlr_output_layout_remove(server->output_layout, output->wlr_output);
		}
		return;
	}
	if (layout_output != NULL) {
		return;
	}
	layout_output = wlr_output_layout_add_auto(server->output_layout,
		output->wlr_output);
	wlr_scene_output_layout_add_output(server->scene_layout, layout_output,
		output->scene_output);
}

static void handle_output_commit(struct wl_listener *listener, void *data) {
	struct example_output *output = wl_container_of(listener, output, commit);
	const struct wlr_output_event_commit *event = data;
	const uint32_t visible = WLR_OUTPUT_STATE_ENABLED | WLR_OUTPUT_STATE_MODE |
		WLR_OUTPUT_STATE_SCALE | WLR_OUTPUT_STATE_TRANSFORM |
		WLR_OUTPUT_STATE_ADAPTIVE_SYNC_ENABLED;

	if ((event->state->committed & visible) == 0) {
		return;
	}
	struct lg_mode mode = output_current_mode(output->wlr_output);
	if (output->wlr_output->enabled &&
			!lg_mode_same_timing(&mode, &output->logged_mode)) {
		char buf[64];
		wlr_log(WLR_INFO, "output %s now runs %s", output->wlr_output->name,
			lg_mode_format(&mode, buf, sizeof(buf)));
		output->logged_mode = mode;
	}
	output_update_layout(output);
	server_schedule_output_config(output->server);
}

static void handle_output_destroy(struct wl_listener *listener, void *data) {
	struct example_output *output = wl_container_of(listener, output, destroy);
	struct example_server *server = output->server;

	if (!server->exiting) {
		server->outputs_destroyed++;
		wlr_log(WLR_INFO, "output %s destroyed", output->wlr_output->name);
		server_schedule_output_config(server);
	}

	wl_list_remove(&output->frame.link);
	wl_list_remove(&output->request_state.link);
	wl_list_remove(&output->commit.link);
	wl_list_remove(&output->destroy.link);
	wl_list_remove(&output->link);
	free(output);
}

static void handle_new_output(struct wl_listener *listener, void *data) {
	struct example_server *server =
		wl_container_of(listener, server, new_output);
	struct wlr_output *wlr_output = data;

	if (!wlr_output_init_render(wlr_output, server->allocator,
			server->renderer)) {
		wlr_log(WLR_ERROR, "%s: cannot render to this output", wlr_output->name);
		return;
	}

	struct wlr_output_state state;
	wlr_output_state_init(&state);
	/* linkguard: after a bad link, the mode the link holds; else ours.
	 * With recover off we are stock wlroots, for comparisons. */
	struct lg_connector *conn =
		lg_manager_connector_from_output(server->linkguard, wlr_output);
	if (conn == NULL || !conn->options->recover ||
			!lg_manager_recommend_state(server->linkguard, wlr_output, &state)) {
		struct wlr_output_mode *mode = wlr_output_preferred_mode(wlr_output);
		if (mode != NULL) {
			wlr_output_state_set_mode(&state, mode);
		}
	}
	wlr_output_state_set_enabled(&state, true);
	if (!wlr_output_commit_state(wlr_output, &state)) {
		wlr_log(WLR_ERROR, "%s: cannot enable output", wlr_output->name);
	}
	wlr_output_state_finish(&state);

	struct example_output *output = calloc(1, sizeof(*output));
	if (output == NULL) {
		wlr_log(WLR_ERROR, "%s: out of memory", wlr_output->name);
		return;
	}
	output->server = server;
	output->wlr_output = wlr_output;
	output->scene_output = wlr_scene_output_create(server->scene, wlr_output);

	output->frame.notify = handle_output_frame;
	wl_signal_add(&wlr_output->events.frame, &output->frame);
	output->request_state.notify = handle_output_request_state;
	wl_signal_add(&wlr_output->events.request_state, &output->request_state);
	output->commit.notify = handle_output_commit;
	wl_signal_add(&wlr_output->events.commit, &output->commit);
	output->destroy.notify = handle_output_destroy;
	wl_signal_add(&wlr_output->events.destroy, &output->destroy);
	wl_list_insert(&server->outputs, &output->link);

	server->outputs_created++;
	output->logged_mode = output_current_mode(wlr_output);
	char mode[64];
	wlr_log(WLR_INFO, "output %s created, %s", wlr_output->name,
		wlr_output->enabled ?
			lg_mode_format(&output->logged_mode, mode, sizeof(mode)) :
			"disabled");

	output_update_layout(output);
	server_schedule_output_config(server);
}

/*
 * wlr-output-management: tell clients (wlr-randr) what runs, apply what they ask
 */

/*
 * Sends the current configuration to clients. Deferred to an idle callback:
 * it is asked for from commit and destroy handlers, where an output may be
 * half gone.
 */
static void handle_output_config_idle(void *data) {
	struct example_server *server = data;
	server->output_config_idle = NULL;

	struct wlr_output_configuration_v1 *config =
		wlr_output_configuration_v1_create();
	if (config == NULL) {
		return;
	}
	struct example_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		struct wlr_output_configuration_head_v1 *head =
			wlr_output_configuration_head_v1_create(config, output->wlr_output);
		if (head == NULL) {
			continue;
		}
		struct wlr_box box;
		wlr_output_layout_get_box(server->output_layout, output->wlr_output,
			&box);
		head->state.x = box.x;
		head->state.y = box.y;
	}
	wlr_output_manager_v1_set_configuration(server->output_manager, config);
}

static void server_schedule_output_config(struct example_server *server) {
	if (server->output_config_idle != NULL || server->exiting) {
		return;
	}
	server->output_config_idle = wl_event_loop_add_idle(server->event_loop,
		handle_output_config_idle, server);
}

static void handle_layout_change(struct wl_listener *listener, void *data) {
	struct example_server *server =
		wl_container_of(listener, server, layout_change);
	server_schedule_output_config(server);
}

/* Tests, and unless test_only commits, one state for all outputs at once. */
static bool output_config_apply(struct example_server *server,
		struct wlr_output_configuration_v1 *config, bool test_only) {
	size_t states_len = 0;
	struct wlr_backend_output_state *states =
		wlr_output_configuration_v1_build_state(config, &states_len);
	if (states == NULL) {
		return false;
	}

	bool ok = wlr_backend_test(server->backend, states, states_len);
	if (ok && !test_only) {
		ok = wlr_backend_commit(server->backend, states, states_len);
	}
	for (size_t i = 0; i < states_len; i++) {
		wlr_output_state_finish(&states[i].base);
	}
	free(states);
	if (!ok || test_only) {
		return ok;
	}

	/* Our commit handler put newly enabled outputs in the layout. */
	struct wlr_output_configuration_head_v1 *head;
	wl_list_for_each(head, &config->heads, link) {
		struct wlr_output *wlr_output = head->state.output;
		if (head->state.enabled &&
				wlr_output_layout_get(server->output_layout, wlr_output)) {
			wlr_output_layout_add(server->output_layout, wlr_output,
				head->state.x, head->state.y);
		}
	}
	return true;
}

static void output_config_reply(struct example_server *server,
		struct wlr_output_configuration_v1 *config, bool test_only) {
	if (output_config_apply(server, config, test_only)) {
		wlr_output_configuration_v1_send_succeeded(config);
	} else {
		wlr_output_configuration_v1_send_failed(config);
	}
	wlr_output_configuration_v1_destroy(config);
	server_schedule_output_config(server);
}

static void handle_output_manager_apply(struct wl_listener *listener,
		void *data) {
	struct example_server *server =
		wl_container_of(listener, server, output_manager_apply);
	output_config_reply(server, data, false);
}

static void handle_output_manager_test(struct wl_listener *listener,
		void *data) {
	struct example_server *server =
		wl_container_of(listener, server, output_manager_test);
	output_config_reply(server, data, true);
}

/*
 * xdg-shell: toplevels go into the scene at (0, 0), the newest on top
 */

static void focus_toplevel(struct example_toplevel *toplevel) {
	struct example_server *server = toplevel->server;
	struct wlr_surface *surface = toplevel->xdg_toplevel->base->surface;
	struct wlr_surface *focused = server->seat->keyboard_state.focused_surface;
	if (focused == surface) {
		return;
	}
	struct wlr_xdg_toplevel *previous = focused != NULL ?
		wlr_xdg_toplevel_try_from_wlr_surface(focused) : NULL;
	if (previous != NULL) {
		wlr_xdg_toplevel_set_activated(previous, false);
	}

	wlr_scene_node_raise_to_top(&toplevel->scene_tree->node);
	wl_list_remove(&toplevel->link);
	wl_list_insert(&server->toplevels, &toplevel->link);
	wlr_xdg_toplevel_set_activated(toplevel->xdg_toplevel, true);

	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(server->seat);
	if (keyboard != NULL) {
		wlr_seat_keyboard_notify_enter(server->seat, surface,
			keyboard->keycodes, keyboard->num_keycodes, &keyboard->modifiers);
	}
}

static void handle_toplevel_map(struct wl_listener *listener, void *data) {
	struct example_toplevel *toplevel = wl_container_of(listener, toplevel, map);
	wl_list_insert(&toplevel->server->toplevels, &toplevel->link);
	focus_toplevel(toplevel);
}

static void handle_toplevel_unmap(struct wl_listener *listener, void *data) {
	struct example_toplevel *toplevel =
		wl_container_of(listener, toplevel, unmap);
	wl_list_remove(&toplevel->link);
	wl_list_init(&toplevel->link);
}

static void handle_toplevel_commit(struct wl_listener *listener, void *data) {
	struct example_toplevel *toplevel =
		wl_container_of(listener, toplevel, commit);
	/* Let the client pick its own size on its first commit. */
	if (toplevel->xdg_toplevel->base->initial_commit) {
		wlr_xdg_toplevel_set_size(toplevel->xdg_toplevel, 0, 0);
	}
}

static void handle_toplevel_destroy(struct wl_listener *listener, void *data) {
	struct example_toplevel *toplevel =
		wl_container_of(listener, toplevel, destroy);
	wl_list_remove(&toplevel->map.link);
	wl_list_remove(&toplevel->unmap.link);
	wl_list_remove(&toplevel->commit.link);
	wl_list_remove(&toplevel->destroy.link);
	wl_list_remove(&toplevel->link);
	free(toplevel);
}

static void handle_new_xdg_toplevel(struct wl_listener *listener, void *data) {
	struct example_server *server =
		wl_container_of(listener, server, new_xdg_toplevel);
	struct wlr_xdg_toplevel *xdg_toplevel = data;

	struct example_toplevel *toplevel = calloc(1, sizeof(*toplevel));
	if (toplevel == NULL) {
		wl_resource_post_no_memory(xdg_toplevel->resource);
		return;
	}
	toplevel->server = server;
	toplevel->xdg_toplevel = xdg_toplevel;
	toplevel->scene_tree =
		wlr_scene_xdg_surface_create(&server->scene->tree, xdg_toplevel->base);
	xdg_toplevel->base->data = toplevel->scene_tree; // parent of its popups
	wl_list_init(&toplevel->link);

	struct wlr_surface *surface = xdg_toplevel->base->surface;
	toplevel->map.notify = handle_toplevel_map;
	wl_signal_add(&surface->events.map, &toplevel->map);
	toplevel->unmap.notify = handle_toplevel_unmap;
	wl_signal_add(&surface->events.unmap, &toplevel->unmap);
	toplevel->commit.notify = handle_toplevel_commit;
	wl_signal_add(&surface->events.commit, &toplevel->commit);
	toplevel->destroy.notify = handle_toplevel_destroy;
	wl_signal_add(&xdg_toplevel->events.destroy, &toplevel->destroy);
}

static void handle_popup_commit(struct wl_listener *listener, void *data) {
	struct example_popup *popup = wl_container_of(listener, popup, commit);
	if (popup->xdg_popup->base->initial_commit) {
		wlr_xdg_surface_schedule_configure(popup->xdg_popup->base);
	}
}

static void handle_popup_destroy(struct wl_listener *listener, void *data) {
	struct example_popup *popup = wl_container_of(listener, popup, destroy);
	wl_list_remove(&popup->commit.link);
	wl_list_remove(&popup->destroy.link);
	free(popup);
}

static void handle_new_xdg_popup(struct wl_listener *listener, void *data) {
	struct wlr_xdg_popup *xdg_popup = data;
	struct wlr_xdg_surface *parent = xdg_popup->parent != NULL ?
		wlr_xdg_surface_try_from_wlr_surface(xdg_popup->parent) : NULL;
	if (parent == NULL || parent->data == NULL) {
		wlr_log(WLR_ERROR, "xdg_popup without an xdg_surface parent");
		return;
	}

	struct example_popup *popup = calloc(1, sizeof(*popup));
	if (popup == NULL) {
		wl_resource_post_no_memory(xdg_popup->resource);
		return;
	}
	popup->xdg_popup = xdg_popup;
	xdg_popup->base->data =
		wlr_scene_xdg_surface_create(parent->data, xdg_popup->base);

	popup->commit.notify = handle_popup_commit;
	wl_signal_add(&xdg_popup->base->surface->events.commit, &popup->commit);
	popup->destroy.notify = handle_popup_destroy;
	wl_signal_add(&xdg_popup->events.destroy, &popup->destroy);
}

/*
 * Keyboards: keys go to the focused window; Alt+Escape quits
 */

static void handle_keyboard_modifiers(struct wl_listener *listener,
		void *data) {
	struct example_keyboard *keyboard =
		wl_container_of(listener, keyboard, modifiers);
	wlr_seat_set_keyboard(keyboard->server->seat, keyboard->wlr_keyboard);
	wlr_seat_keyboard_notify_modifiers(keyboard->server->seat,
		&keyboard->wlr_keyboard->modifiers);
}

static bool keyboard_is_quit(struct example_keyboard *keyboard,
		const struct wlr_keyboard_key_event *event) {
	if (event->state != WL_KEYBOARD_KEY_STATE_PRESSED ||
			!(wlr_keyboard_get_modifiers(keyboard->wlr_keyboard) &
				WLR_MODIFIER_ALT)) {
		return false;
	}
	const xkb_keysym_t *syms;
	int count = xkb_state_key_get_syms(keyboard->wlr_keyboard->xkb_state,
		event->keycode + 8, &syms);
	for (int i = 0; i < count; i++) {
		if (syms[i] == XKB_KEY_Escape) {
			return true;
		}
	}
	return false;
}

static void handle_keyboard_key(struct wl_listener *listener, void *data) {
	struct example_keyboard *keyboard = wl_container_of(listener, keyboard, key);
	struct wlr_keyboard_key_event *event = data;

	if (keyboard_is_quit(keyboard, event)) {
		wl_display_terminate(keyboard->server->display);
		return;
	}
	wlr_seat_set_keyboard(keyboard->server->seat, keyboard->wlr_keyboard);
	wlr_seat_keyboard_notify_key(keyboard->server->seat, event->time_msec,
		event->keycode, event->state);
}

static void server_update_seat_caps(struct example_server *server) {
	uint32_t caps = 0;
	if (!wl_list_empty(&server->keyboards)) {
		caps |= WL_SEAT_CAPABILITY_KEYBOARD;
	}
	wlr_seat_set_capabilities(server->seat, caps);
}

static void handle_keyboard_destroy(struct wl_listener *listener, void *data) {
	struct example_keyboard *keyboard =
		wl_container_of(listener, keyboard, destroy);
	struct example_server *server = keyboard->server;
	wl_list_remove(&keyboard->modifiers.link);
	wl_list_remove(&keyboard->key.link);
	wl_list_remove(&keyboard->destroy.link);
	wl_list_remove(&keyboard->link);
	free(keyboard);
	if (!server->exiting) {
		server_update_seat_caps(server);
	}
}

static void server_add_keyboard(struct example_server *server,
		struct wlr_input_device *device) {
	struct wlr_keyboard *wlr_keyboard = wlr_keyboard_from_input_device(device);

	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	struct xkb_keymap *keymap = context == NULL ? NULL :
		xkb_keymap_new_from_names(context, NULL, XKB_KEYMAP_COMPILE_NO_FLAGS);
	if (keymap == NULL) {
		wlr_log(WLR_ERROR, "%s: cannot compile an XKB keymap", device->name);
		xkb_context_unref(context);
		return;
	}
	wlr_keyboard_set_keymap(wlr_keyboard, keymap);
	xkb_keymap_unref(keymap);
	xkb_context_unref(context);
	wlr_keyboard_set_repeat_info(wlr_keyboard, 25, 600);

	struct example_keyboard *keyboard = calloc(1, sizeof(*keyboard));
	if (keyboard == NULL) {
		return;
	}
	keyboard->server = server;
	keyboard->wlr_keyboard = wlr_keyboard;
	keyboard->modifiers.notify = handle_keyboard_modifiers;
	wl_signal_add(&wlr_keyboard->events.modifiers, &keyboard->modifiers);
	keyboard->key.notify = handle_keyboard_key;
	wl_signal_add(&wlr_keyboard->events.key, &keyboard->key);
	keyboard->destroy.notify = handle_keyboard_destroy;
	wl_signal_add(&device->events.destroy, &keyboard->destroy);
	wl_list_insert(&server->keyboards, &keyboard->link);

	wlr_seat_set_keyboard(server->seat, wlr_keyboard);
	server_update_seat_caps(server);
}

static void handle_new_input(struct wl_listener *listener, void *data) {
	struct example_server *server = wl_container_of(listener, server, new_input);
	struct wlr_input_device *device = data;
	if (device->type == WLR_INPUT_DEVICE_KEYBOARD) {
		server_add_keyboard(server, device);
	}
}

/*
 * linkguard's reports. A compositor with a config file would record the
 * fallback mode there, so that its next re-apply does not bring back a mode
 * the link cannot hold.
 */

static void handle_linkguard_fallback(struct wl_listener *listener,
		void *data) {
	const struct lg_fallback *fallback = data;
	char from[64], to[64];
	wlr_log(WLR_INFO, "%s: fallback %s -> %s (%s)", fallback->connector->name,
		lg_mode_format(&fallback->from, from, sizeof(from)),
		lg_mode_format(&fallback->to, to, sizeof(to)),
		lg_fallback_reason_name(fallback->reason));
}

static void handle_linkguard_restored(struct wl_listener *listener,
		void *data) {
	const struct lg_connector *conn = data;
	char mode[64];
	wlr_log(WLR_INFO, "%s: link restored at %s", conn->name,
		conn->has_current ?
			lg_mode_format(&conn->current, mode, sizeof(mode)) : "?");
}

static void handle_linkguard_failed(struct wl_listener *listener, void *data) {
	const struct lg_connector *conn = data;
	// linkguard keeps the output at its mode (off only when the kernel
	// lists none) and tries again after a backoff, not at the next replug.
	bool on = conn->output != NULL && conn->output->enabled && conn->has_current;
	char mode[64];
	wlr_log(WLR_ERROR, "%s: link failed, no mode fits now; %s%s; trying again "
		"after a backoff", conn->name, on ? "output kept at " : "output off",
		on ? lg_mode_format(&conn->current, mode, sizeof(mode)) : "");
}

/*
 * Running and stopping
 */

/* linkguard's messages go through wlr_log: one format, one clock. */
/* -t: linkguard's debug lines at wlroots' info, marked; wlroots' own quiet. */
static bool linkguard_traced = false;

static void handle_linkguard_log(enum lg_log_importance importance,
		const char *fmt, va_list args) {
	if (importance == LG_DEBUG && linkguard_traced) {
		char line[512];
		vsnprintf(line, sizeof(line), fmt, args);
		wlr_log(WLR_INFO, "(debug) %s", line);
		return;
	}
	enum wlr_log_importance verbosity = WLR_DEBUG;
	if (importance == LG_ERROR) {
		verbosity = WLR_ERROR;
	} else if (importance == LG_INFO) {
		verbosity = WLR_INFO;
	}
	_wlr_vlog(verbosity, fmt, args);
}

static int handle_exit_timer(void *data) {
	struct example_server *server = data;
	wl_display_terminate(server->display);
	return 0;
}

static void handle_sim_scenario_done(struct wl_listener *listener, void *data) {
	struct example_server *server =
		wl_container_of(listener, server, sim_scenario_done);
	wlr_log(WLR_INFO, "scenario done");
	if (!server->exit_after_scenario || server->exit_timer != NULL) {
		return;
	}
	server->exit_timer = wl_event_loop_add_timer(server->event_loop,
		handle_exit_timer, server);
	if (server->exit_timer != NULL) {
		wl_event_source_timer_update(server->exit_timer, EXIT_AFTER_SCENARIO_MS);
	}
}

static int handle_signal(int signal_number, void *data) {
	struct example_server *server = data;
	wlr_log(WLR_INFO, "caught signal %d, exiting", signal_number);
	wl_display_terminate(server->display);
	return 0;
}

static void spawn(const char *cmd) {
	pid_t pid = fork();
	if (pid < 0) {
		wlr_log_errno(WLR_ERROR, "fork failed");
	} else if (pid == 0) {
		execl("/bin/sh", "/bin/sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
}

/* linkguard: clients made through wp_security_context_v1 are sandboxed:
 * they neither see linkguard-link-v1 nor may retry a link. */
static bool client_is_sandboxed(struct example_server *server,
		const struct wl_client *client) {
	return wlr_security_context_manager_v1_lookup_client(
		server->security_context, client) != NULL;
}

static bool link_can_see(const struct wl_client *client, void *data) {
	return !client_is_sandboxed(data, client);
}

/* Unsandboxed clients may retry (when allow-retry is on) and reload. */
static bool link_privileged(const struct wl_client *client, void *data) {
	return !client_is_sandboxed(data, client);
}

static bool server_global_filter(const struct wl_client *client,
		const struct wl_global *global, void *data) {
	struct example_server *server = data;
	return lg_link_protocol_global_filter(client, global, server->link_protocol);
}

static bool server_init(struct example_server *server, bool with_sim) {
	wl_list_init(&server->outputs);
	wl_list_init(&server->toplevels);
	wl_list_init(&server->keyboards);

	server->display = wl_display_create();
	server->event_loop = wl_display_get_event_loop(server->display);
	server->backend = wlr_backend_autocreate(server->event_loop,
		&server->session);
	if (server->backend == NULL) {
		wlr_log(WLR_ERROR, "cannot create a wlroots backend");
		return false;
	}
	server->renderer = wlr_renderer_autocreate(server->backend);
	if (server->renderer == NULL) {
		wlr_log(WLR_ERROR, "cannot create a renderer");
		return false;
	}
	wlr_renderer_init_wl_display(server->renderer, server->display);
	server->allocator = wlr_allocator_autocreate(server->backend,
		server->renderer);
	if (server->allocator == NULL) {
		wlr_log(WLR_ERROR, "cannot create an allocator");
		return false;
	}

	wlr_compositor_create(server->display, 5, server->renderer);
	wlr_subcompositor_create(server->display);
	wlr_data_device_manager_create(server->display);

	server->output_layout = wlr_output_layout_create(server->display);
	server->layout_change.notify = handle_layout_change;
	wl_signal_add(&server->output_layout->events.change,
		&server->layout_change);
	server->scene = wlr_scene_create();
	server->scene_layout = wlr_scene_attach_output_layout(server->scene,
		server->output_layout);
	wlr_xdg_output_manager_v1_create(server->display, server->output_layout);

	server->output_manager = wlr_output_manager_v1_create(server->display);
	server->output_manager_apply.notify = handle_output_manager_apply;
	wl_signal_add(&server->output_manager->events.apply,
		&server->output_manager_apply);
	server->output_manager_test.notify = handle_output_manager_test;
	wl_signal_add(&server->output_manager->events.test,
		&server->output_manager_test);

	/* linkguard: created before our new_output listener, so that it knows
	 * every output before we pick a mode for it. Modes a monitor did not
	 * hold are remembered under $XDG_STATE_HOME/linkguard. It reads its
	 * configuration file; our command line goes over it. Retries only
	 * when asked for. */
	struct lg_options options;
	lg_options_init(&options);
	char *state_dir = lg_default_state_dir();
	options.state_dir = state_dir;
	options.allow_retry = false;
	options.settings = server->settings;
	server->linkguard = lg_manager_create(server->display, server->backend,
		server->session, &options);
	free(state_dir);
	if (server->linkguard == NULL) {
		return false;
	}
	server->linkguard_fallback.notify = handle_linkguard_fallback;
	wl_signal_add(&server->linkguard->events.fallback,
		&server->linkguard_fallback);
	server->linkguard_restored.notify = handle_linkguard_restored;
	wl_signal_add(&server->linkguard->events.restored,
		&server->linkguard_restored);
	server->linkguard_failed.notify = handle_linkguard_failed;
	wl_signal_add(&server->linkguard->events.failed,
		&server->linkguard_failed);
	/* linkguard: tell clients, through linkguard-link-v1. */
	server->security_context =
		wlr_security_context_manager_v1_create(server->display);
	const struct lg_link_protocol_filter link_filter = {
		.can_see = link_can_see,
		.may_retry = link_privileged,
		.may_reload = link_privileged,
		.data = server,
	};
	server->link_protocol =
		lg_link_protocol_create(server->linkguard, &link_filter);
	if (server->link_protocol == NULL) {
		return false;
	}
	wl_display_set_global_filter(server->display, server_global_filter, server);
	/* linkguard: real KMS, when wlroots drives DRM devices (a session). */
	server->drm = lg_drm_create(server->linkguard, server->backend,
		server->session);
	/* linkguard: the simulated link plugs its outputs; like the manager,
	 * it comes before our new_output listener. */
	if (with_sim) {
		server->sim = lg_sim_create(server->linkguard, server->backend);
		if (server->sim == NULL) {
			return false;
		}
		server->sim_scenario_done.notify = handle_sim_scenario_done;
		wl_signal_add(&server->sim->events.scenario_done,
			&server->sim_scenario_done);
	}

	server->new_output.notify = handle_new_output;
	wl_signal_add(&server->backend->events.new_output, &server->new_output);

	server->xdg_shell = wlr_xdg_shell_create(server->display, 3);
	server->new_xdg_toplevel.notify = handle_new_xdg_toplevel;
	wl_signal_add(&server->xdg_shell->events.new_toplevel,
		&server->new_xdg_toplevel);
	server->new_xdg_popup.notify = handle_new_xdg_popup;
	wl_signal_add(&server->xdg_shell->events.new_popup,
		&server->new_xdg_popup);

	server->seat = wlr_seat_create(server->display, "seat0");
	server->new_input.notify = handle_new_input;
	wl_signal_add(&server->backend->events.new_input, &server->new_input);

	server->sigint_source = wl_event_loop_add_signal(server->event_loop,
		SIGINT, handle_signal, server);
	server->sigterm_source = wl_event_loop_add_signal(server->event_loop,
		SIGTERM, handle_signal, server);
	return true;
}

static void remove_listener(struct wl_listener *listener) {
	if (listener->notify != NULL) {
		wl_list_remove(&listener->link);
		listener->notify = NULL;
	}
}

static void remove_source(struct wl_event_source **source) {
	if (*source != NULL) {
		wl_event_source_remove(*source);
		*source = NULL;
	}
}

/*
 * Removes every listener before the object it listens to goes away (wlroots
 * 0.19 and later assert it), then destroys in reverse order of creation.
 */
static void server_finish(struct example_server *server) {
	server->exiting = true;
	if (server->display == NULL) {
		return;
	}
	wl_display_destroy_clients(server->display);

	remove_source(&server->output_config_idle);
	remove_source(&server->exit_timer);
	remove_source(&server->sigint_source);
	remove_source(&server->sigterm_source);

	remove_listener(&server->sim_scenario_done);
	lg_sim_destroy(server->sim);
	lg_drm_destroy(server->drm);
	remove_listener(&server->linkguard_fallback);
	remove_listener(&server->linkguard_restored);
	remove_listener(&server->linkguard_failed);
	lg_link_protocol_destroy(server->link_protocol);
	lg_manager_destroy(server->linkguard);

	remove_listener(&server->new_output);
	remove_listener(&server->new_input);
	remove_listener(&server->new_xdg_toplevel);
	remove_listener(&server->new_xdg_popup);
	remove_listener(&server->layout_change);
	remove_listener(&server->output_manager_apply);
	remove_listener(&server->output_manager_test);

	if (server->scene != NULL) {
		wlr_scene_node_destroy(&server->scene->tree.node);
	}
	wlr_backend_destroy(server->backend); // destroys outputs and inputs
	wlr_allocator_destroy(server->allocator);
	wlr_renderer_destroy(server->renderer);
	wl_display_destroy(server->display);
}

static const char usage[] =
	"usage: %s [-v] [-t] [-s CMD] [--allow-retry] [--no-recover]\n"
	"          [--ignore-request-state] [--KEY VALUE]...\n"
	"          [--sim SCENARIO [--exit-after-scenario]]\n"
	"  -s CMD                 run CMD with WAYLAND_DISPLAY set\n"
	"  -v                     debug logging\n"
	"  -t                     linkguard's debug lines only, marked (debug):\n"
	"                         its recoveries traced step by step\n"
	"  --allow-retry          let unsandboxed clients retry links\n"
	"  --no-recover           watch and report only: bad links are left to\n"
	"                         wlroots, as without linkguard (--recover off)\n"
	"  --ignore-request-state never apply the output states the backend\n"
	"                         requests (logged and dropped)\n"
	"  --KEY VALUE            a setting of linkguard(5), over its file and\n"
	"                         LINKGUARD_* variables: --policy refresh-first,\n"
	"                         --min-refresh 120, --min-resolution 1920x1080,\n"
	"                         --flap-count 3, --flap-window 10s, --recover off\n"
	"  --sim SCENARIO         headless, with linkguard's simulated link\n"
	"  --exit-after-scenario  exit %.1f s after the scenario's last step\n";

enum {
	OPT_SIM = 256,
	OPT_EXIT_AFTER_SCENARIO,
	OPT_ALLOW_RETRY,
	OPT_NO_RECOVER,
	OPT_IGNORE_REQUEST_STATE,
	OPT_SETTING, // + the key's index
};

static const struct option fixed_options[] = {
	{ "sim", required_argument, NULL, OPT_SIM },
	{ "exit-after-scenario", no_argument, NULL, OPT_EXIT_AFTER_SCENARIO },
	{ "allow-retry", no_argument, NULL, OPT_ALLOW_RETRY },
	{ "no-recover", no_argument, NULL, OPT_NO_RECOVER },
	{ "ignore-request-state", no_argument, NULL, OPT_IGNORE_REQUEST_STATE },
	{ "help", no_argument, NULL, 'h' },
};

#define N_FIXED_OPTIONS (sizeof(fixed_options) / sizeof(fixed_options[0]))

/* linkguard: the fixed options, then one per key of linkguard(5) not among them. */
static struct option *build_options(void) {
	size_t n_keys = lg_setting_key_count(), n = N_FIXED_OPTIONS;
	struct option *options = calloc(n + n_keys + 1, sizeof(*options));
	if (options == NULL) {
		return NULL;
	}
	memcpy(options, fixed_options, sizeof(fixed_options));
	for (size_t i = 0; i < n_keys; i++) {
		const char *key = lg_setting_key_name(i);
		bool taken = false;
		for (size_t j = 0; j < N_FIXED_OPTIONS; j++) {
			taken = taken || strcmp(fixed_options[j].name, key) == 0;
		}
		if (!taken) {
			options[n++] = (struct option){ key, required_argument, NULL,
				OPT_SETTING + (int)i };
		}
	}
	return options;
}

/* "key=value" (malloc'ed) if value suits key; else says why. */
static char *setting_arg(const char *prog, const char *key, const char *value) {
	const char *expected;
	if (!lg_setting_check(key, value, &expected)) {
		fprintf(stderr, "%s: --%s %s: expected %s\n", prog, key, value, expected);
		return NULL;
	}
	size_t len = strlen(key) + strlen(value) + 2;
	char *setting = malloc(len);
	if (setting != NULL) {
		snprintf(setting, len, "%s=%s", key, value);
	}
	return setting;
}

static void free_settings(char **settings) {
	for (size_t i = 0; settings != NULL && settings[i] != NULL; i++) {
		free(settings[i]);
	}
	free(settings);
}

int main(int argc, char *argv[]) {
	struct option *long_options = build_options();
	// At most one setting per argument.
	char **settings = calloc((size_t)argc + 1, sizeof(*settings));
	if (long_options == NULL || settings == NULL) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return EXIT_FAILURE;
	}
	size_t n_settings = 0;
	const char *startup_cmd = NULL, *scenario = NULL;
	bool verbose = false, exit_after_scenario = false, bad_usage = false;
	bool ignore_request_state = false;
	int c;
	while (!bad_usage &&
			(c = getopt_long(argc, argv, "s:vth", long_options, NULL)) != -1) {
		char *setting = NULL;
		switch (c) {
		case 's':
			startup_cmd = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 't':
			linkguard_traced = true;
			break;
		case OPT_SIM:
			scenario = optarg;
			break;
		case OPT_EXIT_AFTER_SCENARIO:
			exit_after_scenario = true;
			break;
		case OPT_ALLOW_RETRY:
			setting = setting_arg(argv[0], "allow-retry", "on");
			bad_usage = setting == NULL;
			break;
		case OPT_NO_RECOVER:
			setting = setting_arg(argv[0], "recover", "off");
			bad_usage = setting == NULL;
			break;
		case OPT_IGNORE_REQUEST_STATE:
			ignore_request_state = true;
			break;
		case 'h':
			fprintf(stderr, usage, argv[0], EXIT_AFTER_SCENARIO_MS / 1000.0);
			free(long_options);
			free_settings(settings);
			return EXIT_SUCCESS;
		default:
			if (c < OPT_SETTING) {
				bad_usage = true;
				break;
			}
			setting = setting_arg(argv[0],
				lg_setting_key_name((size_t)(c - OPT_SETTING)), optarg);
			bad_usage = setting == NULL;
			break;
		}
		if (setting != NULL) {
			settings[n_settings++] = setting;
		}
	}
	free(long_options);
	if (bad_usage || optind < argc || (exit_after_scenario && scenario == NULL)) {
		fprintf(stderr, usage, argv[0], EXIT_AFTER_SCENARIO_MS / 1000.0);
		free_settings(settings);
		return EXIT_FAILURE;
	}

	wlr_log_init(verbose ? WLR_DEBUG : WLR_INFO, NULL);
	/* linkguard: its log follows ours. */
	lg_log_init(verbose || linkguard_traced ? LG_DEBUG : LG_INFO,
		handle_linkguard_log);

	if (scenario != NULL) {
		/* The simulated link lives on the headless backend, which then
		 * starts with no outputs of its own: the scenario plugs them. */
		setenv("WLR_BACKENDS", "headless", true);
		setenv("WLR_HEADLESS_OUTPUTS", "0", false);
	}

	struct example_server server = {
		.exit_after_scenario = exit_after_scenario,
		.ignore_request_state = ignore_request_state,
		.settings = (const char *const *)settings,
	};
	int status = EXIT_FAILURE;
	if (!server_init(&server, scenario != NULL)) {
		goto out;
	}

	const char *socket = wl_display_add_socket_auto(server.display);
	if (socket == NULL) {
		wlr_log(WLR_ERROR, "cannot open a Wayland socket");
		goto out;
	}
	if (!wlr_backend_start(server.backend)) {
		wlr_log(WLR_ERROR, "cannot start the backend");
		goto out;
	}
	/* linkguard: the scenario's clock starts now. */
	if (scenario != NULL && !lg_sim_load_scenario(server.sim, scenario)) {
		wlr_log(WLR_ERROR, "cannot run scenario %s", scenario);
		goto out;
	}

	setenv("WAYLAND_DISPLAY", socket, true);
	if (startup_cmd != NULL) {
		spawn(startup_cmd);
	}
	wlr_log(WLR_INFO, "running on WAYLAND_DISPLAY=%s (wlroots %s)", socket,
		WLR_VERSION_STR);
	wl_display_run(server.display);
	status = EXIT_SUCCESS;

out:
	wlr_log(WLR_INFO, "linkguard-example: %d outputs created, %d destroyed",
		server.outputs_created, server.outputs_destroyed);
	server_finish(&server);
	free_settings(settings);
	return status;
}
