@_exported import WebAuthCore
@_exported import WebAuthLoopback
@_exported import WebAuthSystemBrowser
