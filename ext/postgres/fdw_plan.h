/*
 * What planning a scan (fdw_plan.c) shares with planning an aggregate pushed into it
 * (fdw_aggregate.c): the restrictions found on a foreign table, the engine's access path for
 * them, and the values the executor binds to that path.
 */
#ifndef CASSETTE_FDW_PLAN_H
#define CASSETTE_FDW_PLAN_H

#include "postgres.h"

#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"

#include "fdw_internal.h"

/* A restriction that may be pushed down. */
typedef struct CassetteCond
{
	RestrictInfo *rinfo;
	int			  column; /* CQL column */
	cas_op		  op;
	Expr *value;	/* the other side: no Var of this relation, not volatile */
	int	  in_count; /* IN with a constant array: its length, else -1 */
} CassetteCond;

/* RelOptInfo.fdw_private of a cassette base relation. */
typedef struct CassettePlanState
{
	CassetteRelation *rel;
	List			 *conds; /* CassetteCond * from baserestrictinfo */
} CassettePlanState;

/* Asks the engine for the access path of `conds` with an ORDER BY (norder terms, may be 0)
 * and a LIMIT (-1: none). The plan's strings are palloc'd copies. */
extern void cassette_plan_conds(CassetteRelation *rel, List *conds,
								const cas_order_term *order, int norder,
								int64 limit, cas_plan_info *plan);

/* Whether condition i of a cassette_plan_conds call is enforced by the plan. */
extern bool cassette_cond_used(const cas_plan_info *plan, int i);
/* Whether text compared under `collation` (valid) sorts as CQL sorts text, by UTF-8 bytes: the C
 * and POSIX collations and C.UTF-8 (Debian's default), in a database whose encoding keeps code
 * point order (UTF8, SQL_ASCII, LATIN1); not a linguistic (en_US, ICU) collation. */
extern bool cassette_collation_is_cql_order(Oid collation);
/* Whether PostgreSQL's equality on a mapped type is CQL's identity of key values. */
extern bool cassette_equality_is_identity(Oid type);

/* The expressions of the values the plan binds, in binding order, and whether each is an IN
 * list (an array). */
extern void cassette_plan_arguments(List *conds, const cas_plan_info *plan,
									List **fdw_exprs, List **arg_is_in);

/* The costs of a path of `plan` returning `rows` rows. */
extern void cassette_path_costs(const cas_plan_info *plan, double rows,
								Cost *startup, Cost *total);

/* Aggregate pushdown (fdw_aggregate.c): GetForeignUpperPaths, and GetForeignPlan for the
 * upper relation it fills. */
extern void			cassetteGetForeignUpperPaths(PlannerInfo	  *root,
												 UpperRelationKind stage,
												 RelOptInfo		  *input_rel,
												 RelOptInfo *output_rel, void *extra);
extern ForeignScan *cassette_aggregate_plan(PlannerInfo *root,
											RelOptInfo *upper_rel, List *tlist,
											Plan *outer_plan);

#endif /* CASSETTE_FDW_PLAN_H */
