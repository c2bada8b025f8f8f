/*
 * sqlitedrv.c - for bench_heap_sqlite.sh, a workload of better-sqlite3's
 * SQLite (its deps/sqlite3/sqlite3.c, built with this and its defines):
 * an in-memory database, N rows (argument, default 20000) inserted in a
 * transaction, half by a prepared statement, half by statements of
 * their own (sqlite3_mprintf, sqlite3_exec: parsed each time, as a
 * program that builds its SQL does), an index, queries, an update and a
 * delete.
 */
#include <stdio.h>
#include <stdlib.h>
#include "sqlite3.h"

static void
run(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "drv: %s\n", err);
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000, i;
	sqlite3_stmt *st;
	sqlite3 *db;
	char text[64], *sql;

	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		return 1;
	run(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL)");
	run(db, "BEGIN");
	sqlite3_prepare_v2(db, "INSERT INTO t(b, c) VALUES(?, ?)", -1, &st,
	    NULL);
	for (i = 0; i < n; i++) {
		snprintf(text, sizeof(text), "%08x-%d",
		    (unsigned)(i * 2654435761u), i % 97);
		if (i % 2) {
			sql = sqlite3_mprintf("INSERT INTO t(b, c) VALUES(%Q, "
			    "%f)", text, i * 0.5);
			run(db, sql);
			sqlite3_free(sql);
			continue;
		}
		sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 2, i * 0.5);
		sqlite3_step(st);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	run(db, "COMMIT");
	run(db, "CREATE INDEX tb ON t(b)");
	run(db, "SELECT count(*), sum(c) FROM t WHERE b LIKE 'a%'");
	run(db, "SELECT substr(b, 10), count(*) FROM t GROUP BY 1 ORDER BY 2");
	run(db, "UPDATE t SET b = b || 'x' WHERE a % 3 = 0");
	run(db, "DELETE FROM t WHERE a % 5 = 0");
	run(db, "SELECT group_concat(b) FROM (SELECT b FROM t LIMIT 2000)");
	sqlite3_close(db);
	return 0;
}
