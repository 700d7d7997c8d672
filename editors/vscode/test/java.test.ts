import * as assert from "node:assert/strict";
import { test } from "node:test";

import { parseJavaVersion } from "../src/java";

test("the major version is read from what `java -version` prints", () => {
  assert.equal(parseJavaVersion('openjdk version "17.0.15" 2025-04-15'), 17);
  assert.equal(parseJavaVersion('openjdk version "21" 2023-09-19'), 21);
  assert.equal(parseJavaVersion('java version "1.8.0_392"'), 8);
  assert.equal(parseJavaVersion("no java here"), undefined);
});
