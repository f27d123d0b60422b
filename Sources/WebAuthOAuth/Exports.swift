@_exported import WebAuth
