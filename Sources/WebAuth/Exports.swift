@_exported import WebAuthControlledBrowsers
@_exported import WebAuthCore
@_exported import WebAuthDesktop
@_exported import WebAuthLoopback
@_exported import WebAuthSystemBrowser
