// swift-tools-version:6.0
import PackageDescription

// Module map (see docs/ARCHITECTURE.md):
//   HandyProtocol  wire types + JSON lines, shared by daemon, client and CLI
//   HandyCore      events -> TouchTracker -> recognizers -> GestureArena (pure Swift, no I/O)
//   HandyRecording evemu / libinput-record readers (file I/O only)
//   HandyFiles     whole-file POSIX reads and writes (bounded, strerror's reasons)
//   HandySettings  udev properties -> per-device settings, stable device ids (pure, fuzzed)
//   HandyInput     the only importer of libevdev / libudev
//   HandyDaemon    socket server, device pipeline, lifecycle (library so tests link it)
//   HandyClient    client library for subscribers
let package = Package(
    name: "handyd",
    products: [
        .executable(name: "handyd", targets: ["handyd"]),
        .executable(name: "handyctl", targets: ["handyctl"]),
        .library(name: "HandyClient", targets: ["HandyClient"]),
        .library(name: "HandyProtocol", targets: ["HandyProtocol"]),
        .library(name: "HandyCore", targets: ["HandyCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // TOML for `handyctl actions` bindings (wraps toml++, a C++17 header library).
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // Metrics for fleets (docs/FLEET.md): the Prometheus registry and text format, on swift-metrics.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // C modules: headers only, linked through pkg-config.
        .systemLibrary(name: "CLibevdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CLibudev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CLibsystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),

        .target(name: "HandyProtocol"),
        .target(name: "HandyCore", dependencies: ["HandyProtocol"]),
        // The core's output in the wire's shapes (a touch frame as the `touches` message): the edge
        // where core units become what a client reads.
        .target(name: "HandyWire", dependencies: ["HandyCore", "HandyProtocol"]),
        // Test and evaluation tools, not the daemon's: synthetic hands, finger paths, streams with
        // faults, the handedness evaluation (tests, handyctl generate/eval, the bench, the fuzzers).
        .target(name: "HandySynthetic", dependencies: ["HandyCore", "HandyProtocol"]),
        // Whole-file POSIX reads and writes with strerror's reason and a bound (recordings, bindings, -o).
        .target(name: "HandyFiles"),
        .target(name: "HandyRecording", dependencies: ["HandyCore", "HandyFiles"]),
        // Drawing a recording's touches and gestures as SVG (handyctl plot): a reader does not draw.
        .target(name: "HandyPlot", dependencies: ["HandyRecording", "HandyCore", "HandyProtocol", "HandyWire"]),
        // What a device's udev properties say (thresholds, calibration, size, stable ids): pure Swift,
        // so the fuzzer builds it as a module and the tests need no C library.
        .target(name: "HandySettings", dependencies: ["HandyCore", "HandyProtocol"]),
        .target(
            name: "HandyInput",
            dependencies: [
                "HandyCore", "HandySettings", "CLibevdev", "CLibudev",
            ]
        ),
        .target(
            name: "HandyDaemon",
            dependencies: [
                "HandyCore", "HandyProtocol", "HandyWire", "HandyInput", "HandySettings", "HandyRecording",
                "HandyFiles", "CLibsystemd",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .target(
            name: "HandyClient",
            dependencies: [
                "HandyProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // `handyctl actions`: gesture bindings (TOML) to commands and uinput key chords.
        .target(
            name: "HandyActions",
            dependencies: [
                "HandyProtocol", "HandyClient", "HandyInput", "HandyFiles",
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "handyd",
            dependencies: [
                "HandyDaemon", "HandyInput", "HandySettings", "HandyProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "handyctl",
            dependencies: [
                "HandyCore", "HandyProtocol", "HandyWire", "HandyRecording", "HandyInput", "HandyClient",
                "HandySynthetic", "HandyPlot", "HandyActions", "HandyFiles", "HandySettings",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),

        // Benchmarks (docs/PERFORMANCE.md): `swift run -c release handyd-bench [--short]`.
        .target(name: "CMallocCounter"),
        .executableTarget(
            name: "handyd-bench",
            dependencies: [
                "HandyCore", "HandyProtocol", "HandyWire", "HandyRecording", "HandySynthetic", "CMallocCounter",
                // Figures 2-4 run the daemon's real server code (fan-out) and the real handyd binary.
                "HandyDaemon",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // What the test targets share: the package's folders, a child process with a deadline, a
        // real handyd on a temporary socket and a line client for it, a recording's expected output.
        .target(
            name: "HandyTestSupport", dependencies: ["HandyProtocol", "HandyCore", "HandyWire", "HandyRecording"],
            path: "Tests/HandyTestSupport"),
        .testTarget(name: "HandyProtocolTests", dependencies: ["HandyProtocol", "HandySynthetic", "HandyTestSupport"]),
        .testTarget(
            name: "HandyWireTests",
            dependencies: ["HandyWire", "HandyCore", "HandyProtocol", "HandyRecording", "HandyTestSupport"]),
        // The client's pure parts (placement: clients/placement-cases.json, shared with JS and Python).
        .testTarget(name: "HandyClientTests", dependencies: ["HandyClient", "HandyProtocol", "HandyTestSupport"]),
        .testTarget(name: "HandyFilesTests", dependencies: ["HandyFiles"]),
        .testTarget(name: "HandySyntheticTests", dependencies: ["HandySynthetic", "HandyCore", "HandyProtocol"]),
        .testTarget(
            name: "HandyCoreTests",
            dependencies: ["HandyCore", "HandyWire", "HandySettings", "HandyRecording", "HandySynthetic"]),
        .testTarget(
            name: "HandyRecordingTests",
            dependencies: [
                "HandyRecording", "HandyCore", "HandyWire", "HandySettings", "HandySynthetic", "HandyTestSupport",
            ]),
        .testTarget(
            name: "HandyPlotTests",
            dependencies: [
                "HandyPlot", "HandyRecording", "HandyCore", "HandySynthetic", "HandyProtocol", "HandyWire",
                "HandyTestSupport",
            ]),
        .testTarget(
            name: "HandySettingsTests",
            dependencies: ["HandySettings", "HandyCore", "HandyProtocol", "HandySynthetic", "HandyTestSupport"]),
        .testTarget(
            name: "HandyInputTests",
            dependencies: ["HandyInput", "HandySettings", "HandyCore", "HandyRecording", "HandySynthetic"]),
        .testTarget(
            name: "HandyActionsTests",
            dependencies: [
                "HandyActions", "HandyProtocol", "HandyInput", "HandyTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HandyDaemonTests",
            dependencies: [
                "HandyDaemon", "HandyProtocol", "HandyWire", "HandyClient", "HandyRecording", "HandySynthetic",
                "HandySettings", "HandyTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // handyctl's commands as a user runs them (the built binary), and its monitor screen.
        .testTarget(
            name: "handyctlTests",
            dependencies: [
                "handyctl", "HandyClient", "HandyProtocol", "HandyCore", "HandySynthetic", "HandyRecording",
                "HandyTestSupport",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// A sanitizer's build (scripts/sanitize.sh, scratch .build-tsan) compiles only the test targets
// whose suites it runs: on Linux SwiftPM links every test target into one bundle, so without this
// the ThreadSanitizer build compiled the pure suites too (HandyCoreTests is the largest). The
// variable names the test targets to keep (spaces or commas); the benchmark is left out as well.
// Unset (every other build), the package is as above.
if let kept = Context.environment["HANDYD_TEST_TARGETS"] {
    let names = Set(kept.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init))
    package.targets.removeAll { ($0.type == .test && !names.contains($0.name)) || $0.name == "handyd-bench" }
}
