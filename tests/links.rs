//! The documentation's links and its promises about size and self-containment.
//!
//! Reads `README.md`, `CHANGELOG.md` and every `*.md` under `docs/` and checks:
//!
//! - **No dead link.** Every Markdown link or image `[text](target)` / `![alt](target)` and
//!   every `<img src="target">` whose target is relative (not `http:`, `https:` or `mailto:`)
//!   names a file or directory that exists, relative to the Markdown file's own directory; a
//!   `#fragment` (on its own for the same file, or after a `.md` target) names a heading of
//!   that file, by GitHub's slug rule (lower case; letters, digits, `-` and `_` kept; spaces to
//!   `-`; everything else dropped; `-1`, `-2`, ... for repeated headings). Links inside code
//!   (fenced blocks and inline code spans) are not links and are skipped.
//! - **A short README and short pages.** `README.md` has at most [`README_MAX_LINES`] lines, and
//!   no page of `docs/` more than [`PAGE_MAX_LINES`]: a page is a guide, and the history behind
//!   it lives in the lab's records (`lab/records/history/`).
//! - **Nothing outside the repository.** A fresh clone has no `../shared` (this project's
//!   machines' extras: the match runner, the books, the full Syzygy set) and no `/work/`. The
//!   rule: a line that mentions `../shared` or `/work/` must also contain the word `extras`
//!   (any case), so that every such mention says it is one of the project machines' extras.
//!   The lab's records (`lab/records/`) are not read: they are kept as they were written.
//!
//! Every failure is collected first, so one run lists every dead link and every offending line.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The README's size limit, in lines.
const README_MAX_LINES: usize = 300;

/// The size limit of a page in `docs/`, in lines.
const PAGE_MAX_LINES: usize = 300;

/// Paths that only exist on this project's machines.
const OUTSIDE: &[&str] = &["../shared", "/work/"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `README.md`, `CHANGELOG.md` and every `*.md` under `docs/`, sorted.
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "md") {
                out.push(path);
            }
        }
    }
    let mut files = vec![root().join("README.md"), root().join("CHANGELOG.md")];
    walk(&root().join("docs"), &mut files);
    files
}

/// The path relative to the repository, for messages.
fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The text with fenced code blocks and inline code spans replaced by spaces (newlines kept,
/// so byte offsets still give the right line numbers).
fn without_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<String> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let marker: String = trimmed
            .chars()
            .take_while(|&c| c == '`' || c == '~')
            .collect();
        let opens =
            marker.len() >= 3 && marker.chars().all(|c| c == marker.chars().next().unwrap());
        match &fence {
            Some(open) => {
                if opens
                    && marker.starts_with(open.as_str())
                    && trimmed[marker.len()..].trim().is_empty()
                {
                    fence = None;
                }
                out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            }
            None if opens => {
                fence = Some(marker);
                out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            }
            None => out.push_str(line),
        }
    }
    blank_code_spans(&out)
}

/// Replaces inline code spans (a run of backticks to the next run of the same length, within
/// one paragraph) by spaces.
fn blank_code_spans(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i] == b'`' {
            i += 1;
        }
        let run = i - start;
        // Look for the closing run of the same length before a blank line.
        let mut j = i;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'\n' && bytes.get(j + 1) == Some(&b'\n') {
                break;
            }
            if bytes[j] == b'`' {
                let k = j;
                while j < bytes.len() && bytes[j] == b'`' {
                    j += 1;
                }
                if j - k == run {
                    close = Some(j);
                    break;
                }
            } else {
                j += 1;
            }
        }
        if let Some(end) = close {
            for b in &mut out[start..end] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
            i = end;
        }
    }
    // Only ASCII bytes were replaced by ASCII spaces, so the text is still UTF-8.
    String::from_utf8(out).expect("blanking ASCII keeps UTF-8")
}

/// A link found in a file: its line and its target as written.
struct Link {
    line: usize,
    target: String,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// Every `[text](target)` (images included) and `<img src="target">` outside code.
fn links(text: &str) -> Vec<Link> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for (open, _) in text.match_indices('[') {
        if open > 0 && bytes[open - 1] == b'\\' {
            continue;
        }
        // The matching `]`, brackets nested, not across a blank line.
        let mut depth = 0usize;
        let mut close = None;
        for (k, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'[' => depth += 1,
                b']' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(k);
                        break;
                    }
                }
                b'\n' if bytes.get(k + 1) == Some(&b'\n') => break,
                _ => {}
            }
        }
        let Some(close) = close else { continue };
        if bytes.get(close + 1) != Some(&b'(') {
            continue;
        }
        let rest = &text[close + 2..];
        let target = if let Some(inner) = rest.strip_prefix('<') {
            inner.split('>').next().unwrap_or("").to_owned()
        } else {
            // Up to whitespace or the `)` that closes the link (parentheses may nest).
            let mut depth = 0usize;
            let mut end = rest.len();
            for (k, c) in rest.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 0 => {
                        end = k;
                        break;
                    }
                    ')' => depth -= 1,
                    c if c.is_whitespace() => {
                        end = k;
                        break;
                    }
                    _ => {}
                }
            }
            rest[..end].to_owned()
        };
        found.push(Link {
            line: line_of(text, open),
            target,
        });
    }
    for (at, _) in text.match_indices("<img") {
        let tag = &text[at..text[at..].find('>').map_or(text.len(), |e| at + e)];
        if let Some(src) = tag.find("src=") {
            let value = &tag[src + 4..];
            let quote = value.chars().next().unwrap_or('"');
            let target = if quote == '"' || quote == '\'' {
                value[1..].split(quote).next().unwrap_or("")
            } else {
                value
                    .split(|c: char| c.is_whitespace())
                    .next()
                    .unwrap_or("")
            };
            found.push(Link {
                line: line_of(text, at),
                target: target.to_owned(),
            });
        }
    }
    found
}

/// GitHub's anchor for a heading's text.
fn slug(heading: &str) -> String {
    // What renders: link text without its target, code without its backticks.
    let mut text = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](") else {
            break;
        };
        let Some(end) = rest[open + mid..].find(')') else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..open + mid]);
        rest = &rest[open + mid + end + 1..];
    }
    text.push_str(rest);
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file: its headings' slugs (repeats numbered as GitHub does) and
/// any `id="..."` / `name="..."` of inline HTML.
fn anchors(text: &str) -> HashSet<String> {
    let plain = without_code(text);
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = HashSet::new();
    // `without_code` keeps every line in place, so the two line iterators stay in step.
    for (line, original) in plain.lines().zip(text.lines()) {
        let trimmed = line.trim_start();
        let hashes = trimmed.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with([' ', '\t']) {
            // Headings keep their code spans: read the heading from the original line.
            let heading = original.trim_start()[hashes..]
                .trim()
                .trim_end_matches('#')
                .trim();
            let base = slug(heading);
            let count = seen.entry(base.clone()).or_insert(0);
            out.insert(if *count == 0 {
                base.clone()
            } else {
                format!("{base}-{count}")
            });
            *count += 1;
        }
        for attr in ["id=\"", "name=\""] {
            for (at, _) in line.match_indices(attr) {
                if let Some(value) = line[at + attr.len()..].split('"').next() {
                    out.insert(value.to_owned());
                }
            }
        }
    }
    out
}

fn is_external(target: &str) -> bool {
    let lower = target.to_ascii_lowercase();
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| lower.starts_with(scheme))
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut texts: HashMap<PathBuf, String> = HashMap::new();
    let files = markdown_files();
    for file in &files {
        let text = fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        texts.insert(file.clone(), text);
    }
    let mut anchor_cache: HashMap<PathBuf, HashSet<String>> = HashMap::new();
    let mut dead = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = &texts[file];
        let dir = file.parent().unwrap();
        for link in links(&without_code(text)) {
            let target = link.target.trim();
            if target.is_empty() || is_external(target) {
                continue;
            }
            checked += 1;
            let (path_part, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target, None),
            };
            let resolved = if path_part.is_empty() {
                file.clone()
            } else {
                dir.join(path_part)
            };
            let place = format!("{}:{}", shown(file), link.line);
            if !resolved.exists() {
                dead.push(format!("{place}: `{target}`: no file {}", shown(&resolved)));
                continue;
            }
            let Some(fragment) = fragment else { continue };
            if resolved.extension().is_none_or(|x| x != "md") {
                continue; // anchors into other kinds of files are not checked
            }
            let resolved = resolved.canonicalize().unwrap();
            let set = anchor_cache.entry(resolved.clone()).or_insert_with(|| {
                let text = fs::read_to_string(&resolved).unwrap();
                anchors(&text)
            });
            if !set.contains(fragment) {
                dead.push(format!(
                    "{place}: `{target}`: no heading with the anchor #{fragment} in {}",
                    shown(&resolved)
                ));
            }
        }
    }
    assert!(
        dead.is_empty(),
        "{} dead link(s) of {checked} relative links checked:\n{}",
        dead.len(),
        dead.join("\n")
    );
    assert!(
        checked > 100,
        "only {checked} relative links found: is the parser broken?"
    );
}

#[test]
fn the_readme_is_short() {
    let text = fs::read_to_string(root().join("README.md")).unwrap();
    let lines = text.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, at most {README_MAX_LINES}: move the detail to docs/"
    );
}

#[test]
fn nothing_points_outside_the_repository_unless_marked_as_extras() {
    let mut bad = Vec::new();
    for file in markdown_files() {
        let text = fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let outside = OUTSIDE.iter().find(|p| line.contains(*p));
            if let Some(path) = outside
                && !line.to_lowercase().contains("extras")
            {
                bad.push(format!(
                    "{}:{}: mentions `{path}`: {}",
                    shown(&file),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} line(s) point outside the repository without saying they are this project's \
         machines' extras (write the file into the repository, or say \"extras\" on the line):\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn slugs_follow_github() {
    for (heading, want) in [
        (
            "Installing (pkg-config, CMake)",
            "installing-pkg-config-cmake",
        ),
        (
            "Longer checks behind `#[ignore]`",
            "longer-checks-behind-ignore",
        ),
        ("The network's scale", "the-networks-scale"),
        (
            "Calibration against Stockfish 15.1",
            "calibration-against-stockfish-151",
        ),
        (
            "Limited strength: `Skill Level` and `UCI_Elo`",
            "limited-strength-skill-level-and-uci_elo",
        ),
        ("See [the docs](docs/x.md) here", "see-the-docs-here"),
    ] {
        assert_eq!(slug(heading), want, "{heading}");
    }
    let text = "# A\n\n```\n# not a heading\n```\n\n## A\n\n## B `c`\n";
    let set = anchors(text);
    for want in ["a", "a-1", "b-c"] {
        assert!(set.contains(want), "{want} in {set:?}");
    }
    assert!(!set.contains("not-a-heading"));
}

#[test]
fn links_in_code_are_not_links() {
    let text = "[a](x.md) `[b](y.md)`\n\n```\n[c](z.md)\n```\n![d](e.png) <img src=\"f.svg\">\n[g\nh](i.md#j)\n";
    let found: Vec<String> = links(&without_code(text))
        .into_iter()
        .map(|l| format!("{}:{}", l.line, l.target))
        .collect();
    assert_eq!(found, ["1:x.md", "6:e.png", "7:i.md#j", "6:f.svg"]);
}

#[test]
fn no_page_is_long() {
    let long: Vec<String> = markdown_files()
        .iter()
        .filter(|f| f.starts_with(root().join("docs")))
        .filter_map(|f| {
            let lines = fs::read_to_string(f).unwrap().lines().count();
            (lines > PAGE_MAX_LINES).then(|| format!("{} ({lines} lines)", shown(f)))
        })
        .collect();
    assert!(
        long.is_empty(),
        "pages over {PAGE_MAX_LINES} lines (move the history to lab/records/history/): {long:?}"
    );
}
