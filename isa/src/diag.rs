//! How every error message shows what the user wrote, so that a hostile input cannot flood the
//! terminal or drive it with control bytes: a value is shown with its non-printable characters
//! escaped and shortened to [`MAX_VALUE_CHARS`] characters, and a position inside a file is
//! `file:line:col` (1-based, the column counted in characters, as the assembler does).

use std::path::Path;

/// The longest value (token, key, name, line) a message shows, in characters.
pub const MAX_VALUE_CHARS: usize = 80;

/// `text` with every non-printable character escaped: `\t`, `\n`, `\r`, `\0`, `\\xNN` for the
/// other ASCII controls and `\u{N}` for Unicode controls, format characters and the
/// replacement character that stands for bytes that were not UTF-8.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    out
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\0' => out.push_str("\\0"),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => {
            out.push_str(&format!("\\x{:02x}", c as u32));
        }
        c if is_invisible(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

/// Characters a terminal does not show as themselves: C1 controls, bidirectional and other
/// format characters, line/paragraph separators, and U+FFFD (a byte that was not UTF-8).
fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x80..=0x9f
        | 0xad
        | 0x200b..=0x200f
        | 0x2028..=0x202e
        | 0x2060..=0x206f
        | 0xfeff
        | 0xfff9..=0xfffb
        | 0xfffd)
}

/// A value as a message shows it: escaped, and if longer than [`MAX_VALUE_CHARS`] characters
/// cut to that many with `...` at the end (and its full length in characters after it).
pub fn value(text: &str) -> String {
    let escaped = escape(text);
    let chars = escaped.chars().count();
    if chars <= MAX_VALUE_CHARS {
        return escaped;
    }
    let kept: String = escaped.chars().take(MAX_VALUE_CHARS - 3).collect();
    format!("{kept}... ({} characters)", text.chars().count())
}

/// The longest path a message shows whole, in characters.
const MAX_PATH_CHARS: usize = 200;

/// A path as a message shows it: escaped, and past [`MAX_PATH_CHARS`] characters its start and
/// its end (the file name) with `...` between them.
pub fn path(p: &Path) -> String {
    let escaped = escape(&p.to_string_lossy());
    let chars: Vec<char> = escaped.chars().collect();
    if chars.len() <= MAX_PATH_CHARS {
        return escaped;
    }
    let head: String = chars[..60].iter().collect();
    let tail: String = chars[chars.len() - 120..].iter().collect();
    format!("{head}...{tail}")
}

/// A message whose values are made safe: every quoted part (between backticks or double
/// quotes, or single quotes that open a word) and every other run of non-blank characters is
/// shown as [`value`] shows it, and control characters other than line breaks are escaped.
/// Messages of other libraries (TOML, serde) quote the user's keys and strings, so this bounds
/// what they echo too. A quoted value may itself hold quotes and blanks (a DOT string such as
/// `"Figure 2's kernel: if (A > 25) ..."`), which splits it into many short words; the whole
/// message is therefore also cut at [`MAX_MESSAGE_CHARS`] characters.
pub fn message(text: &str) -> String {
    let out = bound_values(text);
    let chars = out.chars().count();
    if chars <= MAX_MESSAGE_CHARS {
        return out;
    }
    let kept: String = out.chars().take(MAX_MESSAGE_CHARS).collect();
    format!("{kept}... (message cut, {chars} characters)")
}

/// The longest message [`message`] returns whole, in characters.
pub const MAX_MESSAGE_CHARS: usize = 1000;

fn bound_values(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(1024));
    let mut rest = text;
    let mut word_start = true;
    while let Some(c) = rest.chars().next() {
        if c == '\n' || c == ' ' {
            out.push(c);
            rest = &rest[1..];
            word_start = true;
            continue;
        }
        let opens = c == '`' || c == '"' || (c == '\'' && word_start);
        word_start = false;
        if opens {
            let body = &rest[1..];
            if let Some(end) = body.find(c) {
                out.push(c);
                out.push_str(&value(&body[..end]));
                out.push(c);
                rest = &body[end + 1..];
                continue;
            }
        }
        let end = rest
            .char_indices()
            .skip(1)
            .find(|&(_, d)| d == ' ' || d == '\n' || d == '`' || d == '"')
            .map_or(rest.len(), |(i, _)| i);
        out.push_str(&value(&rest[..end]));
        rest = &rest[end..];
    }
    out
}

/// 1-based line and column (in characters) of byte `offset` of `text` (clamped to its end).
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    (line, before[line_start..].chars().count() + 1)
}

/// A byte count for people: `512 bytes`, `64 KiB`, `1.5 GiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// Parses a size as flags take it: a number of bytes with an optional `K`, `M`, `G` or `T`
/// suffix (powers of 1024; `KiB`, `MB` and lower case are accepted too).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = t[digits.len()..].to_ascii_lowercase();
    let scale: u64 = match unit.as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "`{}`: unknown size unit (use K, M, G or T)",
                value(text)
            ))
        }
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not a size (e.g. 512M, 2G)", value(text)))?;
    n.checked_mul(scale)
        .ok_or_else(|| format!("`{}` is too large", value(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped_and_shortened() {
        assert_eq!(escape("a\tb\x1b[2J\u{202e}"), "a\\tb\\x1b[2J\\u{202e}");
        let long = "x".repeat(1_000_000);
        let shown = value(&long);
        assert!(shown.starts_with("xxx") && shown.ends_with("... (1000000 characters)"));
        assert_eq!(shown.chars().take_while(|&c| c == 'x').count(), 77);
        assert_eq!(value("short"), "short");
    }

    #[test]
    fn messages_bound_every_quoted_value_and_long_word() {
        let key = "k".repeat(500);
        let m = message(&format!("unknown field `{key}`, expected `kernel`"));
        assert!(m.len() < 150, "{m}");
        assert!(m.ends_with("expected `kernel`"), "{m}");
        let m = message(&format!(
            "invalid type: string \"{}\"",
            "a b\u{7}".repeat(100)
        ));
        assert!(m.len() < 150 && m.contains("\\x07"), "{m}");
        assert_eq!(message("line 1\nline 2"), "line 1\nline 2");
        let m = message(&"z".repeat(10_000));
        assert!(m.len() < 120, "{m}");
        let m = message(&format!(
            "node 'b': found '{}' isn't it",
            "q r ".repeat(100)
        ));
        assert!(m.len() < 150 && m.ends_with("' isn't it"), "{m}");
    }

    /// Found by `tests/fuzz_inputs.rs::dot_cfgs`: a quote inside the quoted value ends it early
    /// and leaves many short words, each within bounds.
    #[test]
    fn a_quote_inside_a_value_cannot_unbound_the_message() {
        let m = message(&format!(
            "expected 'digraph', found '// Figure 2's kernel: if (A {}'",
            ">A ".repeat(2000)
        ));
        assert!(m.chars().count() < MAX_MESSAGE_CHARS + 50, "{m}");
        assert!(
            m.starts_with("expected 'digraph', found '// Figure 2's kernel"),
            "{m}"
        );
        assert!(m.ends_with(">A ... (message cut, 6056 characters)"), "{m}");
    }

    #[test]
    fn long_paths_keep_their_ends() {
        let p = format!("/tmp/{}/file.s", "d".repeat(1000));
        let shown = path(Path::new(&p));
        assert!(
            shown.starts_with("/tmp/ddd") && shown.ends_with("ddd/file.s"),
            "{shown}"
        );
        assert_eq!(shown.chars().count(), 183);
        assert_eq!(path(Path::new("k\x1b.s")), "k\\x1b.s");
    }

    #[test]
    fn positions_are_one_based_in_characters() {
        let text = "ab\néé x\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 3), (2, 1));
        assert_eq!(line_col(text, 8), (2, 4));
        assert_eq!(line_col(text, 4), (2, 1), "inside a character: its start");
        assert_eq!(line_col(text, 1000), (3, 1));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("99999999999T").is_err());
        assert_eq!(bytes(64 << 20), "64 MiB");
        assert_eq!(bytes(1536 << 20), "1.5 GiB");
        assert_eq!(bytes(100), "100 bytes");
    }
}
