import WebAuthCLI

// `webauth demo` runs here: `webauth-full` hands the demo to this program, the only one that
// links the embedded provider.
await DemoProgram.runFromCommandLine(providerType: EmbeddedDemoProvider.self)
