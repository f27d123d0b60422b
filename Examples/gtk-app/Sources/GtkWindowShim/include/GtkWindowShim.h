// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#ifndef WEBAUTH_EXAMPLE_GTK_WINDOW_SHIM_H
#define WEBAUTH_EXAMPLE_GTK_WINDOW_SHIM_H

/// What the window calls back, on the main thread, with `context`.
typedef struct ExampleAppCallbacks {
    void *context;
    /// The window exists (once, at the first activation or open).
    void (*ready)(void *context);
    /// The "sign-in" action: the "Sign in" button.
    void (*sign_in)(void *context);
    /// The "cancel-sign-in" action: the "Cancel" button while a sign-in waits.
    void (*cancel_sign_in)(void *context);
    /// The "sign-out" action: the "Sign out" button.
    void (*sign_out)(void *context);
    /// The application was opened with a URI (GApplication's `open` signal), such as the
    /// callback URL the desktop handed to this app's scheme.
    void (*open_uri)(void *context, const char *uri);
} ExampleAppCallbacks;

/// Creates the single-instance application `application_id` (G_APPLICATION_HANDLES_OPEN).
void example_app_create(const char *application_id, ExampleAppCallbacks callbacks);

/// Runs it (g_application_run) with `argv`: the program's name and the URIs to open. Returns
/// the exit status.
int example_app_run(int argc, char **argv);

/// Shows "not signed in": the name line says so, `status` below it, the "Sign in" button.
void example_app_show_signed_out(const char *status);

/// Shows a sign-in under way: `status`, and the "Cancel" button.
void example_app_show_waiting(const char *status);

/// Shows the signed-in person's `name`, `status`, and the "Sign out" button.
void example_app_show_signed_in(const char *name, const char *status);

/// Quits the application.
void example_app_quit(void);

#endif
