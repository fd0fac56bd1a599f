//! What a module asks the operator for beyond the closed sandbox.

use serde::Serialize;

/// A module's request for capabilities (`abi/ABI.md` section 4), built with
/// chained calls and given to [`Toolbox::permissions`](crate::Toolbox::permissions):
///
/// ```
/// use wasmcp::{Permissions, Toolbox};
///
/// let tools = Toolbox::new().permissions(
///     Permissions::new()
///         .net("https://api.github.com")
///         .fs_writable("/data")
///         .env("TZ")
///         .clock(),
/// );
/// # assert!(tools.describe().unwrap().ends_with(
/// #     r#""permissions":{"fs":[{"path":"/data","write":true}],"env":["TZ"],"clock":true,"net":["https://api.github.com"]}}"#));
/// ```
///
/// The host grants the intersection of the request and the operator's
/// policy, never more; what is not granted fails when used (a file does not
/// open, a request is [denied](crate::HttpError::Denied)).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Permissions {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fs: Vec<FsPermission>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    env: Vec<String>,
    #[serde(skip_serializing_if = "is_false")]
    clock: bool,
    #[serde(skip_serializing_if = "is_false")]
    random: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    net: Vec<String>,
}

/// One directory, at an absolute guest path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
struct FsPermission {
    path: String,
    #[serde(skip_serializing_if = "is_false")]
    write: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Permissions {
    /// An empty request.
    pub fn new() -> Permissions {
        Permissions::default()
    }

    /// Asks for the directory at `path`, an absolute guest path such as
    /// "/data", read-only.
    pub fn fs(self, path: impl Into<String>) -> Permissions {
        self.dir(path.into(), false)
    }

    /// Asks for the directory at `path` with write access.
    pub fn fs_writable(self, path: impl Into<String>) -> Permissions {
        self.dir(path.into(), true)
    }

    fn dir(mut self, path: String, write: bool) -> Permissions {
        self.fs.push(FsPermission { path, write });
        self
    }

    /// Asks to read the environment variable `name`.
    pub fn env(mut self, name: impl Into<String>) -> Permissions {
        self.env.push(name.into());
        self
    }

    /// Asks for the host's real clocks instead of deterministic ones.
    pub fn clock(mut self) -> Permissions {
        self.clock = true;
        self
    }

    /// Asks for a cryptographic random source instead of a deterministic one.
    pub fn random(mut self) -> Permissions {
        self.random = true;
        self
    }

    /// Asks to reach `origin` with [`http`](crate::http()):
    /// `"https://api.example.com"`, `"http://127.0.0.1:8080"`, a host
    /// starting with `*.` for the subdomains of a name, or `"*"` for
    /// whatever origins the operator's policy allows.
    pub fn net(mut self, origin: impl Into<String>) -> Permissions {
        self.net.push(origin.into());
        self
    }

    /// Whether the request asks for nothing.
    pub fn is_empty(&self) -> bool {
        *self == Permissions::default()
    }

    /// Adds `other` to this request: lists are appended, flags set.
    pub(crate) fn merge(&mut self, other: Permissions) {
        self.fs.extend(other.fs);
        self.env.extend(other.env);
        self.clock |= other.clock;
        self.random |= other.random;
        self.net.extend(other.net);
    }

    /// Returns why the host would refuse the request, if it would for a
    /// reason this side can tell.
    pub(crate) fn check(&self) -> Result<(), String> {
        if let Some(f) = self.fs.iter().find(|f| !f.path.starts_with('/')) {
            return Err(format!(
                "permissions: fs {:?}: a path must be absolute",
                f.path
            ));
        }
        if let Some(e) = self.env.iter().find(|e| e.is_empty() || e.contains('=')) {
            return Err(format!(
                "permissions: env {:?}: a name must be non-empty, without '='",
                e
            ));
        }
        if self.net.iter().any(String::is_empty) {
            return Err("permissions: net \"\": an origin must not be empty".into());
        }
        Ok(())
    }
}
