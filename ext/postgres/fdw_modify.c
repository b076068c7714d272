/*
 * INSERT, UPDATE, DELETE and TRUNCATE on cassette foreign tables, and the transaction
 * callbacks that make them atomic.
 *
 * Rows are identified by their primary key: AddForeignUpdateTargets asks the scan for the key
 * columns as row identity columns. Every change is buffered in the engine (cas_write_*),
 * prepared at pre-commit and made visible at commit (fdw_commit.c); an aborted transaction (or
 * a rolled back savepoint) writes nothing. Writes are Cassandra mutations: INSERT is an upsert (a NULL
 * leaves a column unset), UPDATE sets the columns it names, DELETE removes the row. A
 * SERIALIZABLE transaction cannot write (cassette_refuse_serializable_write).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "nodes/makefuncs.h"
#include "optimizer/appendinfo.h"
#include "optimizer/inherit.h"
#include "optimizer/pathnode.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "fdw_internal.h"

#define CAS_BATCH_SIZE 1000

typedef struct CassetteModifyState
{
	CassetteRelation *rel;
	CmdType			  operation;
	AttrNumber *key_junk; /* per CQL column: the junk attribute carrying its key value */
	AttrNumber wholerow;   /* the old row, for DELETE ... RETURNING */
	int		  *present;	   /* per CQL column: UPDATE sets it */
	bool	   do_nothing; /* INSERT ... ON CONFLICT DO NOTHING */
	char *key_plan; /* its lookup of one primary key (cas_plan's encoding) */
	int	 *key_argument; /* per lookup argument: its CQL column */
	int	  nkey_arguments;
	cas_value *values;
	cas_repr  *reprs;
	cas_value *stored; /* RETURNING: the values as stored (cas_write_insert) */
	MemoryContext temp;
} CassetteModifyState;

void
cassette_refuse_serializable_write(const char *what)
{
	if (!IsolationIsSerializable())
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cassette_fdw cannot give SERIALIZABLE isolation: %s is refused",
					what),
			 errdetail("A Cassette store does not track what a transaction reads, so it cannot "
					   "detect the conflicts SERIALIZABLE promises to prevent."),
			 errhint("Write at REPEATABLE READ or READ COMMITTED (BEGIN ISOLATION LEVEL "
					 "REPEATABLE READ); a SERIALIZABLE transaction can still read cassette "
					 "tables.")));
}

static void
refuse_serializable_modify(const char *command, Relation relation)
{
	cassette_refuse_serializable_write(
		psprintf("%s on foreign table \"%s\"", command,
				 RelationGetRelationName(relation)));
}

static char *
key_junk_name(int attno)
{
	return psprintf("cassette_key_%d", attno);
}

static void
cassetteAddForeignUpdateTargets(PlannerInfo *root, Index rtindex,
								RangeTblEntry *target_rte,
								Relation	   target_relation)
{
	TupleDesc		  tupdesc = RelationGetDescr(target_relation);
	CassetteRelation *rel =
		cassette_relation(RelationGetRelid(target_relation), tupdesc, false);
	int c;

	for (c = 0; c < rel->ncolumns; c++)
	{
		Form_pg_attribute att;
		Var				 *var;

		if (rel->columns[c].kind != CAS_PARTITION_KEY &&
			rel->columns[c].kind != CAS_CLUSTERING)
			continue;
		if (rel->column_att[c] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_COLUMN_NAME_NOT_FOUND),
					 errmsg("foreign table \"%s\" lacks primary key column %s of CQL table %s, "
							"so its rows cannot be updated or deleted",
							RelationGetRelationName(target_relation),
							rel->columns[c].name, cas_table_name(rel->table))));
		att = TupleDescAttr(tupdesc, rel->column_att[c]);
		var = makeVar(rtindex, att->attnum, att->atttypid, att->atttypmod,
					  att->attcollation, 0);
		add_row_identity_var(root, var, rtindex, key_junk_name(att->attnum));
	}
	/* RETURNING and row triggers need the old row: the scan hands it over whole (PostgreSQL
	 * then builds UPDATE's new row from it; DELETE returns it). */
	if (root->parse->returningList != NIL ||
		(target_relation->trigdesc &&
		 (target_relation->trigdesc->trig_update_after_row ||
		  target_relation->trigdesc->trig_update_before_row ||
		  target_relation->trigdesc->trig_delete_after_row ||
		  target_relation->trigdesc->trig_delete_before_row)))
		add_row_identity_var(root,
							 makeWholeRowVar(target_rte, rtindex, 0, false),
							 rtindex, "wholerow");
}

static List *
cassettePlanForeignModify(PlannerInfo *root, ModifyTable *plan,
						  Index resultRelation, int subplan_index)
{
	List *updated = NIL;

	/* PostgreSQL lets only DO NOTHING without a conflict target reach a foreign table. */
	if (plan->onConflictAction != ONCONFLICT_NONE &&
		plan->onConflictAction != ONCONFLICT_NOTHING)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg(
					 "INSERT with ON CONFLICT DO UPDATE is not supported on cassette foreign tables")));
	if (plan->operation == CMD_UPDATE)
	{
		RelOptInfo *rel = find_base_rel(root, resultRelation);
		Bitmapset  *cols = get_rel_all_updated_cols(root, rel);
		int			col = -1;

		while ((col = bms_next_member(cols, col)) >= 0)
		{
			AttrNumber attno = col + FirstLowInvalidHeapAttributeNumber;

			if (attno > 0)
				updated = lappend_int(updated, attno);
		}
	}
	return list_make2(updated, makeInteger(plan->onConflictAction ==
										   ONCONFLICT_NOTHING));
}

/* ON CONFLICT DO NOTHING: plans the lookup of one row by its whole primary key, once. */
static void
plan_key_lookup(CassetteModifyState *st)
{
	CassetteRelation *rel = st->rel;
	cas_constraint	 *constraints =
		palloc0(sizeof(cas_constraint) * Max(rel->ncolumns, 1));
	int			 *columns = palloc0(sizeof(int) * Max(rel->ncolumns, 1));
	cas_plan_info plan;
	int			  n = 0, c, i;

	for (c = 0; c < rel->ncolumns; c++)
	{
		if (rel->columns[c].kind != CAS_PARTITION_KEY &&
			rel->columns[c].kind != CAS_CLUSTERING)
			continue;
		constraints[n].column = c;
		constraints[n].op = CAS_OP_EQ;
		constraints[n].known_count = -1;
		columns[n++] = c;
	}
	if (n > CAS_MAX_CONSTRAINTS)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ON CONFLICT DO NOTHING supports primary keys of at most %d columns",
						CAS_MAX_CONSTRAINTS)));
	CAS_CHECK(cas_plan(rel->table, constraints, n, NULL, 0, -1, &plan));
	/* whether the row exists: no value is read (values()) */
	st->key_plan =
		cassette_plan_reads(rel, plan.encoded,
							palloc0(sizeof(int) * Max(rel->ncolumns, 1)));
	st->nkey_arguments = plan.arguments;
	st->key_argument = palloc0(sizeof(int) * Max(plan.arguments, 1));
	for (i = 0; i < n; i++)
		if (plan.argument_of[i] >= 0 && plan.argument_of[i] < plan.arguments)
			st->key_argument[plan.argument_of[i]] = columns[i];
}

/* Whether a row with the primary key in st->values exists, counting the transaction's writes
 * and the rows this statement inserted before it (as a unique index would). */
static bool
key_exists(CassetteModifyState *st)
{
	CassetteRelation *rel = st->rel;
	const cas_value **values =
		palloc0(sizeof(cas_value *) * Max(st->nkey_arguments, 1));
	int		  *counts = palloc0(sizeof(int) * Max(st->nkey_arguments, 1));
	cas_repr  *reprs = palloc0(sizeof(cas_repr) * Max(st->nkey_arguments, 1));
	int		  *wanted = palloc0(sizeof(int) * Max(rel->ncolumns, 1));
	cas_value *row = palloc0(sizeof(cas_value) * Max(rel->ncolumns, 1));
	cas_scan  *scan;
	int		   nrows = 0;
	int		   status;
	int		   i;

	for (i = 0; i < st->nkey_arguments; i++)
	{
		values[i] = &st->values[st->key_argument[i]];
		counts[i] = 1;
		reprs[i] = st->reprs[st->key_argument[i]];
	}
	cassette_use_isolation();
	CAS_CHECK(cas_scan_open(rel->table, st->key_plan,
							(const cas_value *const *) values, counts, reprs,
							st->nkey_arguments, 1, rel->column_repr, wanted,
							GetCurrentCommandId(true) + 1, &scan));
	status = cas_scan_next_batch(scan, row, 1, &nrows);
	cas_scan_close(scan);
	if (status != 0)
		cassette_raise();
	return nrows > 0;
}

static CassetteModifyState *
modify_state(ResultRelInfo *rinfo, CmdType operation)
{
	Relation			 relation = rinfo->ri_RelationDesc;
	CassetteModifyState *st = palloc0(sizeof(CassetteModifyState));

	rinfo->ri_FdwState = st;
	st->operation = operation;
	st->rel = cassette_relation(RelationGetRelid(relation),
								RelationGetDescr(relation), true);
	st->values = palloc0(sizeof(cas_value) * Max(st->rel->ncolumns, 1));
	st->reprs = palloc0(sizeof(cas_repr) * Max(st->rel->ncolumns, 1));
	st->stored = palloc0(sizeof(cas_value) * Max(st->rel->ncolumns, 1));
	st->present = palloc0(sizeof(int) * Max(st->rel->ncolumns, 1));
	st->key_junk = palloc0(sizeof(AttrNumber) * Max(st->rel->ncolumns, 1));
	st->temp = AllocSetContextCreate(CurrentMemoryContext, "cassette_fdw modify",
									 ALLOCSET_SMALL_SIZES);
	return st;
}

static void
cassetteBeginForeignModify(ModifyTableState *mtstate, ResultRelInfo *rinfo,
						   List *fdw_private, int subplan_index, int eflags)
{
	CassetteModifyState *st = modify_state(rinfo, mtstate->operation);
	int					 c;
	ListCell			*lc;
	if (fdw_private != NIL)
	{
		foreach(lc, (List *) linitial(fdw_private))
		{
			int att = lfirst_int(lc) - 1;

			if (att < st->rel->natts && st->rel->att_column[att] >= 0)
				st->present[st->rel->att_column[att]] = 1;
		}
		st->do_nothing =
			list_length(fdw_private) > 1 && intVal(lsecond(fdw_private)) != 0;
	}
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	cassette_use_isolation();
	refuse_serializable_modify(st->operation == CMD_INSERT	 ? "INSERT"
							   : st->operation == CMD_UPDATE ? "UPDATE"
															 : "DELETE",
							   rinfo->ri_RelationDesc);
	if (st->do_nothing)
		plan_key_lookup(st);
	if (st->operation == CMD_UPDATE || st->operation == CMD_DELETE)
	{
		Plan *subplan = outerPlanState(mtstate)->plan;

		st->wholerow =
			ExecFindJunkAttributeInTlist(subplan->targetlist, "wholerow");
		for (c = 0; c < st->rel->ncolumns; c++)
		{
			if (st->rel->columns[c].kind != CAS_PARTITION_KEY &&
				st->rel->columns[c].kind != CAS_CLUSTERING)
				continue;
			st->key_junk[c] =
				ExecFindJunkAttributeInTlist(subplan->targetlist,
											 key_junk_name(
												 st->rel->column_att[c] + 1));
			if (!AttributeNumberIsValid(st->key_junk[c]))
				elog(ERROR, "cassette_fdw: key column %s missing from the plan",
					 st->rel->columns[c].name);
		}
	}
}

/* RETURNING reports the row as a SELECT reads it back: the values the engine stored (st->stored)
 * replace the ones given in `slot` (a timestamp's microseconds, a set's duplicates, an empty
 * collection), for every CQL column or, with `present`, for the key and present columns. Runs in
 * the executor's per-tuple context, which the RETURNING projection reads before it is reset. */
static void
store_returned_values(CassetteModifyState *st, TupleTableSlot *slot,
					  const int *present)
{
	TupleDesc desc = slot->tts_tupleDescriptor;
	Datum	 *values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	bool	 *isnull = palloc(sizeof(bool) * Max(desc->natts, 1));
	int		  c;

	slot_getallattrs(slot);
	memcpy(values, slot->tts_values, sizeof(Datum) * desc->natts);
	memcpy(isnull, slot->tts_isnull, sizeof(bool) * desc->natts);
	for (c = 0; c < st->rel->ncolumns; c++)
	{
		int att = st->rel->column_att[c];

		if (att < 0 || (present != NULL && !present[c] &&
						st->rel->columns[c].kind != CAS_PARTITION_KEY &&
						st->rel->columns[c].kind != CAS_CLUSTERING))
			continue;
		isnull[att] = st->stored[c].isnull != 0;
		values[att] =
			isnull[att]
				? (Datum) 0
				: cassette_datum_from_value(&st->stored[c], st->reprs[c],
											&st->rel->att_input[att],
											st->rel->att_ioparam[att],
											TupleDescAttr(desc, att)->atttypmod);
	}
	/* The tuple outlives st->temp, which the caller resets before PostgreSQL projects
	 * RETURNING from the slot: it belongs to the slot, which frees it when cleared. */
	{
		MemoryContext old = MemoryContextSwitchTo(slot->tts_mcxt);
		HeapTuple	  tuple = heap_form_tuple(desc, values, isnull);

		MemoryContextSwitchTo(old);
		ExecForceStoreHeapTuple(tuple, slot, true);
	}
}

static TupleTableSlot *
cassetteExecForeignInsert(EState *estate, ResultRelInfo *rinfo,
						  TupleTableSlot *slot, TupleTableSlot *planSlot)
{
	CassetteModifyState *st = rinfo->ri_FdwState;
	MemoryContext		 old = MemoryContextSwitchTo(st->temp);
	bool				 returning = rinfo->ri_projectReturning != NULL;

	cassette_values_from_slot(st->rel, slot, st->values, st->reprs);
	if (st->do_nothing && key_exists(st))
		slot = NULL; /* the conflict: nothing inserted */
	else
		CAS_CHECK(cas_write_insert(st->rel->table, st->values, st->reprs,
								   GetCurrentTransactionNestLevel(),
								   GetCurrentCommandId(true),
								   returning ? st->stored : NULL));
	MemoryContextSwitchTo(old);
	if (slot != NULL && returning)
		store_returned_values(st, slot, NULL);
	MemoryContextReset(st->temp);
	return slot;
}

static TupleTableSlot **
cassetteExecForeignBatchInsert(EState *estate, ResultRelInfo *rinfo,
							   TupleTableSlot **slots,
							   TupleTableSlot **planSlots, int *numSlots)
{
	CassetteModifyState *st = rinfo->ri_FdwState;
	TupleTableSlot	   **inserted;
	int					 i, n = 0;

	if (!st->do_nothing)
	{
		for (i = 0; i < *numSlots; i++)
			cassetteExecForeignInsert(estate, rinfo, slots[i],
									  planSlots ? planSlots[i] : NULL);
		return slots;
	}
	/* The rows ON CONFLICT DO NOTHING skips drop out of the returned ones (in an array of our
	 * own: PostgreSQL reuses `slots` for the next batch). */
	inserted = MemoryContextAlloc(GetMemoryChunkContext(st),
								  sizeof(TupleTableSlot *) * Max(*numSlots, 1));
	for (i = 0; i < *numSlots; i++)
		if (cassetteExecForeignInsert(estate, rinfo, slots[i],
									  planSlots ? planSlots[i] : NULL))
			inserted[n++] = slots[i];
	*numSlots = n;
	return inserted;
}

static int
cassetteGetForeignModifyBatchSize(ResultRelInfo *rinfo)
{
	/* Rows go to the transaction's buffer: batching only saves calls. With RETURNING or row
	 * triggers PostgreSQL needs each row back at once. */
	CassetteModifyState *st = rinfo->ri_FdwState;

	if ((st != NULL && st->do_nothing) || rinfo->ri_projectReturning != NULL ||
		(rinfo->ri_TrigDesc && (rinfo->ri_TrigDesc->trig_insert_before_row ||
								rinfo->ri_TrigDesc->trig_insert_after_row)))
		return 1;
	return CAS_BATCH_SIZE;
}

static TupleTableSlot *
cassetteExecForeignUpdate(EState *estate, ResultRelInfo *rinfo,
						  TupleTableSlot *slot, TupleTableSlot *planSlot)
{
	CassetteModifyState *st = rinfo->ri_FdwState;
	MemoryContext		 old = MemoryContextSwitchTo(st->temp);
	bool				 returning = rinfo->ri_projectReturning != NULL;
	int					 c;

	cassette_values_from_slot(st->rel, slot, st->values, st->reprs);
	/* The key comes from the row the scan found (the new values may not change it). */
	for (c = 0; c < st->rel->ncolumns; c++)
	{
		bool  isnull;
		Datum datum;
		int	  att = st->rel->column_att[c];

		if (!AttributeNumberIsValid(st->key_junk[c]))
			continue;
		datum = ExecGetJunkAttribute(planSlot, st->key_junk[c], &isnull);
		if (st->present[c])
		{
			/* SET on a key column: CQL cannot move a row, so only SET k = k (same value) passes. */
			Form_pg_attribute attr =
				TupleDescAttr(slot->tts_tupleDescriptor, att);

			if (isnull || slot->tts_isnull[att] ||
				!datum_image_eq(datum, slot->tts_values[att], attr->attbyval,
								attr->attlen))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("PRIMARY KEY part %s found in SET part",
								st->rel->columns[c].name),
						 errhint(
							 "A CQL row cannot change its primary key: DELETE it and INSERT the new one.")));
		}
		cassette_value_from_datum(datum, isnull,
								  TupleDescAttr(slot->tts_tupleDescriptor, att)
									  ->atttypid,
								  st->reprs[c], &st->values[c]);
	}
	{
		int *present = palloc0(sizeof(int) * Max(st->rel->ncolumns, 1));

		for (c = 0; c < st->rel->ncolumns; c++)
			present[c] = st->present[c] &&
						 st->rel->columns[c].kind != CAS_PARTITION_KEY &&
						 st->rel->columns[c].kind != CAS_CLUSTERING;
		CAS_CHECK(cas_write_update(st->rel->table, st->values, st->reprs,
								   present, GetCurrentTransactionNestLevel(),
								   GetCurrentCommandId(true),
								   returning ? st->stored : NULL));
		MemoryContextSwitchTo(old);
		if (returning)
			store_returned_values(st, slot, present);
	}
	MemoryContextReset(st->temp);
	return slot;
}

static TupleTableSlot *
cassetteExecForeignDelete(EState *estate, ResultRelInfo *rinfo,
						  TupleTableSlot *slot, TupleTableSlot *planSlot)
{
	CassetteModifyState *st = rinfo->ri_FdwState;
	MemoryContext		 old = MemoryContextSwitchTo(st->temp);
	TupleDesc			 tupdesc = RelationGetDescr(rinfo->ri_RelationDesc);
	int					 c;

	for (c = 0; c < st->rel->ncolumns; c++)
	{
		bool  isnull;
		Datum datum;

		st->values[c].isnull = 1;
		st->reprs[c] = st->rel->column_repr[c];
		if (!AttributeNumberIsValid(st->key_junk[c]))
			continue;
		datum = ExecGetJunkAttribute(planSlot, st->key_junk[c], &isnull);
		cassette_value_from_datum(datum, isnull,
								  TupleDescAttr(tupdesc, st->rel->column_att[c])
									  ->atttypid,
								  st->reprs[c], &st->values[c]);
	}
	CAS_CHECK(cas_write_delete(st->rel->table, st->values, st->reprs,
							   GetCurrentTransactionNestLevel(),
							   GetCurrentCommandId(true)));
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->temp);
	if (AttributeNumberIsValid(st->wholerow))
	{
		bool  isnull;
		Datum row = ExecGetJunkAttribute(planSlot, st->wholerow, &isnull);

		if (!isnull)
		{
			HeapTupleHeader header = DatumGetHeapTupleHeader(row);
			HeapTupleData	tuple;

			tuple.t_len = HeapTupleHeaderGetDatumLength(header);
			ItemPointerSetInvalid(&tuple.t_self);
			tuple.t_tableOid = RelationGetRelid(rinfo->ri_RelationDesc);
			tuple.t_data = header;
			ExecForceStoreHeapTuple(heap_copytuple(&tuple), slot, true);
		}
	}
	return slot;
}

static void
cassetteEndForeignModify(EState *estate, ResultRelInfo *rinfo)
{
	CassetteModifyState *st = rinfo->ri_FdwState;

	if (st && st->temp)
		MemoryContextDelete(st->temp);
	if (st)
		st->temp = NULL;
}

/* COPY FROM into a foreign table, and rows routed to a foreign partition. */
static void
cassetteBeginForeignInsert(ModifyTableState *mtstate, ResultRelInfo *rinfo)
{
	CassetteModifyState *st;
	ModifyTable *plan = mtstate ? (ModifyTable *) mtstate->ps.plan : NULL;

	refuse_serializable_modify("INSERT", rinfo->ri_RelationDesc);
	cassette_use_isolation();
	st = modify_state(rinfo, CMD_INSERT);

	/* A row routed to this partition by INSERT ... ON CONFLICT DO NOTHING on its parent. */
	if (plan != NULL && plan->onConflictAction == ONCONFLICT_NOTHING)
	{
		st->do_nothing = true;
		plan_key_lookup(st);
	}
}

static void
cassetteEndForeignInsert(EState *estate, ResultRelInfo *rinfo)
{
	cassetteEndForeignModify(estate, rinfo);
}

static int
cassetteIsForeignRelUpdatable(Relation rel)
{
	return (1 << CMD_INSERT) | (1 << CMD_UPDATE) | (1 << CMD_DELETE);
}

static void
cassetteExecForeignTruncate(List *rels, DropBehavior behavior, bool restart_seqs)
{
	ListCell *lc;

	foreach(lc, rels)
		refuse_serializable_modify("TRUNCATE", lfirst(lc));
	cassette_use_isolation();
	foreach(lc, rels)
	{
		Relation		  relation = lfirst(lc);
		CassetteRelation *rel =
			cassette_relation(RelationGetRelid(relation),
							  RelationGetDescr(relation), false);

		CAS_CHECK(cas_write_truncate(rel->table, GetCurrentTransactionNestLevel(),
									 GetCurrentCommandId(true)));
	}
}

/* ---- transactions ---------------------------------------------------------------------------- */

static void
cassette_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
			if (cas_transaction_has_writes())
				cassette_prepare_commit();
			break;
		case XACT_EVENT_PRE_PREPARE:
			if (cas_transaction_has_writes())
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg(
							 "cannot PREPARE a transaction that has written to cassette foreign tables")));
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
			cassette_finish_commit(true);
			cas_end_of_transaction();
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			cassette_finish_commit(false);
			cas_end_of_transaction();
			break;
		case XACT_EVENT_PREPARE:
			cas_end_of_transaction();
			break;
	}
}

static void
cassette_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						  SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		cas_subtransaction_end(GetCurrentTransactionNestLevel(), 0);
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
		cas_subtransaction_end(GetCurrentTransactionNestLevel(), 1);
}

void
cassette_register_callbacks(void)
{
	cassette_commit_init();
	RegisterXactCallback(cassette_xact_callback, NULL);
	RegisterSubXactCallback(cassette_subxact_callback, NULL);
}

void
cassette_modify_routines(FdwRoutine *routine)
{
	routine->AddForeignUpdateTargets = cassetteAddForeignUpdateTargets;
	routine->PlanForeignModify = cassettePlanForeignModify;
	routine->BeginForeignModify = cassetteBeginForeignModify;
	routine->ExecForeignInsert = cassetteExecForeignInsert;
	routine->ExecForeignBatchInsert = cassetteExecForeignBatchInsert;
	routine->GetForeignModifyBatchSize = cassetteGetForeignModifyBatchSize;
	routine->ExecForeignUpdate = cassetteExecForeignUpdate;
	routine->ExecForeignDelete = cassetteExecForeignDelete;
	routine->EndForeignModify = cassetteEndForeignModify;
	routine->BeginForeignInsert = cassetteBeginForeignInsert;
	routine->EndForeignInsert = cassetteEndForeignInsert;
	routine->IsForeignRelUpdatable = cassetteIsForeignRelUpdatable;
	routine->ExecForeignTruncate = cassetteExecForeignTruncate;
}
