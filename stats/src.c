/*
 * src.c - stats' event sources: an event file through libpme.  (A
 * sample file becomes a source in pms.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

int
src_open_events(struct src *s, const char *path, struct pme_error *err)
{
	struct pme_error e;

	memset(s, 0, sizeof(*s));
	s->path = path;
	if ((s->ef = pme_eventfile_open(path, &e)) == NULL) {
		/* Not a sample file either (src_open() tried). */
		pme_seterr(err, e.code, "%s%s", pme_strerror(&e),
		    e.code == PME_EKIND && strcmp(path, "-") != 0 ?
		    " nor a sample file (.PMS); give it "
		    "with -B, and an event file or a sample file with -f" : "");
		return -1;
	}
	s->run = *pme_eventfile_run(s->ef);
	return 0;
}

void
src_close(struct src *s)
{
	pme_eventfile_close(s->ef);
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	for (size_t i = 0; i < s->nrowname; i++)
		free(s->rowname[i]);
	free(s->rowname);
	free(s->ev);
	memset(s, 0, sizeof(*s));
}

int
src_events(struct src *s, pme_ev_fn fn, void *arg, struct pme_error *err)
{
	int rc;

	if (s->ef == NULL) {
		for (size_t i = 0; i < s->nev; i += 4096)
			if ((rc = fn(s->ev + i, s->nev - i < 4096 ?
			    s->nev - i : 4096, arg)) != 0)
				return rc;
		return 0;
	}
	return pme_eventfile_events(s->ef, fn, arg, err);
}

void
src_whole_run(struct src *s)
{
	for (size_t i = 0; i < s->nev; i++)
		if (i == 0 || s->ev[i].time < s->run.first)
			s->run.first = s->ev[i].time;
	for (size_t i = 0; i < s->nev; i++) {
		s->ev[i].time -= s->run.first;
		if (s->ev[i].time > s->run.last)
			s->run.last = s->ev[i].time;
	}
	s->run.first = 0;
	s->run.nproc = (uint32_t)s->nrowname;
	s->run.unit = "ns";
	s->run.command = "";
	s->run.flags = PME_RUN_CLOCKTIME | PME_RUN_COMPLETE;
	s->run.lost = -1;
	s->run.events = s->nev;
}

const char *
src_unit(const struct src *s, char *buf, size_t len)
{
	pme_escape(buf, len, s->run.unit);
	return buf;
}

uint32_t
src_type(const struct src *s, const char *name)
{
	if (s->ef == NULL && s->heap)
		return strcmp(name, "EV_HEAP") == 0 ? SRC_EV_HEAP : PME_NONE;
	if (s->ef == NULL)
		return strcmp(name, "EV_STATE") == 0 ? PME_EV_STATE : PME_NONE;
	return pme_eventfile_type(s->ef, name);
}

const char *
src_rowname(const struct src *s, long row, char *buf, size_t len)
{
	const char *n = NULL;

	if (row < 0)
		row = 0;
	if (s->ef != NULL)
		n = pme_eventfile_proc_name(s->ef, (uint32_t)row);
	else if ((size_t)row < s->nrowname)
		n = s->rowname[row];
	if (n != NULL)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "%ld", row);
	return buf;
}
