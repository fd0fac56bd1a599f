//! RFC 6570 URI templates, read backwards: which variables make a template
//! expand to a given URI.
//!
//! A URI matches when some values of the variables expand to it exactly, as
//! RFC 6570 expands them: a value holds the characters its operator leaves
//! as they are (unreserved ones; for `+` and `#`, reserved ones too) and
//! percent-encoded bytes. Levels 1 to 3 and the prefix modifier are read;
//! the explode modifier is refused when the template is parsed. Where a URI
//! could split in several ways, earlier variables take as much as they can
//! (`file:///{+dir}/{name}` reads `a/b/c` as dir `a/b`, name `c`), and a
//! variable left out of the URI is left out of the variables.

use std::collections::BTreeMap;

/// An operator of RFC 6570 and how it writes values.
struct Op {
    c: u8,
    first: &'static str,
    sep: &'static str,
    named: bool,
    /// An empty named value is written `name=` (else `name`).
    empty_eq: bool,
    /// Reserved characters stay as they are.
    reserved: bool,
}

const fn op(
    c: u8,
    first: &'static str,
    sep: &'static str,
    named: bool,
    empty_eq: bool,
    reserved: bool,
) -> Op {
    Op {
        c,
        first,
        sep,
        named,
        empty_eq,
        reserved,
    }
}

static OPS: [Op; 8] = [
    op(0, "", ",", false, false, false),
    op(b'+', "", ",", false, false, true),
    op(b'#', "#", ",", false, false, true),
    op(b'.', ".", ".", false, false, false),
    op(b'/', "/", "/", false, false, false),
    op(b';', ";", ";", true, false, false),
    op(b'?', "?", "&", true, true, false),
    op(b'&', "&", "&", true, true, false),
];

struct Var {
    name: String,
    /// The prefix modifier's length, or 0.
    max: usize,
}

enum Part {
    Literal(String),
    /// An expression of `n` variables from `vars[first]`.
    Expr {
        op: &'static Op,
        first: usize,
        n: usize,
    },
}

/// A parsed template.
pub(crate) struct UriTemplate {
    parts: Vec<(Part, usize)>, // each with the index of its first memo state
    vars: Vec<Var>,
    states: usize,
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

fn pct(s: &[u8]) -> bool {
    s.len() >= 3 && s[0] == b'%' && hex(s[1]).is_some() && hex(s[2]).is_some()
}

fn parse_var(spec: &str) -> Result<Var, &'static str> {
    let (name, modifier) = match spec.find(|c| c == ':' || c == '*') {
        Some(i) => (&spec[..i], &spec[i..]),
        None => (spec, ""),
    };
    let b = name.as_bytes();
    let (mut i, mut dot_ok) = (0, false);
    while i < b.len() {
        if b[i] == b'.' && dot_ok {
            dot_ok = false;
            i += 1;
        } else if b[i].is_ascii_alphanumeric() || b[i] == b'_' {
            dot_ok = true;
            i += 1;
        } else if pct(&b[i..]) {
            dot_ok = true;
            i += 3;
        } else {
            return Err(
                "a variable name holds a character other than letters, digits, _, . and %XX",
            );
        }
    }
    if !dot_ok {
        return Err("a variable name is empty or ends with '.'");
    }
    if modifier.starts_with('*') {
        return Err("the explode modifier (*) is not supported: use {+var} for a path");
    }
    let mut max = 0;
    if let Some(digits) = modifier.strip_prefix(':') {
        if digits.is_empty()
            || digits.len() > 4
            || digits.starts_with('0')
            || !digits.bytes().all(|c| c.is_ascii_digit())
        {
            return Err("a prefix modifier must be :1 to :9999");
        }
        max = digits.parse().unwrap_or(0);
    }
    Ok(Var {
        name: name.to_string(),
        max,
    })
}

impl UriTemplate {
    /// Parses `text`, or says why the SDK cannot match it.
    pub(crate) fn parse(text: &str) -> Result<UriTemplate, &'static str> {
        let mut t = UriTemplate {
            parts: Vec::new(),
            vars: Vec::new(),
            states: 0,
        };
        let mut rest = text;
        while !rest.is_empty() {
            let state = t.states;
            if !rest.starts_with('{') {
                let end = rest.find(|c| c == '{' || c == '}').unwrap_or(rest.len());
                if rest[end..].starts_with('}') {
                    return Err("a '}' without its '{'");
                }
                t.parts
                    .push((Part::Literal(rest[..end].to_string()), state));
                t.states += 1;
                rest = &rest[end..];
                continue;
            }
            let end = match rest.find('}') {
                Some(end) if !rest[1..end].contains('{') => end,
                _ => return Err("a '{' without its '}'"),
            };
            let mut body = &rest[1..end];
            let op = match OPS[1..]
                .iter()
                .find(|o| body.as_bytes().first() == Some(&o.c))
            {
                Some(o) => {
                    body = &body[1..];
                    o
                }
                None => &OPS[0],
            };
            if body.starts_with(|c| "=,!@|".contains(c)) {
                return Err("the operators = , ! @ | are reserved");
            }
            let first = t.vars.len();
            for spec in body.split(',') {
                let v = parse_var(spec)?;
                if t.vars.iter().any(|w| w.name == v.name) {
                    return Err("a variable appears twice");
                }
                t.vars.push(v);
            }
            let n = t.vars.len() - first;
            t.parts.push((Part::Expr { op, first, n }, state));
            t.states += 2 * n; // each variable, before or after the first value
            rest = &rest[end + 1..];
        }
        Ok(t)
    }

    /// Reports whether the template has the variable `name`.
    pub(crate) fn has_var(&self, name: &str) -> bool {
        self.vars.iter().any(|v| v.name == name)
    }

    /// The variables that make the template expand to `uri`, percent-decoded,
    /// or `None` when no values do.
    pub(crate) fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut m = Matcher {
            t: self,
            u: uri.as_bytes(),
            failed: vec![0u8; (self.states * (uri.len() + 1)) / 8 + 1],
            cap: vec![None; self.vars.len()],
        };
        if !m.matches(0, 0, false, 0) {
            return None;
        }
        let mut vars = BTreeMap::new();
        for (v, cap) in self.vars.iter().zip(&m.cap) {
            if let Some((start, end)) = *cap {
                vars.insert(v.name.clone(), decode(&m.u[start..end]));
            }
        }
        Some(vars)
    }
}

fn decode(s: &[u8]) -> String {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' {
            out.push(hex(s[i + 1]).unwrap_or(0) << 4 | hex(s[i + 2]).unwrap_or(0));
            i += 3;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    // Each byte of no valid UTF-8 sequence becomes U+FFFD, as the C SDK's
    // JSON writer has it (from_utf8_lossy would make one of a truncated
    // sequence).
    let (mut text, mut rest) = (String::with_capacity(out.len()), &out[..]);
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => return text + s,
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                text.push('\u{FFFD}');
                rest = &after[1..];
            }
        }
    }
}

fn allowed(c: u8, reserved: bool) -> bool {
    c.is_ascii_alphanumeric()
        || b"-._~".contains(&c)
        || (reserved && b":/?#[]@!$&'()*+,;=".contains(&c))
}

struct Matcher<'a> {
    t: &'a UriTemplate,
    u: &'a [u8],
    /// A bit per state and position: known not to match.
    failed: Vec<u8>,
    cap: Vec<Option<(usize, usize)>>,
}

impl Matcher<'_> {
    fn has(&self, pos: usize, s: &str) -> bool {
        self.u[pos..].starts_with(s.as_bytes())
    }

    /// Reports whether the URI from `pos` is an expansion of the template
    /// from variable `vi` of part `pi`, `started` telling whether the part
    /// has written a value already. Failures are remembered, so that no
    /// state is tried twice at a position: the work grows with the URI's
    /// length squared at most.
    fn matches(&mut self, pi: usize, vi: usize, started: bool, pos: usize) -> bool {
        let t = self.t;
        let (part, state) = match t.parts.get(pi) {
            Some(p) => p,
            None => return pos == self.u.len(),
        };
        let state = match part {
            Part::Expr { n, .. } if vi == *n => return self.matches(pi + 1, 0, false, pos),
            Part::Expr { .. } => state + 2 * vi + started as usize,
            Part::Literal(_) => *state,
        };
        let bit = state * (self.u.len() + 1) + pos;
        if self.failed[bit / 8] >> (bit % 8) & 1 == 1 {
            return false;
        }
        let ok = match part {
            Part::Literal(s) => self.has(pos, s) && self.matches(pi + 1, 0, false, pos + s.len()),
            Part::Expr { op, first, .. } => {
                self.present(pi, op, first + vi, vi, started, pos)
                    || self.matches(pi, vi + 1, started, pos)
            }
        };
        if !ok {
            self.failed[bit / 8] |= 1 << (bit % 8);
        }
        ok
    }

    /// Tries variable `var` (the `vi`th of part `pi`) as written at `pos`.
    fn present(
        &mut self,
        pi: usize,
        op: &Op,
        var: usize,
        vi: usize,
        started: bool,
        mut pos: usize,
    ) -> bool {
        let lead = if started { op.sep } else { op.first };
        if !self.has(pos, lead) {
            return false;
        }
        pos += lead.len();
        if !op.named {
            return self.value(pi, op, var, vi, pos);
        }
        let t = self.t;
        if !self.has(pos, &t.vars[var].name) {
            return false;
        }
        pos += t.vars[var].name.len();
        if self.has(pos, "=") {
            return self.value(pi, op, var, vi, pos + 1);
        }
        if op.empty_eq || !self.matches(pi, vi + 1, true, pos) {
            return false;
        }
        self.cap[var] = Some((pos, pos));
        true
    }

    /// Tries the values that may start at `pos`, longest first, and the rest
    /// of the template after each.
    fn value(&mut self, pi: usize, op: &Op, var: usize, vi: usize, pos: usize) -> bool {
        let max = self.t.vars[var].max;
        let (mut end, mut chars) = (pos, 0);
        while end < self.u.len() {
            let step = if pct(&self.u[end..]) {
                3
            } else if allowed(self.u[end], op.reserved) {
                1
            } else {
                break;
            };
            // The prefix modifier counts characters: a UTF-8 continuation
            // byte is part of the one before.
            let b = if step == 3 {
                hex(self.u[end + 1]).unwrap_or(0) << 4 | hex(self.u[end + 2]).unwrap_or(0)
            } else {
                0
            };
            if !(0x80..0xC0).contains(&b) {
                if max > 0 && chars == max {
                    break;
                }
                chars += 1;
            }
            end += step;
        }
        for q in (pos..=end).rev() {
            // Every '%' in the span starts a triplet: no end falls inside one.
            if (q > pos && self.u[q - 1] == b'%') || (q > pos + 1 && self.u[q - 2] == b'%') {
                continue;
            }
            if self.matches(pi, vi + 1, true, q) {
                self.cap[var] = Some((pos, q));
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::UriTemplate;

    fn vars(template: &str, uri: &str) -> Option<String> {
        let t = UriTemplate::parse(template).unwrap();
        t.matches(uri).map(|v| serde_json::to_string(&v).unwrap())
    }

    #[test]
    fn matches() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            (
                "file:///{+path}",
                "file:///a/b/c.txt",
                Some(r#"{"path":"a/b/c.txt"}"#),
            ),
            (
                "file:///{+path}",
                "file:///a%20b",
                Some(r#"{"path":"a b"}"#),
            ),
            (
                "file:///{+path}",
                "file:///caf%C3%A9?x=1&y=:@!",
                Some(r#"{"path":"café?x=1&y=:@!"}"#),
            ),
            ("file:///{+path}", "file:///", Some(r#"{"path":""}"#)),
            ("file:///{+path}", "file:///a b", None),
            ("file:///{+path}", "file:///a%2", None),
            ("file:///docs/{name}", "file:///docs/a/b", None),
            (
                "file:///docs/{name}",
                "file:///docs/a%2Fb",
                Some(r#"{"name":"a/b"}"#),
            ),
            (
                "notes://{id}{?lang,fmt}",
                "notes://42",
                Some(r#"{"id":"42"}"#),
            ),
            (
                "notes://{id}{?lang,fmt}",
                "notes://42?lang=fr&fmt=md",
                Some(r#"{"fmt":"md","id":"42","lang":"fr"}"#),
            ),
            (
                "notes://{id}{?lang,fmt}",
                "notes://42?fmt=md",
                Some(r#"{"fmt":"md","id":"42"}"#),
            ),
            (
                "notes://{id}{?lang,fmt}",
                "notes://42?lang=",
                Some(r#"{"id":"42","lang":""}"#),
            ),
            ("notes://{id}{?lang,fmt}", "notes://42?fmt=md&lang=fr", None),
            (
                "x://{a}.{b}/{c}{#f}",
                "x://host.example.com/p#f/r?ag",
                Some(r#"{"a":"host.example","b":"com","c":"p","f":"f/r?ag"}"#),
            ),
            (
                "y:{/seg,more}{.ext}{;p,q}{&r}",
                "y:/a/b.md;p=1;q&r=2",
                Some(r#"{"more":"b.md","p":"1","q":"","r":"2","seg":"a"}"#),
            ),
            (
                "y:{/seg,more}{.ext}{;p,q}{&r}",
                "y:.md",
                Some(r#"{"ext":"md"}"#),
            ),
            ("y:{/seg,more}{.ext}{;p,q}{&r}", "y:", Some("{}")),
            (
                "z:{short:3}-{rest}",
                "z:abc-d",
                Some(r#"{"rest":"d","short":"abc"}"#),
            ),
            ("z:{short:3}-{rest}", "z:abcd-e", None),
            (
                "z:{short:3}-{rest}",
                "z:%C3%A9t%C3%A9-x",
                Some(r#"{"rest":"x","short":"été"}"#),
            ),
        ];
        for (template, uri, want) in cases {
            assert_eq!(
                vars(template, uri).as_deref(),
                *want,
                "{} against {}",
                uri,
                template
            );
        }
        // Bytes of no valid UTF-8 sequence become U+FFFD, each alone.
        let t = UriTemplate::parse("file:///{+path}").unwrap();
        assert_eq!(
            t.matches("file:///%FF%FEa%00b%E2%82").unwrap()["path"],
            "\u{FFFD}\u{FFFD}a\0b\u{FFFD}\u{FFFD}"
        );
        // A long URI does not make matching slow: failures are remembered.
        let long = format!("y:{}", "/".repeat(4096));
        assert_eq!(vars("y:{/seg,more}{.ext}{;p,q}{&r}", &long), None);
    }

    #[test]
    fn refused() {
        for t in [
            "x:{",
            "x:}",
            "x:{}",
            "x:{a*}",
            "x:{a:0}",
            "x:{a:10000}",
            "x:{=a}",
            "x:{a,a}",
            "x:{a b}",
            "x:{a.}",
        ] {
            assert!(UriTemplate::parse(t).is_err(), "{} parsed", t);
        }
        assert!(UriTemplate::parse("x:{a:9999}{+b}").unwrap().has_var("b"));
    }
}
