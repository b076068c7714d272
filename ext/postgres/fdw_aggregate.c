/*
 * Aggregate pushdown: when every aggregate of a query over one cassette foreign table can be
 * computed exactly by the engine, and every restriction of the scan is enforced by the engine's
 * access path, the foreign scan returns the aggregated row instead of every row
 * (GetForeignUpperPaths for UPPERREL_GROUP_AGG, as postgres_fdw does it):
 *
 *   EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*), sum(value) FROM events WHERE source = 'a';
 *   Foreign Scan
 *     Output: (count(*)), (sum(value))
 *     Cassette Access: full scan
 *     Cassette Aggregate: count(*), sum(value)
 *
 * Pushed: count(*), count(col), sum of smallint, integer, bigint, real and double precision
 * columns, min and max of numbers, numeric, timestamptz, date, time, and text under a C
 * collation; over plain columns declared with their natural type, with no DISTINCT, ORDER BY or
 * FILTER inside the aggregate. GROUP BY only the whole partition key (a scan returns each
 * partition's rows together, so a group is a partition, folded as the scan streams); no HAVING,
 * grouping sets or set-returning functions.
 * Everything else (avg, a restriction PostgreSQL must check, an expression argument) keeps
 * PostgreSQL's own Agg node over the row scan. The engine's side is api_aggregate.cc; the
 * results are exactly PostgreSQL's (see there), so nothing here needs an option to turn it off.
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planmain.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/selfuncs.h"

#include "fdw_plan.h"

/* RelOptInfo.fdw_private of the grouping relation a pushed-down aggregate fills. */
typedef struct CassetteUpperState
{
	RelOptInfo *input_rel; /* the foreign table's base relation */
	List *entries; /* per scan_tlist entry: IntList (kind, column, repr), kind
								 * CASSETTE_GROUP_KEY for a group column */
	List *scan_tlist; /* the group columns and Aggrefs the scan returns, in order */
	char		 *description; /* "count(*), sum(value)" */
	char		 *group_text;  /* "source, hour", or "" */
	cas_plan_info plan; /* the access path that enforces every restriction: the plan
								 * uses this one, not one asked for again */
} CassetteUpperState;

/* Whether GROUP BY groups by exactly the partition key, with a type whose PostgreSQL equality
 * is CQL's key identity (cassette_equality_is_identity; text under a deterministic collation),
 * so that a group is a partition. */
static bool
groups_are_partitions(PlannerInfo *root, RelOptInfo *baserel,
					  CassetteRelation *rel, StringInfo text)
{
	Query	 *parse = root->parse;
	List	 *columns = NIL;
	ListCell *lc;
	int		  c;

	foreach(lc, parse->groupClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Node *expr = get_sortgroupclause_expr(sgc, parse->targetList);
		Var	 *var;
		int	  column;
		char *opname;

		if (!IsA(expr, Var))
			return false;
		var = (Var *) expr;
		if ((Index) var->varno != baserel->relid || var->varlevelsup != 0 ||
			var->varattno <= 0 || var->varattno > rel->natts)
			return false;
		column = rel->att_column[var->varattno - 1];
		if (column < 0 || !rel->att_natural[var->varattno - 1] ||
			rel->columns[column].kind != CAS_PARTITION_KEY)
			return false;
		if (!cassette_equality_is_identity(var->vartype))
			return false;
		if (OidIsValid(var->varcollid) &&
			!get_collation_isdeterministic(var->varcollid))
			return false;
		opname = get_opname(sgc->eqop);
		if (sgc->eqop >= FirstNormalObjectId || opname == NULL ||
			strcmp(opname, "=") != 0)
			return false;
		if (!list_member_int(columns, column))
		{
			if (columns != NIL)
				appendStringInfoString(text, ", ");
			appendStringInfoString(text,
								   quote_identifier(
									   get_attname(planner_rt_fetch(baserel->relid,
																	root)
													   ->relid,
												   var->varattno, false)));
		}
		columns = list_append_unique_int(columns, column);
	}
	for (c = 0; c < rel->ncolumns; c++)
		if (rel->columns[c].kind == CAS_PARTITION_KEY &&
			!list_member_int(columns, c))
			return false;
	return true;
}

/* The CQL column of a group column Var of the scan, or -1. */
static int
group_column_of(RelOptInfo *baserel, CassetteRelation *rel, Var *var)
{
	int column;

	if ((Index) var->varno != baserel->relid || var->varlevelsup != 0 ||
		var->varattno <= 0 || var->varattno > rel->natts)
		return -1;
	column = rel->att_column[var->varattno - 1];
	if (column < 0 || rel->columns[column].kind != CAS_PARTITION_KEY)
		return -1;
	return column;
}

/* Whether `agg` is one the engine computes exactly; fills kind/column/repr and its text. */
static bool
pushable_aggregate(PlannerInfo *root, RelOptInfo *baserel, CassetteRelation *rel,
				   Aggref *agg, List **spec, StringInfo text)
{
	char		*name;
	TargetEntry *tle;
	Expr		*arg;
	Var			*var;
	int			 att, column;
	Oid			 argtype;
	cas_repr	 repr;
	cas_agg_kind kind;

	if (agg->agglevelsup != 0 || agg->aggkind != AGGKIND_NORMAL ||
		agg->aggsplit != AGGSPLIT_SIMPLE || agg->aggdistinct != NIL ||
		agg->aggorder != NIL || agg->aggfilter != NULL || agg->aggvariadic ||
		agg->aggdirectargs != NIL)
		return false;
	/* only the built-in aggregates, whose semantics api_aggregate.cc reproduces */
	if (agg->aggfnoid >= FirstGenbkiObjectId ||
		get_func_namespace(agg->aggfnoid) != PG_CATALOG_NAMESPACE)
		return false;
	name = get_func_name(agg->aggfnoid);
	if (name == NULL)
		return false;
	if (agg->aggstar)
	{
		if (strcmp(name, "count") != 0 || agg->aggtype != INT8OID ||
			agg->args != NIL)
			return false;
		*spec = list_make3_int(CAS_AGG_COUNT_ROWS, -1, CAS_REPR_INT8);
		appendStringInfoString(text, "count(*)");
		return true;
	}
	if (list_length(agg->args) != 1)
		return false;
	tle = linitial_node(TargetEntry, agg->args);
	arg = tle->expr;
	/* col COLLATE "C": a relabeling that changes only the collation */
	if (IsA(arg, RelabelType) &&
		((RelabelType *) arg)->resulttype ==
			exprType((Node *) ((RelabelType *) arg)->arg))
		arg = ((RelabelType *) arg)->arg;
	if (!IsA(arg, Var))
		return false;
	var = (Var *) arg;
	if ((Index) var->varno != baserel->relid || var->varlevelsup != 0 ||
		var->varattno <= 0 || var->varattno > rel->natts)
		return false;
	att = var->varattno - 1;
	column = rel->att_column[att];
	if (column < 0 || !rel->att_natural[att])
		return false;
	repr = rel->column_repr[column];
	argtype = var->vartype;
	if (strcmp(name, "count") == 0 && agg->aggtype == INT8OID)
		kind = CAS_AGG_COUNT;
	else if (strcmp(name, "sum") == 0)
	{
		kind = CAS_AGG_SUM;
		if (!(((argtype == INT2OID || argtype == INT4OID) &&
			   agg->aggtype == INT8OID) ||
			  (argtype == INT8OID && agg->aggtype == NUMERICOID) ||
			  (argtype == FLOAT4OID && agg->aggtype == FLOAT4OID) ||
			  (argtype == FLOAT8OID && agg->aggtype == FLOAT8OID)))
			return false;
	}
	else if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0)
	{
		kind = name[1] == 'i' ? CAS_AGG_MIN : CAS_AGG_MAX;
		if (agg->aggtype != argtype || !rel->columns[column].orderable)
			return false;
		switch (argtype)
		{
			case INT2OID:
			case INT4OID:
			case INT8OID:
			case FLOAT4OID:
			case FLOAT8OID:
			case NUMERICOID:
			case TIMESTAMPTZOID:
			case DATEOID:
			case TIMEOID:
				break;
			case TEXTOID:
				/* byte order is text order only under a code point collation */
				if (!OidIsValid(agg->inputcollid) ||
					!cassette_collation_is_cql_order(agg->inputcollid))
					return false;
				break;
			default:
				return false;
		}
	}
	else
		return false;
	*spec = list_make3_int(kind, column, repr);
	appendStringInfo(text, "%s(%s", name,
					 quote_identifier(
						 get_attname(planner_rt_fetch(baserel->relid, root)->relid,
									 var->varattno, false)));
	if (arg != tle->expr)
		appendStringInfo(text, " COLLATE %s",
						 quote_identifier(get_collation_name(agg->inputcollid)));
	appendStringInfoChar(text, ')');
	return true;
}

void
cassetteGetForeignUpperPaths(PlannerInfo *root, UpperRelationKind stage,
							 RelOptInfo *input_rel, RelOptInfo *output_rel,
							 void *extra)
{
	CassettePlanState  *state = input_rel->fdw_private;
	Query			   *parse = root->parse;
	PathTarget		   *target = root->upper_targets[UPPERREL_GROUP_AGG];
	CassetteUpperState *upper;
	List			   *entries = NIL;
	List			   *scan_tlist = NIL;
	List			   *group_exprs = NIL;
	int					naggregates = 0;
	double				rows = 1;
	StringInfoData		text;
	StringInfoData		group_text;
	cas_plan_info		plan;
	ListCell		   *lc;
	Cost				startup, total;
	int					i;

	if (stage != UPPERREL_GROUP_AGG || output_rel->fdw_private != NULL ||
		state == NULL || input_rel->reloptkind != RELOPT_BASEREL ||
		target == NULL)
		return;
	if (((GroupPathExtraData *) extra)->patype != PARTITIONWISE_AGGREGATE_NONE)
		return;
	if (parse->groupingSets != NIL || parse->havingQual != NULL ||
		root->hasHavingQual || parse->hasTargetSRFs ||
		root->hasPseudoConstantQuals || !bms_is_empty(input_rel->lateral_relids))
		return;
	/* GROUP BY the partition key: the engine's scan returns each partition's rows together. */
	initStringInfo(&group_text);
	if (parse->groupClause != NIL &&
		!groups_are_partitions(root, input_rel, state->rel, &group_text))
		return;

	/* Every restriction must be the engine's: a local filter would be skipped. */
	cassette_plan_conds(state->rel, state->conds, NULL, 0, -1, &plan);
	foreach(lc, input_rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		bool		  pushed = false;
		ListCell	 *lc2;

		i = 0;
		foreach(lc2, state->conds)
		{
			if (((CassetteCond *) lfirst(lc2))->rinfo == rinfo &&
				cassette_cond_used(&plan, i))
				pushed = true;
			i++;
		}
		if (!pushed)
			return;
	}

	/* The group columns and the aggregates: whole target expressions, or the ones inside an
	 * expression (count(*) + 1 is computed by the scan's own projection). */
	initStringInfo(&text);
	foreach(lc, target->exprs)
	{
		List *found =
			pull_var_clause((Node *) lfirst(lc), PVC_INCLUDE_AGGREGATES);
		ListCell *lc2;

		foreach(lc2, found)
		{
			Node *node = lfirst(lc2);
			List *spec;

			if (tlist_member((Expr *) node, scan_tlist))
				continue;
			if (IsA(node, Var))
			{
				/* a column outside an aggregate: only a group column */
				int column =
					parse->groupClause != NIL
						? group_column_of(input_rel, state->rel, (Var *) node)
						: -1;

				if (column < 0)
					return;
				spec = list_make3_int(CASSETTE_GROUP_KEY, column,
									  state->rel->column_repr[column]);
				group_exprs = lappend(group_exprs, node);
			}
			else if (IsA(node, Aggref))
			{
				if (naggregates++ > 0)
					appendStringInfoString(&text, ", ");
				if (!pushable_aggregate(root, input_rel, state->rel,
										(Aggref *) node, &spec, &text))
					return;
			}
			else
				return;
			entries = lappend(entries, spec);
			scan_tlist = add_to_flat_tlist(scan_tlist, list_make1(node));
		}
	}
	if (naggregates == 0)
		return;
	if (parse->groupClause != NIL)
		rows =
			estimate_num_groups(root, group_exprs, input_rel->rows, NULL, NULL);

	upper = palloc0(sizeof(CassetteUpperState));
	upper->input_rel = input_rel;
	upper->entries = entries;
	upper->scan_tlist = scan_tlist;
	upper->description = text.data;
	upper->group_text = group_text.data;
	upper->plan = plan;
	output_rel->fdw_private = upper;
	/* The rows are still read, but neither returned nor aggregated by PostgreSQL. */
	cassette_path_costs(&plan, rows, &startup, &total);
	add_path(output_rel,
			 (Path *) create_foreign_upper_path(root, output_rel, target, rows,
												startup, total, NIL, NULL, NIL));
}

ForeignScan *
cassette_aggregate_plan(PlannerInfo *root, RelOptInfo *upper_rel, List *tlist,
						Plan *outer_plan)
{
	CassetteUpperState *upper = upper_rel->fdw_private;
	CassettePlanState  *state = upper->input_rel->fdw_private;
	List			   *fdw_exprs = NIL;
	List			   *arg_is_in = NIL;
	int		 *read = palloc0(sizeof(int) * Max(state->rel->ncolumns, 1));
	ListCell *lc;
	List *private;

	/* The engine reads the values of the aggregated and group columns only (none for
	 * count(*)): the plan says so (values(...)). */
	foreach(lc, upper->entries)
	{
		int column = lsecond_int((List *) lfirst(lc));

		if (column >= 0)
			read[column] = 1;
	}
	cassette_plan_arguments(state->conds, &upper->plan, &fdw_exprs, &arg_is_in);
	private =
		list_make5(makeString(cassette_plan_reads(state->rel,
												  upper->plan.encoded, read)),
				   makeString(pstrdup(upper->plan.description)), arg_is_in,
				   NIL, makeString(pstrdup("-1")));
	private = lappend(private, upper->entries);
	private = lappend(private, makeString(upper->description));
	private = lappend(private, makeString(upper->group_text));
	/* The quals are all the engine's (checked when the path was made): none stay local. */
	return make_foreignscan(tlist, NIL, 0, fdw_exprs, private,
							upper->scan_tlist, NIL, outer_plan);
}
