//! Numbers in JSON the way Go's encoding/json and JavaScript write them, so
//! that results are byte for byte those of the other SDKs. serde_json writes
//! `18.0` for the double 18 and `1e21` for 1e21; Go writes `18` and `1e+21`.

use serde::Serialize;
use serde_json::ser::Formatter;
use std::io;

/// Formats a finite `v` as Go's encoding/json does: the shortest digits that
/// read back as `v`, in plain notation when 1e-6 <= |v| < 1e21 and in
/// exponent notation otherwise (`12`, `0.5`, `1e+21`, `1.5e-7`). NaN and
/// infinities, which JSON lacks, give `null`.
pub fn format_number(v: f64) -> String {
    if !v.is_finite() {
        return "null".into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // `{:e}` prints the shortest digits that round-trip: "-1.5e-7", "1e21".
    let e = format!("{:e}", v);
    let (mantissa, exp) = e
        .split_once('e')
        .expect("LowerExp always writes an exponent");
    let exp: i32 = exp.parse().expect("LowerExp writes a decimal exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|&c| c != '.').collect();
    let nd = digits.len() as i32;
    let body = if !(-6..21).contains(&exp) {
        let frac = if nd > 1 {
            format!(".{}", &digits[1..])
        } else {
            String::new()
        };
        format!(
            "{}{}e{}{}",
            &digits[..1],
            frac,
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    } else if exp < 0 {
        format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
    } else if nd <= exp + 1 {
        format!("{}{}", digits, "0".repeat((exp + 1 - nd) as usize))
    } else {
        format!(
            "{}.{}",
            &digits[..exp as usize + 1],
            &digits[exp as usize + 1..]
        )
    };
    format!("{}{}", sign, body)
}

/// A serde_json formatter writing compact JSON with [`format_number`]'s
/// numbers.
struct GoFormatter;

impl Formatter for GoFormatter {
    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, v: f64) -> io::Result<()> {
        w.write_all(format_number(v).as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, w: &mut W, v: f32) -> io::Result<()> {
        // The shortest digits of the f32, as Go does for float32.
        let shortest: f64 = v
            .to_string()
            .parse()
            .expect("f32 Display is a valid number");
        w.write_all(format_number(shortest).as_bytes())
    }
}

/// Serializes `value` as compact JSON with Go's number formatting.
pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(128);
    value.serialize(&mut serde_json::Serializer::with_formatter(
        &mut out,
        GoFormatter,
    ))?;
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::format_number;

    #[test]
    fn go_formatting() {
        let cases = [
            (0.0, "0"),
            (-0.0, "-0"),
            (12.0, "12"),
            (-7.0, "-7"),
            (0.5, "0.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e-6, "0.000001"),
            (1.5e-7, "1.5e-7"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (22.5, "22.5"),
            (-1234.5678, "-1234.5678"),
            (f64::NAN, "null"),
        ];
        for (v, want) in cases {
            assert_eq!(format_number(v), want, "format_number({:e})", v);
        }
    }

    #[test]
    fn serializer_uses_go_numbers() {
        let v = serde_json::json!({"a": 18.0, "b": [1e21, 2], "c": 0.25f32});
        assert_eq!(
            super::to_json(&v).unwrap(),
            r#"{"a":18,"b":[1e+21,2],"c":0.25}"#
        );
    }
}
