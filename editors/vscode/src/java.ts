// Finding the Java that runs the Kairos language server and command line (Java 17 or later).
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";

export interface JavaFound {
  readonly executable: string;
  readonly version: number;
}

const MINIMUM_VERSION = 17;

/** The Java to use: `configuredHome` (a setting), then JAVA_HOME, then `java` on PATH. */
export async function findJava(configuredHome: string): Promise<JavaFound | string> {
  const candidates: string[] = [];
  const executable = process.platform === "win32" ? "java.exe" : "java";
  for (const home of [configuredHome, process.env.JAVA_HOME ?? ""]) {
    if (home.trim() !== "") {
      candidates.push(path.join(home.trim(), "bin", executable));
    }
  }
  candidates.push(executable);
  const refused: string[] = [];
  for (const candidate of candidates) {
    if (candidate !== executable && !fs.existsSync(candidate)) {
      refused.push(`${candidate} does not exist`);
      continue;
    }
    const version = await javaVersion(candidate);
    if (version === undefined) {
      refused.push(`${candidate} did not run`);
    } else if (version < MINIMUM_VERSION) {
      refused.push(`${candidate} is Java ${version}`);
    } else {
      return { executable: candidate, version };
    }
  }
  return (
    `Kairos needs Java ${MINIMUM_VERSION} or later to run its language server, and found none ` +
    `(${refused.join("; ")}). Install a JDK or JRE (for example \`apt install ` +
    `openjdk-17-jre-headless\`) or set "kairos.java.home" to one.`
  );
}

/** The major version `java -version` reports, or undefined when it cannot be run. */
function javaVersion(executable: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    execFile(executable, ["-version"], { timeout: 15000 }, (error, _stdout, stderr) => {
      if (error) {
        resolve(undefined);
        return;
      }
      resolve(parseJavaVersion(String(stderr)));
    });
  });
}

/** `openjdk version "17.0.9"` -> 17; `java version "1.8.0_392"` -> 8. */
export function parseJavaVersion(text: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(text);
  if (!match) {
    return undefined;
  }
  const major = Number(match[1]);
  return major === 1 && match[2] !== undefined ? Number(match[2]) : major;
}
