#ifndef TESTS_SCENARIO_SOAK_CLIENTS_H
#define TESTS_SCENARIO_SOAK_CLIENTS_H

/*
 * Real clients for the soak: linkctl processes on the harness's own
 * Wayland socket that ask for retries and come and go (some killed with
 * their retry pending), and a last `linkctl --json` whose view of every
 * connector must be the compositor's.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct harness;
struct lg_link_protocol;

#define SOAK_MAX_CLIENTS 4

struct soak_clients {
	struct harness *h;
	const char *linkctl;
	struct lg_link_protocol *protocol;
	char runtime_dir[64];
	pid_t pids[SOAK_MAX_CLIENTS];
	int started, killed;
	uint64_t next_ms;
};

bool soak_clients_init(struct soak_clients *clients, struct harness *h,
	const char *linkctl);
/* Between dispatches: now and then starts, kills or reaps a client. */
void soak_clients_tick(struct soak_clients *clients, uint32_t random);
/* Kills the clients still running (their retries may be pending). */
void soak_clients_stop(struct soak_clients *clients);
/* `linkctl --json` run to its end while the compositor runs; malloc'ed. */
char *soak_clients_json(struct soak_clients *clients);
/* Before harness_finish(); runtime_dir is the caller's to remove after. */
void soak_clients_finish(struct soak_clients *clients);

#endif
