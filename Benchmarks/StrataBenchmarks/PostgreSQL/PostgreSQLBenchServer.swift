import BenchmarkHarness
import Foundation
import Strata
import StrataPostgreSQL
import StrataPostgreSQLStore

/// The PostgreSQL server the PostgreSQL pairs run against, and the namespaces (PostgreSQL
/// schemas) they make on it: every pair side works in namespaces of its own, named
/// `strata_bench_<run>_<label>_<n>`, and drops them when it is done; ``dropAll()`` drops whatever
/// this run left behind (a set-up that threw half-way).
///
/// Tables are always the ones the PostgreSQL store creates (a store is opened in the namespace
/// and closed again), so Strata and the raw side read and write the same shape: `"Item"` with
/// `"$pk"` (primary key), `"$entity"`, `"$version"`, `"name"`, `"number"` (indexed), `"score"`,
/// `"flag"`, `"created"`.
final class PostgreSQLBenchServer: @unchecked Sendable {
    // @unchecked Sendable: used from the benchmark's single thread only.

    /// The environment variables naming the server, in the order they are read.
    static let urlVariables = ["STRATA_BENCH_POSTGRESQL_URL", "STRATA_TEST_POSTGRESQL_URL"]

    /// The server named by the first of ``urlVariables`` that is set and not empty, or nil.
    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PostgreSQLBenchServer? {
        for variable in urlVariables {
            if let url = environment[variable], !url.isEmpty { return try PostgreSQLBenchServer(url: url, variable: variable) }
        }
        return nil
    }

    /// The server's URL (with its password: never printed; `description` is redacted).
    let url: String
    /// The same, for `addPersistentStore(type: .postgreSQL, at:)`.
    let storeURL: URL
    /// The variable the URL came from.
    let variable: String
    /// What the report may show: the URL without its password.
    let description: String
    /// The prefix of every namespace of this run.
    let prefix: String
    private var made = 0

    init(url: String, variable: String) throws {
        guard let storeURL = URL(string: url) else { throw BenchError("\(variable) is not a URL") }
        let configuration = try PostgreSQLConfiguration(url: url)
        self.url = url
        self.storeURL = storeURL
        self.variable = variable
        self.description = configuration.description
        self.prefix = "strata_bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(8).lowercased() + "_"
    }

    /// A new connection to the server.
    func connect() throws -> PostgreSQLConnection { try PostgreSQLConnection(url: url) }

    /// The item table of `namespace`, quoted and qualified.
    static func itemTable(_ namespace: String) throws -> String {
        try PostgreSQLIdentifier.quoted(namespace) + ".\"Item\""
    }

    /// The store options selecting `namespace`.
    func options(_ namespace: String) -> [String: any Sendable] { [PostgreSQLStoreOption.namespace: namespace] }

    /// A new namespace holding the store's schema and `rows` items (row i has
    /// `Datasets.name(i)`, `number(i)`, … and key i + 1, as the SQLite data sets), filled on the
    /// server with one `INSERT … SELECT … generate_series`, then vacuumed and analyzed: the first
    /// reads of freshly inserted rows set their visibility hints (writing the pages again), and
    /// the server's autovacuum visits a table within a minute of such a load; both are done
    /// here, before either side is timed, rather than in whichever iteration they fall on.
    func makeNamespace(_ label: String, items rows: Int, on connection: PostgreSQLConnection) throws -> String {
        made += 1
        let namespace = "\(prefix)\(label)_\(made)"
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: BenchmarkModel.shared)
            try coordinator.addPersistentStore(type: .postgreSQL, at: storeURL, options: options(namespace))
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        guard rows > 0 else { return namespace }
        let table = try Self.itemTable(namespace)
        // The same values as Datasets.name/number/score/flag/created (float8 division is IEEE's,
        // as Swift's): the row checks compare them with what each side read or wrote.
        try connection.execute(
            """
            INSERT INTO \(table) ("$pk", "$entity", "$version", "name", "number", "score", "flag", "created")
            SELECT i + 1, 'Item', 1, 'item ' || i, (i * 7919) % 1000003, (i % 10000)::float8 / 100, i % 3 = 0, i::float8 * 60
            FROM generate_series(0::bigint, $1::bigint - 1) AS i
            """, parameters: [.int64(Int64(rows))])
        try connection.execute("SELECT setval('\(try PostgreSQLIdentifier.quoted(namespace)).\"Item$pk\"', $1::bigint)", parameters: [.int64(Int64(rows))])
        try connection.execute("VACUUM (ANALYZE) \(table)")
        return namespace
    }

    /// A root context on a new coordinator with the store in `namespace`.
    func context(namespace: String) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: BenchmarkModel.shared)
        try coordinator.addPersistentStore(type: .postgreSQL, at: storeURL, options: options(namespace))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Closes the stores of `context`'s coordinator (their pooled and listening connections).
    func close(_ context: ManagedObjectContext) {
        context.performAndWait { context.reset() }
        guard let coordinator = context.persistentStoreCoordinator else { return }
        for store in coordinator.persistentStores { try? coordinator.remove(store) }
    }

    /// Drops `namespace` and everything in it.
    func drop(_ namespace: String, on connection: PostgreSQLConnection) throws {
        try connection.execute("DROP SCHEMA IF EXISTS \(try PostgreSQLIdentifier.quoted(namespace)) CASCADE")
    }

    /// Drops every namespace of this run that is still there; returns how many.
    @discardableResult
    func dropAll() throws -> Int {
        let connection = try connect()
        let left = try connection.execute("SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1::text)", parameters: [.text(prefix)])
        let names = try left.compactMap { try $0.string(0) }
        for name in names { try drop(name, on: connection) }
        return names.count
    }

    /// The digest of every item of `namespace` (every attribute), read with one statement: the
    /// row check of the pairs that write.
    static func digest(of namespace: String, on connection: PostgreSQLConnection) throws -> RowDigest {
        var digest = RowDigest()
        for row in try connection.execute("SELECT \"$pk\", \"name\", \"number\", \"score\", \"flag\", \"created\" FROM \(try itemTable(namespace))") {
            ItemDigest.add(try RawItem(row: row), to: &digest)
        }
        return digest
    }
}

/// A failure of a PostgreSQL pair's own making (not the server's).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension RawItem {
    /// Reads a row of `SELECT "$pk", "name", "number", "score", "flag", "created" …`; a NULL or
    /// a value of another type throws.
    init(row: PostgreSQLRow) throws {
        guard let key = try row.int64(0), let name = try row.string(1), let number = try row.int64(2), let score = try row.double(3), let flag = try row.bool(4),
            let created = try row.double(5)
        else { throw BenchError("an item row holds NULL") }
        self.init(key: key, name: name, number: number, score: score, flag: flag, created: created)
    }
}
