/*
 * PostgreSQL Datums <-> cas_value (cassette_api.h). Scalars with a fixed representation travel
 * without a text round trip; everything else goes through the column type's input and output
 * functions, with the engine producing or parsing PostgreSQL's text forms.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "fdw_internal.h"

/*
 * The engine's text is UTF-8; the database's may be any server encoding. Converting costs
 * nothing in a UTF-8 database (pg_do_encoding_conversion returns its input when the encodings
 * match, or when either is SQL_ASCII, whose bytes PostgreSQL does not interpret).
 */
static char *
convert_text(const char *text, size_t len, int from, int to, size_t *out_len)
{
	char *converted;

	if (len == 0 || from == to)
	{
		*out_len = len;
		return (char *) text;
	}
	converted = (char *) pg_do_encoding_conversion((unsigned char *) text,
												   (int) len, from, to);
	*out_len = converted == text ? len : strlen(converted);
	return converted;
}

char *
cassette_text_from_engine(const char *text, size_t len, size_t *out_len)
{
	return convert_text(text, len, PG_UTF8, GetDatabaseEncoding(), out_len);
}

char *
cassette_text_to_engine(const char *text, size_t len, size_t *out_len)
{
	return convert_text(text, len, GetDatabaseEncoding(), PG_UTF8, out_len);
}

char *
cassette_cstring_from_engine(const char *text)
{
	size_t len;

	return cassette_text_from_engine(text, strlen(text), &len);
}

char *
cassette_cstring_to_engine(const char *text)
{
	size_t len;

	return cassette_text_to_engine(text, strlen(text), &len);
}

char *
cassette_message_from_engine(const char *message)
{
	int			   encoding = GetDatabaseEncoding();
	const char	  *p = message;
	const char	  *end = message + strlen(message);
	Oid			   proc;
	StringInfoData out;

	if (encoding == PG_UTF8 || encoding == PG_SQL_ASCII)
		return (char *) message;
	proc = FindDefaultConversionProc(PG_UTF8, encoding);
	if (!OidIsValid(proc))
		return (char *) message;
	initStringInfo(&out);
	while (p < end)
	{
		int srclen = (int) (end - p);
		int converted;
		int mblen;

		enlargeStringInfo(&out, srclen * MAX_CONVERSION_GROWTH + 2);
		converted =
			pg_do_encoding_conversion_buf(proc, PG_UTF8, encoding,
										  (unsigned char *) p, srclen,
										  (unsigned char *) out.data + out.len,
										  out.maxlen - out.len, true);
		out.len += strlen(out.data + out.len);
		p += converted;
		if (p == end)
			break;
		/* a character the encoding lacks, or a byte that is not UTF-8 */
		appendStringInfoChar(&out, '?');
		mblen = pg_utf_mblen((const unsigned char *) p);
		p += mblen <= end - p &&
					 pg_utf8_islegal((const unsigned char *) p, mblen)
				 ? mblen
				 : 1;
	}
	return out.data;
}

char *
cassette_output_in_utc(Oid typid, Datum datum, int interval_style)
{
	Oid	   func;
	bool   varlena;
	char  *text;
	int	   saved_date_style = DateStyle;
	int	   saved_interval_style = IntervalStyle;
	pg_tz *saved_timezone = session_timezone;

	/* The engine parses ISO dates and timestamps: print them so whatever the session's
	 * DateStyle, and timestamps in UTC (a zone such as Europe/Amsterdam gives 1800 an offset of
	 * +00:19:32, which CQL cannot read). */
	getTypeOutputInfo(typid, &func, &varlena);
	DateStyle = USE_ISO_DATES;
	IntervalStyle = interval_style;
	session_timezone = pg_tzset("UTC");
	PG_TRY();
	{
		text = OidOutputFunctionCall(func, datum);
	}
	PG_FINALLY();
	{
		DateStyle = saved_date_style;
		IntervalStyle = saved_interval_style;
		session_timezone = saved_timezone;
	}
	PG_END_TRY();
	return text;
}

cas_repr
cassette_repr_for_type(Oid typid)
{
	switch (typid)
	{
		case INT2OID:
			return CAS_REPR_INT2;
		case INT4OID:
			return CAS_REPR_INT4;
		case INT8OID:
			return CAS_REPR_INT8;
		case FLOAT4OID:
			return CAS_REPR_FLOAT4;
		case FLOAT8OID:
			return CAS_REPR_FLOAT8;
		case BOOLOID:
			return CAS_REPR_BOOL;
		case TEXTOID:
		case BYTEAOID:
			return CAS_REPR_VARLENA;
		case UUIDOID:
			return CAS_REPR_UUID;
		case TIMESTAMPTZOID:
			return CAS_REPR_TIMESTAMPTZ;
		case DATEOID:
			return CAS_REPR_DATE;
		case TIMEOID:
			return CAS_REPR_TIME;
		case INTERVALOID:
			return CAS_REPR_INTERVAL;
		default:
			/* a timeuuid has a uuid's bytes */
			if (OidIsValid(typid) && typid == cassette_timeuuid_type())
				return CAS_REPR_UUID;
			return CAS_REPR_TEXT;
	}
}

Datum
cassette_datum_from_value(const cas_value *v, cas_repr repr, FmgrInfo *input,
						  Oid ioparam, int32 typmod)
{
	switch (repr)
	{
		case CAS_REPR_INT2:
			return Int16GetDatum((int16) v->i);
		case CAS_REPR_INT4:
			return Int32GetDatum((int32) v->i);
		case CAS_REPR_INT8:
			return Int64GetDatum(v->i);
		case CAS_REPR_FLOAT4:
			return Float4GetDatum((float4) v->d);
		case CAS_REPR_FLOAT8:
			return Float8GetDatum(v->d);
		case CAS_REPR_BOOL:
			return BoolGetDatum(v->i != 0);
		case CAS_REPR_VARLENA:
			{
				/* text's bytes are UTF-8 text, bytea's are bytes */
				size_t		len = v->len;
				const char *data =
					input != NULL && input->fn_oid == F_BYTEAIN
						? v->data
						: cassette_text_from_engine(v->data, v->len, &len);

				return PointerGetDatum(cstring_to_text_with_len(data, (int) len));
			}
		case CAS_REPR_UUID:
			{
				pg_uuid_t *uuid = palloc(sizeof(pg_uuid_t));

				memcpy(uuid->data, v->data, UUID_LEN);
				return UUIDPGetDatum(uuid);
			}
		case CAS_REPR_TIMESTAMPTZ:
			return TimestampTzGetDatum((TimestampTz) v->i);
		case CAS_REPR_DATE:
			return DateADTGetDatum((DateADT) v->i);
		case CAS_REPR_TIME:
			return TimeADTGetDatum((TimeADT) v->i);
		case CAS_REPR_INTERVAL:
			{
				Interval *interval = palloc(sizeof(Interval));

				interval->time = v->i;
				interval->day = v->days;
				interval->month = v->months;
				return IntervalPGetDatum(interval);
			}
		case CAS_REPR_TEXT:
			break;
	}
	{
		size_t len;
		char  *text = cassette_text_from_engine(v->data, v->len, &len);

		return InputFunctionCall(input, pnstrdup(text, len), ioparam, typmod);
	}
}

void
cassette_value_from_datum(Datum datum, bool isnull, Oid typid, cas_repr repr,
						  cas_value *out)
{
	memset(out, 0, sizeof(*out));
	out->isnull = isnull;
	if (isnull)
		return;
	switch (repr)
	{
		case CAS_REPR_INT2:
			out->i = DatumGetInt16(datum);
			return;
		case CAS_REPR_INT4:
			out->i = DatumGetInt32(datum);
			return;
		case CAS_REPR_INT8:
			out->i = DatumGetInt64(datum);
			return;
		case CAS_REPR_FLOAT4:
			out->d = DatumGetFloat4(datum);
			return;
		case CAS_REPR_FLOAT8:
			out->d = DatumGetFloat8(datum);
			return;
		case CAS_REPR_BOOL:
			out->i = DatumGetBool(datum) ? 1 : 0;
			return;
		case CAS_REPR_VARLENA:
			{
				struct varlena *v = pg_detoast_datum_packed(
					(struct varlena *) DatumGetPointer(datum));

				out->data = VARDATA_ANY(v);
				out->len = VARSIZE_ANY_EXHDR(v);
				if (typid != BYTEAOID)
					out->data =
						cassette_text_to_engine(out->data, out->len, &out->len);
				return;
			}
		case CAS_REPR_UUID:
			out->data = (const char *) DatumGetUUIDP(datum)->data;
			out->len = UUID_LEN;
			return;
		case CAS_REPR_TIMESTAMPTZ:
			if (TIMESTAMP_NOT_FINITE(DatumGetTimestampTz(datum)))
				ereport(ERROR,
						(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
						 errmsg(
							 "infinite timestamps cannot be stored in a CQL timestamp")));
			out->i = DatumGetTimestampTz(datum);
			return;
		case CAS_REPR_DATE:
			if (DATE_NOT_FINITE(DatumGetDateADT(datum)))
				ereport(ERROR,
						(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
						 errmsg("infinite dates cannot be stored in a CQL date")));
			out->i = DatumGetDateADT(datum);
			return;
		case CAS_REPR_TIME:
			out->i = DatumGetTimeADT(datum);
			return;
		case CAS_REPR_INTERVAL:
			{
				Interval *interval = DatumGetIntervalP(datum);

				out->i = interval->time;
				out->days = interval->day;
				out->months = interval->month;
				return;
			}
		case CAS_REPR_TEXT:
			{
				/* The engine parses postgres-style intervals here (array elements such as
				 * {"1 day",-01:00:00}). */
				char *text =
					cassette_output_in_utc(typid, datum, INTSTYLE_POSTGRES);

				out->data =
					cassette_text_to_engine(text, strlen(text), &out->len);
				return;
			}
	}
}

void
cassette_values_from_slot(CassetteRelation *rel, TupleTableSlot *slot,
						  cas_value *values, cas_repr *reprs)
{
	int c;

	slot_getallattrs(slot);
	for (c = 0; c < rel->ncolumns; c++)
	{
		int att = rel->column_att[c];

		reprs[c] = rel->column_repr[c];
		if (att < 0)
		{
			memset(&values[c], 0, sizeof(cas_value));
			values[c].isnull = 1;
			continue;
		}
		cassette_value_from_datum(slot->tts_values[att], slot->tts_isnull[att],
								  TupleDescAttr(slot->tts_tupleDescriptor, att)
									  ->atttypid,
								  reprs[c], &values[c]);
	}
}
