import WebAuthCLI

await WebAuthCommand.runFromCommandLine()
