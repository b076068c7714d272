/*
 * Atomic commit of cassette writes with PostgreSQL's own transaction (README.md, "Atomic
 * commit"): at XACT_EVENT_PRE_COMMIT every written store gets the transaction as a prepared
 * record (durable, invisible, the store kept locked), at XACT_EVENT_COMMIT a small commit
 * record makes it visible, at XACT_EVENT_ABORT an abort record drops it. So a transaction that
 * PostgreSQL aborts after PRE_COMMIT (a deferred constraint of another server, a serialization
 * failure, NOTIFY) leaves nothing in any store.
 *
 * A prepared record is tagged with the cluster's system identifier and the transaction's full
 * xid, made durable in the WAL first. When the backend dies between the two phases, the next
 * backend that writes the store (or opens it idle) asks cassette_resolve_in_doubt, which reads the
 * outcome from the commit log (pg_xact): committed, aborted, or, for a transaction neither
 * committed nor running (the crash), aborted. Another cluster's transaction cannot be decided here.
 */
#include "postgres.h"

#include <inttypes.h>

#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "replication/message.h"
#include "storage/latch.h"
#include "storage/procarray.h"
#include "utils/guc.h"
#include "utils/wait_event.h"

#include "fdw_internal.h"

/* Test-only (ext/postgres/README.md): seconds to sleep after PRE_COMMIT prepared the stores. */
static int debug_pause_after_prepare = 0;
/* Test-only: the spill threshold of the stores this backend opens after it is set (0: default). */
static int debug_transaction_spill_bytes = 0;

static void
assign_debug_transaction_spill_bytes(int value, void *extra)
{
	cas_set_debug_spill_bytes(value);
}

#define CASSETTE_TAG_FORMAT                                                   \
	"PostgreSQL cluster %" PRIu64 " transaction %" PRIu64
#define CASSETTE_TAG_SCAN                                                     \
	"PostgreSQL cluster %" SCNu64 " transaction %" SCNu64 "%n"

/* The current transaction's host tag. */
static void
cassette_host_tag(char *out, size_t size)
{
	snprintf(out, size, CASSETTE_TAG_FORMAT, (uint64) GetSystemIdentifier(),
			 U64FromFullTransactionId(GetTopFullTransactionId()));
}

/*
 * 1 committed, 0 aborted, -1 cannot tell (another cluster, a transaction still running, a tag
 * not ours). Called by the engine under the store lock: it must not raise an ERROR.
 */
static int
cassette_resolve_in_doubt(const char *host_tag)
{
	uint64		 system;
	uint64		 full;
	int			 consumed = 0;
	volatile int answer = -1;

	if (sscanf(host_tag, CASSETTE_TAG_SCAN, &system, &full, &consumed) != 2 ||
		host_tag[consumed] != '\0' || system != (uint64) GetSystemIdentifier())
		return -1;
	PG_TRY();
	{
		FullTransactionId fxid = FullTransactionIdFromU64(full);
		FullTransactionId next = ReadNextFullTransactionId();
		TransactionId	  xid = XidFromFullTransactionId(fxid);

		if (!FullTransactionIdPrecedes(fxid, next))
			answer = -1; /* not a transaction of this cluster's past */
		else if (TransactionIdDidCommit(xid))
			answer = 1;
		else if (TransactionIdDidAbort(xid) || !TransactionIdIsInProgress(xid))
			answer = 0; /* aborted, or crashed: neither committed nor running */
	}
	PG_CATCH();
	{
		/* pg_xact no longer holds it (truncated after a wraparound): cannot tell. */
		FlushErrorState();
		answer = -1;
	}
	PG_END_TRY();
	return answer;
}

void
cassette_commit_init(void)
{
	cas_set_in_doubt_resolver(cassette_resolve_in_doubt);
	DefineCustomIntVariable("cassette.debug_pause_after_prepare",
							"Test only: seconds to wait after cassette writes are prepared.",
							NULL, &debug_pause_after_prepare, 0, 0, 3600,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("cassette.debug_transaction_spill_bytes",
							"Test only: pending-write bytes past which a transaction spills to "
							"disk, for the stores this backend opens from now on (0: the default).",
							NULL, &debug_transaction_spill_bytes, 0, 0,
							INT_MAX, PGC_SUSET, GUC_UNIT_BYTE, NULL,
							assign_debug_transaction_spill_bytes, NULL);
}

void
cassette_prepare_commit(void)
{
	char tag[128];

	cassette_host_tag(tag, sizeof(tag));

	/*
   * The xid must outlive a crash before any store names it: an xid no WAL record carries is
   * handed out again after crash recovery, and its new owner's outcome would decide ours. A
   * transactional message carries it; flushing it costs one WAL flush per commit.
   */
	XLogFlush(LogLogicalMessage("cassette", tag, strlen(tag) + 1, true));
	CAS_CHECK(cas_transaction_prepare(tag));
	/* Shown as wait_event PgSleep in pg_stat_activity, where a test finds the backend. */
	if (debug_pause_after_prepare > 0)
	{
		(void) WaitLatch(MyLatch, WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 debug_pause_after_prepare * 1000L, WAIT_EVENT_PG_SLEEP);
	}
}

void
cassette_finish_commit(bool commit)
{
	/* After the commit is recorded an ERROR would be a PANIC: a failure is a WARNING, and the
   * transaction stays in doubt until the next backend that writes the store decides it. */
	if (cas_transaction_finish(commit ? 1 : 0) != 0)
		ereport(WARNING,
				(errcode(ERRCODE_FDW_ERROR),
				 errmsg("could not finish the cassette part of the transaction: %s",
						cassette_message_from_engine(cas_last_error())),
				 errdetail(
					 "The next access to the store decides it from the transaction's outcome.")));
}
