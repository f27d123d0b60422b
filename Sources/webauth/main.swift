// webauth: a cached token straight from the file store, else the full program (webauth-full).
import WebAuthFastPath

FastPathProgram.run()
