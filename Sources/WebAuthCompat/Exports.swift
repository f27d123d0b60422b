// On Apple platforms this module is Apple's AuthenticationServices, nothing else. Elsewhere it
// provides the same names (see ASWebAuthenticationSession) and, as AuthenticationServices does,
// Foundation.
#if canImport(AuthenticationServices)
    @_exported import AuthenticationServices
#else
    @_exported import Foundation
#endif
