//! The page's verdict section: `--stable`'s profile, the badge, the summary, the
//! measurement mode, the table of criteria and regressions and the baseline's notes.

use std::fmt::Write as _;

use crate::output::svg::esc;
use crate::output::verdict::{Status, Verdict};

/// Regressions listed in the verdict table; further ones are folded (`<details>`).
const SHOWN_REGRESSIONS: usize = 10;

/// The style class of a verdict's status (INCONCLUSIVE: grey, as "none").
fn class_of(s: Status) -> &'static str {
    match s {
        Status::Pass => "pass",
        Status::Fail => "fail",
        Status::Inconclusive => "none",
    }
}

/// The verdict section: `--stable`'s profile (`stable`, [`crate::output::verdict::stable_text`]),
/// the badge, the summary, the table, the notes.
pub(super) fn verdict_section(out: &mut String, verdict: Option<&Verdict>, stable: Option<&str>) {
    out.push_str("<section id=\"verdict\"><h2>Verdict</h2>\n");
    if let Some(st) = stable {
        let _ = writeln!(
            out,
            "<p class=\"stable\" style=\"font-size:17px;background:#d4edda;padding:4px 8px\"><b>{}:</b> {}; {}.</p>",
            crate::output::verdict::STABLE_TITLE,
            esc(st),
            crate::output::verdict::STABLE_RULE
        );
    }
    let Some(v) = verdict else {
        out.push_str("<p><span class=\"badge none\">NONE</span> No criterion (--expect) and no baseline (--baseline) were given.</p></section>\n");
        return;
    };
    let st = v.status();
    let _ = writeln!(
        out,
        "<p><span class=\"badge {}\">{}</span> {}</p>",
        class_of(st),
        st.word(),
        esc(&v.summary())
    );
    if let Some(m) = &v.mode {
        let _ = writeln!(
            out,
            "<p class=\"mode\" style=\"font-size:15px\"><b>Measurement mode:</b> {}</p>",
            esc(&m.text)
        );
        if !m.cache_criteria.is_empty() {
            out.push_str("<ul class=\"cache\" style=\"background:#fff3cd\">");
            for (c, why) in &m.cache_criteria {
                let _ = write!(
                    out,
                    "<li><b>Cache figure:</b> <code>{}</code>: {}</li>",
                    esc(c),
                    esc(why)
                );
            }
            out.push_str("</ul>\n");
        }
    }
    let head = "<table><tr><th>Result</th><th>Check</th><th>Measured</th><th>Bound</th><th>Where</th></tr>\n";
    out.push_str(head);
    // the criteria, the validity row, the baseline's row and the first regressions
    let valid_row = usize::from(v.invalid.is_some());
    let shown = v
        .rows
        .len()
        .min(v.criteria + valid_row + 1 + SHOWN_REGRESSIONS);
    for (i, r) in v.rows.iter().enumerate() {
        if i == shown {
            let _ = write!(
                out,
                "</table>\n<details><summary class=\"note\">{} more regression{}</summary>{head}",
                v.rows.len() - shown,
                if v.rows.len() - shown == 1 { "" } else { "s" }
            );
        }
        let _ = writeln!(
            out,
            "<tr><td class=\"{}\">{}</td><td><code>{}</code></td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            class_of(r.status),
            r.status.word(),
            esc(&r.check),
            esc(&r.measured),
            esc(&r.bound),
            esc(&r.place)
        );
    }
    out.push_str(if v.rows.len() > shown {
        "</table></details>\n"
    } else {
        "</table>\n"
    });
    let notes = v.notes();
    if !notes.is_empty() {
        let open = if notes.len() <= 10 {
            " open=\"open\""
        } else {
            ""
        };
        let _ = write!(
            out,
            "<details{open}><summary class=\"note\">{} note{} on the baseline</summary><ul>",
            notes.len(),
            if notes.len() == 1 { "" } else { "s" }
        );
        for n in notes {
            let _ = write!(out, "<li>{}</li>", esc(&n));
        }
        out.push_str("</ul></details>\n");
    }
    out.push_str("</section>\n");
}
