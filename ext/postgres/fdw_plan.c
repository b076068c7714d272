/*
 * Planning scans of cassette foreign tables. Restrictions on primary key columns that the engine
 * may enforce are collected here and handed to the shared planner (engine/query, through
 * cas_plan), which chooses the access path and says which restrictions, ORDER BY and LIMIT it
 * consumed:
 *
 *   EXPLAIN (VERBOSE, COSTS OFF)
 *     SELECT ts FROM events WHERE source = 'a' AND hour = 3 ORDER BY ts DESC LIMIT 50;
 *   Limit
 *     ->  Foreign Scan on public.events
 *           Cassette Access: partition lookup on (source, hour), limit
 *           Cassette Limit: 50
 *           Cassette Plan: partitions source= hour= limit
 *
 * Candidates: = and IN (= ANY(array)) on primary key columns, <, <=, >, >= on clustering
 * columns (with built-in operators, values of the column's own type, and an order PostgreSQL
 * shares with CQL for slices). Paths: the plain one; one carrying the query's pathkeys when the
 * engine yields rows in that order (clustering order or its reverse inside one partition), so
 * PostgreSQL needs no Sort; and parameterized ones for join clauses on the partition key (a
 * nested loop from a native table does one partition lookup per outer row). Everything the
 * engine does not enforce stays a PostgreSQL filter. The plan keeps the engine's encoded plan
 * and the expressions of the values it binds, in binding order; fdw_scan.c executes it.
 * Aggregates computed by the engine instead of PostgreSQL are planned in fdw_aggregate.c.
 *
 * SELECT ... FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE on a cassette foreign table locks
 * its rows in the scan (fdw_scan.c); the row mark is a copy of the row.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "mb/pg_wchar.h"
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
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/sampling.h"
#include "utils/syscache.h"

#include "fdw_plan.h"

/* Costs, in PostgreSQL's units. The engine's estimate counts rows touched (a partition seek is
 * worth a few rows); each costs a little more than a heap tuple, which PostgreSQL charges 0.01. */
#define CAS_STARTUP_COST  5.0
#define CAS_SCAN_ROW_COST 0.012
#define CAS_DEFAULT_ROWS  1000.0

static bool
same_integer_family(Oid a, Oid b)
{
	return (a == INT2OID || a == INT4OID || a == INT8OID) &&
		   (b == INT2OID || b == INT4OID || b == INT8OID);
}

static Expr *
strip_relabel(Expr *e)
{
	while (e && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	return e;
}

/* Whether a libc collation named `locale` sorts by code point: C and POSIX (byte order), and
 * C.UTF-8, which glibc sorts by code point. */
static bool
locale_is_code_point_order(const char *locale)
{
	return locale != NULL &&
		   (strcmp(locale, "C") == 0 || strcmp(locale, "POSIX") == 0 ||
			pg_strcasecmp(locale, "C.UTF-8") == 0 ||
			pg_strcasecmp(locale, "C.utf8") == 0);
}

bool
cassette_collation_is_cql_order(Oid collation)
{
	int		  encoding = GetDatabaseEncoding();
	bool	  code_point_order;
	HeapTuple tuple;

	/* Code point order is UTF-8's byte order, CQL's order of text. In the database's encoding
	 * it is byte order only where its bytes are UTF-8 or code points. */
	if (encoding != PG_UTF8 && encoding != PG_SQL_ASCII && encoding != PG_LATIN1)
		return false;
	if (!OidIsValid(collation))
		return false;
	if (lc_collate_is_c(collation))
		return true;
	if (collation == DEFAULT_COLLATION_OID)
		return default_locale.provider != COLLPROVIDER_ICU &&
			   locale_is_code_point_order(setlocale(LC_COLLATE, NULL));
	tuple = SearchSysCache1(COLLOID, ObjectIdGetDatum(collation));
	if (!HeapTupleIsValid(tuple))
		return false;
	code_point_order = false;
	if (((Form_pg_collation) GETSTRUCT(tuple))->collprovider == COLLPROVIDER_LIBC)
	{
		bool  isnull;
		Datum locale = SysCacheGetAttr(COLLOID, tuple,
									   Anum_pg_collation_collcollate, &isnull);

		code_point_order =
			!isnull && locale_is_code_point_order(TextDatumGetCString(locale));
	}
	ReleaseSysCache(tuple);
	return code_point_order;
}

/* Key lookups and slices compare CQL values byte for byte, so a restriction goes down only on
 * a type whose PostgreSQL equality is that identity: integers, text (under a deterministic
 * collation, checked by the caller), timestamps (milliseconds fit microseconds), dates, uuids,
 * booleans, bytes, inet. Not floats (-0 = 0 in PostgreSQL, two keys in CQL), numeric (1.5 =
 * 1.50) or time (nanoseconds shown as microseconds), nor arrays and jsonb (frozen collections,
 * whose CQL form is normalized). */
bool
cassette_equality_is_identity(Oid type)
{
	switch (type)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case TEXTOID:
		case TIMESTAMPTZOID:
		case DATEOID:
		case UUIDOID:
		case BOOLOID:
		case BYTEAOID:
		case INETOID:
			return true;
		default:
			/* a timeuuid's equality is uuid's */
			return OidIsValid(type) && type == cassette_timeuuid_type();
	}
}

/* Whether `clause` is  column op value  with a primary key column this path can push down. */
static bool
classify_clause(PlannerInfo *root, RelOptInfo *baserel, CassetteRelation *rel,
				RestrictInfo *rinfo, CassetteCond *out)
{
	Expr				  *clause = rinfo->clause;
	Expr				  *left, *right;
	Var					  *var;
	Expr				  *value;
	char				  *opname;
	Oid					   opno, value_type, collation;
	bool				   commuted = false;
	bool				   is_in = false;
	int					   att, column;
	const cas_column_info *info;

	if (rinfo->pseudoconstant)
		return false;
	if ((IsA(clause, Var) ||
		 (is_notclause(clause) && IsA(get_notclausearg(clause), Var))) &&
		exprType((Node *) clause) == BOOLOID)
	{
		/* The planner turns  b = true  into  b  and  b = false  into  NOT b. */
		bool negated = !IsA(clause, Var);

		left = negated ? get_notclausearg(clause) : clause;
		right = (Expr *) makeBoolConst(!negated, false);
		opno = BooleanEqualOperator;
		collation = InvalidOid;
	}
	else if (IsA(clause, OpExpr) && list_length(((OpExpr *) clause)->args) == 2)
	{
		OpExpr *op = (OpExpr *) clause;

		left = strip_relabel(linitial(op->args));
		right = strip_relabel(lsecond(op->args));
		opno = op->opno;
		collation = op->inputcollid;
		if (!(IsA(left, Var) && (Index) ((Var *) left)->varno == baserel->relid))
		{
			Expr *t = left;

			left = right;
			right = t;
			commuted = true;
		}
	}
	else if (IsA(clause, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *op = (ScalarArrayOpExpr *) clause;

		if (!op->useOr || list_length(op->args) != 2)
			return false;
		left = strip_relabel(linitial(op->args));
		right = lsecond(op->args);
		opno = op->opno;
		collation = op->inputcollid;
		is_in = true;
	}
	else
		return false;

	if (!IsA(left, Var))
		return false;
	var = (Var *) left;
	if ((Index) var->varno != baserel->relid || var->varlevelsup != 0 ||
		var->varattno <= 0)
		return false;
	value = right;
	if (bms_is_member(baserel->relid, pull_varnos(root, (Node *) value)) ||
		contain_volatile_functions((Node *) value) ||
		contain_subplans((Node *) value))
		return false;
	/* only built-in operators and timeuuid's comparisons have known semantics */
	if (opno >= FirstNormalObjectId && !cassette_is_timeuuid_operator(opno))
		return false;
	att = var->varattno - 1;
	if (att >= rel->natts || (column = rel->att_column[att]) < 0 ||
		!rel->att_natural[att])
		return false;
	info = &rel->columns[column];
	/* key columns, and the indexed ones (the engine's planner may read their index) */
	if (info->kind != CAS_PARTITION_KEY && info->kind != CAS_CLUSTERING &&
		!info->indexed)
		return false;

	value_type = exprType((Node *) value);
	if (is_in)
		value_type = get_element_type(value_type);
	if (value_type != var->vartype &&
		!same_integer_family(value_type, var->vartype))
		return false;
	if (!cassette_equality_is_identity(var->vartype))
		return false;

	opname = get_opname(opno);
	if (opname == NULL)
		return false;
	if (strcmp(opname, "=") == 0)
		out->op = is_in ? CAS_OP_IN : CAS_OP_EQ;
	else if (is_in)
		return false;
	else if (strcmp(opname, "<") == 0)
		out->op = commuted ? CAS_OP_GT : CAS_OP_LT;
	else if (strcmp(opname, "<=") == 0)
		out->op = commuted ? CAS_OP_GE : CAS_OP_LE;
	else if (strcmp(opname, ">") == 0)
		out->op = commuted ? CAS_OP_LT : CAS_OP_GT;
	else if (strcmp(opname, ">=") == 0)
		out->op = commuted ? CAS_OP_LE : CAS_OP_GE;
	else
		return false;
	/* Equality is byte equality only under a deterministic collation. */
	if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return false;
	if (out->op != CAS_OP_EQ && out->op != CAS_OP_IN)
	{
		/* A slice needs PostgreSQL's order to be CQL's (for text: code point order). */
		if ((info->kind != CAS_CLUSTERING && !info->indexed) ||
			!rel->att_cql_order[att])
			return false;
		if (OidIsValid(collation) && !cassette_collation_is_cql_order(collation))
			return false;
	}
	out->rinfo = rinfo;
	out->column = column;
	out->value = value;
	out->in_count = -1;
	if (is_in && IsA(value, Const) && !((Const *) value)->constisnull)
		out->in_count = ArrayGetNItems(ARR_NDIM(DatumGetArrayTypeP(
										   ((Const *) value)->constvalue)),
									   ARR_DIMS(DatumGetArrayTypeP(
										   ((Const *) value)->constvalue)));
	return true;
}

static List *
classify_clauses(PlannerInfo *root, RelOptInfo *baserel, CassetteRelation *rel,
				 List *clauses)
{
	List	 *conds = NIL;
	ListCell *lc;

	foreach(lc, clauses)
	{
		CassetteCond cond;

		if (classify_clause(root, baserel, rel, lfirst_node(RestrictInfo, lc),
							&cond))
		{
			CassetteCond *copy = palloc(sizeof(CassetteCond));

			*copy = cond;
			conds = lappend(conds, copy);
		}
	}
	return conds;
}

/* Asks the engine (engine/query) for the access path of `conds` with an ORDER BY and a LIMIT. */
void
cassette_plan_conds(CassetteRelation *rel, List *conds,
					const cas_order_term *order, int norder, int64 limit,
					cas_plan_info *plan)
{
	int				n = Min(list_length(conds), CAS_MAX_CONSTRAINTS);
	cas_constraint *constraints = palloc0(sizeof(cas_constraint) * Max(n, 1));
	int				i = 0;
	ListCell	   *lc;

	foreach(lc, conds)
	{
		CassetteCond *cond = lfirst(lc);

		if (i >= n)
			break;
		constraints[i].column = cond->column;
		constraints[i].op = cond->op;
		constraints[i].known_count = cond->in_count;
		i++;
	}
	CAS_CHECK(cas_plan(rel->table, constraints, n, order, norder, limit, plan));
	/* the strings live only until the next cas_plan call */
	plan->description = pstrdup(cassette_cstring_from_engine(plan->description));
	plan->encoded = pstrdup(plan->encoded);
}

char *
cassette_plan_reads(CassetteRelation *rel, const char *encoded, const int *read)
{
	const char *out;

	CAS_CHECK(cas_plan_reads(rel->table, encoded, read, &out));
	return pstrdup(out);
}

bool
cassette_cond_used(const cas_plan_info *plan, int i)
{
	return i < CAS_MAX_CONSTRAINTS && plan->argument_of[i] >= 0;
}

/* Without ANALYZE's statistics PostgreSQL gives an equality on the partition key its default
 * selectivity (0.5% of the rows: 5 rows of a 1000-row partition). The engine knows better from
 * the store's statistics (rows per partition): a partition lookup returns the rows the engine
 * estimates, times the selectivity of the clauses it does not enforce. */
static void
estimate_partition_lookup(PlannerInfo *root, RelOptInfo *baserel,
						  CassettePlanState *state)
{
	cas_plan_info plan;
	List		 *enforced = NIL;
	List		 *local;
	ListCell	 *lc;
	int			  i = 0;

	cassette_plan_conds(state->rel, state->conds, NULL, 0, -1, &plan);
	if (!plan.partition_lookup)
		return;
	foreach(lc, state->conds)
	{
		if (cassette_cond_used(&plan, i++))
			enforced = lappend(enforced, ((CassetteCond *) lfirst(lc))->rinfo);
	}
	local = list_difference_ptr(baserel->baserestrictinfo, enforced);
	baserel->rows = clamp_row_est(
		plan.rows *
		clauselist_selectivity(root, local, baserel->relid, JOIN_INNER, NULL));
}

static void
cassetteGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel,
						  Oid foreigntableid)
{
	CassettePlanState *state = palloc0(sizeof(CassettePlanState));
	RangeTblEntry	  *rte = planner_rt_fetch(baserel->relid, root);
	Relation		   relation = table_open(rte->relid, NoLock);
	bool			   analyzed;

	state->rel =
		cassette_relation(foreigntableid, RelationGetDescr(relation), false);
	table_close(relation, NoLock);
	state->conds =
		classify_clauses(root, baserel, state->rel, baserel->baserestrictinfo);
	baserel->fdw_private = state;
	/* ANALYZE sets reltuples and the columns' statistics (n_distinct of the partition key, which
	 * gives an equality its selectivity); before it, the store's own statistics. */
	analyzed =
		!(baserel->tuples < 0 || (baserel->pages == 0 && baserel->tuples == 0));
	if (!analyzed)
	{
		double rows = 0;

		CAS_CHECK(cas_table_estimate(state->rel->table, &rows));
		baserel->tuples = rows > 0 ? rows : CAS_DEFAULT_ROWS;
	}
	set_baserel_size_estimates(root, baserel);
	if (!analyzed)
		estimate_partition_lookup(root, baserel, state);
}

/* The engine's estimate is in rows touched (a partition seek counts as several); a row costs
 * about what PostgreSQL charges for a heap tuple read and returned. */
void
cassette_path_costs(const cas_plan_info *plan, double rows, Cost *startup,
					Cost *total)
{
	*startup = CAS_STARTUP_COST;
	*total = *startup + plan->cost * CAS_SCAN_ROW_COST + rows * cpu_tuple_cost;
}

/* The operator family of a type's default btree operator class, InvalidOid if none. */
static Oid
default_btree_family(Oid type)
{
	Oid opclass = GetDefaultOpClass(type, BTREE_AM_OID);

	return OidIsValid(opclass) ? get_opclass_family(opclass) : InvalidOid;
}

/* The CQL column a pathkey orders by, in an order the engine shares, or -1. */
static int
pathkey_column(RelOptInfo *baserel, CassetteRelation *rel, PathKey *pathkey)
{
	EquivalenceClass *ec = pathkey->pk_eclass;
	ListCell		 *lc;

	if (ec->ec_has_volatile)
		return -1;
	foreach(lc, ec->ec_members)
	{
		EquivalenceMember *em = lfirst(lc);
		Expr			  *e = strip_relabel(em->em_expr);

		if (IsA(e, Var) && (Index) ((Var *) e)->varno == baserel->relid &&
			((Var *) e)->varlevelsup == 0 && ((Var *) e)->varattno > 0 &&
			((Var *) e)->varattno <= rel->natts)
		{
			int att = ((Var *) e)->varattno - 1;

			if (rel->att_column[att] >= 0 && rel->att_cql_order[att])
			{
				if (OidIsValid(ec->ec_collation) &&
					!cassette_collation_is_cql_order(ec->ec_collation))
					return -1;
				/* sorted in the column type's own order, not through a cast that keeps the
				 * bytes (tweet_id::uuid sorts a timeuuid by bytes) */
				if (pathkey->pk_opfamily !=
					default_btree_family(((Var *) e)->vartype))
					return -1;
				return rel->att_column[att];
			}
		}
	}
	return -1;
}

/* The query's ORDER BY as columns of this table; -1 when some term is not one of its columns in
 * an order the engine shares (e.g. a uuid, or text under a linguistic collation). */
static int
query_order(PlannerInfo *root, RelOptInfo *baserel, CassetteRelation *rel,
			cas_order_term *order)
{
	int		  n = 0;
	ListCell *lc;

	foreach(lc, root->query_pathkeys)
	{
		PathKey *pathkey = lfirst(lc);
		int		 column = pathkey_column(baserel, rel, pathkey);

		if (column < 0 || n >= CAS_MAX_CONSTRAINTS)
			return -1;
		order[n].column = column;
		order[n].descending = pathkey->pk_strategy == BTGreaterStrategyNumber;
		n++;
	}
	return n;
}

static bool
member_is_attribute(PlannerInfo *root, RelOptInfo *rel, EquivalenceClass *ec,
					EquivalenceMember *em, void *arg)
{
	Expr *e = strip_relabel(em->em_expr);

	return IsA(e, Var) && (Index) ((Var *) e)->varno == rel->relid &&
		   ((Var *) e)->varlevelsup == 0 &&
		   ((Var *) e)->varattno == *(AttrNumber *) arg;
}

/* Parameterized paths: partition key columns given by join clauses, one lookup per outer row. */
static void
add_parameterized_paths(PlannerInfo *root, RelOptInfo *baserel,
						CassettePlanState *state)
{
	CassetteRelation *rel = state->rel;
	List			 *conds = list_copy(state->conds);
	Relids			  required_outer = NULL;
	int				  c;
	cas_plan_info	  plan;
	ParamPathInfo	 *param_info;
	Cost			  startup, total;

	for (c = 0; c < rel->ncolumns; c++)
	{
		AttrNumber attno;
		List	  *clauses;
		ListCell  *lc;
		bool	   covered = false;
		bool	   found = false;

		if (rel->columns[c].kind != CAS_PARTITION_KEY)
			continue;
		foreach(lc, state->conds)
		{
			CassetteCond *cond = lfirst(lc);

			if (cond->column == c &&
				(cond->op == CAS_OP_EQ || cond->op == CAS_OP_IN))
				covered = true;
		}
		if (covered)
			continue;
		if (rel->column_att[c] < 0)
			return;
		attno = rel->column_att[c] + 1;
		clauses =
			generate_implied_equalities_for_column(root, baserel,
												   member_is_attribute, &attno,
												   baserel->lateral_referencers);
		foreach(lc, baserel->joininfo)
			clauses = lappend(clauses, lfirst(lc));
		foreach(lc, clauses)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
			CassetteCond  cond;

			if (!join_clause_is_movable_to(rinfo, baserel))
				continue;
			if (classify_clause(root, baserel, rel, rinfo, &cond) &&
				cond.column == c && cond.op == CAS_OP_EQ)
			{
				CassetteCond *copy = palloc(sizeof(CassetteCond));

				*copy = cond;
				conds = lappend(conds, copy);
				required_outer = bms_union(required_outer,
										   bms_difference(rinfo->clause_relids,
														  baserel->relids));
				found = true;
				break;
			}
		}
		if (!found)
			return;
	}
	if (bms_is_empty(required_outer))
		return;
	cassette_plan_conds(rel, conds, NULL, 0, -1, &plan);
	if (!plan.partition_lookup)
		return;
	param_info = get_baserel_parampathinfo(root, baserel, required_outer);
	cassette_path_costs(&plan, param_info->ppi_rows, &startup, &total);
	add_path(baserel,
			 (Path *) create_foreignscan_path(root, baserel, NULL,
											  param_info->ppi_rows, startup,
											  total, NIL, required_outer, NULL,
											  list_make1(makeInteger(0))));
}


static void
cassetteGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel,
						Oid foreigntableid)
{
	CassettePlanState *state = baserel->fdw_private;
	cas_plan_info	   plan;
	cas_order_term	   order[CAS_MAX_CONSTRAINTS];
	int				   norder;
	Cost			   startup, total;

	cassette_plan_conds(state->rel, state->conds, NULL, 0, -1, &plan);
	cassette_path_costs(&plan, baserel->rows, &startup, &total);
	add_path(baserel,
			 (Path *) create_foreignscan_path(root, baserel, NULL, baserel->rows,
											  startup, total, NIL, NULL, NULL,
											  list_make1(makeInteger(0))));
	/* When the access path yields the query's ORDER BY (clustering order or its reverse inside
	 * one partition), offer it: PostgreSQL then needs no Sort. */
	norder = root->query_pathkeys != NIL
				 ? query_order(root, baserel, state->rel, order)
				 : -1;
	if (norder > 0)
	{
		cassette_plan_conds(state->rel, state->conds, order, norder, -1, &plan);
		if (plan.order_satisfied)
		{
			cassette_path_costs(&plan, baserel->rows, &startup, &total);
			add_path(baserel,
					 (Path *)
						 create_foreignscan_path(root, baserel, NULL,
												 baserel->rows, startup, total,
												 root->query_pathkeys, NULL, NULL,
												 list_make1(makeInteger(1))));
		}
	}
	add_parameterized_paths(root, baserel, state);
}

/* The values of the enforced clauses, in the order the plan binds them. */
void
cassette_plan_arguments(List *conds, const cas_plan_info *plan,
						List **fdw_exprs, List **arg_is_in)
{
	Expr	**args = palloc0(sizeof(Expr *) * Max(plan->arguments, 1));
	int		 *args_in = palloc0(sizeof(int) * Max(plan->arguments, 1));
	ListCell *lc;
	int		  i = 0;

	foreach(lc, conds)
	{
		CassetteCond *cond = lfirst(lc);

		if (cassette_cond_used(plan, i) && plan->argument_of[i] < plan->arguments)
		{
			args[plan->argument_of[i]] = cond->value;
			args_in[plan->argument_of[i]] = cond->op == CAS_OP_IN;
		}
		i++;
	}
	for (i = 0; i < plan->arguments; i++)
	{
		*fdw_exprs = lappend(*fdw_exprs, args[i]);
		*arg_is_in = lappend_int(*arg_is_in, args_in[i]);
	}
}

static ForeignScan *
cassetteGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel,
					   Oid foreigntableid, ForeignPath *best_path, List *tlist,
					   List *scan_clauses, Plan *outer_plan)
{
	CassettePlanState *state = baserel->fdw_private;
	bool			   ordered;
	cas_order_term	   order[CAS_MAX_CONSTRAINTS];
	int				   norder = 0;
	int64			   limit = -1;
	List			  *conds = NIL;
	List			  *local = NIL;
	List			  *fdw_exprs = NIL;
	List			  *arg_is_in = NIL;
	List			  *wanted = NIL;
	Bitmapset		  *attrs = NULL;
	int				  *read;
	cas_plan_info	   plan;
	ListCell		  *lc;
	int				   i;

	if (IS_UPPER_REL(baserel)) /* an aggregate pushed down (fdw_aggregate.c) */
		return cassette_aggregate_plan(root, baserel, tlist, outer_plan);
	ordered = intVal(linitial(best_path->fdw_private)) != 0;

	/* Candidates among all the clauses (baserestrictinfo, and the join clauses of a
	 * parameterized path), then the ones the engine's access path enforces. */
	foreach(lc, scan_clauses)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		CassetteCond  cond;

		if (!rinfo->pseudoconstant &&
			classify_clause(root, baserel, state->rel, rinfo, &cond))
		{
			CassetteCond *copy = palloc(sizeof(CassetteCond));

			*copy = cond;
			conds = lappend(conds, copy);
		}
	}
	if (ordered)
		norder = Max(query_order(root, baserel, state->rel, order), 0);
	cassette_plan_conds(state->rel, conds, norder > 0 ? order : NULL, norder,
						-1, &plan);
	foreach(lc, scan_clauses)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		bool		  pushed = false;
		ListCell	 *lc2;

		i = 0;
		foreach(lc2, conds)
		{
			CassetteCond *cond = lfirst(lc2);

			if (cond->rinfo == rinfo && cassette_cond_used(&plan, i))
				pushed = true;
			i++;
		}
		if (!pushed && !rinfo->pseudoconstant)
			local = lappend(local, rinfo->clause);
	}

	/* LIMIT: when this scan alone feeds the query's result, every clause is enforced by the
	 * access path and the rows come in the query's order, the engine may stop after
	 * count + offset rows (root->limit_tuples; -1 with grouping, aggregates, DISTINCT...).
	 * Not with FETCH FIRST n ROWS WITH TIES: the rows that tie with the last one count too. */
	if (root->limit_tuples > 0 && local == NIL &&
		best_path->path.param_info == NULL &&
		root->parse->limitOption != LIMIT_OPTION_WITH_TIES &&
		bms_membership(root->all_baserels) == BMS_SINGLETON &&
		(root->query_pathkeys == NIL ||
		 pathkeys_contained_in(root->query_pathkeys, best_path->path.pathkeys)) &&
		root->parse->commandType == CMD_SELECT && root->parse->rowMarks == NIL)
	{
		cas_plan_info limited;

		cassette_plan_conds(state->rel, conds, norder > 0 ? order : NULL,
							norder, (int64) root->limit_tuples, &limited);
		if (limited.limit_consumed && limited.arguments == plan.arguments)
		{
			plan = limited;
			limit = (int64) root->limit_tuples;
		}
	}

	cassette_plan_arguments(conds, &plan, &fdw_exprs, &arg_is_in);

	/* The columns the query reads, as postgres_fdw finds them: the rel's output (the
	 * projection, the columns of joins, sorts and aggregates above, a DELETE's row identity;
	 * the whole row, attno 0, for every UPDATE, RETURNING, row triggers and row marks) and the
	 * quals left to PostgreSQL. The store decodes only those cells' values (values(...)); the
	 * other attributes stay NULL, and nothing reads them. */
	read = palloc0(sizeof(int) * Max(state->rel->ncolumns, 1));
	pull_varattnos((Node *) baserel->reltarget->exprs, baserel->relid, &attrs);
	pull_varattnos((Node *) local, baserel->relid, &attrs);
	for (i = 0; i < state->rel->natts; i++)
	{
		int bit = i + 1 - FirstLowInvalidHeapAttributeNumber;

		if (bms_is_member(bit, attrs) ||
			bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs))
		{
			wanted = lappend_int(wanted, i);
			if (state->rel->att_column[i] >= 0)
				read[state->rel->att_column[i]] = 1;
		}
	}
	/* the order the engine keeps (key columns: read anyway, listed as SQLite lists them) */
	for (i = 0; i < norder; i++)
		read[order[i].column] = 1;
	return make_foreignscan(tlist, local, baserel->relid, fdw_exprs,
							list_make5(makeString(cassette_plan_reads(state->rel,
																	  plan.encoded,
																	  read)),
									   makeString(pstrdup(plan.description)),
									   arg_is_in, wanted,
									   makeString(psprintf(INT64_FORMAT, limit))),
							NIL, NIL, outer_plan);
}

/*
 * The row mark of a foreign table: ROW_MARK_COPY, the whole row carried along for an EvalPlanQual
 * recheck, for every strength. A lock clause (SELECT ... FOR UPDATE / NO KEY UPDATE / SHARE /
 * KEY SHARE, however it reaches the table: a join, a view, a subquery) is carried out by the
 * scan itself, which locks each row before returning it and returns its newest version
 * (fdw_scan.c, "row locks"), so PostgreSQL has nothing to lock or re-fetch.
 */
static RowMarkType
cassetteGetForeignRowMarkType(RangeTblEntry *rte, LockClauseStrength strength)
{
	return ROW_MARK_COPY;
}

void
cassette_plan_routines(FdwRoutine *routine)
{
	routine->GetForeignRelSize = cassetteGetForeignRelSize;
	routine->GetForeignPaths = cassetteGetForeignPaths;
	routine->GetForeignPlan = cassetteGetForeignPlan;
	routine->GetForeignUpperPaths = cassetteGetForeignUpperPaths;
	routine->GetForeignRowMarkType = cassetteGetForeignRowMarkType;
}
