import * as assert from "node:assert/strict";
import { test } from "node:test";

import { parseJavaVersion } from "../src/java";

test("the major version is read from what `java -version` prints", () => {
  assert.equal(parseJavaVersion('openjdk version "17.0.15" 2025-04-15'), 17);
  assert.equal(parseJavaVersion('openjdk version "21" 2023-09-19'), 21);
  assert.equal(parseJavaVersion('java version "1.8.0_392"'), 8);
  assert.equal(parseJavaVersion("no java here"), undefined);
});

test("the runtime the package carries is used before JAVA_HOME and PATH, unpacked without modes", async () => {
  const fs = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");
  const { findJava } = await import("../src/java");
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "kairos-bundled-java-"));
  try {
    fs.mkdirSync(path.join(home, "bin"));
    const java = path.join(home, "bin", "java");
    // What a runtime of Java 17 prints, from a file left without its execute bit.
    fs.writeFileSync(java, "#!/bin/sh\necho 'openjdk version \"17.0.15\" 2025-04-15' >&2\n", {
      mode: 0o644,
    });
    const found = await findJava("", home);
    assert.equal(typeof found, "object", String(found));
    assert.equal((found as { executable: string }).executable, java);
    assert.ok(fs.statSync(java).mode & 0o100, "made executable");
    // A configured home still comes first.
    const configured = path.join(home, "configured");
    fs.mkdirSync(path.join(configured, "bin"), { recursive: true });
    fs.writeFileSync(
      path.join(configured, "bin", "java"),
      "#!/bin/sh\necho 'openjdk version \"21\" 2023-09-19' >&2\n",
      { mode: 0o755 },
    );
    const chosen = await findJava(configured, home);
    assert.deepEqual(chosen, { executable: path.join(configured, "bin", "java"), version: 21 });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test("a Kairos release on the PATH lends its runtime; a checkout's kairos does not", async () => {
  const fs = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");
  const { releaseHome } = await import("../src/java");
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "kairos-release-"));
  try {
    const release = path.join(root, "local");
    fs.mkdirSync(path.join(release, "bin"), { recursive: true });
    fs.mkdirSync(path.join(release, "share", "kairos", "java", "bin"), { recursive: true });
    fs.writeFileSync(path.join(release, "bin", "kairos"), "#!/bin/sh\n", { mode: 0o755 });
    const checkout = path.join(root, "checkout");
    fs.mkdirSync(checkout);
    fs.writeFileSync(path.join(checkout, "kairos"), "#!/bin/sh\n", { mode: 0o755 });
    // Through a link on the PATH, as `ln -s ~/.local/bin/kairos ~/bin/kairos` makes it.
    const links = path.join(root, "links");
    fs.mkdirSync(links);
    fs.symlinkSync(path.join(release, "bin", "kairos"), path.join(links, "kairos"));
    const nothing = path.join(root, "nothing");
    assert.equal(
      releaseHome([nothing, links, checkout].join(path.delimiter)),
      path.join(release, "share", "kairos"),
    );
    // The first kairos on the PATH decides: a checkout's first, no release.
    assert.equal(releaseHome([checkout, links].join(path.delimiter)), undefined);
    assert.equal(releaseHome(nothing), undefined);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
