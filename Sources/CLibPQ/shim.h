#ifndef STRATA_CLIBPQ_SHIM_H
#define STRATA_CLIBPQ_SHIM_H
#include <libpq-fe.h>

// The PG_DIAG_* field codes are character-literal macros, which Swift does not import.
static const int strata_pg_diag_sqlstate = PG_DIAG_SQLSTATE;
static const int strata_pg_diag_message_primary = PG_DIAG_MESSAGE_PRIMARY;
static const int strata_pg_diag_message_detail = PG_DIAG_MESSAGE_DETAIL;
static const int strata_pg_diag_message_hint = PG_DIAG_MESSAGE_HINT;
static const int strata_pg_diag_constraint_name = PG_DIAG_CONSTRAINT_NAME;
#endif
