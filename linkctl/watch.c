/*
 * linkctl watch: one line per change, stamped with CLOCK_MONOTONIC when the
 * batch's done arrived (the changes of one batch share it), until SIGINT or
 * SIGTERM. With --waybar the status bar's line instead (waybar.c); with
 * --notify desktop notifications too (notify.c), and lines only when a
 * format was asked for (--json, --waybar).
 */
#define _GNU_SOURCE // ppoll
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <wayland-client.h>
#include "linkctl.h"

static void watch_report(struct linkctl *ctl, double now, struct connector *conn,
		uint32_t changes) {
	if (ctl->notifier != NULL && !(changes & CHANGE_REMOVED)) {
		notifier_report(ctl, conn);
	}
	bool lines = !ctl->waybar && (ctl->notifier == NULL || ctl->json);
	// In enum change's order: the fields, added or removed, an incident,
	// the settings, the sink. A new connector's settings are part of its
	// state.
	if (changes & CHANGE_ADDED) {
		changes &= ~(uint32_t)CHANGE_SETTINGS;
	}
	for (uint32_t change = 1; lines && change <= CHANGE_SINK; change <<= 1) {
		if (!(changes & change)) {
			continue;
		}
		if (!ctl->json) {
			text_print_change(now, conn, change);
		} else if (!json_print_change(now, conn, change)) {
			ctl->out_of_memory = true;
		}
	}
}

static void watch_done(struct linkctl *ctl) {
	if (ctl->waybar && !waybar_print(ctl)) {
		ctl->out_of_memory = true;
	}
}

static void handle_signal(int signal_number) {
	linkctl_interrupted = 1;
}

void watch_prepare(struct linkctl *ctl) {
	ctl->report = watch_report;
	ctl->done = watch_done;
	setvbuf(stdout, NULL, _IOLBF, 0);
	// The initial state prints lines already. A second signal ends linkctl
	// at once, should the compositor never answer.
	struct sigaction action = { .sa_handler = handle_signal,
		.sa_flags = SA_RESETHAND };
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
}

int linkctl_watch(struct linkctl *ctl) {
	// SIGINT and SIGTERM wait, blocked, between the check of
	// linkctl_interrupted and ppoll, which unblocks them: one that comes in
	// between is not lost (a status bar stops its watch right after the
	// first line).
	sigset_t blocked, waiting;
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGTERM);
	sigprocmask(SIG_BLOCK, &blocked, &waiting);

	while (!linkctl_interrupted && !ctl->out_of_memory &&
			ctl->stop_status == EXIT_OK) {
		while (wl_display_prepare_read(ctl->display) != 0) {
			wl_display_dispatch_pending(ctl->display);
		}
		if (wl_display_flush(ctl->display) < 0 && errno != EAGAIN) {
			wl_display_cancel_read(ctl->display);
			break;
		}
		struct pollfd pfd = { .fd = wl_display_get_fd(ctl->display),
			.events = POLLIN };
		if (ppoll(&pfd, 1, NULL, &waiting) < 0) {
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
	sigprocmask(SIG_SETMASK, &waiting, NULL);
	if (ctl->out_of_memory) {
		return EXIT_FAILURE;
	}
	if (ctl->stop_status != EXIT_OK) {
		return ctl->stop_status;
	}
	if (linkctl_interrupted) {
		return EXIT_OK;
	}
	fprintf(stderr, "linkctl: lost the compositor\n");
	return EXIT_CONNECTION;
}
