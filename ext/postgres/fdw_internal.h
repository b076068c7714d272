/*
 * What the C glue files of cassette_fdw share (fdw_*.c). The glue translates between
 * PostgreSQL's planner/executor and the C interface of cassette_api.h; it never sees C++.
 *
 * A foreign table maps to a CQL table (table option 'ks.t', server option store '/path');
 * its columns match the CQL columns by name (or by the column option column_name).
 */
#ifndef CASSETTE_FDW_INTERNAL_H
#define CASSETTE_FDW_INTERNAL_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "fmgr.h"
#include "executor/tuptable.h"
#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "utils/rel.h"

#include "cassette_api.h"

/* Raises the last cassette_api error as a PostgreSQL ERROR. */
extern void cassette_raise(void) pg_attribute_noreturn();
#define CAS_CHECK(call)                                                       \
	do                                                                        \
	{                                                                         \
		if ((call) != 0)                                                      \
			cassette_raise();                                                 \
	} while (0)

/* Tells the engine the transaction's isolation (cas_transaction_isolation); called before every
 * scan, write and cql() call. */
extern void cassette_use_isolation(void);

/* The store path of a server, and the table option of a foreign table. */
extern char *cassette_server_store(Oid serverid);

/* One foreign table resolved against its CQL table. */
typedef struct CassetteRelation
{
	cas_table			  *table;
	const cas_column_info *columns; /* the CQL columns */
	int					   ncolumns;
	int					   natts;
	int *att_column; /* per attribute (0-based): CQL column index, -1 if none */
	int *column_att; /* per CQL column: attribute index (0-based), -1 if none */
	cas_repr *column_repr; /* per CQL column: how its values travel */
	bool *att_natural; /* per attribute: declared with the CQL column's natural type */
	bool	 *att_cql_order; /* per attribute: its type's default btree order is CQL's order */
	FmgrInfo *att_input; /* per attribute: type input / output functions */
	FmgrInfo *att_output;
	Oid		 *att_ioparam;
} CassetteRelation;

/* Resolves a foreign table (options, columns, types, I/O functions); errors name what is
 * missing. The result is cached per backend and must not be modified. */
extern CassetteRelation *cassette_relation(Oid relid, TupleDesc tupdesc,
										   bool with_io);

/* Text between the engine (UTF-8) and the database's encoding (fdw_values.c): text itself when
 * the encodings agree (then not NUL-terminated unless text was), else a palloc'd, NUL-terminated
 * conversion with its length in *out_len. A character the target encoding cannot represent
 * raises PostgreSQL's conversion error. Every text that crosses cassette_api.h goes through one
 * of these: values, names, CQL statements, JSON and error messages. */
extern char *cassette_text_from_engine(const char *text, size_t len,
									   size_t *out_len);
extern char *cassette_text_to_engine(const char *text, size_t len,
									 size_t *out_len);
extern char *cassette_cstring_from_engine(const char *text);
extern char *cassette_cstring_to_engine(const char *text);
/* An engine error message in the database's encoding, for ereport: a character the encoding
 * cannot represent, or a byte that is not UTF-8, becomes '?' rather than hiding the message
 * behind a conversion error. */
extern char *cassette_message_from_engine(const char *message);

/* The timeuuid type (fdw_timeuuid.c): its oid, InvalidOid while the database has no
 * cassette_fdw 1.1; and whether an operator is one of its btree comparisons. */
extern Oid	cassette_timeuuid_type(void);
extern bool cassette_is_timeuuid_operator(Oid opno);

/* Value conversion (fdw_values.c). */
extern cas_repr cassette_repr_for_type(Oid typid);
/* A value's text output form as the engine reads it: DateStyle ISO, timestamps in UTC, intervals
 * in `interval_style` (INTSTYLE_POSTGRES for CQL's parser, INTSTYLE_ISO_8601 for pg_common's). */
extern char *cassette_output_in_utc(Oid typid, Datum datum, int interval_style);
extern Datum cassette_datum_from_value(const cas_value *value, cas_repr repr,
									   FmgrInfo *input, Oid ioparam,
									   int32 typmod);
/* Fills *out from a Datum of type typid (repr from cassette_repr_for_type or CAS_REPR_TEXT). */
extern void cassette_value_from_datum(Datum datum, bool isnull, Oid typid,
									  cas_repr repr, cas_value *out);

/* Tuple slots from/to the CQL column order. */
extern void cassette_values_from_slot(CassetteRelation *rel,
									  TupleTableSlot *slot, cas_value *values,
									  cas_repr *reprs);

/* The plan of a pushed-down aggregate (fdw_aggregate.c) describes each column of its scan tuple
 * as an IntList (kind, CQL column, repr): a cas_agg_kind, or this for a GROUP BY column. */
#define CASSETTE_GROUP_KEY (-1)

/* The plan `encoded` (cas_plan's) reading the values of only the CQL columns c with read[c] set
 * (cas_plan_reads: values(...) in the plan text, which EXPLAIN VERBOSE shows), palloc'd. */
extern char *cassette_plan_reads(CassetteRelation *rel, const char *encoded,
								 const int *read);

/* Planning (fdw_plan.c), scanning (fdw_scan.c), modifications (fdw_modify.c), import
 * (fdw_import.c). */
struct FdwRoutine;
extern void	 cassette_plan_routines(struct FdwRoutine *routine);
extern void	 cassette_scan_routines(struct FdwRoutine *routine);
extern void	 cassette_modify_routines(struct FdwRoutine *routine);
extern List *cassette_import_foreign_schema(ImportForeignSchemaStmt *stmt,
											Oid serverOid);
extern void	 cassette_register_callbacks(void);
/* fdw_commit.c: the two phases of a commit (cas_transaction_prepare / _finish). */
extern void cassette_commit_init(void);
extern void cassette_prepare_commit(void);
extern void cassette_finish_commit(bool commit);
/* Raises SQLSTATE 0A000 when the transaction is SERIALIZABLE, naming `what` ("UPDATE on foreign
 * table \"t\"", "INSERT through cql()"): without read tracking the store cannot detect the
 * anomalies SERIALIZABLE excludes, so such a transaction may read but not write. */
extern void cassette_refuse_serializable_write(const char *what);

#endif /* CASSETTE_FDW_INTERNAL_H */
