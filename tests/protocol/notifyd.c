/*
 * lg-notifyd: a notification daemon for the tests that records what it is
 * asked: org.freedesktop.Notifications on the session bus, as the Desktop
 * Notifications Specification 1.2 has it, without drawing anything. One line
 * per Notify on standard output:
 *
 *   notify id=ID replaces=ID app=APP urgency=U category=C summary=S|body=B
 *
 * ids as a daemon gives them: a replaces_id it knows is kept, else the next
 * one. It claims body-markup, so clients escape their bodies. Runs until
 * killed or the bus goes away.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

static uint32_t last_id;

/* The hints' urgency and category; the others are skipped. */
static int read_hints(sd_bus_message *msg, uint8_t *urgency,
		const char **category) {
	int ret = sd_bus_message_enter_container(msg, 'a', "{sv}");
	while (ret >= 0 && (ret = sd_bus_message_enter_container(msg, 'e', "sv")) > 0) {
		const char *key;
		ret = sd_bus_message_read(msg, "s", &key);
		if (ret >= 0 && strcmp(key, "urgency") == 0) {
			ret = sd_bus_message_read(msg, "v", "y", urgency);
		} else if (ret >= 0 && strcmp(key, "category") == 0) {
			ret = sd_bus_message_read(msg, "v", "s", category);
		} else if (ret >= 0) {
			ret = sd_bus_message_skip(msg, "v");
		}
		if (ret >= 0) {
			ret = sd_bus_message_exit_container(msg);
		}
	}
	return ret < 0 ? ret : sd_bus_message_exit_container(msg);
}

static int handle_notify(sd_bus_message *msg, void *data, sd_bus_error *error) {
	const char *app, *icon, *summary, *body, *category = "";
	uint32_t replaces;
	uint8_t urgency = 1;
	int ret = sd_bus_message_read(msg, "susss", &app, &replaces, &icon,
		&summary, &body);
	if (ret >= 0) {
		ret = sd_bus_message_skip(msg, "as");
	}
	if (ret >= 0) {
		ret = read_hints(msg, &urgency, &category);
	}
	if (ret >= 0) {
		ret = sd_bus_message_skip(msg, "i");
	}
	if (ret < 0) {
		return ret;
	}
	uint32_t id = replaces > 0 && replaces <= last_id ? replaces : ++last_id;
	printf("notify id=%u replaces=%u app=%s urgency=%u category=%s "
		"summary=%s|body=%s\n", id, replaces, app, urgency, category,
		summary, body);
	fflush(stdout);
	return sd_bus_reply_method_return(msg, "u", id);
}

static int handle_capabilities(sd_bus_message *msg, void *data,
		sd_bus_error *error) {
	return sd_bus_reply_method_return(msg, "as", 2, "body", "body-markup");
}

static int handle_server_information(sd_bus_message *msg, void *data,
		sd_bus_error *error) {
	return sd_bus_reply_method_return(msg, "ssss", "lg-notifyd", "linkguard",
		"1", "1.2");
}

static int handle_close(sd_bus_message *msg, void *data, sd_bus_error *error) {
	return sd_bus_reply_method_return(msg, "");
}

static const sd_bus_vtable vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("Notify", "susssasa{sv}i", "u", handle_notify,
		SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("GetCapabilities", "", "as", handle_capabilities,
		SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("GetServerInformation", "", "ssss",
		handle_server_information, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("CloseNotification", "u", "", handle_close,
		SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};

int main(void) {
	sd_bus *bus = NULL;
	int ret = sd_bus_open_user(&bus);
	if (ret >= 0) {
		ret = sd_bus_add_object_vtable(bus, NULL,
			"/org/freedesktop/Notifications",
			"org.freedesktop.Notifications", vtable, NULL);
	}
	if (ret >= 0) {
		ret = sd_bus_request_name(bus, "org.freedesktop.Notifications", 0);
	}
	if (ret >= 0) {
		fprintf(stderr, "lg-notifyd: serving org.freedesktop.Notifications\n");
	}
	while (ret >= 0) {
		ret = sd_bus_process(bus, NULL);
		if (ret == 0) {
			ret = sd_bus_wait(bus, UINT64_MAX);
		}
	}
	fprintf(stderr, "lg-notifyd: %s\n", strerror(-ret));
	sd_bus_flush_close_unref(bus);
	return EXIT_FAILURE;
}
