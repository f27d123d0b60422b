@_exported import WebAuthCore
@_exported import WebAuthLoopback
@_exported import WebAuthControlledBrowsers
@_exported import WebAuthDesktop
@_exported import WebAuthSystemBrowser
