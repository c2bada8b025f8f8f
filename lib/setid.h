/*
 * setid.h - whether executing a program changes the credentials of the
 * process: a set-user-ID program of a user other than the real one, a
 * set-group-ID program of another group, or (for a user other than root)
 * a program with file capabilities.  The kernel then ends perf sampling
 * at the exec (the new image may not be traced by its caller) and the
 * dynamic linker ignores LD_PRELOAD (AT_SECURE), so no method of
 * pmeclock(1) sees the program; and under ptrace(2) or valgrind the
 * program runs without its privileges, so no engine of pmetrace(1) may
 * run it.  Shared by pmeclock, before the run, the preloaded runtime,
 * before an exec, and pmetrace, before the run (through prog.h's
 * pme_setid_words()); the functions make only system calls, so that the
 * runtime may use them in a vfork(2) child.
 */
#ifndef PME_SETID_H
#define PME_SETID_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>

#include "util.h"

enum { SETID_NONE, SETID_UID, SETID_GID, SETID_CAPS };

/*
 * What exec'ing path does to the credentials: SETID_UID (*id the
 * owner), SETID_GID (*id the group), SETID_CAPS, or SETID_NONE, also
 * when the file cannot be examined.  Set-ID bits count unless the file
 * system is mounted nosuid or the process has no_new_privs, as in the
 * kernel; a script's are ignored by Linux.
 */
static inline int
setid_exec(const char *path, unsigned *id)
{
	struct statvfs vfs;
	struct stat st;
	char magic[2];
	int fd;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return SETID_NONE;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		if (read(fd, magic, 2) == 2 && magic[0] == '#' &&
		    magic[1] == '!') {
			close(fd);
			return SETID_NONE;
		}
		close(fd);
	}
	if ((st.st_mode & (S_ISUID | S_ISGID)) != 0 &&
	    (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ||
	    (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID))))
		st.st_mode &= ~(mode_t)(S_ISUID | S_ISGID);
	*id = (unsigned)st.st_uid;
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid())
		return SETID_UID;
	*id = (unsigned)st.st_gid;
	/* Set-group-ID without group execute marks mandatory locking. */
	if ((st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) &&
	    st.st_gid != getgid())
		return SETID_GID;
	if (getuid() != 0 && getxattr(path, "security.capability", NULL,
	    0) > 0)
		return SETID_CAPS;
	return SETID_NONE;
}

/*
 * The file execvp(3) runs for file, into buf: file itself when it holds
 * a '/', else the first executable file of that name in PATH.  Returns
 * buf, or NULL when there is none.
 */
static inline const char *
setid_which(const char *file, char *buf, size_t n)
{
	char dirs[256];

	if (strchr(file, '/') != NULL)
		return file;
	return pme_path_find(file, pme_exec_dirs(dirs, sizeof(dirs)), X_OK,
	    buf, n);
}

#endif /* PME_SETID_H */
