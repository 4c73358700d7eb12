#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linkguard/protocol.h>
#include "harness.h"
#include "soak_clients.h"

/* A client every 20 ms at most, so the soak's run stays about as long. */
#define CLIENT_INTERVAL_MS 20

static uint64_t now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool may_retry(const struct wl_client *client, void *data) {
	return true;
}

bool soak_clients_init(struct soak_clients *clients, struct harness *h,
		const char *linkctl) {
	*clients = (struct soak_clients){ .h = h, .linkctl = linkctl };
	snprintf(clients->runtime_dir, sizeof(clients->runtime_dir),
		"/tmp/lg-soak-XXXXXX");
	if (mkdtemp(clients->runtime_dir) == NULL) {
		return false;
	}
	setenv("XDG_RUNTIME_DIR", clients->runtime_dir, 1);
	const struct lg_link_protocol_filter filter = { .may_retry = may_retry };
	clients->protocol = lg_link_protocol_create(h->manager, &filter);
	const char *socket = wl_display_add_socket_auto(h->display);
	if (clients->protocol == NULL || socket == NULL) {
		return false;
	}
	setenv("WAYLAND_DISPLAY", socket, 1);
	return true;
}

static pid_t spawn(const char *linkctl, char *const argv[], int out_fd) {
	pid_t pid = fork();
	if (pid == 0) {
		int null_fd = open("/dev/null", O_WRONLY);
		dup2(out_fd >= 0 ? out_fd : null_fd, STDOUT_FILENO);
		dup2(null_fd, STDERR_FILENO);
		execv(linkctl, argv);
		_exit(127);
	}
	return pid;
}

void soak_clients_tick(struct soak_clients *clients, uint32_t random) {
	for (int i = 0; i < SOAK_MAX_CLIENTS; i++) {
		if (clients->pids[i] > 0 &&
				waitpid(clients->pids[i], NULL, WNOHANG) == clients->pids[i]) {
			clients->pids[i] = 0;
		}
	}
	if (now_ms() < clients->next_ms) {
		return;
	}
	clients->next_ms = now_ms() + CLIENT_INTERVAL_MS;
	int slot = (int)(random % SOAK_MAX_CLIENTS);
	if (clients->pids[slot] > 0) {
		// Now and then a client goes, its retry often still pending.
		if (random / 256 % 3 == 0) {
			kill(clients->pids[slot], SIGKILL);
			waitpid(clients->pids[slot], NULL, 0);
			clients->pids[slot] = 0;
			clients->killed++;
		}
		return;
	}
	char name[8];
	snprintf(name, sizeof(name), "DP-%u", random / SOAK_MAX_CLIENTS % 4 + 1);
	char *argv[] = { (char *)clients->linkctl, "retry", name, NULL };
	clients->pids[slot] = spawn(clients->linkctl, argv, -1);
	clients->started++;
}

char *soak_clients_json(struct soak_clients *clients) {
	int fds[2];
	if (pipe(fds) != 0) {
		return NULL;
	}
	char *argv[] = { (char *)clients->linkctl, "--json", NULL };
	pid_t pid = spawn(clients->linkctl, argv, fds[1]);
	close(fds[1]);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	size_t len = 0, cap = 65536;
	char *out = calloc(cap + 1, 1);
	const uint64_t deadline = now_ms() + 10000;
	while (now_ms() < deadline) {
		wl_event_loop_dispatch(clients->h->loop, 5);
		wl_display_flush_clients(clients->h->display);
		ssize_t n = read(fds[0], out + len, cap - len);
		if (n > 0) {
			len += (size_t)n;
		} else if (n == 0) {
			break;
		}
	}
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return out;
}

void soak_clients_stop(struct soak_clients *clients) {
	for (int i = 0; i < SOAK_MAX_CLIENTS; i++) {
		if (clients->pids[i] > 0) {
			kill(clients->pids[i], SIGKILL);
			waitpid(clients->pids[i], NULL, 0);
			clients->pids[i] = 0;
		}
	}
}

void soak_clients_finish(struct soak_clients *clients) {
	soak_clients_stop(clients);
	lg_link_protocol_destroy(clients->protocol);
}
