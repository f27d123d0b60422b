// The package's tests use the shipped testing product as well as the helpers here.
@_exported import WebAuthTesting
