import Foundation
import Testing

/// The documentation as users see it: `Scripts/render-docs` builds the symbol graphs, checks
/// that every public declaration is documented and converts every catalog with warnings as
/// errors; the MovieRecorder site is then served on 127.0.0.1 and its landing page and the
/// Getting Started article are loaded in headless Chromium, which must show their titles.
///
/// The render builds the library once more in `.build/docs-test` (about a minute), a folder of
/// its own so it does not wait for the lock `swift test` holds on `.build`.
@Suite struct DocsSiteTests {
    @Test func theRenderedSiteShowsTheLandingPageAndAnArticle() throws {
        let root = URL(fileURLWithPath: fixturesDirectory).deletingLastPathComponent().path
        let site = root + "/.build/docs-test-site"
        let render = try run(root + "/Scripts/render-docs", [site, root + "/.build/docs-test"])
        #expect(render.status == 0, "render-docs failed:\n\(render.output)\n\(render.error)")
        #expect(render.output.contains("0 undocumented"), "\(render.output)")
        guard render.status == 0 else { return }
        let check = try run("/usr/bin/python3", [root + "/Scripts/check-docs-site.py", site + "/MovieRecorder"])
        #expect(check.status == 0, "\(check.output)\n\(check.error)")
        #expect(check.output.contains("title \"Getting started | Documentation\""), "\(check.output)")
    }
}
