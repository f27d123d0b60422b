// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#include "GtkWindowShim.h"

#include <gtk/gtk.h>
#include <stdio.h>

static GtkApplication *application;
static ExampleAppCallbacks callbacks;
static GtkWidget *window, *name_label, *status_label, *sign_in_button, *cancel_button, *sign_out_button;

static void on_action(GSimpleAction *action, GVariant *parameter, gpointer data) {
    (void)parameter;
    (void)data;
    const char *name = g_action_get_name(G_ACTION(action));
    if (g_str_equal(name, "sign-in")) {
        callbacks.sign_in(callbacks.context);
    } else if (g_str_equal(name, "cancel-sign-in")) {
        callbacks.cancel_sign_in(callbacks.context);
    } else if (g_str_equal(name, "sign-out")) {
        callbacks.sign_out(callbacks.context);
    } else if (g_str_equal(name, "quit")) {
        g_application_quit(G_APPLICATION(application));
    }
}

static void set_enabled(const char *name, gboolean enabled) {
    GAction *action = g_action_map_lookup_action(G_ACTION_MAP(application), name);
    if (action != NULL) {
        g_simple_action_set_enabled(G_SIMPLE_ACTION(action), enabled);
    }
}

/// Shows one of the three buttons and enables only its action.
static void show_buttons(gboolean sign_in, gboolean cancel, gboolean sign_out) {
    set_enabled("sign-in", sign_in);
    set_enabled("cancel-sign-in", cancel);
    set_enabled("sign-out", sign_out);
    if (window == NULL) {
        return;
    }
    gtk_widget_set_visible(sign_in_button, sign_in);
    gtk_widget_set_visible(cancel_button, cancel);
    gtk_widget_set_visible(sign_out_button, sign_out);
}

static GtkWidget *make_button(const char *label, const char *action) {
    GtkWidget *button = gtk_button_new_with_label(label);
    gtk_actionable_set_action_name(GTK_ACTIONABLE(button), action);
    return button;
}

/// Makes the window the first time, and shows it.
static void present_window(void) {
    if (window != NULL) {
        gtk_window_present(GTK_WINDOW(window));
        return;
    }
    window = gtk_application_window_new(application);
    gtk_window_set_title(GTK_WINDOW(window), "webauth GTK example");
    gtk_window_set_default_size(GTK_WINDOW(window), 460, 220);

    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
    gtk_widget_set_margin_top(box, 24);
    gtk_widget_set_margin_bottom(box, 24);
    gtk_widget_set_margin_start(box, 24);
    gtk_widget_set_margin_end(box, 24);

    name_label = gtk_label_new(NULL);
    status_label = gtk_label_new(NULL);
    gtk_label_set_wrap(GTK_LABEL(status_label), TRUE);
    gtk_box_append(GTK_BOX(box), name_label);
    gtk_box_append(GTK_BOX(box), status_label);

    GtkWidget *buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    gtk_widget_set_halign(buttons, GTK_ALIGN_CENTER);
    sign_in_button = make_button("Sign in", "app.sign-in");
    cancel_button = make_button("Cancel", "app.cancel-sign-in");
    sign_out_button = make_button("Sign out", "app.sign-out");
    gtk_box_append(GTK_BOX(buttons), sign_in_button);
    gtk_box_append(GTK_BOX(buttons), cancel_button);
    gtk_box_append(GTK_BOX(buttons), sign_out_button);
    gtk_box_append(GTK_BOX(box), buttons);

    gtk_window_set_child(GTK_WINDOW(window), box);
    gtk_window_present(GTK_WINDOW(window));
    callbacks.ready(callbacks.context);
}

static void on_activate(GApplication *app, gpointer data) {
    (void)app;
    (void)data;
    present_window();
}

static void on_open(GApplication *app, GFile **files, gint count, const gchar *hint, gpointer data) {
    (void)app;
    (void)hint;
    (void)data;
    present_window();
    for (gint index = 0; index < count; index++) {
        char *uri = g_file_get_uri(files[index]);
        callbacks.open_uri(callbacks.context, uri);
        g_free(uri);
    }
}

void example_app_create(const char *application_id, ExampleAppCallbacks given) {
    callbacks = given;
    application = gtk_application_new(application_id, G_APPLICATION_HANDLES_OPEN);
    static const GActionEntry entries[] = {
        {"sign-in", on_action, NULL, NULL, NULL, {0}},
        {"cancel-sign-in", on_action, NULL, NULL, NULL, {0}},
        {"sign-out", on_action, NULL, NULL, NULL, {0}},
        {"quit", on_action, NULL, NULL, NULL, {0}},
    };
    g_action_map_add_action_entries(G_ACTION_MAP(application), entries, G_N_ELEMENTS(entries), NULL);
    show_buttons(TRUE, FALSE, FALSE);
    g_signal_connect(application, "activate", G_CALLBACK(on_activate), NULL);
    g_signal_connect(application, "open", G_CALLBACK(on_open), NULL);
}

int example_app_run(int argc, char **argv) {
    int status = g_application_run(G_APPLICATION(application), argc, argv);
    g_object_unref(application);
    return status;
}

static void show(const char *name_markup, const char *status) {
    if (window == NULL) {
        return;
    }
    gtk_label_set_markup(GTK_LABEL(name_label), name_markup);
    gtk_label_set_text(GTK_LABEL(status_label), status);
}

void example_app_show_signed_out(const char *status) {
    show_buttons(TRUE, FALSE, FALSE);
    show("<big>Not signed in</big>", status);
}

void example_app_show_waiting(const char *status) {
    show_buttons(FALSE, TRUE, FALSE);
    show("<big>Signing in…</big>", status);
}

/// After the window's next paint: says on standard output what it shows, for whoever takes a
/// screenshot of it.
static void on_after_paint(GdkFrameClock *clock, gpointer data) {
    char *shown = data;
    g_signal_handlers_disconnect_by_func(clock, G_CALLBACK(on_after_paint), data);
    gdk_display_flush(gtk_widget_get_display(window));
    printf("window shows: %s\n", shown);
    fflush(stdout);
    g_free(shown);
}

static void report_next_paint(const char *shown) {
    GdkFrameClock *clock = gtk_widget_get_frame_clock(window);
    if (clock == NULL) {
        return;
    }
    g_signal_connect(clock, "after-paint", G_CALLBACK(on_after_paint), g_strdup(shown));
    gtk_widget_queue_draw(window);
}

void example_app_show_signed_in(const char *name, const char *status) {
    show_buttons(FALSE, FALSE, TRUE);
    char *markup = g_markup_printf_escaped("<big>Signed in as <b>%s</b></big>", name);
    show(markup, status);
    g_free(markup);
    if (window != NULL) {
        char *shown = g_strdup_printf("signed in as %s", name);
        report_next_paint(shown);
        g_free(shown);
    }
}

void example_app_quit(void) {
    g_application_quit(G_APPLICATION(application));
}
