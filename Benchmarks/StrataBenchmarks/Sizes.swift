/// Data-set sizes: the full run uses the sizes of the issue; `--quick` (CI) uses smaller ones
/// with the same shape so the whole suite stays under three minutes.
struct Sizes {
    let quick: Bool
    var large: Int { quick ? 100_000 : 1_000_000 }
    var small: Int { 10_000 }
    var insertSmall: Int { quick ? 20_000 : 100_000 }
    var insertLarge: Int { quick ? 100_000 : 1_000_000 }
    var faults: Int { 10_000 }
    var parents: Int { quick ? 20_000 : 100_000 }
    var childrenPerParent: Int { 3 }
    /// Lookups of one object by its indexed key.
    var lookups: Int { 20_000 }
    /// Objects fetched, edited and saved in one save.
    var updates: Int { quick ? 20_000 : 200_000 }

    /// The PostgreSQL pairs (PostgreSQLBenchmarks.swift) are smaller: every statement is a round
    /// trip to the server, and the raw side's per-row statements make N round trips.
    /// Rows of the PostgreSQL data sets (fetches, lookups, limits, batch update) and inserts.
    var postgreSQLRows: Int { quick ? 10_000 : 100_000 }
    /// Objects fetched, edited and saved in one save on PostgreSQL.
    var postgreSQLUpdates: Int { quick ? 5_000 : 100_000 }
    /// Lookups of one object by its indexed key on PostgreSQL.
    var postgreSQLLookups: Int { quick ? 2_000 : 10_000 }
    /// Fetches of 100 sorted rows per iteration on PostgreSQL (one takes well under a millisecond).
    var postgreSQLLimitFetches: Int { 20 }

    static func label(_ count: Int) -> String {
        if count == 0 { return "0" }
        if count % 1_000_000 == 0 { return "\(count / 1_000_000)M" }
        if count % 1_000 == 0 { return "\(count / 1_000)k" }
        return "\(count)"
    }
}
