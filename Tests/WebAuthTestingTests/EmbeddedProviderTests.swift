import Testing
import WebAuthTesting
