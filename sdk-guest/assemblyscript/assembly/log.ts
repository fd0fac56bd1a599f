// Logging through the host, the supported way for a guest to report
// diagnostics: its standard output and error are discarded.

// @ts-ignore: decorator
@external("wasmcp", "log")
declare function hostLog(level: u32, ptr: usize, len: usize): void;

/** Log levels, MCP's (syslog's) severities, least to most severe. */
export enum LogLevel {
  Debug = 0,
  Info = 1,
  Notice = 2,
  Warning = 3,
  Error = 4,
  Critical = 5,
  Alert = 6,
  Emergency = 7,
}

/** The longest log message, in bytes; longer ones are truncated. */
export const MAX_LOG_SIZE: i32 = 64 << 10;

/** log sends one line to the host's log. Lines over 64 KiB are truncated. */
export function log(level: LogLevel, msg: string): void {
  const buf = String.UTF8.encode(msg, false, String.UTF8.ErrorMode.REPLACE);
  let n = buf.byteLength;
  if (n > MAX_LOG_SIZE) {
    n = MAX_LOG_SIZE;
    // Cut on a character boundary: back up over continuation bytes.
    while (n > 0 && (load<u8>(changetype<usize>(buf) + <usize>n) & 0xc0) == 0x80) n--;
  }
  hostLog(<u32>level, changetype<usize>(buf), <usize>n);
}

export function debug(msg: string): void { log(LogLevel.Debug, msg); }
export function info(msg: string): void { log(LogLevel.Info, msg); }
export function warn(msg: string): void { log(LogLevel.Warning, msg); }
export function error(msg: string): void { log(LogLevel.Error, msg); }
