//! The linked-instance notice: what other holders of a store changed since
//! this holder's last turn, one line per memory saying where it ended up.

use std::collections::HashMap;

use super::config::Strategy;
use crate::durable::memory_store::{Mutation, RevisionRecord};

/// The notice for `holder` from `revisions` (its pull), or `None` when
/// nobody else changed anything it could have known about.
pub fn render(
    holder: &str,
    revisions: &[RevisionRecord],
    strategy: Strategy,
    read_call: Option<&str>,
) -> Option<String> {
    // Per slug: whether it existed before the first change, and its last state.
    let mut order: Vec<&str> = Vec::new();
    let mut first: HashMap<&str, &RevisionRecord> = HashMap::new();
    let mut last: HashMap<&str, &RevisionRecord> = HashMap::new();
    for r in revisions.iter().filter(|r| r.agent != holder) {
        if !first.contains_key(r.slug.as_str()) {
            order.push(&r.slug);
            first.insert(&r.slug, r);
        }
        last.insert(&r.slug, r);
    }
    let mut lines = Vec::new();
    for slug in order {
        let (first, last) = (first[slug], last[slug]);
        let existed = !first.mutation.makes_new();
        let exists = last.mutation != Mutation::Delete;
        let line = match (existed, exists) {
            (false, true) => format!("- added `{slug}` — {}", last.description),
            (true, true) => format!("- updated `{slug}` — {}", last.description),
            (true, false) => format!("- deleted `{slug}`"),
            // Created and deleted since the holder last looked: it never
            // knew of it, so there is nothing to correct.
            (false, false) => continue,
        };
        lines.push(line);
        if strategy == Strategy::Scratchpad && exists {
            for body_line in last.body.lines() {
                lines.push(format!("  {body_line}"));
            }
        }
    }
    if lines.is_empty() {
        return None;
    }
    let mut out = String::from(
        "Another agent sharing your memories has made changes since your last turn:\n\n",
    );
    out.push_str(&lines.join("\n"));
    out.push('\n');
    match (strategy, read_call) {
        (Strategy::Scratchpad, _) => {
            out.push_str("\nTheir bodies are above; your pinned memories will include them from the next compaction.");
        }
        (_, Some(read)) => out.push_str(&format!(
            "\nRead one with `{read}` if it bears on what you are doing."
        )),
        (_, None) => {}
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rev(seq: i64, slug: &str, mutation: &str, description: &str, agent: &str) -> RevisionRecord {
        RevisionRecord {
            seq,
            slug: slug.into(),
            revision: seq,
            mutation: Mutation::parse(mutation).expect("a mutation"),
            description: description.into(),
            body: format!("body {seq}"),
            agent: agent.into(),
            program: None,
        }
    }

    #[test]
    fn one_line_per_memory_where_it_ended_up_in_the_specs_wording() {
        let revs = vec![
            rev(
                1,
                "deploy-runbook",
                "create",
                "how the staging cluster is rolled",
                "b",
            ),
            rev(2, "api-conventions", "edit", "error envelope", "b"),
            rev(
                3,
                "api-conventions",
                "edit",
                "error envelope + pagination rules",
                "b",
            ),
            rev(4, "scratch-notes", "delete", "x", "b"),
            rev(5, "mine", "create", "my own", "a"),
            rev(6, "fleeting", "create", "gone again", "b"),
            rev(7, "fleeting", "delete", "gone again", "b"),
        ];
        let notice = render("a", &revs, Strategy::Markdown, Some("read_memory")).unwrap();
        assert_eq!(
            notice,
            "Another agent sharing your memories has made changes since your last turn:\n\n\
             - added `deploy-runbook` — how the staging cluster is rolled\n\
             - updated `api-conventions` — error envelope + pagination rules\n\
             - deleted `scratch-notes`\n\n\
             Read one with `read_memory` if it bears on what you are doing."
        );
        assert_eq!(
            render("a", &revs[4..5], Strategy::Markdown, Some("read_memory")),
            None,
            "never about its own writes"
        );
    }

    #[test]
    fn scratchpad_notices_carry_bodies_inline() {
        let revs = vec![rev(1, "n", "write", "d", "b")];
        let notice = render("a", &revs, Strategy::Scratchpad, None).unwrap();
        assert!(notice.contains("- added `n` — d\n  body 1\n"), "{notice}");
    }
}
