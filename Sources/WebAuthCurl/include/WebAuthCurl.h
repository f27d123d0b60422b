// SPDX-License-Identifier: Apache-2.0
#ifndef WEBAUTH_CURL_H
#define WEBAUTH_CURL_H

#include <stddef.h>

/// The few functions of libcurl's easy interface that `CurlTransport` (WebAuthOAuth) uses,
/// called through pointers found at run time in the libcurl that FoundationNetworking already
/// loads (`libcurl.so.4`), so that building needs no libcurl headers. libcurl's option and
/// information numbers are part of its stable ABI; the ones used are below.
///
/// `curl_easy_setopt` and `curl_easy_getinfo` are variadic, which Swift cannot call: these
/// functions call them with each argument's real type.

/// libcurl's easy handle.
typedef void webauth_curl_handle;

/// Whether libcurl was found and has every function used; loads it on the first call.
int webauth_curl_available(void);

/// `curl_easy_init`: a new handle, or `NULL`.
webauth_curl_handle *_Nullable webauth_curl_easy_init(void);
/// `curl_easy_cleanup`.
void webauth_curl_easy_cleanup(webauth_curl_handle *_Nonnull handle);
/// `curl_easy_setopt` with a `long` value.
int webauth_curl_setopt_long(webauth_curl_handle *_Nonnull handle, int option, long value);
/// `curl_easy_setopt` with a `curl_off_t` value.
int webauth_curl_setopt_offset(webauth_curl_handle *_Nonnull handle, int option, long long value);
/// `curl_easy_setopt` with a data pointer (a string, a list, a callback's user data).
int webauth_curl_setopt_pointer(webauth_curl_handle *_Nonnull handle, int option, const void *_Nullable value);
/// `curl_easy_setopt` with `CURLOPT_WRITEFUNCTION` or `CURLOPT_HEADERFUNCTION`'s callback.
int webauth_curl_setopt_data_callback(
    webauth_curl_handle *_Nonnull handle, int option,
    size_t (*_Nonnull callback)(char *_Nonnull bytes, size_t size, size_t count, void *_Nullable context));
/// `curl_easy_setopt` with `CURLOPT_XFERINFOFUNCTION`'s callback.
int webauth_curl_setopt_progress_callback(
    webauth_curl_handle *_Nonnull handle,
    int (*_Nonnull callback)(void *_Nullable context, long long, long long, long long, long long));
/// `curl_easy_perform`: runs the transfer, blocking in `poll` until it ends.
int webauth_curl_easy_perform(webauth_curl_handle *_Nonnull handle);
/// `curl_easy_getinfo` for a `long`.
int webauth_curl_getinfo_long(webauth_curl_handle *_Nonnull handle, int info, long *_Nonnull value);
/// `curl_slist_append`: the list with `line` copied onto it, or `NULL` when out of memory.
void *_Nullable webauth_curl_slist_append(void *_Nullable list, const char *_Nonnull line);
/// `curl_slist_free_all`.
void webauth_curl_slist_free_all(void *_Nullable list);

/// libcurl's option numbers (`CURLOPT_*`).
enum {
    WEBAUTH_CURLOPT_WRITEDATA = 10001,
    WEBAUTH_CURLOPT_URL = 10002,
    WEBAUTH_CURLOPT_ERRORBUFFER = 10010,
    WEBAUTH_CURLOPT_USERAGENT = 10018,
    WEBAUTH_CURLOPT_WRITEFUNCTION = 20011,
    WEBAUTH_CURLOPT_HTTPHEADER = 10023,
    WEBAUTH_CURLOPT_HEADERDATA = 10029,
    WEBAUTH_CURLOPT_CUSTOMREQUEST = 10036,
    WEBAUTH_CURLOPT_NOPROGRESS = 43,
    WEBAUTH_CURLOPT_NOBODY = 44,
    WEBAUTH_CURLOPT_FOLLOWLOCATION = 52,
    WEBAUTH_CURLOPT_XFERINFODATA = 10057,
    WEBAUTH_CURLOPT_HEADERFUNCTION = 20079,
    WEBAUTH_CURLOPT_HTTPGET = 80,
    WEBAUTH_CURLOPT_NOSIGNAL = 99,
    WEBAUTH_CURLOPT_TIMEOUT_MS = 155,
    WEBAUTH_CURLOPT_PROTOCOLS = 181,
    WEBAUTH_CURLOPT_REDIR_PROTOCOLS = 182,
    WEBAUTH_CURLOPT_COPYPOSTFIELDS = 10165,
    WEBAUTH_CURLOPT_POSTFIELDSIZE_LARGE = 30120,
    WEBAUTH_CURLOPT_XFERINFOFUNCTION = 20219,
};

/// libcurl's information numbers (`CURLINFO_*`).
enum {
    WEBAUTH_CURLINFO_RESPONSE_CODE = 0x200002,
    WEBAUTH_CURLINFO_OS_ERRNO = 0x200019,
};

/// `CURLPROTO_HTTP` and `CURLPROTO_HTTPS`.
enum {
    WEBAUTH_CURLPROTO_HTTP = 1,
    WEBAUTH_CURLPROTO_HTTPS = 2,
};

/// `CURL_ERROR_SIZE`: the size of the buffer `CURLOPT_ERRORBUFFER` takes.
enum { WEBAUTH_CURL_ERROR_SIZE = 256 };

#endif
