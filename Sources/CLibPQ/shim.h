#ifndef STRATA_CLIBPQ_SHIM_H
#define STRATA_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#include <openssl/crypto.h>

// The PG_DIAG_* field codes are character-literal macros, which Swift does not import.
static const int strata_pg_diag_sqlstate = PG_DIAG_SQLSTATE;
static const int strata_pg_diag_message_primary = PG_DIAG_MESSAGE_PRIMARY;
static const int strata_pg_diag_message_detail = PG_DIAG_MESSAGE_DETAIL;
static const int strata_pg_diag_message_hint = PG_DIAG_MESSAGE_HINT;
static const int strata_pg_diag_constraint_name = PG_DIAG_CONSTRAINT_NAME;

// Starts OpenSSL (which libpq uses for SCRAM authentication and TLS) without the exit handler
// that frees its global state: a process exiting while another thread is inside libpq would
// otherwise crash in that thread (Sources/StrataPostgreSQL/PostgreSQLConnection+Connect.swift).
// Has no effect when OpenSSL was started before. Returns 1 on success.
static inline int strata_openssl_start_without_exit_cleanup(void) {
    return OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}
#endif
