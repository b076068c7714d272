/*
 * The timeuuid type (cassette_fdw 1.1): a version-1 uuid that sorts as Cassandra's
 * TimeUUIDType does, by its timestamp first, so that ORDER BY on a timeuuid clustering column
 * is chronological and goes down to the store.
 *
 *   SELECT tweet_id, timeuuid_timestamp(tweet_id) FROM timeline
 *    WHERE username = 'alice' ORDER BY tweet_id DESC LIMIT 20;
 *
 * Its bytes are a uuid's (casts to uuid are free); text input takes a uuid's forms and refuses
 * any uuid whose version is not 1, as the store does. Equality is byte equality (every value is
 * version 1, so equal timestamps and equal remaining bytes mean equal uuids): uuid's own
 * equality and hash functions serve it. Its SQL definition is in sql/cassette_fdw--1.0--1.1.sql.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "fdw_internal.h"

PG_FUNCTION_INFO_V1(cassette_timeuuid_in);
PG_FUNCTION_INFO_V1(cassette_timeuuid_recv);
PG_FUNCTION_INFO_V1(cassette_timeuuid_from_uuid);
PG_FUNCTION_INFO_V1(cassette_timeuuid_cmp);
PG_FUNCTION_INFO_V1(cassette_timeuuid_lt);
PG_FUNCTION_INFO_V1(cassette_timeuuid_le);
PG_FUNCTION_INFO_V1(cassette_timeuuid_ge);
PG_FUNCTION_INFO_V1(cassette_timeuuid_gt);
PG_FUNCTION_INFO_V1(cassette_timeuuid_timestamp);

/* 100-nanosecond intervals from the uuid epoch (1582-10-15) to the Unix epoch. */
#define UUID_EPOCH_OFFSET INT64CONST(0x01B21DD213814000)

static int
uuid_version(const pg_uuid_t *uuid)
{
	return uuid->data[6] >> 4;
}

/* A uuid, checked to be version 1: the only version the store accepts for timeuuid. */
static pg_uuid_t *
checked_timeuuid(pg_uuid_t *uuid)
{
	if (uuid_version(uuid) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid timeuuid \"%s\": a version %d uuid, not version 1",
						DatumGetCString(
							DirectFunctionCall1(uuid_out, UUIDPGetDatum(uuid))),
						uuid_version(uuid)),
				 errhint("A timeuuid is a time-based (version 1) uuid, such as CQL's now() "
						 "makes.")));
	return uuid;
}

Datum
cassette_timeuuid_in(PG_FUNCTION_ARGS)
{
	Datum uuid = DirectFunctionCall1(uuid_in, PG_GETARG_DATUM(0));

	PG_RETURN_UUID_P(checked_timeuuid(DatumGetUUIDP(uuid)));
}

Datum
cassette_timeuuid_recv(PG_FUNCTION_ARGS)
{
	Datum uuid = DirectFunctionCall1(uuid_recv, PG_GETARG_DATUM(0));

	PG_RETURN_UUID_P(checked_timeuuid(DatumGetUUIDP(uuid)));
}

Datum
cassette_timeuuid_from_uuid(PG_FUNCTION_ARGS)
{
	pg_uuid_t *copy = palloc(sizeof(pg_uuid_t));

	memcpy(copy, PG_GETARG_UUID_P(0), sizeof(pg_uuid_t));
	PG_RETURN_UUID_P(checked_timeuuid(copy));
}

/* The 60-bit timestamp of a version-1 uuid (time_hi, time_mid, time_low). */
static uint64
uuid_timestamp(const pg_uuid_t *uuid)
{
	const unsigned char *b = uuid->data;
	uint64 time_low = ((uint64) b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3];
	uint64 time_mid = (b[4] << 8) | b[5];
	uint64 time_hi = ((b[6] & 0x0F) << 8) | b[7];

	return (time_hi << 48) | (time_mid << 32) | time_low;
}

/*
 * Cassandra's TimeUUIDType order, as the engine has it (engine/types/value_compare.cc,
 * compare_timeuuid): the timestamp, then the clock sequence and node (bytes 8 to 15) as signed
 * bytes.
 */
static int
timeuuid_compare(const pg_uuid_t *a, const pg_uuid_t *b)
{
	uint64 ta = uuid_timestamp(a), tb = uuid_timestamp(b);
	int	   i;

	if (ta != tb)
		return ta < tb ? -1 : 1;
	for (i = 8; i < UUID_LEN; i++)
	{
		int8 x = (int8) a->data[i], y = (int8) b->data[i];

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

#define TIMEUUID_COMPARE()                                                    \
	timeuuid_compare(PG_GETARG_UUID_P(0), PG_GETARG_UUID_P(1))

Datum
cassette_timeuuid_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(TIMEUUID_COMPARE());
}

Datum
cassette_timeuuid_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(TIMEUUID_COMPARE() < 0);
}

Datum
cassette_timeuuid_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(TIMEUUID_COMPARE() <= 0);
}

Datum
cassette_timeuuid_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(TIMEUUID_COMPARE() >= 0);
}

Datum
cassette_timeuuid_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(TIMEUUID_COMPARE() > 0);
}

/* The time a timeuuid was made, to the microsecond (the engine's toTimestamp keeps
 * milliseconds; the uuid holds tenths of microseconds), truncated as the engine truncates. */
Datum
cassette_timeuuid_timestamp(PG_FUNCTION_ARGS)
{
	int64 unix_micros =
		((int64) uuid_timestamp(PG_GETARG_UUID_P(0)) - UUID_EPOCH_OFFSET) / 10;

	PG_RETURN_TIMESTAMPTZ(unix_micros -
						  (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) *
							  USECS_PER_DAY);
}

/*
 * The oid of cassette_fdw's timeuuid type, InvalidOid while the extension (at 1.1 or later) is
 * not in the database. Looked up once per backend and again after any change to pg_type, which
 * is what CREATE, ALTER and DROP EXTENSION make.
 */
static Oid	timeuuid_oid = InvalidOid;
static Oid	timeuuid_btree_family = InvalidOid;
static bool timeuuid_known = false;

static void
forget_timeuuid(Datum arg, int cacheid, uint32 hashvalue)
{
	timeuuid_known = false;
}

/* The schema an extension is installed in, InvalidOid if it is not (PostgreSQL 15 keeps its
 * get_extension_schema to itself). */
static Oid
extension_schema(const char *name)
{
	Relation	extensions = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			schema = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber,
				F_NAMEEQ, CStringGetDatum(name));
	scan = systable_beginscan(extensions, ExtensionNameIndexId, true, NULL, 1,
							  &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		schema = ((Form_pg_extension) GETSTRUCT(tuple))->extnamespace;
	systable_endscan(scan);
	table_close(extensions, AccessShareLock);
	return schema;
}

static void
look_up_timeuuid(void)
{
	static bool callback_registered = false;
	Oid			schema;

	if (!callback_registered)
	{
		CacheRegisterSyscacheCallback(TYPEOID, forget_timeuuid, (Datum) 0);
		callback_registered = true;
	}
	timeuuid_oid = InvalidOid;
	timeuuid_btree_family = InvalidOid;
	schema = extension_schema("cassette_fdw");
	if (OidIsValid(schema))
		timeuuid_oid = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
									   CStringGetDatum("timeuuid"),
									   ObjectIdGetDatum(schema));
	if (OidIsValid(timeuuid_oid))
	{
		Oid opclass = GetDefaultOpClass(timeuuid_oid, BTREE_AM_OID);

		if (OidIsValid(opclass))
			timeuuid_btree_family = get_opclass_family(opclass);
	}
	timeuuid_known = true;
}

Oid
cassette_timeuuid_type(void)
{
	if (!timeuuid_known)
		look_up_timeuuid();
	return timeuuid_oid;
}

bool
cassette_is_timeuuid_operator(Oid opno)
{
	Oid left, right;

	if (!OidIsValid(cassette_timeuuid_type()) ||
		!OidIsValid(timeuuid_btree_family))
		return false;
	op_input_types(opno, &left, &right);
	return left == timeuuid_oid && right == timeuuid_oid &&
		   get_op_opfamily_strategy(opno, timeuuid_btree_family) != 0;
}
