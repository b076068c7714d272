/*
 * The C interface between the PostgreSQL glue (fdw_*.c, compiled as C against PostgreSQL's
 * headers) and the engine (api_*.cc, C++). It is the only door between the two, and it is built
 * so that nothing of C++ leaks into a backend:
 *  - every function is extern "C", catches every exception, and reports failure as a non-zero
 *    return code with a message readable through cas_last_error() (the glue turns it into
 *    ereport(ERROR)); no function calls back into PostgreSQL (no palloc, no elog), so a
 *    PostgreSQL longjmp never crosses a C++ frame;
 *  - stores are opened with StoreOptions::background_threads = false: no engine thread runs in
 *    a backend, flushes and compactions happen inline in the writer;
 *  - memory the engine hands out (cursors, plans, value buffers) is owned by handles the glue
 *    frees, and cas_end_of_transaction() frees whatever a failed transaction left behind.
 *
 * Values cross the boundary as cas_value: a scalar the glue turns into a Datum directly (ints,
 * floats, bool, text, bytea, uuid, timestamptz, date, time, interval), or the PostgreSQL text
 * form of the value (numeric, inet, arrays, jsonb, or any column declared with another type),
 * which the glue passes to the column type's input function. Writes go the other way.
 */
#ifndef CASSETTE_API_H
#define CASSETTE_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

	/* How a value is represented in a cas_value (chosen per column by the glue). */
	typedef enum cas_repr
	{
		CAS_REPR_TEXT = 0, /* data/len: PostgreSQL text input form of the value */
		CAS_REPR_INT2,	   /* i */
		CAS_REPR_INT4,	   /* i */
		CAS_REPR_INT8,	   /* i */
		CAS_REPR_FLOAT4, /* d */
		CAS_REPR_FLOAT8, /* d */
		CAS_REPR_BOOL,	 /* i (0/1) */
		CAS_REPR_VARLENA, /* data/len: raw bytes (text contents, bytea contents) */
		CAS_REPR_UUID, /* data: 16 bytes */
		CAS_REPR_TIMESTAMPTZ, /* i: microseconds since 2000-01-01 UTC (PostgreSQL's epoch) */
		CAS_REPR_DATE,	  /* i: days since 2000-01-01 */
		CAS_REPR_TIME,	  /* i: microseconds since midnight */
		CAS_REPR_INTERVAL /* months, days, i: microseconds */
	} cas_repr;

	typedef struct cas_value
	{
		int			isnull;
		int64_t		i;
		double		d;
		int32_t		months;
		int32_t		days;
		const char *data;
		size_t		len;
	} cas_value;

	/* Every function returns 0 on success and non-zero on failure; the message (a full sentence,
 * Cassandra's wording for CQL errors) stays readable until the next call. */
	const char *cas_last_error(void);

	/* ---- stores and tables ---------------------------------------------------------------------- */

	typedef struct cas_table cas_table; /* a table of an open store; owned by the API, never freed */

	/* Opens (or finds already open in this process) the store at `path` and resolves "ks.table"
 * (CQL quoting for mixed case: 'ks."T"') to the handle of the table's current definition.
 * Handles stay valid for the process's life. Fails naming the missing store, keyspace or table. */
	int cas_table_open(const char *store_path, const char *qualified_name,
					   cas_table **out);

	/* The commit log's sync mode ("full", "normal" or "off", any case; NULL: full) for the store
 * at `path` when this process opens it (a store open already keeps its mode); a NULL `path`
 * only checks `sync`. Fails, changing nothing, on another value: "sync must be full, normal or
 * off, not 'x'". */
	int cas_set_store_sync(const char *store_path, const char *sync);

	/* Test only (cassette.debug_transaction_spill_bytes): the pending-write bytes past which a
 * transaction of a store this process opens from now on spills to disk; 0: the default. */
	void cas_set_debug_spill_bytes(int bytes);

	/* Column metadata, in the table's column order (partition key, clustering, static, regular). */
	typedef enum cas_column_kind
	{
		CAS_PARTITION_KEY = 0,
		CAS_CLUSTERING = 1,
		CAS_STATIC = 2,
		CAS_REGULAR = 3
	} cas_column_kind;

	typedef struct cas_column_info
	{
		const char *name;
		const char *cql_type; /* "int", "frozen<map<text, int>>" */
		const char *pg_type; /* its PostgreSQL type (pg_types.h): "integer", "text[]", "jsonb";
							  * "timeuuid" for cassette_fdw's own type (fdw_timeuuid.c) */
		cas_repr natural_repr; /* how a value of pg_type travels (CAS_REPR_TEXT: via text) */
		cas_column_kind kind;
		int position;	/* among the partition key / clustering columns */
		int descending; /* clustering order */
		int orderable; /* PostgreSQL's order of pg_type is CQL's order (ORDER BY pushdown) */
		int indexed; /* a regular or static column an index holds: =, IN and ranges on it may be
					  * index reads (cas_plan decides) */
	} cas_column_info;

	int cas_table_columns(cas_table *table, const cas_column_info **columns,
						  int *count);
	const char *cas_table_name(cas_table *table); /* "ks.t" */

	/* Tables of a keyspace, for IMPORT FOREIGN SCHEMA: names in name order. The array stays valid
 * until the next call. Fails when the keyspace does not exist. */
	int cas_keyspace_tables(const char *store_path, const char *keyspace,
							const char *const **names, int *count);

	/* ---- scans (planned by engine/query) ---------------------------------------------------------- */

	/* A restriction the glue found in a WHERE or join clause: column `column` (index into the
 * table's columns) compared with a value, or equal to one of several (IN / = ANY). */
	typedef enum cas_op
	{
		CAS_OP_EQ = 0,
		CAS_OP_LT,
		CAS_OP_LE,
		CAS_OP_GT,
		CAS_OP_GE,
		CAS_OP_IN
	} cas_op;

#define CAS_MAX_CONSTRAINTS 64

	typedef struct cas_constraint
	{
		int	   column;
		cas_op op;
		int64_t known_count; /* IN: number of values when known at plan time, else -1 */
	} cas_constraint;

	typedef struct cas_order_term
	{
		int column;
		int descending;
	} cas_order_term;

	/* The access path the shared planner (engine/query) chose. The strings stay valid until the
 * next cas_plan call. */
	typedef struct cas_plan_info
	{
		int	   partition_lookup; /* complete partition key by = / IN */
		int	   argument_of[CAS_MAX_CONSTRAINTS]; /* per constraint: its value's position, or -1
												   * when the glue must check it itself */
		int	   arguments; /* number of bound values (without the limit) */
		int	   order_satisfied; /* rows come in the requested order */
		int	   limit_consumed;
		double rows;	   /* estimated rows returned */
		double cost;	   /* estimated rows touched, seeks included */
		double table_rows; /* the table's estimated size */
		const char *description; /* Plan::explain(): "partition lookup on (source, hour), ..." */
		const char *encoded; /* Plan::encode(): what cas_scan_open takes back */
	} cas_plan_info;

	/* Plans constraints[0..count) (at most CAS_MAX_CONSTRAINTS), an ORDER BY (norder terms, may be
 * 0) and a LIMIT (-1: none). */
	int cas_plan(cas_table *table, const cas_constraint *constraints,
				 int count, const cas_order_term *order, int norder,
				 int64_t limit, cas_plan_info *out);

	/* The plan `encoded` (from cas_plan) reading the values of only the columns c with read[c]
 * set (read has one entry per column of the table): the store decodes no other cell's value,
 * though every cell's timestamp, TTL and tombstone still decide which rows are live; the key
 * columns and the plan's restricted columns are always read. *out is the plan's text with
 * values(<column>,...) when that is not every column (Plan::value_columns, as SQLite's idxStr
 * carries colUsed), valid until the next cas_plan or cas_plan_reads call. A scan of it refuses
 * a `wanted` column it does not read (cas_scan_open) and an aggregate of one
 * (cas_scan_aggregate): an internal error, never a wrong value. */
	int cas_plan_reads(cas_table *table, const char *encoded, const int *read,
					   const char **out);

	/* Opens a scan of the plan `encoded` (from cas_plan) with its arguments' values: values[p] holds
 * value_counts[p] values (several for IN) in representation value_reprs[p]. `limit` is the
 * consumed limit (-1: none). reprs[c] says how column c's values are wanted, wanted[c] whether
 * column c is read at all. The scan reads a snapshot taken now, with the transaction's buffered
 * writes of commands before `command` (the statement's snapshot's curcid) on top: a statement
 * sees the writes of the statements before it, not its own. */
	typedef struct cas_scan cas_scan;
	int cas_scan_open(cas_table *table, const char *encoded,
					  const cas_value *const *values, const int *value_counts,
					  const cas_repr *value_reprs, int nargs, int64_t limit,
					  const cas_repr *reprs, const int *wanted,
					  uint32_t command, cas_scan **out);
	/* Advances to the next row: *has_row = 0 at the end. values[c] for every wanted column stays
 * valid until the next call; entries of columns not wanted are not written. */
	int cas_scan_next(cas_scan *scan, cas_value *values, int *has_row);
	/* Advances up to max_rows rows at once (a full scan pays the call and its checks per batch, not
 * per row): row r's values are values[r * ncolumns + c] (ncolumns: the table's column count),
 * written for wanted columns only; *nrows = 0 means the scan has ended. Every value,
 * text and bytes included, stays valid until the next call on the scan. An error met after some
 * rows were read returns those rows first and fails the next call. */
	int	 cas_scan_next_batch(cas_scan *scan, cas_value *values, int max_rows,
							 int *nrows);
	void cas_scan_close(cas_scan *scan);
	/* How many index reads (of SAI components) opening the scan made: 0 or 1 (EXPLAIN ANALYZE
 * shows their sum over the scan's openings). */
	int64_t cas_scan_index_reads(const cas_scan *scan);

	/* Row locks (fdw_scan.c takes them in PostgreSQL's lock manager): the identities of the
 * current row of a scan read one row at a time (cas_scan_next_batch with max_rows 1), as
 * 64-bit hashes: of its table (the store's directory and the table's storage id) and of the
 * row (the table, the partition key, the clustering key or the static row). */
	int cas_scan_row_lock_ids(cas_scan *scan, uint64_t *table_id,
							  uint64_t *row_id);
	/* Once the current row's lock is held: under READ COMMITTED re-reads the row from the store's
 * latest commit, with the transaction's writes of commands before `command` on top, into
 * values (the row's slot of the last batch; text forms valid until the next call), *exists = 0
 * when it was deleted meanwhile; under REPEATABLE READ leaves values alone and fails with a
 * serialization failure (cas_last_error_is_serialization_failure) when another commit changed
 * the row after the transaction's snapshot. */
	int cas_scan_reread(cas_scan *scan, uint32_t command, cas_value *values,
						int *exists);

	/* Aggregates the engine computes over a scan's rows (aggregate pushdown), with PostgreSQL's
 * semantics exactly (api_aggregate.cc says how): count(*), count(col), sum, min, max. */
	typedef enum cas_agg_kind
	{
		CAS_AGG_COUNT_ROWS = 0, /* count(*) */
		CAS_AGG_COUNT,			/* count(col): non-null values */
		CAS_AGG_SUM, /* repr INT2, INT4 (an int8 sum), INT8 (a numeric sum), FLOAT4,
								 * FLOAT8 */
		CAS_AGG_MIN,
		CAS_AGG_MAX
	} cas_agg_kind;

	typedef struct cas_aggregate
	{
		cas_agg_kind kind;
		int			 column; /* CQL column (not read for count(*)) */
		cas_repr repr; /* how the column's values travel (its natural representation) */
	} cas_aggregate;

	/* What a cas_scan_aggregate call produced. */
	typedef enum cas_aggregate_outcome
	{
		CAS_AGGREGATE_MORE = 0, /* max_rows rows were folded: call again */
		CAS_AGGREGATE_GROUP, /* results (and group_values) hold a finished group */
		CAS_AGGREGATE_END, /* no more groups */
		CAS_AGGREGATE_FLOAT_OVERFLOW /* a float sum overflowed from finite values: PostgreSQL's
								 * "value out of range: overflow" */
	} cas_aggregate_outcome;

	/* Folds rows of `scan` into aggregates[0..count) (the same arrays on every call of a scan),
 * reading at most max_rows rows per call (the glue checks for interrupts between calls).
 * Without group columns (ngroup = 0) the whole scan is one group, returned at its end even when
 * it has no rows. With group columns, which must be partition key columns (GROUP BY the whole
 * partition key), each partition is a group; group_values[g] then holds column
 * group_columns[g] of the group in its natural representation.
 * A group's results[k]: counts in i (never null); sums of INT2/INT4 in i, of INT8 as the decimal
 * digits of a numeric in data/len, of floats in d, null over no values; min/max in the column's
 * representation, null over no values. They stay valid until the next call. */
	int cas_scan_aggregate(cas_scan *scan, const cas_aggregate *aggregates,
						   int count, const int *group_columns, int ngroup,
						   int max_rows, cas_value *results,
						   cas_value *group_values, int *outcome);

	/* The table's estimated row count (from the store's statistics; cheap). */
	int cas_table_estimate(cas_table *table, double *rows);

	/* ---- writes (buffered per transaction, applied at commit) --------------------------------------- */

	/* values[c] for every column c of the table (in the table's order) with reprs[c]; `present[c]`
 * says the statement sets column c. INSERT: key columns required, nulls leave columns unset.
 * UPDATE: key columns identify the row, present non-key columns are set (null deletes the cell).
 * DELETE: only key columns are read. `level` is the (sub)transaction nesting level, `command`
 * the writing statement's CommandId (scans of later commands see the write). Each row goes into
 * the engine transaction of the table's store as its statement runs. With `stored` (RETURNING;
 * else NULL), INSERT fills stored[c] for every column and UPDATE for the key and present
 * columns with the value a SELECT reads back of what was written, in reprs[c] (a timestamp in
 * milliseconds, a set sorted without duplicates, an empty collection NULL); text forms stay valid
 * until the next write of the table. */
	int cas_write_insert(cas_table *table, const cas_value *values,
						 const cas_repr *reprs, int level, uint32_t command,
						 cas_value *stored);
	int cas_write_update(cas_table *table, const cas_value *values,
						 const cas_repr *reprs, const int *present, int level,
						 uint32_t command, cas_value *stored);
	int cas_write_delete(cas_table *table, const cas_value *values,
						 const cas_repr *reprs, int level, uint32_t command);
	int cas_write_truncate(cas_table *table, int level, uint32_t command);
	/* Two-phase commit (ext/postgres/README.md, "Atomic commit"). At PRE_COMMIT: writes every
 * store's buffered writes as a prepared transaction tagged `host_tag`, stores in path order,
 * keeping each store locked; all or none (a failure aborts those already prepared). A
 * transaction with schema changes commits here at once. */
	int cas_transaction_prepare(const char *host_tag);
	/* At COMMIT (`commit` 1) or ABORT (0): decides the prepared transactions and unlocks the
 * stores. Returns nonzero, with the first error, when a decision could not be written: that
 * store's transaction stays in doubt until a backend decides it (cas_set_in_doubt_resolver). */
	int cas_transaction_finish(int commit);
	/* How a store decides a prepared transaction whose backend died before deciding it: `resolve`
 * gets its host tag and returns 1 (it committed), 0 (it aborted) or -1 (cannot tell). It must
 * not raise an ERROR. Set before the first store opens. */
	typedef int (*cas_in_doubt_resolver)(const char *host_tag);
	void cas_set_in_doubt_resolver(cas_in_doubt_resolver resolve);
	/* Forgets the writes of levels >= level (ROLLBACK TO SAVEPOINT), or moves them to level - 1. */
	void cas_subtransaction_end(int level, int committed);
	/* End of the top-level transaction: drops buffered writes and frees open scans. */
	void cas_end_of_transaction(void);
	int	 cas_transaction_has_writes(void);
	/* How the transaction block reads, as PostgreSQL's IsolationUsesXactSnapshot() says; the glue
 * calls it before each scan, write and cql() of a transaction (it takes effect on each store's
 * first use in the transaction). 1 (REPEATABLE READ, SERIALIZABLE): each store is read at one
 * snapshot, pinned at the transaction's first read of it, and each row an UPDATE or DELETE read
 * and then changed is checked at commit: if another commit changed it after the snapshot, the
 * commit fails with a serialization failure and writes nothing. 0 (READ COMMITTED): each
 * statement reads the latest commit. */
	void cas_transaction_isolation(int snapshot);
	/* Whether the last failed call failed with a serialization failure: another commit changed a
 * row this transaction read and then wrote (PostgreSQL's SQLSTATE 40001: retry). */
	int cas_last_error_is_serialization_failure(void);

	/* ---- cql() ---------------------------------------------------------------------------------------- */

	/* Runs one CQL statement against the store and returns its result as JSON text: an array of
 * row objects for statements that return rows, else {"result": "..."} for others. The text stays
 * valid until the next call. In a transaction block (in_transaction_block: IsTransactionBlock())
 * the statement joins the transaction: its writes are buffered at (sub)transaction `level` and
 * commit with the foreign-table writes in one record or roll back; they carry `command`, so the
 * scans of later commands see them. It reads every write of the transaction so far. Conditional
 * statements,
 * schema changes and TRUNCATE are refused there. Outside one it runs and commits on its own.
 * A store whose directory does not exist is created only when `create` is set, else the call
 * fails naming the path.
 * With `values` (nvalues of them; NULL: none), the statement is prepared and each value bound to
 * its bind marker (? or :name) in marker order, converted to the marker's CQL type as pg-import
 * converts a column's values (ext/pg_common/pg_values.h); a value that cannot be of the marker's
 * type, or a count that is not the markers', fails naming the marker and changes nothing. */
	typedef struct cas_cql_value
	{
		const char *text; /* PostgreSQL's output form (DateStyle ISO, TimeZone UTC, IntervalStyle
						   * iso_8601), in UTF-8; NULL for SQL NULL */
		size_t len;
		uint32_t type; /* its type's oid, JSONOID for a composite given as to_json */
		uint32_t	element_type; /* an array's element type, else 0 */
		const char *type_name;	  /* for messages: "integer", "text[]" */
	} cas_cql_value;

	int cas_cql(const char *store_path, int create, const char *statement,
				int in_transaction_block, int level, uint32_t command,
				const cas_cql_value *values, int nvalues, const char **json);

	/* Whether a CQL statement can change the store (*writes: every statement but SELECT, DESCRIBE
 * and USE) and its command ("INSERT", "CREATE TABLE", ...; a static string), so that a
 * read-only transaction refuses it before it runs. Fails for a statement that does not parse. */
	int cas_cql_statement_writes(const char *statement, int *writes,
								 const char **command);

#ifdef __cplusplus
}
#endif

#endif /* CASSETTE_API_H */
