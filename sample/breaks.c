/*
 * breaks.c - the uprobes of pmeclock's breaks (-e break:ROUTINE,
 * --start, --stop) made tracefs events where pmeclock may make them.
 *
 * The uprobe PMU takes the probed file's path as a pointer
 * (perf_event_attr.uprobe_path) that the kernel reads again whenever it
 * makes the event anew: for every thread and process the command
 * creates, in the command's address space, where the pointer means
 * nothing.  Linux 6.18 fails those clone()s (pthread_create: Bad
 * address), so a break on the command would stop it from starting a
 * thread.  A uprobe made in tracefs (uprobe_events, as perf probe -x
 * makes its) is a tracepoint, which the kernel copies to new threads by
 * its id.  Each probe is named pmeclock_NS_PID/bN (NS the PID
 * namespace's inode number), removed at pmeclock's exit; those a killed
 * pmeclock of the same PID namespace left are removed by the next.  Where
 * tracefs is not writable (not root) the uprobe PMU is used, and a
 * command that starts threads or processes is said to fail there.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "clock.h"
#include "util.h"

/* -e's breaks, --start's and --stop's, -e io's three name probes */
#define MAXPROBES	(PME_EVENTS_MAX + 2 + 3)

static char tracefs[256];
static int nprobes;

/* Writes line to tracefs's uprobe_events (appended: never truncated,
 * which would remove every uprobe of the machine); 0, or -1. */
static int
probe_write(const char *line)
{
	char path[512];
	ssize_t n;
	int fd, e;

	snprintf(path, sizeof(path), "%s/uprobe_events", tracefs);
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0)
		return -1;
	n = write(fd, line, strlen(line));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(line) ? 0 : -1;
}

/* Removes the probes of group (pmeclock_NS_PID). */
static void
remove_group(const char *group)
{
	char path[600], line[600];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/events/%s", tracefs, group);
	if ((dir = opendir(path)) == NULL)
		return;
	while ((d = readdir(dir)) != NULL)
		if (d->d_name[0] == 'b' || d->d_name[0] == 'r' ||
		    d->d_name[0] == 'n') {
			snprintf(line, sizeof(line), "-:%s/%s\n", group,
			    d->d_name);
			(void)probe_write(line);
		}
	closedir(dir);
}

/* The PID namespace's inode number, or 0. */
static unsigned long long
pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ?
	    (unsigned long long)st.st_ino : 0;
}

/*
 * Our group: pmeclock_NS_PID, NS our PID namespace's inode number.
 * tracefs is the kernel's, seen from every container: a pmeclock of
 * another PID namespace has a PID kill() cannot find, and its probes
 * are not ours to call stale.
 */
static const char *
group(void)
{
	static char g[64];

	if (g[0] == '\0')
		snprintf(g, sizeof(g), "pmeclock_%llu_%d", pidns(),
		    (int)getpid());
	return g;
}

static void
remove_ours(void)
{
	remove_group(group());
}

/* The groups of pmeclocks that are gone (killed before their exit):
 * those of our PID namespace whose PID is no process's. */
static void
remove_stale(void)
{
	unsigned long long ns = pidns();
	char path[512], *end;
	struct dirent *d;
	DIR *dir;
	long pid;

	snprintf(path, sizeof(path), "%s/events", tracefs);
	if ((dir = opendir(path)) == NULL)
		return;
	while ((d = readdir(dir)) != NULL)
		if (strncmp(d->d_name, "pmeclock_", 9) == 0 &&
		    strtoull(d->d_name + 9, &end, 10) == ns && *end == '_' &&
		    (pid = strtol(end + 1, NULL, 10)) > 0 &&
		    kill((pid_t)pid, 0) == -1 && errno == ESRCH)
			remove_group(d->d_name);
	closedir(dir);
}

/* The path of tracefs's events/pmeclock_NS_PID/NAME/FILE into buf. */
static void
probe_path(const char *name, const char *file, char *buf, size_t len)
{
	snprintf(buf, len, "%s/events/%s/%s/%s", tracefs, group(), name,
	    file);
}

/* A uprobe of tracefs named pmeclock_NS_PID/NAME (kind 'p' or 'r', name
 * its number after letter) on path at offset, with args (or ""): its
 * tracepoint id, or 0 (errno). */
static uint64_t
probe_make(int kind, char letter, const char *path, uint64_t offset,
    const char *args, char *name, size_t len)
{
	char line[4600], id[32], file[600];

	if (nprobes == MAXPROBES || strpbrk(path, " \t\n") != NULL ||
	    (tracefs[0] == '\0' && pme_ev_tracefs(NULL, tracefs,
	    sizeof(tracefs)) == -1))
		return 0;
	if (nprobes == 0) {
		remove_stale();
		atexit(remove_ours);
	}
	snprintf(name, len, "%c%d", letter, nprobes);
	snprintf(line, sizeof(line), "%c:%s/%s %s:0x%llx%s%s\n",
	    kind, group(), name, path, (unsigned long long)offset,
	    args[0] ? " " : "", args);
	if (probe_write(line) == -1)
		return 0;
	nprobes++;
	probe_path(name, "id", file, sizeof(file));
	if (pme_first_line(file, id, sizeof(id)) == -1)
		return 0;
	return strtoull(id, NULL, 10);
}

int
breaks_tracefs(const struct clockopts *o, struct pme_evspec *spec, int ret)
{
	char name[32];
	uint64_t id;

	if ((id = probe_make(ret ? 'r' : 'p', 'b', spec->path, spec->offset,
	    "", name, sizeof(name))) == 0) {
		if (o->verbose && tracefs[0] != '\0')
			fprintf(stderr, "%s: %s: no uprobe in tracefs (%s): "
			    "the uprobe PMU's, which new threads cannot "
			    "inherit\n", prog, spec->name, strerror(errno));
		return -1;
	}
	spec->type = PERF_TYPE_TRACEPOINT;
	spec->config = id;
	return 0;
}

uint64_t
breaks_string(const char *path, uint64_t offset, const char *reg,
    uint32_t *off)
{
	char name[32], args[64], file[600], line[512], *f = NULL;
	uint64_t id;
	FILE *fp;

	snprintf(args, sizeof(args), "name=+0(%s):string", reg);
	if ((id = probe_make('p', 'n', path, offset, args, name,
	    sizeof(name))) == 0)
		return 0;
	/* "field:__data_loc char[] name;	offset:16;	size:4;..." */
	probe_path(name, "format", file, sizeof(file));
	if ((fp = fopen(file, "re")) == NULL)
		return 0;
	while (f == NULL && fgets(line, sizeof(line), fp) != NULL)
		if ((f = strstr(line, " name;")) != NULL)
			f = strstr(f, "offset:");
	fclose(fp);
	if (f == NULL)
		return 0;
	*off = (uint32_t)strtoul(f + 7, NULL, 10);
	return id;
}

int
breaks_attr(const struct pme_evspec *spec, struct perf_event_attr *a)
{
	if (spec->kind != PME_EV_BREAK || spec->type == PERF_TYPE_TRACEPOINT)
		return 0;
	a->config1 = (uint64_t)(uintptr_t)spec->path;
	a->config2 = spec->offset;
	return 1;
}
