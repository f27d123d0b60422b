// SPDX-License-Identifier: Apache-2.0
#include "WebAuthCurl.h"

#include <dlfcn.h>
#include <pthread.h>

typedef int (*setopt_function)(void *, int, ...);
typedef int (*getinfo_function)(void *, int, ...);

static struct {
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    setopt_function easy_setopt;
    int (*easy_perform)(void *);
    getinfo_function easy_getinfo;
    void *(*slist_append)(void *, const char *);
    void (*slist_free_all)(void *);
    int loaded;
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
#ifdef __APPLE__
    void *library = dlopen("libcurl.4.dylib", RTLD_NOW | RTLD_LOCAL);
#else
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
#endif
    if (library == NULL) return;
    curl.easy_init = (void *(*)(void))dlsym(library, "curl_easy_init");
    curl.easy_cleanup = (void (*)(void *))dlsym(library, "curl_easy_cleanup");
    curl.easy_setopt = (setopt_function)dlsym(library, "curl_easy_setopt");
    curl.easy_perform = (int (*)(void *))dlsym(library, "curl_easy_perform");
    curl.easy_getinfo = (getinfo_function)dlsym(library, "curl_easy_getinfo");
    curl.slist_append = (void *(*)(void *, const char *))dlsym(library, "curl_slist_append");
    curl.slist_free_all = (void (*)(void *))dlsym(library, "curl_slist_free_all");
    curl.loaded = curl.easy_init && curl.easy_cleanup && curl.easy_setopt && curl.easy_perform
        && curl.easy_getinfo && curl.slist_append && curl.slist_free_all;
}

int webauth_curl_available(void) {
    pthread_once(&load_once, load);
    return curl.loaded;
}

webauth_curl_handle *webauth_curl_easy_init(void) {
    return webauth_curl_available() ? curl.easy_init() : NULL;
}

void webauth_curl_easy_cleanup(webauth_curl_handle *handle) { curl.easy_cleanup(handle); }

int webauth_curl_setopt_long(webauth_curl_handle *handle, int option, long value) {
    return curl.easy_setopt(handle, option, value);
}

int webauth_curl_setopt_offset(webauth_curl_handle *handle, int option, long long value) {
    return curl.easy_setopt(handle, option, value);
}

int webauth_curl_setopt_pointer(webauth_curl_handle *handle, int option, const void *value) {
    return curl.easy_setopt(handle, option, value);
}

int webauth_curl_setopt_data_callback(
    webauth_curl_handle *handle, int option, size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl.easy_setopt(handle, option, callback);
}

int webauth_curl_setopt_progress_callback(
    webauth_curl_handle *handle, int (*callback)(void *, long long, long long, long long, long long)) {
    return curl.easy_setopt(handle, WEBAUTH_CURLOPT_XFERINFOFUNCTION, callback);
}

int webauth_curl_easy_perform(webauth_curl_handle *handle) { return curl.easy_perform(handle); }

int webauth_curl_getinfo_long(webauth_curl_handle *handle, int info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}

void *webauth_curl_slist_append(void *list, const char *line) { return curl.slist_append(list, line); }

void webauth_curl_slist_free_all(void *list) { curl.slist_free_all(list); }
