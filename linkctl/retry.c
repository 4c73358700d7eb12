/*
 * linkctl retry NAME: asks the compositor to try NAME's requested mode
 * again and waits for the one answer: succeeded, failed, denied or
 * cancelled.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>
#include "linkguard-link-v1-client-protocol.h"
#include "linkctl.h"

static void handle_succeeded(void *data, struct zlg_link_retry_v1 *retry) {
	struct linkctl *ctl = data;
	ctl->retry_answer = EXIT_OK;
}

static void handle_failed(void *data, struct zlg_link_retry_v1 *retry,
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

static void handle_denied(void *data, struct zlg_link_retry_v1 *retry) {
	struct linkctl *ctl = data;
	ctl->retry_answer = EXIT_RETRY_DENIED;
}

static void handle_cancelled(void *data, struct zlg_link_retry_v1 *retry) {
	struct linkctl *ctl = data;
	ctl->retry_answer = EXIT_RETRY_CANCELLED;
}

static const struct zlg_link_retry_v1_listener retry_listener = {
	.succeeded = handle_succeeded,
	.failed = handle_failed,
	.denied = handle_denied,
	.cancelled = handle_cancelled,
};

int linkctl_retry(struct linkctl *ctl, const char *name) {
	struct connector *conn = linkctl_find(ctl, name);
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
