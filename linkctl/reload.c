/*
 * linkctl reload: asks the compositor to read its linkguard configuration
 * again (protocol version 3) and waits for the one answer. The settings
 * that changed arrive before it; linkctl shows them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>
#include "linkguard-link-v1-client-protocol.h"
#include "linkctl.h"

struct reload_answer {
	int status; // enum linkctl_exit, -1 while waiting
	char *message;
};

static void handle_succeeded(void *data, struct zlg_link_reload_v1 *reload) {
	struct reload_answer *answer = data;
	answer->status = EXIT_OK;
}

static void handle_failed(void *data, struct zlg_link_reload_v1 *reload,
		const char *message) {
	struct reload_answer *answer = data;
	answer->status = EXIT_RETRY_FAILED;
	answer->message = strdup(message);
}

static void handle_denied(void *data, struct zlg_link_reload_v1 *reload) {
	struct reload_answer *answer = data;
	answer->status = EXIT_RETRY_DENIED;
}

static const struct zlg_link_reload_v1_listener reload_listener = {
	.succeeded = handle_succeeded,
	.failed = handle_failed,
	.denied = handle_denied,
};

int linkctl_reload(struct linkctl *ctl) {
	if (ctl->version < ZLG_LINK_MANAGER_V1_RELOAD_SINCE_VERSION) {
		fprintf(stderr, "linkctl: the compositor cannot reload its "
			"configuration (linkguard-link version %" PRIu32 ")\n", ctl->version);
		return EXIT_NO_HISTORY;
	}
	struct reload_answer answer = { .status = -1 };
	ctl->reload = zlg_link_manager_v1_reload(ctl->manager);
	zlg_link_reload_v1_add_listener(ctl->reload, &reload_listener, &answer);
	while (answer.status < 0 && !ctl->out_of_memory) {
		if (wl_display_dispatch(ctl->display) < 0) {
			fprintf(stderr, "linkctl: lost the compositor: %s\n", strerror(errno));
			return EXIT_CONNECTION;
		}
	}
	zlg_link_reload_v1_destroy(ctl->reload);
	ctl->reload = NULL;
	switch (answer.status) {
	case EXIT_OK:
		printf("reloaded\n");
		for (struct connector *c = ctl->connectors; c != NULL; c = c->next) {
			for (size_t i = 0; i < c->n_settings; i++) {
				if (c->settings[i].source != ZLG_LINK_CONNECTOR_V1_SETTING_SOURCE_DEFAULT) {
					printf("%s: ", c->name);
					text_print_setting(&c->settings[i]);
					putchar('\n');
				}
			}
		}
		break;
	case EXIT_RETRY_FAILED:
		printf("reload failed: %s\n", answer.message != NULL ?
			answer.message : "out of memory");
		break;
	case EXIT_RETRY_DENIED:
		printf("reload denied by the compositor\n");
		break;
	}
	free(answer.message);
	return ctl->out_of_memory ? EXIT_FAILURE : answer.status;
}
