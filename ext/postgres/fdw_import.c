/*
 * IMPORT FOREIGN SCHEMA ks FROM SERVER s INTO public [LIMIT TO (t1, ...) | EXCEPT (...)]:
 * one foreign table per CQL table of keyspace ks, with the column types of ext/pg_common/pg_types.h
 * and NOT NULL on primary key columns:
 *
 *   CREATE FOREIGN TABLE public.events (source text NOT NULL, hour integer NOT NULL,
 *     ts timestamp with time zone NOT NULL, value double precision)
 *     SERVER s OPTIONS (table 'ks.events');
 */
#include "postgres.h"

#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"

#include "fdw_internal.h"

/* A CQL name as the table option writes it: bare when CQL would read it back unchanged. */
static void
append_cql_name(StringInfo out, const char *name)
{
	const char *p;
	bool		bare = (name[0] >= 'a' && name[0] <= 'z');

	for (p = name; *p && bare; p++)
		bare = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_';
	if (bare)
	{
		appendStringInfoString(out, name);
		return;
	}
	appendStringInfoChar(out, '"');
	for (p = name; *p; p++)
	{
		if (*p == '"')
			appendStringInfoChar(out, '"');
		appendStringInfoChar(out, *p);
	}
	appendStringInfoChar(out, '"');
}

/* The index among locals[0..count) of `name`, or -1. */
static int
find_name(char **locals, int count, const char *name)
{
	int i;

	for (i = 0; i < count; i++)
		if (strcmp(locals[i], name) == 0)
			return i;
	return -1;
}

/*
 * The local names of a table's columns (cql_names, in the database's encoding): a CQL name
 * that fits PostgreSQL's identifiers is kept, a longer one is clipped to NAMEDATALEN - 1 bytes.
 * CQL names are unique but their clipped forms need not be: a name an earlier column took
 * gets a suffix (_2, _3, ...) in its last bytes, with a WARNING that names both columns. A
 * column whose local name differs keeps its CQL name as its column_name option.
 */
static char **
local_column_names(char **cql_names, int count, const char *table)
{
	char **locals = palloc(sizeof(char *) * Max(count, 1));
	int	   c;

	for (c = 0; c < count; c++)
	{
		const char *cql_name = cql_names[c];
		int			len = strlen(cql_name);
		int			first;
		int			suffix;

		locals[c] = len < NAMEDATALEN
						? pstrdup(cql_name)
						: pnstrdup(cql_name, pg_mbcliplen(cql_name, len,
														  NAMEDATALEN - 1));
		first = find_name(locals, c, locals[c]);
		for (suffix = 2; find_name(locals, c, locals[c]) >= 0; suffix++)
		{
			char tail[16];
			int	 keep;

			snprintf(tail, sizeof(tail), "_%d", suffix);
			keep = pg_mbcliplen(cql_name, len, NAMEDATALEN - 1 - strlen(tail));
			locals[c] = psprintf("%.*s%s", keep, cql_name, tail);
		}
		if (first >= 0)
			ereport(WARNING,
					(errmsg("columns \"%s\" and \"%s\" of CQL table %s share their first %d "
							"bytes: the second is imported as \"%s\"",
							cql_names[first], cql_name, table, NAMEDATALEN - 1,
							locals[c])));
	}
	return locals;
}

/* A column's type as the CREATE FOREIGN TABLE command names it: timeuuid qualified with the
 * extension's schema (the command is parsed under the session's search_path), or uuid, whose
 * bytes it has, while the extension is still at 1.0. */
static const char *
local_type_name(const char *pg_type)
{
	if (strcmp(pg_type, "timeuuid") != 0)
		return pg_type;
	if (!OidIsValid(cassette_timeuuid_type()))
		return "uuid";
	return format_type_be_qualified(cassette_timeuuid_type());
}

static bool
listed(List *tables, const char *name)
{
	ListCell *lc;

	foreach(lc, tables)
		if (strcmp(((RangeVar *) lfirst(lc))->relname, name) == 0)
			return true;
	return false;
}

List *
cassette_import_foreign_schema(ImportForeignSchemaStmt *stmt, Oid serverOid)
{
	ForeignServer	  *server = GetForeignServer(serverOid);
	char			  *store = cassette_server_store(serverOid);
	const char *const *names;
	int				   count;
	int				   i;
	List			  *commands = NIL;
	char			 **copies;
	/* Names cross to the engine in UTF-8 and come back into the commands, which PostgreSQL
	 * parses, in the database's encoding. */
	const char *keyspace = cassette_cstring_to_engine(stmt->remote_schema);

	CAS_CHECK(cas_keyspace_tables(store, keyspace, &names, &count));
	/* cas_table_open reuses the name buffer: copy the names first. */
	copies = palloc(sizeof(char *) * Max(count, 1));
	for (i = 0; i < count; i++)
		copies[i] = pstrdup(names[i]);
	for (i = 0; i < count; i++)
	{
		const char			  *name = cassette_cstring_from_engine(copies[i]);
		StringInfoData		   qualified;
		StringInfoData		   sql;
		cas_table			  *table;
		const cas_column_info *columns;
		int					   ncolumns, c;
		char				 **cql_names;
		char				 **locals;

		if (stmt->list_type == FDW_IMPORT_SCHEMA_LIMIT_TO &&
			!listed(stmt->table_list, name))
			continue;
		if (stmt->list_type == FDW_IMPORT_SCHEMA_EXCEPT &&
			listed(stmt->table_list, name))
			continue;
		initStringInfo(&qualified);
		append_cql_name(&qualified, keyspace);
		appendStringInfoChar(&qualified, '.');
		append_cql_name(&qualified, copies[i]);
		CAS_CHECK(cas_table_open(store, qualified.data, &table));
		CAS_CHECK(cas_table_columns(table, &columns, &ncolumns));
		cql_names = palloc(sizeof(char *) * Max(ncolumns, 1));
		for (c = 0; c < ncolumns; c++)
			cql_names[c] = cassette_cstring_from_engine(columns[c].name);
		locals =
			local_column_names(cql_names, ncolumns,
							   cassette_cstring_from_engine(qualified.data));

		initStringInfo(&sql);
		appendStringInfo(&sql, "CREATE FOREIGN TABLE %s.%s (",
						 quote_identifier(stmt->local_schema),
						 quote_identifier(name));
		for (c = 0; c < ncolumns; c++)
		{
			appendStringInfo(&sql, "%s%s %s", c > 0 ? ", " : "",
							 quote_identifier(locals[c]),
							 local_type_name(columns[c].pg_type));
			if (strcmp(locals[c], cql_names[c]) != 0)
				appendStringInfo(&sql, " OPTIONS (column_name %s)",
								 quote_literal_cstr(cql_names[c]));
			if (columns[c].kind == CAS_PARTITION_KEY ||
				columns[c].kind == CAS_CLUSTERING)
				appendStringInfoString(&sql, " NOT NULL");
		}
		appendStringInfo(&sql, ") SERVER %s OPTIONS (table %s)",
						 quote_identifier(server->servername),
						 quote_literal_cstr(
							 cassette_cstring_from_engine(qualified.data)));
		commands = lappend(commands, sql.data);
	}
	return commands;
}
