/*
 * Executing scans of cassette foreign tables: the plan from fdw_plan.c (the engine's encoded
 * plan, the expressions of its bound values, the columns the query reads, a consumed LIMIT) is
 * opened as an engine cursor at the first row, with the values evaluated for this execution
 * (parameters, outer rows of a nested loop), and each row becomes a virtual tuple; a scan with
 * an aggregate pushed down (fdw_aggregate.c) returns the engine's aggregated rows instead. Also
 * EXPLAIN output and ANALYZE (a reservoir sample of a full scan).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/sampling.h"
#include "utils/snapshot.h"
#include "utils/timestamp.h"

#include "fdw_internal.h"

/* ---- execution ------------------------------------------------------------------------------- */

typedef struct CassetteScanState
{
	CassetteRelation *rel;
	char			 *encoded; /* the engine's plan */
	char			 *description;
	int				  nargs;
	int				 *arg_is_in;
	List			 *arg_states; /* ExprState per argument */
	int64			  limit;
	cas_repr		 *reprs;  /* per CQL column */
	int				 *wanted; /* per CQL column */
	cas_value		 *values; /* the current batch: [row][CQL column] */
	int				  batch_capacity; /* rows values has room for */
	int				  batch_size;	  /* rows the next batch asks for */
	int				  batch_rows;	  /* rows in the current batch */
	int				  batch_pos;	  /* the next of them to return */
	bool			  scan_done;	  /* the engine reported the end */
	int	 nread; /* attributes the query reads, with their CQL columns */
	int *read_att;
	int *read_column;
	int	 nunread; /* attributes always null (not read, or no CQL column) */
	int *unread_att;
	cas_scan *scan;
	int64 index_reads; /* cas_scan_index_reads summed over the scan's openings */
	/* An aggregate pushed down (fdw_aggregate.c): the scan returns one aggregated row, or one
	 * per partition (GROUP BY the partition key). Scan tuple column k is aggregate
	 * entry_aggregate[k] or, when that is -1, group column entry_group[k]. */
	int			   naggregates;
	cas_aggregate *aggregates;
	int			   ngroup;
	int			  *group_columns; /* CQL columns */
	int			   nentries;
	int			  *entry_aggregate;
	int			  *entry_group;
	cas_value	  *results;		   /* per aggregate */
	cas_value	  *group_values;   /* per group column */
	char		  *aggregate_text; /* "count(*), sum(value)" */
	char		  *group_text;	   /* "source, hour", or "" */
	bool		   aggregated; /* the engine said there are no more groups */
	TupleDesc	   table_desc; /* the foreign table's columns */
	/* The scan feeds an UPDATE or DELETE of its own table, or a SELECT ... FOR UPDATE / SHARE
	 * locks its rows: each row is locked, then re-read (lock_row), and the scan reads one row
	 * per batch. lock_mode: ExclusiveLock (UPDATE, DELETE, FOR [NO KEY] UPDATE) or ShareLock
	 * (FOR [KEY] SHARE); wait_policy: the lock clause's NOWAIT or SKIP LOCKED. */
	bool		   lock_rows;
	Relation	   relation; /* for messages */
	LOCKMODE	   lock_mode;
	LockWaitPolicy wait_policy;
} CassetteScanState;

/* ---- row locks --------------------------------------------------------------------------------- */

/*
 * PostgreSQL's UPDATE, DELETE and SELECT ... FOR UPDATE / SHARE wait for a concurrent updater
 * of a row and then work on its newest version (EvalPlanQual). A scan feeding an UPDATE or
 * DELETE of a cassette table, or locking its rows for a lock clause, does the same with
 * PostgreSQL's lock manager: before returning a row it takes a transaction-scoped lock on the
 * row's identity (cas_scan_row_lock_ids), ExclusiveLock to change it or ShareLock for FOR
 * SHARE, waiting as a row lock waits (deadlock detection, lock_timeout; NOWAIT fails at once,
 * SKIP LOCKED skips the row), then re-reads the row (cas_scan_reread). The locks are released
 * at the end of the transaction, after its commit wrote the store, so a waiter reads that write.
 *
 * The locks are advisory-kind LOCKTAGs (pg_locks: locktype advisory, database 0 so that every
 * database of the cluster sharing a store meets them, objsubid 3 for a row and 4 for a table;
 * the SQL advisory lock functions use objsubid 1 and 2, so they never collide). A row locker
 * holds its table's lock in RowExclusiveLock (RowShareLock to share rows); past
 * CASSETTE_ROW_LOCKS_PER_TABLE rows of one table in one transaction it takes the table's lock
 * in ExclusiveLock (ShareLock) instead of more row locks, which conflicts with every row locker
 * of the table that a row lock of its mode would conflict with, so a large UPDATE does not fill
 * the shared lock table.
 */
#define CASSETTE_LOCKTAG_ROW		 3
#define CASSETTE_LOCKTAG_TABLE		 4
#define CASSETTE_ROW_LOCKS_PER_TABLE 256

typedef struct TableLockCount
{
	uint64 table_id;
	int	   rows; /* row locks taken in this transaction */
	LOCKMODE escalated; /* the table lock held instead of row locks: NoLock, ShareLock or
						 * ExclusiveLock */
} TableLockCount;

/* The row lock counts of the current transaction (MyProc->lxid), per table. */
static TableLockCount	 *lock_counts;
static int				  nlock_counts, lock_counts_capacity;
static LocalTransactionId lock_counts_xact = InvalidLocalTransactionId;

static TableLockCount *
table_lock_count(uint64 table_id)
{
	int i;

	if (lock_counts_xact != MyProc->lxid)
	{
		nlock_counts = 0;
		lock_counts_xact = MyProc->lxid;
	}
	for (i = 0; i < nlock_counts; i++)
		if (lock_counts[i].table_id == table_id)
			return &lock_counts[i];
	if (nlock_counts == lock_counts_capacity)
	{
		lock_counts_capacity = Max(8, lock_counts_capacity * 2);
		lock_counts =
			lock_counts == NULL
				? MemoryContextAlloc(TopMemoryContext, sizeof(TableLockCount) *
														   lock_counts_capacity)
				: repalloc(lock_counts,
						   sizeof(TableLockCount) * lock_counts_capacity);
	}
	lock_counts[nlock_counts].table_id = table_id;
	lock_counts[nlock_counts].rows = 0;
	lock_counts[nlock_counts].escalated = NoLock;
	return &lock_counts[nlock_counts++];
}

/* Takes a lock until the end of the transaction, waiting for it unless `policy` says otherwise:
 * NOWAIT raises PostgreSQL's error for a locked row, SKIP LOCKED returns LOCKACQUIRE_NOT_AVAIL. */
static LockAcquireResult
acquire_lock(CassetteScanState *st, uint64 id, uint16 kind, LOCKMODE mode)
{
	LOCKTAG			  tag;
	LockAcquireResult result;

	SET_LOCKTAG_ADVISORY(tag, InvalidOid, (uint32) (id >> 32), (uint32) id,
						 kind);
	result = LockAcquire(&tag, mode, false, st->wait_policy != LockWaitBlock);
	if (result == LOCKACQUIRE_NOT_AVAIL && st->wait_policy == LockWaitError)
		ereport(ERROR, (errcode(ERRCODE_LOCK_NOT_AVAILABLE),
						errmsg("could not obtain lock on row in relation \"%s\"",
							   RelationGetRelationName(st->relation))));
	return result;
}

/* Takes the current row's lock in st->lock_mode, or its table's lock in place of row locks past
 * CASSETTE_ROW_LOCKS_PER_TABLE; false when SKIP LOCKED skips the row. */
static bool
acquire_row_lock(CassetteScanState *st, uint64 table_id, uint64 row_id)
{
	TableLockCount *count = table_lock_count(table_id);
	bool			exclusive = st->lock_mode == ExclusiveLock;

	if (count->escalated == ExclusiveLock ||
		(count->escalated == ShareLock && !exclusive))
		return true;
	if (acquire_lock(st, table_id, CASSETTE_LOCKTAG_TABLE,
					 exclusive ? RowExclusiveLock : RowShareLock) ==
		LOCKACQUIRE_NOT_AVAIL)
		return false;
	if (count->rows >= CASSETTE_ROW_LOCKS_PER_TABLE)
	{
		if (acquire_lock(st, table_id, CASSETTE_LOCKTAG_TABLE,
						 exclusive ? ExclusiveLock : ShareLock) ==
			LOCKACQUIRE_NOT_AVAIL)
			return false;
		count->escalated = exclusive ? ExclusiveLock : ShareLock;
		return true;
	}
	switch (acquire_lock(st, row_id, CASSETTE_LOCKTAG_ROW, st->lock_mode))
	{
		case LOCKACQUIRE_NOT_AVAIL:
			return false;
		case LOCKACQUIRE_ALREADY_HELD:
		case LOCKACQUIRE_ALREADY_CLEAR:
			return true;
		case LOCKACQUIRE_OK:
			break;
	}
	count->rows++;
	return true;
}

/* Locks the scan's current row and re-reads it into `row`; false when it was deleted meanwhile
 * or SKIP LOCKED skips it. As PostgreSQL's EvalPlanQual, the caller locks only a row whose version
 * in the statement's snapshot passes the scan's quals, and ExecScan checks them again on the
 * version re-read. */
static bool
lock_row(ForeignScanState *node, CassetteScanState *st, cas_value *row)
{
	uint64 table_id, row_id;
	int	   exists;

	CAS_CHECK(cas_scan_row_lock_ids(st->scan, &table_id, &row_id));
	if (!acquire_row_lock(st, table_id, row_id))
		return false;
	CAS_CHECK(cas_scan_reread(st->scan, node->ss.ps.state->es_snapshot->curcid,
							  row, &exists));
	return exists != 0;
}

/* Whether the scan of range table entry `rti` locks its rows, and how (CassetteScanState). */
static void
find_row_locks(PlannedStmt *stmt, Index rti, CassetteScanState *st)
{
	ListCell *lc;

	st->lock_mode = NoLock;
	st->wait_policy = LockWaitBlock;
	if (list_member_int(stmt->resultRelations, (int) rti))
		st->lock_mode = ExclusiveLock;
	foreach(lc, stmt->rowMarks)
	{
		PlanRowMark *mark = lfirst(lc);

		if (mark->rti != rti || mark->strength == LCS_NONE)
			continue;
		if (mark->strength == LCS_FORUPDATE ||
			mark->strength == LCS_FORNOKEYUPDATE)
			st->lock_mode = ExclusiveLock;
		else if (st->lock_mode == NoLock)
			st->lock_mode = ShareLock;
		st->wait_policy = mark->waitPolicy;
	}
	st->lock_rows = st->lock_mode != NoLock;
}

static void
cassetteBeginForeignScan(ForeignScanState *node, int eflags)
{
	ForeignScan		  *fsplan = (ForeignScan *) node->ss.ps.plan;
	Relation		   relation = node->ss.ss_currentRelation;
	CassetteScanState *st = palloc0(sizeof(CassetteScanState));
	List			  *entries = NIL; /* of a pushed-down aggregate */
	List			  *arg_is_in = lthird(fsplan->fdw_private);
	List			  *wanted = lfourth(fsplan->fdw_private);
	ListCell		  *lc;
	int				   i;

	node->fdw_state = st;
	/* An aggregate's scan (scanrelid 0) reads the one foreign table of its query. */
	if (relation == NULL)
		relation =
			ExecGetRangeTableRelation(node->ss.ps.state,
									  bms_next_member(fsplan->fs_relids, -1));
	if (list_length(fsplan->fdw_private) > 5)
	{
		entries = list_nth(fsplan->fdw_private, 5);
		st->aggregate_text = strVal(list_nth(fsplan->fdw_private, 6));
		st->group_text = strVal(list_nth(fsplan->fdw_private, 7));
	}
	st->table_desc = RelationGetDescr(relation);
	st->relation = relation;
	if (fsplan->scan.scanrelid > 0 && entries == NIL)
		find_row_locks(node->ss.ps.state->es_plannedstmt,
					   fsplan->scan.scanrelid, st);
	st->nentries = list_length(entries);
	st->aggregates = palloc0(sizeof(cas_aggregate) * Max(st->nentries, 1));
	st->group_columns = palloc0(sizeof(int) * Max(st->nentries, 1));
	st->entry_aggregate = palloc0(sizeof(int) * Max(st->nentries, 1));
	st->entry_group = palloc0(sizeof(int) * Max(st->nentries, 1));
	st->results = palloc0(sizeof(cas_value) * Max(st->nentries, 1));
	st->group_values = palloc0(sizeof(cas_value) * Max(st->nentries, 1));
	i = 0;
	foreach(lc, entries)
	{
		List *spec = lfirst(lc);

		st->entry_aggregate[i] = -1;
		st->entry_group[i] = -1;
		if (linitial_int(spec) == CASSETTE_GROUP_KEY)
		{
			st->entry_group[i] = st->ngroup;
			st->group_columns[st->ngroup++] = lsecond_int(spec);
		}
		else
		{
			cas_aggregate *agg = &st->aggregates[st->naggregates];

			agg->kind = (cas_agg_kind) linitial_int(spec);
			agg->column = lsecond_int(spec);
			agg->repr = (cas_repr) lthird_int(spec);
			st->entry_aggregate[i] = st->naggregates++;
		}
		i++;
	}
	st->rel = cassette_relation(RelationGetRelid(relation),
								RelationGetDescr(relation), true);
	st->encoded = strVal(linitial(fsplan->fdw_private));
	st->description = strVal(lsecond(fsplan->fdw_private));
	st->limit = pg_strtoint64(strVal(list_nth(fsplan->fdw_private, 4)));
	st->nargs = list_length(arg_is_in);
	st->arg_is_in = palloc0(sizeof(int) * Max(st->nargs, 1));
	i = 0;
	foreach(lc, arg_is_in)
		st->arg_is_in[i++] = lfirst_int(lc);
	st->reprs = palloc0(sizeof(cas_repr) * Max(st->rel->ncolumns, 1));
	st->wanted = palloc0(sizeof(int) * Max(st->rel->ncolumns, 1));
	for (i = 0; i < st->rel->ncolumns; i++)
		st->reprs[i] = st->rel->column_repr[i];
	foreach(lc, wanted)
	{
		int att = lfirst_int(lc);

		if (att < st->rel->natts && st->rel->att_column[att] >= 0)
			st->wanted[st->rel->att_column[att]] = 1;
	}
	/* The per-row loop visits only what the query reads (a full scan pays it per row). */
	st->read_att = palloc0(sizeof(int) * Max(st->rel->natts, 1));
	st->read_column = palloc0(sizeof(int) * Max(st->rel->natts, 1));
	st->unread_att = palloc0(sizeof(int) * Max(st->rel->natts, 1));
	for (i = 0; i < st->rel->natts; i++)
	{
		int c = st->rel->att_column[i];

		if (c >= 0 && st->wanted[c])
		{
			st->read_att[st->nread] = i;
			st->read_column[st->nread] = c;
			st->nread++;
		}
		else
			st->unread_att[st->nunread++] = i;
	}
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	st->arg_states = ExecInitExprList(fsplan->fdw_exprs, (PlanState *) node);
}

/*
 * Rows come from the engine in batches (one call across the C/C++ boundary per batch, not per
 * row). A scan that the engine stops early (a consumed LIMIT) asks for all its rows at once, up
 * to CASSETTE_MAX_BATCH; otherwise batches start small, so a query that stops after a few rows
 * (EXISTS, a LIMIT the engine does not enforce) reads few rows ahead, and double from there.
 * Larger batches than 64 rows measured no faster.
 */
#define CASSETTE_FIRST_BATCH 16
#define CASSETTE_MAX_BATCH	 64

static void
reset_batches(CassetteScanState *st)
{
	st->batch_rows = 0;
	st->batch_pos = 0;
	st->scan_done = false;
	st->batch_size = st->lock_rows ? 1 : CASSETTE_FIRST_BATCH;
	if (st->limit >= 0) /* + 1: the engine meets its end within the same call */
		st->batch_size = st->limit >= CASSETTE_MAX_BATCH ? CASSETTE_MAX_BATCH
														 : (int) st->limit + 1;
}

/* Reads the next batch; false at the end of the scan. */
static bool
next_batch(CassetteScanState *st)
{
	int ncolumns = Max(st->rel->ncolumns, 1);

	if (st->scan_done)
		return false;
	if (st->batch_capacity < st->batch_size)
	{
		/* In the scan's memory context (the executor's per-query one), not a per-tuple one. */
		if (st->values)
			pfree(st->values);
		st->values =
			MemoryContextAlloc(GetMemoryChunkContext(st),
							   sizeof(cas_value) * ncolumns * st->batch_size);
		st->batch_capacity = st->batch_size;
	}
	CAS_CHECK(cas_scan_next_batch(st->scan, st->values, st->batch_size,
								  &st->batch_rows));
	st->batch_pos = 0;
	if (st->batch_rows == 0)
	{
		st->scan_done = true;
		return false;
	}
	if (!st->lock_rows)
		st->batch_size = Min(st->batch_size * 2, CASSETTE_MAX_BATCH);
	return true;
}

/* A value bound to a restriction. CQL has no infinite timestamps or dates, but a restriction
 * may name one (t < 'infinity'): it binds as the first value past PostgreSQL's range, above
 * (or below) every value PostgreSQL can read, so that it compares as infinity does. */
static void
bound_value_from_datum(Datum datum, bool isnull, Oid type, cas_repr repr,
					   cas_value *out)
{
	if (!isnull && type == TIMESTAMPTZOID &&
		TIMESTAMP_NOT_FINITE(DatumGetTimestampTz(datum)))
	{
		memset(out, 0, sizeof(*out));
		out->i = TIMESTAMP_IS_NOEND(DatumGetTimestampTz(datum))
					 ? END_TIMESTAMP
					 : MIN_TIMESTAMP - 1000;
		return;
	}
	if (!isnull && type == DATEOID && DATE_NOT_FINITE(DatumGetDateADT(datum)))
	{
		memset(out, 0, sizeof(*out));
		out->i = DATE_IS_NOEND(DatumGetDateADT(datum))
					 ? DATE_END_JULIAN - POSTGRES_EPOCH_JDATE
					 : DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE - 1;
		return;
	}
	cassette_value_from_datum(datum, isnull, type, repr, out);
}

/* Evaluates the plan's arguments (parameters of this execution) and opens the scan. */
static void
open_scan(ForeignScanState *node, CassetteScanState *st)
{
	ExprContext	 *econtext = node->ss.ps.ps_ExprContext;
	MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	cas_value	**values = palloc0(sizeof(cas_value *) * Max(st->nargs, 1));
	int			 *counts = palloc0(sizeof(int) * Max(st->nargs, 1));
	cas_repr	 *reprs = palloc0(sizeof(cas_repr) * Max(st->nargs, 1));
	ListCell	 *lc;
	int			  i = 0;

	foreach(lc, st->arg_states)
	{
		ExprState *expr = lfirst(lc);
		bool	   isnull;
		Datum	   datum = ExecEvalExpr(expr, econtext, &isnull);
		Oid		   type = exprType((Node *) expr->expr);

		if (st->arg_is_in[i])
		{
			Datum *elements = NULL;
			bool  *nulls = NULL;
			int	   n = 0, j;
			Oid	   elemtype = get_element_type(type);
			int16  typlen;
			bool   typbyval;
			char   typalign;

			if (!isnull)
			{
				get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
				deconstruct_array(DatumGetArrayTypeP(datum), elemtype, typlen,
								  typbyval, typalign, &elements, &nulls, &n);
			}
			values[i] = palloc0(sizeof(cas_value) * Max(n, 1));
			reprs[i] = cassette_repr_for_type(elemtype);
			for (j = 0; j < n; j++)
				bound_value_from_datum(elements[j], nulls[j], elemtype,
									   reprs[i], &values[i][j]);
			counts[i] = n;
		}
		else
		{
			values[i] = palloc0(sizeof(cas_value));
			reprs[i] = cassette_repr_for_type(type);
			bound_value_from_datum(datum, isnull, type, reprs[i], values[i]);
			counts[i] = 1;
		}
		i++;
	}
	cassette_use_isolation();
	CAS_CHECK(cas_scan_open(st->rel->table, st->encoded,
							(const cas_value *const *) values, counts, reprs,
							st->nargs, st->limit, st->reprs, st->wanted,
							node->ss.ps.state->es_snapshot->curcid, &st->scan));
	st->index_reads += cas_scan_index_reads(st->scan);
	MemoryContextSwitchTo(old);
	reset_batches(st);
}

/* Rows the engine folds into a pushed-down aggregate per call (between interrupt checks). */
#define CASSETTE_AGGREGATE_STEP 65536

/* A value of CQL column `column` (a group column or a min/max) as a Datum of its attribute. */
static Datum
column_datum(CassetteScanState *st, int column, const cas_value *v, cas_repr repr)
{
	int att = st->rel->column_att[column];

	return cassette_datum_from_value(v, repr, &st->rel->att_input[att],
									 st->rel->att_ioparam[att],
									 TupleDescAttr(st->table_desc, att)->atttypmod);
}

/* The next row of a pushed-down aggregate: the engine folds the scan's rows into a group, this
 * converts the group to the scan tuple (fdw_scan_tlist: group columns and Aggrefs). */
static TupleTableSlot *
iterate_aggregate(ForeignScanState *node, CassetteScanState *st)
{
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	int				outcome = CAS_AGGREGATE_MORE;
	int				k;

	ExecClearTuple(slot);
	if (st->aggregated)
		return slot;
	if (st->scan == NULL)
		open_scan(node, st);
	while (outcome == CAS_AGGREGATE_MORE)
	{
		CHECK_FOR_INTERRUPTS();
		CAS_CHECK(cas_scan_aggregate(st->scan, st->aggregates, st->naggregates,
									 st->group_columns, st->ngroup,
									 CASSETTE_AGGREGATE_STEP, st->results,
									 st->group_values, &outcome));
	}
	if (outcome == CAS_AGGREGATE_FLOAT_OVERFLOW)
		float_overflow_error();
	if (outcome == CAS_AGGREGATE_END)
	{
		st->aggregated = true;
		return slot;
	}
	for (k = 0; k < st->nentries; k++)
	{
		const cas_value		*v;
		const cas_aggregate *agg = NULL;
		Datum				 datum = (Datum) 0;

		if (st->entry_aggregate[k] >= 0)
		{
			agg = &st->aggregates[st->entry_aggregate[k]];
			v = &st->results[st->entry_aggregate[k]];
		}
		else
			v = &st->group_values[st->entry_group[k]];
		slot->tts_isnull[k] = v->isnull != 0;
		if (!v->isnull)
		{
			if (agg == NULL)
				datum =
					column_datum(st, st->group_columns[st->entry_group[k]], v,
								 st->rel->column_repr
									 [st->group_columns[st->entry_group[k]]]);
			else if (agg->kind == CAS_AGG_COUNT_ROWS ||
					 agg->kind == CAS_AGG_COUNT)
				datum = Int64GetDatum(v->i);
			else if (agg->kind == CAS_AGG_SUM && agg->repr == CAS_REPR_INT8)
				datum = DirectFunctionCall3(numeric_in,
											CStringGetDatum(
												pnstrdup(v->data, v->len)),
											ObjectIdGetDatum(InvalidOid),
											Int32GetDatum(-1));
			else if (agg->kind == CAS_AGG_SUM &&
					 (agg->repr == CAS_REPR_INT2 || agg->repr == CAS_REPR_INT4))
				datum = Int64GetDatum(v->i);
			else if (agg->kind == CAS_AGG_SUM) /* a float: the column's own type */
				datum = cassette_datum_from_value(v, agg->repr, NULL,
												  InvalidOid, -1);
			else
				datum = column_datum(st, agg->column, v, agg->repr);
		}
		slot->tts_values[k] = datum;
	}
	return ExecStoreVirtualTuple(slot);
}

/* Where a value being converted for the scan came from, for an error's CONTEXT line. */
typedef struct ConversionSite
{
	Relation  relation;
	TupleDesc desc;
	int		  att;
} ConversionSite;

/* "column "x" of foreign table "t"", as postgres_fdw says: PostgreSQL's own input functions
 * (a column declared with another type than the CQL one) do not name the column. */
static void
conversion_error_callback(void *arg)
{
	const ConversionSite *site = arg;

	if (site->relation != NULL)
		errcontext("column \"%s\" of foreign table \"%s\"",
				   NameStr(TupleDescAttr(site->desc, site->att)->attname),
				   RelationGetRelationName(site->relation));
}

/* Stores the scan's row `row` (its CQL columns) in `slot` as a virtual tuple. */
static void
store_row(ForeignScanState *node, CassetteScanState *st, const cas_value *row,
		  TupleTableSlot *slot)
{
	CassetteRelation *rel = st->rel;
	int				  att;

	ExecClearTuple(slot);
	{
		Datum	 *datums = slot->tts_values;
		bool	 *nulls = slot->tts_isnull;
		const int nread = st->nread;
		int		  k;

		for (k = 0; k < st->nunread; k++)
		{
			nulls[st->unread_att[k]] = true;
			datums[st->unread_att[k]] = (Datum) 0;
		}
		for (k = 0; k < nread; k++)
		{
			const int		 c = st->read_column[k];
			const cas_value *v = &row[c];
			const cas_repr	 repr = st->reprs[c];

			att = st->read_att[k];
			if (v->isnull)
			{
				nulls[att] = true;
				datums[att] = (Datum) 0;
				continue;
			}
			nulls[att] = false;
			/* Pass-by-value types inline; the rest through cassette_datum_from_value. */
			if (repr == CAS_REPR_FLOAT8)
				datums[att] = Float8GetDatum(v->d);
			else if (repr == CAS_REPR_INT4)
				datums[att] = Int32GetDatum((int32) v->i);
			else if (repr == CAS_REPR_INT8 || repr == CAS_REPR_TIMESTAMPTZ ||
					 repr == CAS_REPR_TIME)
				datums[att] = Int64GetDatum(v->i);
			else
			{
				/* The conversions that can fail: with the column named in the error. */
				ConversionSite		 site = {node->ss.ss_currentRelation,
											 slot->tts_tupleDescriptor, att};
				ErrorContextCallback callback = {error_context_stack,
												 conversion_error_callback,
												 &site};

				error_context_stack = &callback;
				datums[att] =
					cassette_datum_from_value(v, repr, &rel->att_input[att],
											  rel->att_ioparam[att],
											  TupleDescAttr(slot->tts_tupleDescriptor,
															att)
												  ->atttypmod);
				error_context_stack = callback.previous;
			}
		}
	}
	ExecStoreVirtualTuple(slot);
}

static TupleTableSlot *
cassetteIterateForeignScan(ForeignScanState *node)
{
	CassetteScanState *st = node->fdw_state;
	TupleTableSlot	  *slot = node->ss.ss_ScanTupleSlot;
	CassetteRelation  *rel = st->rel;
	const cas_value	  *row;

	if (st->naggregates > 0)
		return iterate_aggregate(node, st);
	if (st->scan == NULL)
		open_scan(node, st);
	for (;;)
	{
		if (st->batch_pos >= st->batch_rows && !next_batch(st))
			return ExecClearTuple(slot); /* (a row skipped last may be in it) */
		row = st->values + (size_t) st->batch_pos++ * Max(rel->ncolumns, 1);
		if (!st->lock_rows)
			break;
		/* A row whose snapshot version fails the quals is neither locked nor returned. */
		store_row(node, st, row, slot);
		if (node->ss.ps.qual != NULL)
		{
			ExprContext *econtext = node->ss.ps.ps_ExprContext;

			ResetExprContext(econtext);
			econtext->ecxt_scantuple = slot;
			if (!ExecQual(node->ss.ps.qual, econtext))
				continue;
		}
		if (lock_row(node, st, (cas_value *) row))
			break;
	}
	store_row(node, st, row, slot);
	return slot;
}

static void
cassetteReScanForeignScan(ForeignScanState *node)
{
	CassetteScanState *st = node->fdw_state;

	if (st->scan)
		cas_scan_close(st->scan);
	st->scan = NULL;
	st->aggregated = false;
}

static void
cassetteEndForeignScan(ForeignScanState *node)
{
	CassetteScanState *st = node->fdw_state;

	if (st && st->scan)
		cas_scan_close(st->scan);
	if (st)
		st->scan = NULL;
}

static void
cassetteExplainForeignScan(ForeignScanState *node, ExplainState *es)
{
	CassetteScanState *st = node->fdw_state;

	ExplainPropertyText("Cassette Access", st->description, es);
	if (st->limit >= 0)
		ExplainPropertyInteger("Cassette Limit", NULL, st->limit, es);
	if (es->analyze && st->index_reads > 0)
		ExplainPropertyInteger("Cassette Index Reads", NULL, st->index_reads,
							   es);
	if (st->naggregates > 0)
		ExplainPropertyText("Cassette Aggregate", st->aggregate_text, es);
	if (st->ngroup > 0)
		ExplainPropertyText("Cassette Group By", st->group_text, es);
	if (es->verbose)
	{
		ExplainPropertyText("Cassette Plan", st->encoded, es);
		ExplainPropertyText("CQL Table",
							cassette_cstring_from_engine(
								cas_table_name(st->rel->table)),
							es);
	}
}

/* ---- ANALYZE: a reservoir sample of a full scan ------------------------------------------- */

static int
cassette_sample_rows(Relation relation, int elevel, HeapTuple *rows,
					 int targrows, double *totalrows, double *totaldeadrows)
{
	TupleDesc		  tupdesc = RelationGetDescr(relation);
	CassetteRelation *rel =
		cassette_relation(RelationGetRelid(relation), tupdesc, true);
	MemoryContext row_context =
		AllocSetContextCreate(CurrentMemoryContext, "cassette_fdw analyze",
							  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old;
	cas_value	 *values = palloc0(sizeof(cas_value) * Max(rel->ncolumns, 1));
	int			 *wanted = palloc0(sizeof(int) * Max(rel->ncolumns, 1));
	Datum		 *datums = palloc0(sizeof(Datum) * Max(rel->natts, 1));
	bool		 *nulls = palloc0(sizeof(bool) * Max(rel->natts, 1));
	ReservoirStateData rstate;
	double			   rowstoskip = -1;
	double			   seen = 0;
	int				   numrows = 0;
	cas_scan		  *scan;
	int				   has_row;
	int				   c;

	for (c = 0; c < rel->ncolumns; c++)
		wanted[c] = rel->column_att[c] >= 0;
	cassette_use_isolation();
	/* the declared columns' values only (a foreign table may declare some of the CQL ones) */
	CAS_CHECK(cas_scan_open(rel->table, cassette_plan_reads(rel, "scan", wanted),
							NULL, NULL, NULL, 0, -1, rel->column_repr, wanted,
							GetCurrentCommandId(false), &scan));
	reservoir_init_selection_state(&rstate, targrows);
	for (;;)
	{
		int	 att;
		int	 slot = -1;
		bool replace = false;

		CHECK_FOR_INTERRUPTS();
		if (cas_scan_next(scan, values, &has_row) != 0)
		{
			cas_scan_close(scan);
			cassette_raise();
		}
		if (!has_row)
			break;
		if (numrows < targrows)
			slot = numrows++;
		else
		{
			if (rowstoskip < 0)
				rowstoskip = reservoir_get_next_S(&rstate, seen, targrows);
			if (rowstoskip <= 0)
			{
				slot =
					(int) (targrows * sampler_random_fract(&rstate.randstate));
				replace = true;
			}
			rowstoskip -= 1;
		}
		seen += 1;
		if (slot < 0)
			continue;
		MemoryContextReset(row_context);
		old = MemoryContextSwitchTo(row_context);
		for (att = 0; att < rel->natts; att++)
		{
			int col = rel->att_column[att];

			nulls[att] = col < 0 || values[col].isnull;
			datums[att] =
				nulls[att]
					? (Datum) 0
					: cassette_datum_from_value(&values[col],
												rel->column_repr[col],
												&rel->att_input[att],
												rel->att_ioparam[att],
												TupleDescAttr(tupdesc, att)
													->atttypmod);
		}
		MemoryContextSwitchTo(old);
		if (replace)
			heap_freetuple(rows[slot]);
		rows[slot] = heap_form_tuple(tupdesc, datums, nulls);
	}
	cas_scan_close(scan);
	MemoryContextDelete(row_context);
	*totalrows = seen;
	*totaldeadrows = 0;
	ereport(elevel,
			(errmsg("\"%s\": CQL table %s has %.0f rows; %d rows in sample",
					RelationGetRelationName(relation),
					cassette_cstring_from_engine(cas_table_name(rel->table)),
					seen, numrows)));
	return numrows;
}

static bool
cassetteAnalyzeForeignTable(Relation relation, AcquireSampleRowsFunc *func,
							BlockNumber *totalpages)
{
	*func = cassette_sample_rows;
	*totalpages = 1;
	return true;
}

void
cassette_scan_routines(FdwRoutine *routine)
{
	cassette_plan_routines(routine);
	routine->BeginForeignScan = cassetteBeginForeignScan;
	routine->IterateForeignScan = cassetteIterateForeignScan;
	routine->ReScanForeignScan = cassetteReScanForeignScan;
	routine->EndForeignScan = cassetteEndForeignScan;
	routine->ExplainForeignScan = cassetteExplainForeignScan;
	routine->AnalyzeForeignTable = cassetteAnalyzeForeignTable;
}
