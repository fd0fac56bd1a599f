// What a module asks the operator for beyond the closed sandbox: the
// "permissions" of its describe document (ABI.md section 4).

import { JSONArray, JSONObject, JSONString } from "./json";

/** One directory a module asks for, at an absolute guest path. */
export class FSPermission {
  /** write asks for write access; without it the directory is read-only. */
  constructor(public path: string, public write: bool = false) {}
}

/** Permissions is a request for directories, environment variables, the
 * real clock, real randomness and network origins. Build one with the
 * with methods and pass it to requestPermissions. */
export class Permissions {
  fs: FSPermission[] = [];
  env: string[] = [];
  clock: bool = false;
  random: bool = false;
  net: string[] = [];

  /** Asks for the directory at path (absolute, as the guest opens it). */
  withFS(path: string, write: bool = false): Permissions {
    this.fs.push(new FSPermission(path, write));
    return this;
  }
  /** Asks to read the environment variables names. */
  withEnv(names: string[]): Permissions {
    for (let i = 0; i < names.length; i++) this.env.push(names[i]);
    return this;
  }
  /** Asks for the host's real clocks instead of deterministic ones. */
  withClock(): Permissions {
    this.clock = true;
    return this;
  }
  /** Asks for a cryptographic random source instead of a deterministic one. */
  withRandom(): Permissions {
    this.random = true;
    return this;
  }
  /** Asks to reach origins with http: "https://api.example.com",
   * "https://*.example.com" (its subdomains), "http://127.0.0.1:8080", or
   * "*" for whatever the operator's policy allows. */
  withNet(origins: string[]): Permissions {
    for (let i = 0; i < origins.length; i++) this.net.push(origins[i]);
    return this;
  }
}

let requested: Permissions | null = null;

/** requestPermissions adds p to the module's request; call it at the top
 * level of the module, like addTool. Lists are appended, flags set. The
 * host grants the intersection of the request and its operator's policy,
 * never more; what is not granted fails at run time (a file does not open,
 * a request is denied). A request the host finds malformed (a relative
 * path, a bad origin) refuses the module, naming the entry. */
export function requestPermissions(p: Permissions): void {
  let r = requested;
  if (r === null) {
    r = new Permissions();
    requested = r;
  }
  for (let i = 0; i < p.fs.length; i++) r.fs.push(p.fs[i]);
  r.withEnv(p.env).withNet(p.net);
  if (p.clock) r.clock = true;
  if (p.random) r.random = true;
}

function strings(list: string[]): JSONArray {
  const a = new JSONArray();
  for (let i = 0; i < list.length; i++) a.push(new JSONString(list[i]));
  return a;
}

/** permissionsJSON is the describe document's "permissions", or null when
 * the module asked for nothing. */
export function permissionsJSON(): JSONObject | null {
  const r = requested;
  if (r === null) return null;
  const doc = new JSONObject();
  if (r.fs.length > 0) {
    const fs = new JSONArray();
    for (let i = 0; i < r.fs.length; i++) {
      const d = new JSONObject().setString("path", r.fs[i].path);
      if (r.fs[i].write) d.setBool("write", true);
      fs.push(d);
    }
    doc.set("fs", fs);
  }
  if (r.env.length > 0) doc.set("env", strings(r.env));
  if (r.clock) doc.setBool("clock", true);
  if (r.random) doc.setBool("random", true);
  if (r.net.length > 0) doc.set("net", strings(r.net));
  return doc;
}
