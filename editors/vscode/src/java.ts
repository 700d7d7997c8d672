// Finding the Java that runs the Kairos language server and command line (Java 17 or later).
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";

export interface JavaFound {
  readonly executable: string;
  readonly version: number;
}

const MINIMUM_VERSION = 17;

/**
 * The Java to use: `configuredHome` (a setting), then `bundledHome` (the runtime a platform
 * package of the extension carries, when it is there), then the runtime of a Kairos release whose
 * `kairos` is on the PATH, then JAVA_HOME, then `java` on PATH.
 */
export async function findJava(
  configuredHome: string,
  bundledHome = "",
): Promise<JavaFound | string> {
  const candidates: string[] = [];
  const executable = process.platform === "win32" ? "java.exe" : "java";
  const bundled = bundledHome !== "" && fs.existsSync(bundledHome) ? bundledHome : "";
  if (bundled !== "") {
    makeExecutable(bundled);
  }
  const release = releaseHome();
  const released = release !== undefined ? path.join(release, "java") : "";
  for (const home of [configuredHome, bundled, released, process.env.JAVA_HOME ?? ""]) {
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

/**
 * The share/kairos directory of the Kairos release whose `kairos` command is on the PATH (its Java
 * runtime, jars and clang-format), if it is one: a checkout's `kairos` has none.
 */
export function releaseHome(searchPath = process.env.PATH ?? ""): string | undefined {
  for (const directory of searchPath.split(path.delimiter)) {
    if (directory === "") {
      continue;
    }
    const command = path.join(directory, "kairos");
    if (!fs.existsSync(command)) {
      continue;
    }
    const home = path.join(path.dirname(fs.realpathSync(command)), "..", "share", "kairos");
    return fs.existsSync(path.join(home, "java", "bin")) ? path.normalize(home) : undefined;
  }
  return undefined;
}

/**
 * The programs of a runtime carried in the package: an extension's files may be unpacked without
 * their modes, and Java starts its helper (lib/jspawnhelper) as a program too.
 */
function makeExecutable(home: string): void {
  const bin = path.join(home, "bin");
  const programs = fs.existsSync(bin)
    ? fs.readdirSync(bin).map((name) => path.join(bin, name))
    : [];
  for (const program of [...programs, path.join(home, "lib", "jspawnhelper")]) {
    ensureExecutable(program);
  }
}

/** Gives `program` its execute permission where it exists without it. */
export function ensureExecutable(program: string): void {
  if (!fs.existsSync(program)) {
    return;
  }
  try {
    fs.accessSync(program, fs.constants.X_OK);
  } catch {
    try {
      fs.chmodSync(program, 0o755);
    } catch {
      // Left as it is: running it then says why.
    }
  }
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
