// @theia/cli depends on puppeteer (for `theia test`, which Kairos does not use). Its install step
// would download a Chrome build, which is neither wanted nor reachable: the tests drive the
// system's Chromium through playwright-core instead.
module.exports = { skipDownload: true };
