/*
 * child.c - pmeclock's command as a process: forked and held before its
 * exec until child_go() lets it go (pmeclock.c starts it, the methods,
 * perf.c and collect.c, let it go and poll for its end), the signals
 * pmeclock passes on to it, and the clock readings and process test the
 * launcher's modules share.  Apart from pmeclock.c so that a method
 * does not call back into the main file.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "clock.h"
#include "prog.h"

static volatile sig_atomic_t child_pid;
/* SIGXFSZ as pmeclock found it, for the command (pmeclock ignores it). */
static struct sigaction xfsz_caller;
static int sigpipe_w = -1;

static uint64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t
now_mono(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t
now_real(void)
{
	return clock_ns(CLOCK_REALTIME);
}

static void
on_chld(int sig)
{
	int e = errno;
	char c = 0;

	(void)sig;
	if (sigpipe_w >= 0)
		(void)!write(sigpipe_w, &c, 1);
	errno = e;
}

/*
 * Signals sent to pmeclock with kill(2) go on to the command; those the
 * terminal sends (si_code > 0) reached the command's process group
 * already.
 */
static void
on_forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (child_pid > 0 && si->si_code <= 0)
		kill(child_pid, sig);
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
    SIGUSR1, SIGUSR2, SIGALRM };

static void
child_signals(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, NULL);
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
}

static void
exec_child(struct clockopts *o, int go, int err, int tostderr)
{
	struct sigaction sa;
	sigset_t none;
	char c;
	int e;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGXFSZ, &xfsz_caller, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Waits for the parent to set up; EOF means it gave up. */
	if (read(go, &c, 1) != 1)
		_exit(127);
	close(go);
	if (tostderr && dup2(2, 1) < 0)
		_exit(127);
	execvp(o->argv[0], o->argv);
	e = errno;
	(void)!write(err, &e, sizeof(e));
	_exit(e == ENOENT ? 127 : 126);
}

int
child_fork(struct clockopts *o, struct child *c)
{
	int gop[2], errp[2], sigp[2];

	memset(c, 0, sizeof(*c));
	if (pipe2(gop, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
	    pipe2(sigp, O_CLOEXEC | O_NONBLOCK) < 0) {
		fprintf(stderr, "%s: pipe: %s\n", prog, strerror(errno));
		return -1;
	}
	c->tostderr = o->out != NULL && strcmp(o->out, "-") == 0;
	c->cmd = o->argv[0];
	sigpipe_w = sigp[1];
	c->sigfd = sigp[0];
	child_signals();
	fflush(NULL);
	if ((c->pid = fork()) < 0) {
		fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
		return -1;
	}
	if (c->pid == 0) {
		close(gop[1]);
		close(errp[0]);
		exec_child(o, gop[0], errp[1], c->tostderr);
	}
	child_pid = c->pid;
	close(gop[0]);
	close(errp[1]);
	c->go = gop[1];
	c->err = errp[0];
	return 0;
}

/*
 * Says why the command could not be executed, as a shell would; returns
 * the shell's status for it.
 */
static int
exec_failed(const char *cmd, int e)
{
	if (e == ENOENT) {
		fprintf(stderr, "%s: '%s': command not found\n", prog, cmd);
		return 127;
	}
	fprintf(stderr, "%s: '%s': cannot execute: %s\n", prog, cmd,
	    strerror(e));
	return 126;
}

int
child_go(struct child *c)
{
	char one = 1;
	ssize_t n;
	int e = 0;

	n = write(c->go, &one, 1);
	close(c->go);
	c->go = -1;
	if (n == 1) {
		while ((n = read(c->err, &e, sizeof(e))) < 0 && errno == EINTR)
			;
	}
	close(c->err);
	c->err = -1;
	if (n <= 0)
		return 0;
	return exec_failed(c->cmd, e);
}

int
child_poll(struct child *c)
{
	char buf[64];
	int st;
	pid_t p;

	while (read(c->sigfd, buf, sizeof(buf)) > 0)
		;
	if (c->reaped)
		return 1;
	while ((p = waitpid(c->pid, &st, WNOHANG)) < 0 && errno == EINTR)
		;
	if (p != c->pid)
		return 0;
	c->reaped = 1;
	child_pid = 0;
	c->status = pme_exit_status(st);
	return 1;
}

/* Kills a child that has not exec'd yet and reaps it. */
void
child_abandon(struct child *c)
{
	if (c->go >= 0)
		close(c->go);
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	child_pid = 0;
}

void
child_keep_xfsz(void)
{
	sigaction(SIGXFSZ, NULL, &xfsz_caller);
}
