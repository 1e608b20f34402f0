// swift-tools-version: 6.2
//
// Strata: Core Data's object-graph persistence for Swift on Linux.
//
// Layering (a lower target never imports a higher one):
//   StrataLocks (the one lock type, TSan-aware) ← every target that locks;
//   StrataLocks ← StrataProgress (the terminal progress line) ← BenchmarkHarness, StrataStressKit,
//   ReliabilityKit and their executables (it imports nothing of Strata);
//   CSQLite ← StrataSQLite ← Strata ← StrataTestSupport ← StrataStressKit ← StrataStress / tests;
//   CLibPQ ← StrataPostgreSQL (the libpq connection layer; StrataLocks below it, nothing of Strata
//   above it) ← PostgreSQLTests; Strata + StrataPostgreSQL ← StrataPostgreSQLStore (the PostgreSQL
//   store, written against Strata's public store seam only) ← StrataTestSupport
//   (PostgreSQLTestDatabase) ← StrataTests (store conformance) and PostgreSQLTests;
//   Strata ← StrataDemo / StrataHistoryImporter / StrataUndoEditor / StrataLiveResults (Examples/);
//   Strata + StrataPostgreSQLStore + StrataPostgreSQL ← StrataBenchmarks (Benchmarks/: pairs against raw SQLite and raw libpq);
//   Strata ← StrataCodeGeneration (model file → Swift) ← strata (the tool, Sources/StrataCLI) ← the
//   StrataModelCodegen build-tool plugin (Plugins/), which CodegenPluginTests uses on its own model.
// CJemalloc is linked only by the Stress and Benchmarks executables, never by the library.
// CStrataFaultVFS (an I/O-fault-injecting SQLite VFS) is linked only by the reliability harness
// and its tests, never by the library. The libFuzzer targets (predicate parser, model-file reader,
// store-file opener) are built by `make fuzz` with swiftc directly (they need -sanitize=fuzzer, an
// unsafe flag here);
// the predicate oracle, PredicateFuzzOracle, and the store-file oracle, StoreFileFuzzOracle, are
// targets so the corpus regression tests replay inputs exactly as the fuzzers saw them.

import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "Strata",
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataPostgreSQLStore", targets: ["StrataPostgreSQLStore"]),
        .executable(name: "strata-demo", targets: ["StrataDemo"]),
        .executable(name: "strata-history-importer", targets: ["StrataHistoryImporter"]),
        .executable(name: "strata-undo-editor", targets: ["StrataUndoEditor"]),
        .executable(name: "strata-live-results", targets: ["StrataLiveResults"]),
        .executable(name: "strata", targets: ["strata"]),
        .plugin(name: "StrataModelCodegen", targets: ["StrataModelCodegen"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev", "libssl-dev"])]
        ),
        .systemLibrary(
            name: "CJemalloc",
            pkgConfig: "jemalloc",
            providers: [.apt(["libjemalloc-dev"])]
        ),
        .target(
            name: "StrataLocks",
            swiftSettings: strictSettings
        ),
        .target(name: "CStrataMemory"),
        .target(
            name: "StrataProgress",
            dependencies: ["StrataLocks"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataSQLite",
            dependencies: ["CSQLite"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataPostgreSQL",
            dependencies: ["CLibPQ", "StrataLocks"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Strata",
            dependencies: ["StrataLocks", "StrataSQLite", "CStrataMemory"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataPostgreSQLStore",
            dependencies: ["Strata", "StrataPostgreSQL", "StrataLocks"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataTestSupport",
            dependencies: ["StrataLocks", "Strata", "StrataSQLite", "StrataPostgreSQL", "StrataPostgreSQLStore"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataCodeGeneration",
            dependencies: ["Strata"],
            swiftSettings: strictSettings
        ),
        // Named `strata` (not StrataCLI): a build-tool plugin finds its tool by executable name.
        .executableTarget(
            name: "strata",
            dependencies: ["StrataCodeGeneration"],
            path: "Sources/StrataCLI",
            swiftSettings: strictSettings
        ),
        .plugin(
            name: "StrataModelCodegen",
            capability: .buildTool(),
            dependencies: ["strata"]
        ),
        .executableTarget(
            name: "StrataDemo",
            dependencies: ["Strata"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StrataHistoryImporter",
            dependencies: ["Strata", "StrataLocks"],
            path: "Examples/HistoryImporter",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StrataUndoEditor",
            dependencies: ["Strata"],
            path: "Examples/UndoEditor",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StrataLiveResults",
            dependencies: ["Strata"],
            path: "Examples/LiveResults",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BenchmarkHarness",
            dependencies: ["CJemalloc", "StrataLocks", "StrataProgress"],
            path: "Benchmarks/BenchmarkHarness",
            swiftSettings: strictSettings
        ),
        // jemalloc's options for the benchmark executable (docs/benchmarks.md, "The allocator").
        .target(
            name: "BenchmarkAllocator",
            path: "Benchmarks/BenchmarkAllocator"
        ),
        .executableTarget(
            name: "StrataBenchmarks",
            dependencies: ["StrataLocks", "Strata", "StrataSQLite", "StrataPostgreSQL", "StrataPostgreSQLStore", "BenchmarkHarness", "BenchmarkAllocator", "CJemalloc"],
            path: "Benchmarks/StrataBenchmarks",
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataStressKit",
            dependencies: ["StrataLocks", "Strata", "StrataSQLite", "StrataTestSupport", "StrataProgress"],
            path: "Stress/StrataStressKit",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StrataStress",
            dependencies: ["Strata", "StrataSQLite", "StrataTestSupport", "StrataStressKit", "StrataProgress", "CJemalloc"],
            path: "Stress/StrataStress",
            swiftSettings: strictSettings
        ),
        .target(
            name: "CStrataFaultVFS",
            dependencies: ["CSQLite"]
        ),
        .target(
            name: "ReliabilityKit",
            dependencies: [
                "StrataLocks", "Strata", "StrataSQLite", "StrataTestSupport", "StrataProgress", "CSQLite", "CStrataFaultVFS", "StrataPostgreSQL",
                "StrataPostgreSQLStore",
            ],
            path: "Stress/ReliabilityKit",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StrataReliability",
            dependencies: ["ReliabilityKit", "Strata", "StrataSQLite", "StrataProgress"],
            path: "Stress/StrataReliability",
            swiftSettings: strictSettings
        ),
        .target(
            name: "PredicateFuzzOracle",
            dependencies: ["Strata"],
            path: "Fuzz/PredicateOracle",
            swiftSettings: strictSettings
        ),
        .target(
            name: "StoreFileFuzzOracle",
            dependencies: ["Strata", "StrataSQLite"],
            path: "Fuzz/StoreFileOracle",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "ReliabilityKit", "Strata", "StrataSQLite", "StrataTestSupport", "CStrataFaultVFS", "PredicateFuzzOracle", "StoreFileFuzzOracle",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: ["StrataLocks", "Strata", "StrataSQLite", "StrataTestSupport", "StrataStressKit", "StrataPostgreSQL", "StrataPostgreSQLStore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataCodeGenerationTests",
            dependencies: ["StrataCodeGeneration", "Strata", "StrataTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CodegenPluginTests",
            dependencies: ["Strata", "StrataTestSupport"],
            exclude: ["Library.xcdatamodeld"],
            swiftSettings: strictSettings,
            plugins: [.plugin(name: "StrataModelCodegen")]
        ),
        .testTarget(
            name: "PostgreSQLTests",
            dependencies: ["StrataPostgreSQL", "CLibPQ", "StrataTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BenchmarkHarnessTests",
            dependencies: ["BenchmarkHarness", "StrataProgress"],
            path: "Benchmarks/BenchmarkHarnessTests",
            swiftSettings: strictSettings
        ),
    ]
)
