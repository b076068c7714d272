/*
 * cassette_fdw: Cassandra tables of a Cassette store as PostgreSQL foreign tables.
 *
 *   CREATE EXTENSION cassette_fdw;
 *   CREATE SERVER s FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '/srv/app.cassette');
 *   IMPORT FOREIGN SCHEMA ks FROM SERVER s INTO public;          -- one foreign table per CQL table
 *   CREATE FOREIGN TABLE t (k int, v text) SERVER s OPTIONS (table 'ks.t');
 *   SELECT cql('SELECT * FROM ks.t WHERE k = 1');                -- any CQL statement, as jsonb
 *
 * This file: the handler and validator, option lookup, resolving a foreign table against its
 * CQL table, and the cql() function. Scans are in fdw_scan.c, writes in fdw_modify.c.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/reloptions.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "fdw_internal.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(cassette_fdw_handler);
PG_FUNCTION_INFO_V1(cassette_fdw_validator);
PG_FUNCTION_INFO_V1(cassette_cql);
PG_FUNCTION_INFO_V1(cassette_cql_bind);

void		_PG_init(void);
static void cassette_register_cache_callbacks(void);

void
_PG_init(void)
{
	cassette_register_callbacks();
	cassette_register_cache_callbacks();
}

void
cassette_raise(void)
{
	/* A commit that found a row it read and wrote changed by another commit: PostgreSQL's own
	 * error for a concurrent update, which applications retry. */
	if (cas_last_error_is_serialization_failure())
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize access due to concurrent update"),
				 errdetail("%s",
						   cassette_message_from_engine(cas_last_error()))));
	ereport(ERROR,
			(errcode(ERRCODE_FDW_ERROR),
			 errmsg("%s", cassette_message_from_engine(cas_last_error()))));
	pg_unreachable();
}

void
cassette_use_isolation(void)
{
	cas_transaction_isolation(IsolationUsesXactSnapshot() ? 1 : 0);
}

Datum
cassette_fdw_handler(PG_FUNCTION_ARGS)
{
	FdwRoutine *routine = makeNode(FdwRoutine);

	cassette_scan_routines(routine);
	cassette_modify_routines(routine);
	routine->ImportForeignSchema = cassette_import_foreign_schema;
	PG_RETURN_POINTER(routine);
}

/* The options each object accepts. */
typedef struct CassetteOption
{
	const char *name;
	Oid			context;
} CassetteOption;

static const CassetteOption valid_options[] = {
	{"store",		  ForeignServerRelationId},
	  {"create",		 ForeignServerRelationId},
	{"sync",		 ForeignServerRelationId},
	  {"table",		ForeignTableRelationId },
	{"column_name", AttributeRelationId	   },
	  {NULL,			 InvalidOid			   }
};

/*
 * A server's store option names a directory that every backend reads and writes as the
 * postgres OS user, and its create option makes directories there: as file_fdw's filename,
 * only roles trusted with the server's files may set them (PostgreSQL validates a server's
 * whole option list, so this also holds for ALTER SERVER ... OPTIONS on a server that has one).
 */
static void
check_path_option_privilege(const char *option)
{
	Oid user = GetUserId();

	if (!has_privs_of_role(user, ROLE_PG_READ_SERVER_FILES) ||
		!has_privs_of_role(user, ROLE_PG_WRITE_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only superuser or a role with privileges of the pg_read_server_files and "
						"pg_write_server_files roles may specify the %s option of a cassette_fdw "
						"server",
						option)));
}

Datum
cassette_fdw_validator(PG_FUNCTION_ARGS)
{
	List	 *options = untransformRelOptions(PG_GETARG_DATUM(0));
	Oid		  catalog = PG_GETARG_OID(1);
	ListCell *cell;

	foreach(cell, options)
	{
		DefElem				 *def = (DefElem *) lfirst(cell);
		const CassetteOption *opt;
		bool				  found = false;

		for (opt = valid_options; opt->name; opt++)
			if (opt->context == catalog && strcmp(opt->name, def->defname) == 0)
				found = true;
		if (!found)
		{
			StringInfoData valid;

			initStringInfo(&valid);
			for (opt = valid_options; opt->name; opt++)
				if (opt->context == catalog)
					appendStringInfo(&valid, "%s%s", valid.len > 0 ? ", " : "",
									 opt->name);
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\"", def->defname),
					 valid.len > 0
						 ? errhint("Valid options in this context are: %s",
								   valid.data)
						 : errhint(
							   "There are no valid options in this context.")));
		}
		if (catalog == ForeignServerRelationId)
			check_path_option_privilege(def->defname);
		/* "create requires a Boolean value" unless it is one */
		if (strcmp(def->defname, "create") == 0)
			(void) defGetBoolean(def);
		if (strcmp(def->defname, "store") == 0)
		{
			char *path = defGetString(def);

			if (path[0] != '/' && strcmp(path, ":memory:") != 0)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
						 errmsg("store must be an absolute path, not \"%s\"",
								path)));
		}
		/* "sync must be full, normal or off, not 'x'" (the engine's words, as at open) */
		if (strcmp(def->defname, "sync") == 0 &&
			cas_set_store_sync(NULL, defGetString(def)) != 0)
			ereport(ERROR, (errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
							errmsg("%s", cas_last_error())));
		if (strcmp(def->defname, "table") == 0 &&
			strchr(defGetString(def), '.') == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid table option \"%s\": name the CQL table as keyspace.table",
							defGetString(def))));
	}
	PG_RETURN_VOID();
}

static char *
option_value(List *options, const char *name)
{
	ListCell *cell;

	foreach(cell, options)
	{
		DefElem *def = (DefElem *) lfirst(cell);

		if (strcmp(def->defname, name) == 0)
			return defGetString(def);
	}
	return NULL;
}

static char *
server_store(ForeignServer *server)
{
	char *store = option_value(server->options, "store");

	if (store == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("server \"%s\" has no store option", server->servername),
				 errhint("ALTER SERVER %s OPTIONS (ADD store '/path/to/store')",
						 quote_identifier(server->servername))));
	/* The server's sync option, for when this backend opens the store. */
	CAS_CHECK(cas_set_store_sync(store, option_value(server->options, "sync")));
	return store;
}

char *
cassette_server_store(Oid serverid)
{
	return server_store(GetForeignServer(serverid));
}

/* Whether cql() may create the server's store when its directory does not exist (option create). */
static bool
server_creates_store(ForeignServer *server)
{
	char *create = option_value(server->options, "create");
	bool  creates = false;

	/* The validator accepted only a Boolean. */
	return create != NULL && parse_bool(create, &creates) && creates;
}

/* Resolves a foreign table in the current memory context. */
/*
 * Whether an attribute of type `typid` takes the CQL column's values as they are (its natural
 * type, cas_column_info.pg_type: no text round trip, restrictions can go down), and whether its
 * type's default order is the column's CQL order (ORDER BY and slices can go down). A timeuuid
 * column declared uuid (as IMPORT FOREIGN SCHEMA did before cassette_fdw 1.1) has the same bytes,
 * but uuid sorts them by bytes, not by time.
 */
static void
resolve_attribute_type(Oid typid, const cas_column_info *column, bool *natural,
					   bool *cql_order)
{
	bool exact;

	if (strcmp(column->pg_type, "timeuuid") == 0)
	{
		exact = OidIsValid(typid) && typid == cassette_timeuuid_type();
		*natural = exact || typid == UUIDOID;
	}
	else
		*natural = exact = strcmp(format_type_be(typid), column->pg_type) == 0;
	*cql_order = exact && column->orderable;
}

static CassetteRelation *
build_relation(Oid relid, TupleDesc tupdesc, char **store_out, char **name_out)
{
	ForeignTable	 *ft = GetForeignTable(relid);
	char			 *store = cassette_server_store(ft->serverid);
	char			 *name = option_value(ft->options, "table");
	CassetteRelation *rel = palloc0(sizeof(CassetteRelation));
	int				  i;

	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("foreign table \"%s\" has no table option",
						get_rel_name(relid)),
				 errhint("Name its CQL table: ALTER FOREIGN TABLE %s OPTIONS (ADD table 'ks.t')",
						 quote_identifier(get_rel_name(relid)))));
	*store_out = pstrdup(store);
	*name_out = pstrdup(name);
	CAS_CHECK(
		cas_table_open(store, cassette_cstring_to_engine(name), &rel->table));
	CAS_CHECK(cas_table_columns(rel->table, &rel->columns, &rel->ncolumns));
	rel->natts = tupdesc->natts;
	rel->att_column = palloc(sizeof(int) * Max(rel->natts, 1));
	rel->column_att = palloc(sizeof(int) * Max(rel->ncolumns, 1));
	rel->column_repr = palloc0(sizeof(cas_repr) * Max(rel->ncolumns, 1));
	rel->att_natural = palloc0(sizeof(bool) * Max(rel->natts, 1));
	rel->att_cql_order = palloc0(sizeof(bool) * Max(rel->natts, 1));
	for (i = 0; i < rel->ncolumns; i++)
		rel->column_att[i] = -1;
	rel->att_input = palloc0(sizeof(FmgrInfo) * Max(rel->natts, 1));
	rel->att_output = palloc0(sizeof(FmgrInfo) * Max(rel->natts, 1));
	rel->att_ioparam = palloc0(sizeof(Oid) * Max(rel->natts, 1));
	for (i = 0; i < rel->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);
		const char		 *colname = NameStr(att->attname);
		const char		 *cql_name;
		List			 *colopts;
		char			 *renamed;
		int				  c;

		rel->att_column[i] = -1;
		if (att->attisdropped)
			continue;
		colopts = GetForeignColumnOptions(relid, att->attnum);
		renamed = option_value(colopts, "column_name");
		if (renamed)
			colname = renamed;
		cql_name = cassette_cstring_to_engine(colname);
		for (c = 0; c < rel->ncolumns; c++)
			if (strcmp(rel->columns[c].name, cql_name) == 0)
				break;
		if (c == rel->ncolumns)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_COLUMN_NAME_NOT_FOUND),
					 errmsg("column \"%s\" of foreign table \"%s\" does not exist in CQL table %s",
							colname, get_rel_name(relid),
							cassette_cstring_from_engine(
								cas_table_name(rel->table)))));
		rel->att_column[i] = c;
		rel->column_att[c] = i;
		resolve_attribute_type(att->atttypid, &rel->columns[c],
							   &rel->att_natural[i], &rel->att_cql_order[i]);
		rel->column_repr[c] =
			rel->att_natural[i] ? rel->columns[c].natural_repr : CAS_REPR_TEXT;
		{
			Oid	 func;
			bool varlena;

			getTypeInputInfo(att->atttypid, &func, &rel->att_ioparam[i]);
			fmgr_info(func, &rel->att_input[i]);
			getTypeOutputInfo(att->atttypid, &func, &varlena);
			fmgr_info(func, &rel->att_output[i]);
		}
	}
	return rel;
}

/*
 * Resolving a foreign table (options, CQL columns, types, I/O functions) costs more than a
 * partition lookup, so each backend keeps the result per relation until PostgreSQL invalidates
 * the relation or a server, or the CQL table's definition changes (cas_table_open then returns
 * another handle).
 */
typedef struct RelationCacheEntry
{
	Oid				  relid; /* hash key */
	bool			  valid;
	MemoryContext	  context;
	CassetteRelation *rel;
	char			 *store;
	char			 *name;
	LocalTransactionId checked; /* the transaction that last checked the CQL definition */
} RelationCacheEntry;

static HTAB *relation_cache = NULL;

static void
invalidate_relation(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS		status;
	RelationCacheEntry *entry;

	if (relation_cache == NULL)
		return;
	hash_seq_init(&status, relation_cache);
	while ((entry = hash_seq_search(&status)) != NULL)
		if (relid == InvalidOid || entry->relid == relid)
			entry->valid = false;
}

static void
invalidate_servers(Datum arg, int cacheid, uint32 hashvalue)
{
	invalidate_relation(arg, InvalidOid);
}

static void
cassette_register_cache_callbacks(void)
{
	CacheRegisterRelcacheCallback(invalidate_relation, (Datum) 0);
	CacheRegisterSyscacheCallback(FOREIGNSERVEROID, invalidate_servers,
								  (Datum) 0);
	CacheRegisterSyscacheCallback(FOREIGNTABLEREL, invalidate_servers,
								  (Datum) 0);
}

CassetteRelation *
cassette_relation(Oid relid, TupleDesc tupdesc, bool with_io)
{
	RelationCacheEntry *entry;
	bool				found;
	MemoryContext		context, old;
	CassetteRelation   *rel;
	char			   *store, *name;

	if (relation_cache == NULL)
	{
		HASHCTL ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(RelationCacheEntry);
		ctl.hcxt = CacheMemoryContext;
		relation_cache = hash_create("cassette_fdw relations", 64, &ctl,
									 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	entry = hash_search(relation_cache, &relid, HASH_ENTER, &found);
	if (!found)
	{
		entry->valid = false;
		entry->context = NULL;
		entry->rel = NULL;
	}
	if (entry->valid && entry->rel->natts == tupdesc->natts)
	{
		cas_table *table;

		/* A transaction sees one CQL definition of the table: checked once per transaction. */
		if (entry->checked == MyProc->lxid)
			return entry->rel;
		CAS_CHECK(cas_table_open(entry->store, entry->name, &table));
		if (table == entry->rel->table)
		{
			entry->checked = MyProc->lxid;
			return entry->rel;
		}
	}
	/* (Re)build in a context of its own; the entry changes only once that succeeded. */
	context = AllocSetContextCreate(CacheMemoryContext, "cassette_fdw relation",
									ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(context);
	PG_TRY();
	{
		rel = build_relation(relid, tupdesc, &store, &name);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(context);
		PG_RE_THROW();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	if (entry->context)
		MemoryContextDelete(entry->context);
	entry->context = context;
	entry->rel = rel;
	entry->store = store;
	entry->name = name;
	entry->valid = true;
	entry->checked = MyProc->lxid;
	return rel;
}

/* The only cassette_fdw server (cql() without a server name). */
static ForeignServer *
only_server(void)
{
	ForeignDataWrapper *fdw = GetForeignDataWrapperByName("cassette_fdw", false);
	Relation	rel = table_open(ForeignServerRelationId, AccessShareLock);
	SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	HeapTuple	tuple;
	Oid			found = InvalidOid;
	int			count = 0;

	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_foreign_server server =
			(Form_pg_foreign_server) GETSTRUCT(tuple);

		if (server->srvfdw == fdw->fdwid)
		{
			found = server->oid;
			count++;
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (count == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_UNABLE_TO_ESTABLISH_CONNECTION),
				 errmsg("no cassette_fdw server exists"),
				 errhint(
					 "CREATE SERVER s FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '/path')")));
	if (count > 1)
		ereport(ERROR,
				(errcode(ERRCODE_AMBIGUOUS_PARAMETER),
				 errmsg("there are %d cassette_fdw servers; name one: cql(statement, 'server')",
						count)));
	return GetForeignServer(found);
}

/*
 * Runs `statement` on `server`'s store, with `values` (nvalues; NULL: none) bound to its
 * markers: the checks and the transaction of cql(), with or without values.
 */
static Datum
run_cql(ForeignServer *server, const char *statement,
		const cas_cql_value *values, int nvalues)
{
	AclResult	usage;
	const char *json;

	/* EXECUTE on cql() (not PUBLIC's) reaches the store of a server the role may use, as
	 * CREATE FOREIGN TABLE and IMPORT FOREIGN SCHEMA do. */
	usage = pg_foreign_server_aclcheck(server->serverid, GetUserId(), ACL_USAGE);
	if (usage != ACLCHECK_OK)
		aclcheck_error(usage, OBJECT_FOREIGN_SERVER, server->servername);
	/* A read-only transaction (BEGIN READ ONLY, default_transaction_read_only, a standby) runs
	 * only statements that read, refused as PostgreSQL refuses its own writes there; so does a
	 * SERIALIZABLE one (cassette_refuse_serializable_write). */
	if (XactReadOnly || IsolationIsSerializable())
	{
		int			writes;
		const char *command;

		CAS_CHECK(cas_cql_statement_writes(statement, &writes, &command));
		if (writes && XactReadOnly)
			PreventCommandIfReadOnly(command);
		if (writes)
			cassette_refuse_serializable_write(
				psprintf("%s through cql()", command));
	}
	/* In a transaction block (BEGIN ... COMMIT, or a function called from one) cql() joins the
	 * transaction; a statement on its own (autocommit) commits its cql() writes at once, as
	 * Cassandra does. Its writes carry the command id, marked used so that the next command
	 * gets a new one and sees them. */
	cassette_use_isolation();
	CAS_CHECK(cas_cql(server_store(server), server_creates_store(server),
					  statement, IsTransactionBlock() ? 1 : 0,
					  GetCurrentTransactionNestLevel(),
					  GetCurrentCommandId(IsTransactionBlock()), values,
					  nvalues, &json));
	PG_RETURN_DATUM(
		DirectFunctionCall1(jsonb_in, CStringGetDatum(pstrdup(
										  cassette_cstring_from_engine(json)))));
}

/* cql(statement text, server name DEFAULT NULL) */
Datum
cassette_cql(PG_FUNCTION_ARGS)
{
	char		  *statement;
	ForeignServer *server;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	statement =
		cassette_cstring_to_engine(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	if (PG_NARGS() > 1 && !PG_ARGISNULL(1))
		server = GetForeignServerByName(NameStr(*PG_GETARG_NAME(1)), false);
	else
		server = only_server();
	return run_cql(server, statement, NULL, 0);
}

/*
 * One argument of cql(server, statement, VARIADIC "any") as the engine takes it: its text
 * output form, a composite as its to_json (which fromJson reads into a UDT, tuple or map).
 */
static void
bind_value_from_datum(Datum datum, bool isnull, Oid type, cas_cql_value *out)
{
	Oid	  base = getBaseType(type);
	char *output;

	memset(out, 0, sizeof(*out));
	out->type_name = format_type_be(type);
	if (isnull)
		return;
	if (type_is_rowtype(base))
	{
		output = TextDatumGetCString(DirectFunctionCall1(row_to_json, datum));
		base = JSONOID;
	}
	else
		output = cassette_output_in_utc(base, datum, INTSTYLE_ISO_8601);
	out->type = base;
	out->element_type = get_element_type(base);
	out->text = cassette_text_to_engine(output, strlen(output), &out->len);
}

/* cql(statement text, server name, VARIADIC "any"): the values after the server bound to the
 * statement's markers (VARIADIC ARRAY[...] gives them as one array); a NULL server is the only
 * one. */
Datum
cassette_cql_bind(PG_FUNCTION_ARGS)
{
	char		  *statement;
	ForeignServer *server;
	cas_cql_value *values;
	int			   nvalues;
	int			   i;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	statement =
		cassette_cstring_to_engine(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	server = PG_ARGISNULL(1)
				 ? only_server()
				 : GetForeignServerByName(NameStr(*PG_GETARG_NAME(1)), false);
	if (get_fn_expr_variadic(fcinfo->flinfo))
	{
		/* cql(s, q, VARIADIC array): the array's elements */
		Oid		   array_type = get_fn_expr_argtype(fcinfo->flinfo, 2);
		Oid		   element_type = get_element_type(array_type);
		ArrayType *array;
		Datum	  *elements;
		bool	  *nulls;
		int16	   typlen;
		bool	   typbyval;
		char	   typalign;

		if (PG_ARGISNULL(2))
			return run_cql(server, statement, NULL, 0);
		if (!OidIsValid(element_type))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("VARIADIC argument of cql() must be an array")));
		array = PG_GETARG_ARRAYTYPE_P(2);
		get_typlenbyvalalign(element_type, &typlen, &typbyval, &typalign);
		deconstruct_array(array, element_type, typlen, typbyval, typalign,
						  &elements, &nulls, &nvalues);
		values = palloc0(sizeof(cas_cql_value) * Max(nvalues, 1));
		for (i = 0; i < nvalues; i++)
			bind_value_from_datum(elements[i], nulls[i], element_type,
								  &values[i]);
		return run_cql(server, statement, values, nvalues);
	}
	nvalues = PG_NARGS() - 2;
	values = palloc0(sizeof(cas_cql_value) * Max(nvalues, 1));
	for (i = 0; i < nvalues; i++)
		bind_value_from_datum(PG_GETARG_DATUM(i + 2), PG_ARGISNULL(i + 2),
							  get_fn_expr_argtype(fcinfo->flinfo, i + 2),
							  &values[i]);
	return run_cql(server, statement, values, nvalues);
}
