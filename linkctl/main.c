/*
 * linkctl: shows and follows the DisplayPort link state a compositor reports
 * through linkguard-link-v1, and asks it to retry a connector's mode.
 *
 *   linkctl [--json]             list connectors
 *   linkctl watch [--json]       one line per change until SIGINT
 *   linkctl watch --waybar       waybar's line, at start and per change
 *   linkctl watch --notify [--json|--waybar]  desktop notifications
 *   linkctl retry NAME           try NAME's requested mode again
 *   linkctl history [NAME] [--json]   the incidents kept per connector
 *   linkctl reload               the compositor reads linkguard(5) again
 *
 * Exit status: 0 success (retry: succeeded); 1 retry failed; 2 usage;
 * 3 retry denied; 4 no such connector; 5 the compositor lacks the protocol;
 * 6 retry cancelled; 7 cannot connect, or the connection was lost;
 * 8 watch --notify without a session bus, or it was lost; 9 the compositor keeps no history or cannot reload (protocol version 1 or 2).
 * reload: 0 reloaded, 1 failed (the file cannot be read), 3 denied.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>
#include "linkctl.h"

static const char usage[] =
	"usage: linkctl [--json]            list connectors and their link state\n"
	"       linkctl watch [--json]      print every change until interrupted\n"
	"       linkctl watch --waybar      print waybar's line when it changes\n"
	"       linkctl watch --notify [--json|--waybar]\n"
	"                                   send desktop notifications too\n"
	"       linkctl retry NAME          try NAME's requested mode again\n"
	"       linkctl history [NAME] [--json]\n"
	"                                   the last incidents on each link\n"
	"       linkctl reload              read the configuration file again\n"
	"       linkctl --help\n"
	"\n"
	"Exit status: 0 ok (retry succeeded), 1 retry failed, 2 usage,\n"
	"3 retry denied, 4 no such connector, 5 no linkguard-link-v1 in the\n"
	"compositor, 6 retry cancelled, 7 cannot connect or connection lost,\n"
	"8 no session bus for --notify, 9 no history or reload (the compositor\n"
	"speaks protocol version 1 or 2). reload: 0 reloaded, 1 failed, 3 denied.\n";

static int list(struct linkctl *ctl) {
	if (ctl->json) {
		return json_print_list(ctl) ? EXIT_OK : EXIT_FAILURE;
	}
	for (struct connector *c = ctl->connectors; c != NULL; c = c->next) {
		text_print_connector(c);
	}
	return EXIT_OK;
}

int main(int argc, char *argv[]) {
	struct linkctl ctl = { .retry_answer = -1 };
	const char *command = "list", *name = NULL;
	bool notify = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			ctl.json = true;
		} else if (strcmp(argv[i], "--waybar") == 0) {
			ctl.waybar = true;
		} else if (strcmp(argv[i], "--notify") == 0) {
			notify = true;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return EXIT_OK;
		} else if (strcmp(command, "list") == 0 && (strcmp(argv[i], "list") == 0 ||
				strcmp(argv[i], "watch") == 0 || strcmp(argv[i], "retry") == 0 ||
				strcmp(argv[i], "history") == 0 || strcmp(argv[i], "reload") == 0)) {
			command = argv[i];
		} else if ((strcmp(command, "retry") == 0 ||
				strcmp(command, "history") == 0) && name == NULL) {
			name = argv[i];
		} else {
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	ctl.watching = strcmp(command, "watch") == 0;
	bool retry = strcmp(command, "retry") == 0;
	bool history = strcmp(command, "history") == 0;
	bool reload = strcmp(command, "reload") == 0;
	if ((retry != (name != NULL) && !history) ||
			((ctl.waybar || notify) && !ctl.watching) ||
			(ctl.waybar && ctl.json)) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (notify && (ctl.notifier = notifier_create()) == NULL) {
		return EXIT_NO_SESSION_BUS;
	}

	ctl.display = wl_display_connect(NULL);
	if (ctl.display == NULL) {
		fprintf(stderr, "linkctl: cannot connect to a Wayland compositor\n");
		notifier_destroy(ctl.notifier);
		return EXIT_CONNECTION;
	}
	if (ctl.watching) {
		watch_prepare(&ctl);
	}
	int status = linkctl_connect(&ctl);
	if (status == EXIT_OK) {
		status = ctl.watching ? linkctl_watch(&ctl) :
			retry ? linkctl_retry(&ctl, name) :
			history ? linkctl_history(&ctl, name) :
			reload ? linkctl_reload(&ctl) : list(&ctl);
	}
	if (ctl.out_of_memory) {
		fprintf(stderr, "linkctl: out of memory\n");
		status = EXIT_FAILURE;
	}
	linkctl_finish(&ctl);
	notifier_destroy(ctl.notifier);
	return status;
}
