// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension FirefoxBrowser {
    /// The preferences every profile of a ``FirefoxBrowser`` gets in its `user.js`, before
    /// ``Options/extraPreferences`` (which override them).
    ///
    /// They keep Firefox from phoning home and from showing anything but the sign-in page:
    /// telemetry and data reporting, update checks (application, add-ons, search engines, media
    /// plug-ins), captive-portal and connectivity checks, Safe Browsing list downloads, remote
    /// settings and experiments (Normandy, Nimbus), DNS prefetching, link prefetching and
    /// speculative connections, DNS over HTTPS roll-out probes, Web Push, the new-tab page and its feeds,
    /// the default-browser check, and first-run, what's-new and terms-of-use pages.
    ///
    /// They also select WebDriver BiDi as the only remote protocol (`remote.active-protocols`:
    /// older releases also opened the Chrome DevTools Protocol on the same port, which accepts
    /// any number of clients) and turn off the remote agent's "recommended preferences"
    /// (`remote.prefs.recommended`): those are meant for test automation and would, in a window
    /// a person signs in with, unblock pop-ups, switch off tracking protection and the password
    /// manager, and put focus handling into test mode. The network-related ones are set here
    /// explicitly instead.
    ///
    /// No preference blocks the network: what a page may reach is left as it is. Tests add
    /// their own proxy preferences to stay offline.
    public static let defaultPreferences: [String: PreferenceValue] = [
        // The remote agent: BiDi only; none of its test-automation defaults.
        "remote.active-protocols": 1,
        "remote.prefs.recommended": false,
        // Updates.
        "app.update.auto": false,
        "app.update.checkInstallTime": false,
        "app.update.disabledForTesting": true,
        "extensions.update.enabled": false,
        "extensions.systemAddon.update.enabled": false,
        "extensions.getAddons.cache.enabled": false,
        "extensions.blocklist.enabled": false,
        "browser.search.update": false,
        "media.gmp-manager.updateEnabled": false,
        "media.gmp-manager.url": "",
        "media.gmp-gmpopenh264.enabled": false,
        "media.gmp-widevinecdm.enabled": false,
        // Telemetry, data reporting, studies and experiments, crash reports.
        "toolkit.telemetry.enabled": false,
        "toolkit.telemetry.unified": false,
        "toolkit.telemetry.archive.enabled": false,
        "toolkit.telemetry.server": "",
        "toolkit.telemetry.reportingpolicy.firstRun": false,
        "toolkit.telemetry.newProfilePing.enabled": false,
        "toolkit.telemetry.shutdownPingSender.enabled": false,
        "toolkit.telemetry.firstShutdownPing.enabled": false,
        "toolkit.telemetry.updatePing.enabled": false,
        "toolkit.telemetry.bhrPing.enabled": false,
        "toolkit.coverage.opt-out": true,
        "toolkit.coverage.endpoint.base": "",
        "datareporting.healthreport.uploadEnabled": false,
        "datareporting.policy.dataSubmissionEnabled": false,
        "datareporting.policy.dataSubmissionPolicyBypassNotification": true,
        "datareporting.policy.firstRunURL": "",
        "datareporting.usage.uploadEnabled": false,
        "app.normandy.enabled": false,
        "app.normandy.api_url": "",
        "app.shield.optoutstudies.enabled": false,
        "messaging-system.rsexperimentloader.enabled": false,
        "browser.ping-centre.telemetry": false,
        "browser.tabs.crashReporting.sendReport": false,
        "browser.crashReports.unsubmittedCheck.autoSubmit2": false,
        "breakpad.reportURL": "",
        // Remote settings (block lists, experiments, suggestions…) and region detection. Release
        // builds honour the server preference only with MOZ_REMOTE_SETTINGS_DEVTOOLS=1 in the
        // environment, which the browser sets for Firefox.
        "services.settings.server": "data:,#remote-settings-disabled/v1",
        // Web Push keeps a connection to Mozilla's push service open.
        "dom.push.connection.enabled": false,
        // No probe of Mozilla's servers after a certificate error.
        "security.certerrors.mitm.priming.enabled": false,
        "browser.region.network.url": "",
        "browser.region.update.enabled": false,
        "geo.provider.network.url": "",
        // Captive portal and connectivity checks; DNS over HTTPS roll-out probes.
        "network.captive-portal-service.enabled": false,
        "network.connectivity-service.enabled": false,
        "doh-rollout.disable-heuristics": true,
        "network.trr.mode": 5,
        // Safe Browsing list downloads and lookups.
        "browser.safebrowsing.update.enabled": false,
        "browser.safebrowsing.malware.enabled": false,
        "browser.safebrowsing.phishing.enabled": false,
        "browser.safebrowsing.blockedURIs.enabled": false,
        "browser.safebrowsing.downloads.enabled": false,
        "browser.safebrowsing.downloads.remote.enabled": false,
        // Speculative work: no DNS lookup or connection the page did not ask for.
        "network.dns.disablePrefetch": true,
        "network.dns.disablePrefetchFromHTTPS": true,
        "network.prefetch-next": false,
        "network.predictor.enabled": false,
        "network.http.speculative-parallel-limit": 0,
        "browser.urlbar.speculativeConnect.enabled": false,
        "browser.places.speculativeConnect.enabled": false,
        // Search suggestions and other address-bar lookups.
        "browser.search.suggest.enabled": false,
        "browser.urlbar.suggest.searches": false,
        "browser.urlbar.quicksuggest.enabled": false,
        "browser.urlbar.merino.endpointURL": "",
        // New-tab page, its feeds and sponsored content; other promotions.
        "browser.newtab.preload": false,
        "browser.newtabpage.enabled": false,
        "browser.newtabpage.activity-stream.feeds.section.topstories": false,
        "browser.newtabpage.activity-stream.feeds.topsites": false,
        "browser.newtabpage.activity-stream.feeds.telemetry": false,
        "browser.newtabpage.activity-stream.telemetry": false,
        "browser.newtabpage.activity-stream.showSponsored": false,
        "browser.newtabpage.activity-stream.showSponsoredTopSites": false,
        "browser.topsites.contile.enabled": false,
        "browser.discovery.enabled": false,
        "browser.uitour.enabled": false,
        "browser.vpn_promo.enabled": false,
        "extensions.pocket.enabled": false,
        "identity.fxaccounts.enabled": false,
        "browser.translations.enable": false,
        "browser.ml.enable": false,
        "signon.management.page.breach-alerts.enabled": false,
        // Start-up: a blank page, no default-browser check, no first-run or what's-new pages,
        // no session restore after a crash, no safe-mode prompt after repeated crashes.
        "browser.shell.checkDefaultBrowser": false,
        "browser.startup.page": 0,
        "browser.startup.homepage": "about:blank",
        "browser.startup.homepage_override.mstone": "ignore",
        "browser.startup.firstrunSkipsHomepage": true,
        "startup.homepage_welcome_url": "about:blank",
        "startup.homepage_welcome_url.additional": "",
        "browser.aboutwelcome.enabled": false,
        "browser.preonboarding.enabled": false,
        "termsofuse.bypassNotification": true,
        "browser.sessionstore.resume_from_crash": false,
        "toolkit.startup.max_resumed_crashes": -1,
        "browser.warnOnQuit": false,
        "browser.tabs.warnOnClose": false,
    ]
}
